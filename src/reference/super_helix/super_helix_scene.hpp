#pragma once
// Single-rod scenes with model "super_helix" on the reference backend (docs/scenes.md,
// docs/models/super-helices.md): parse and validate, fit the rod, run it, report.
#include <nlohmann/json.hpp>
#include <vector>

#include "hairsim/strands.hpp"
#include "reference/super_helix/super_helix_rod.hpp"
#include "scene/rod_scene.hpp"

namespace hairsim::super_helix {

// The most elements a rod (rod.elements) or a hairstyle's strand (solver.elements) is fitted by:
// the fit's dense Levenberg-Marquardt grows with their cube (a straight rod of 256 elements and
// 2 steps: 111 s on one core, 0.8 s with 64; with 3000, still running after 2 minutes: the bound
// was 100,000). Its points: scene::fitted_rod_edges.
inline constexpr int kMaxFitElements = 256;

struct SuperHelixScene {
  SuperHelix rod;
  scene::ObstacleGrids obstacle_grids;  // mesh obstacles' samples, which rod.colliders point at
  Method method = Method::recursive;
  bool paper_first_pass = false;
  double length = 1;            // m (the longest root-to-tip path)
  double fit_error = 0;         // m, the fit's largest distance from the rest polyline
  scene::ReducedRun run;        // time step, steps, static mode, trace
  int samples_per_element = 8;  // centreline points per element in --final
};

// Throws Error naming the JSON path of the first bad or unknown field.
SuperHelixScene parse_super_helix_scene(const nlohmann::json& document,
                                        const std::filesystem::path& dir);
// Runs `steps` semi-implicit steps, then, in static mode, Newton to equilibrium. Throws
// RunFailure naming the step on a non-finite state or an equilibrium not reached.
scene::SceneRun run_super_helix_scene(SuperHelixScene& scene);
// The centreline as strands: one per root-to-leaf path.
StrandSet rod_strands(const SuperHelixScene& scene);

}  // namespace hairsim::super_helix
