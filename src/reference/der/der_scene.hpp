#pragma once
// Single-rod DER scenes for the reference backend (docs/scenes.md): parse and validate a scene
// document, build the rod, run it, and report what `hairsim run` writes to summary.json.
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "hairsim/strands.hpp"
#include "reference/der/der_rigid.hpp"
#include "reference/static_stability.hpp"
#include "scene/rod_scene.hpp"

namespace hairsim::der {

struct DerScene {
  std::string backend = "reference";  // reference, cpu, cuda or auto (docs/scenes.md)
  DynamicRod rod;
  std::optional<RigidBody> body;     // welded to the last edge (paper §8)
  std::vector<Vec3> rest_positions;  // the rest shape (for the deviation measures)
  Vec3 clamp_point = Vec3::Zero();   // where the rod's length is measured from (m)
  double length = 1;                 // m
  double dt = 0;                     // s
  int steps = 0;
  bool implicit = false;  // linearly implicit Euler instead of symplectic + projection
  bool static_mode = false;
  double relax_damping = 0;          // 1/s
  double relax_speed_tolerance = 0;  // m/s
  int relax_max_steps = 0;
  // Static mode: whether the equilibrium found is stable (reference/static_stability.hpp).
  std::optional<reference::StabilityCheck> static_check;
  int trace_every = 0;  // steps between rows of trace.csv; 0: no trace
};

using scene::SceneRun;

// Throws Error naming the JSON path of the first bad or unknown field.
DerScene parse_der_scene(const nlohmann::json& document);

// Runs the scene: `steps` steps of the chosen integrator, then, in static mode, dynamic
// relaxation to equilibrium. Throws RunFailure naming the step when the state becomes
// non-finite or the relaxation does not converge.
SceneRun run_der_scene(DerScene& scene);

// summary.json of the scene's current state after `steps` steps and `wall` seconds.
nlohmann::json scene_summary(const DerScene& scene, int steps, double wall);

// The rod's centerline as a one-strand StrandSet (for --final).
StrandSet rod_strands(const DynamicRod& rod);

}  // namespace hairsim::der
