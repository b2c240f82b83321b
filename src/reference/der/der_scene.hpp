#pragma once
// Single-rod DER scenes for the reference backend (docs/scenes.md): parse and validate a scene
// document, build the rod, run it, and report what `hairsim run` writes to summary.json.
#include <nlohmann/json.hpp>

#include "hairsim/strands.hpp"
#include "reference/der/der_dynamics.hpp"

namespace hairsim::der {

struct DerScene {
  DynamicRod rod;
  Vec3 clamp_point = Vec3::Zero();  // where the rod's length is measured from (m)
  double length = 1;                // m
  double dt = 0;                    // s
  int steps = 0;
  bool implicit = false;  // linearly implicit Euler instead of symplectic + projection
  bool static_mode = false;
  double relax_damping = 0;          // 1/s
  double relax_speed_tolerance = 0;  // m/s
  int relax_max_steps = 0;
};

// Throws Error naming the JSON path of the first bad or unknown field.
DerScene parse_der_scene(const nlohmann::json& document);

// Runs the scene: `steps` symplectic steps, or dynamic relaxation in static mode. Throws
// RunFailure naming the step when the state becomes non-finite.
nlohmann::json run_der_scene(DerScene& scene);

// The rod's centerline as a one-strand StrandSet (for --final).
StrandSet rod_strands(const DynamicRod& rod);

}  // namespace hairsim::der
