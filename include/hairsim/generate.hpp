#pragma once
// Procedural hairstyles on an ellipsoid head (y up, face towards +z).
#include <cstdint>
#include <string_view>

#include "hairsim/strands.hpp"

namespace hairsim {

enum class HairStyle { straight, wavy, curly };
HairStyle parse_hair_style(std::string_view text, const std::string& where = "--style");

struct HairstyleParams {
  HairStyle style = HairStyle::straight;
  int strands = 1000;
  int vertices = 32;                     // per strand, >= 2
  double length = 0.25;                  // arc length of each strand (m), +-10 % per strand
  Vec3 head_radii{0.075, 0.095, 0.095};  // ellipsoid semi-axes x, y, z (m)
  double wave_amplitude = 0.008;         // wavy: sideways amplitude (m)
  double wave_length = 0.05;             // wavy: wavelength along the strand (m)
  double curl_radius = 0.006;            // curly: helix radius (m)
  double curl_pitch = 0.018;             // curly: rise per turn (m)
  std::uint64_t seed = 1;
};

// Deterministic for a given parameter set (whatever the thread count). Roots are area-uniform
// on the scalp region of the ellipsoid; strands grow out along the normal and fall over the
// head. Throws Error on non-physical parameters.
StrandSet generate_hairstyle(const HairstyleParams& params);

}  // namespace hairsim
