#pragma once
// Single-rod scenes with model "super_clothoid" on the reference backend (docs/scenes.md,
// docs/models/super-clothoids.md): parse and validate, build the rod, run it, report.
#include <filesystem>
#include <nlohmann/json.hpp>

#include "hairsim/strands.hpp"
#include "reference/super_clothoid/clothoid_dynamics.hpp"
#include "scene/rod_scene.hpp"

namespace hairsim::super_clothoid {

// The most elements a rod (rod.elements) or a hairstyle's strand (solver.elements) is fitted by
// on the reference backend: the dense 3(N + 1) systems of the steps and of the fit's
// Levenberg-Marquardt grow with the cube of the elements (2 steps of a straight rod, no fit:
// 0.5 s on one core with 64 elements, 19.5 s with 256; the bound was 10,000). A polyline's
// points: scene::fitted_rod_edges.
inline constexpr int kMaxFitElements = 64;

struct SuperClothoidScene {
  ClothoidRod rod;
  scene::ObstacleGrids obstacle_grids;  // mesh obstacles' samples, which rod.colliders point at
  double length = 1;                    // m
  double fit_error = 0;                 // m, a polyline fit's largest distance from its points
  scene::ReducedRun run;                // time step, steps, static mode, trace
  int samples_per_element = 8;          // centreline points per element in --final
};

// Throws Error naming the JSON path of the first bad or unknown field.
SuperClothoidScene parse_super_clothoid_scene(const nlohmann::json& document,
                                              const std::filesystem::path& dir);
// Runs `steps` semi-implicit steps, then, in static mode, Newton to equilibrium.
scene::SceneRun run_super_clothoid_scene(SuperClothoidScene& scene);
// The centreline as one strand.
StrandSet rod_strands(const SuperClothoidScene& scene);

}  // namespace hairsim::super_clothoid
