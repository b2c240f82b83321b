#pragma once
// Single-rod scenes with model "cosserat" on the reference backend (docs/scenes.md): parse and
// validate, build the rod, run it, and report what `hairsim run` writes (summary.json, trace.csv).
#include <nlohmann/json.hpp>
#include <optional>
#include <vector>

#include "hairsim/strands.hpp"
#include "reference/cosserat/cosserat_dynamics.hpp"
#include "reference/static_stability.hpp"
#include "scene/rod_scene.hpp"

namespace hairsim::cosserat {

struct CosseratScene {
  CosseratRod rod;
  scene::ObstacleGrids obstacle_grids;  // mesh obstacles' samples, which rod.obstacles point at
  SolverSettings solver;
  std::vector<Vec3> rest_positions;  // the rest shape (for the deviation measures)
  Vec3 clamp_point = Vec3::Zero();   // where the rod's length is measured from (m)
  double length = 1;                 // m
  double dt = 0;                     // s
  int steps = 0;
  bool static_mode = false;
  // Static mode: whether the equilibrium found is stable (reference/static_stability.hpp).
  std::optional<reference::StabilityCheck> static_check;
  double static_tolerance = 0;  // m: equilibrium when no vertex moves more in a step
  int static_max_steps = 0;
  int trace_every = 0;  // steps between rows of trace.csv; 0: no trace
};

// Throws Error naming the JSON path of the first bad or unknown field.
CosseratScene parse_cosserat_scene(const nlohmann::json& document,
                                   const std::filesystem::path& dir);
// Runs `steps` implicit steps, then, in static mode, proximal steps to equilibrium. Throws
// RunFailure naming the step on a non-finite state or an equilibrium not reached.
scene::SceneRun run_cosserat_scene(CosseratScene& scene);
// The rod's centerline as a one-strand StrandSet (for --final).
StrandSet rod_strands(const CosseratRod& rod);

}  // namespace hairsim::cosserat
