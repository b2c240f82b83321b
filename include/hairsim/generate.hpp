#pragma once
// Procedural hairstyles on an ellipsoid head (y up, face towards +z) or on the scalp of a head
// mesh (any up and face directions).
#include <cstdint>
#include <string_view>
#include <vector>

#include "hairsim/mesh.hpp"
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

  // Grown on a head mesh instead of the ellipsoid (docs/architecture.md, "Hair on a mesh
  // scalp"): roots area-uniform on the scalp's triangles, strands draped over the mesh's
  // distance field. The mesh must outlive the call.
  const TriangleMesh* scalp = nullptr;
  // The scalp: the triangles listed in `scalp_faces`, else those whose three vertices lie on
  // the side of the cap plane (through `cap_point`, normal `cap_normal`) the normal points to;
  // a zero `cap_normal`: every triangle.
  std::vector<int> scalp_faces;
  Vec3 cap_point = Vec3::Zero();
  Vec3 cap_normal = Vec3::Zero();
  double density = 0;  // strands per m² of scalp; > 0: strands = round(density x area)
  Vec3 up = Vec3::UnitY(), front = Vec3::UnitZ();  // mesh heads: the head's up and face sides
  int scalp_resolution = 96;  // cells of the drape's distance grid along the mesh's longest side
};

// Deterministic for a given parameter set (whatever the thread count). Roots are area-uniform
// on the scalp region of the ellipsoid; strands grow out along the normal and fall over the
// head. Throws Error on non-physical parameters.
StrandSet generate_hairstyle(const HairstyleParams& params);

// The scalp triangles of a mesh style (the indices) and their total area (m²). Throws Error
// naming the field when the region selects nothing or a listed face does not exist.
std::vector<int> scalp_triangles(const HairstyleParams& params);
double scalp_area(const HairstyleParams& params);

// `count` roots drawn as the style's roots are (area-uniform on its scalp), from streams of
// `seed` other than the strands' own: render-strand roots exactly on the scalp.
std::vector<Vec3> sample_scalp_roots(const HairstyleParams& params, int count, std::uint64_t seed);

}  // namespace hairsim
