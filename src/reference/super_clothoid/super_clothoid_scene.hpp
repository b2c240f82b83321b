#pragma once
// Single-rod scenes with model "super_clothoid" on the reference backend (docs/scenes.md,
// docs/models/super-clothoids.md): parse and validate, build the rod, run it, report.
#include <filesystem>
#include <nlohmann/json.hpp>

#include "hairsim/strands.hpp"
#include "reference/super_clothoid/clothoid_dynamics.hpp"
#include "scene/rod_scene.hpp"

namespace hairsim::super_clothoid {

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
