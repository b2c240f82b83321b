#pragma once
// Super Space Clothoids on hairstyles: the model's settings and the reference rods of a setup
// (each strand fitted by clothoid elements), shared by its simulators.
#include <vector>

#include "engine/reduced_rod_settings.hpp"
#include "engine/simulator.hpp"
#include "reference/super_clothoid/clothoid_dynamics.hpp"

namespace hairsim::models {

// solver.* of a hairstyle scene with "model": "super_clothoid" (docs/scenes.md): the reduced
// models' settings, 16 clothoid elements a strand by default. With 8, the affine curvature of
// the first element missed the turn where the soak's generated strands leave the scalp: their
// fits started 1.8 mm inside the head and a point near a root stayed 0.58 mm in (the soak's
// bound: 0.5 mm); with 16, 0.25 mm at worst over the soak's quick run (2026-11-26).
struct SuperClothoidSettings : engine::ReducedRodSettings {
  SuperClothoidSettings() { elements = 16; }
};

// One reference rod per strand of the setup: the strand fitted by `elements` equal clothoid
// elements (super_clothoid::fit_polyline: coarse to fine, the node curvatures and the root
// frame's rotation by least squares on the strand's points), its clamp carried by the head, the
// head's colliders its obstacles. At rest on its fit, or, when the setup asks for sag-free rest
// shapes, with the rest curvatures that hold the fit under gravity
// (super_clothoid::hold_shape). `measures`: the fit's largest point distance (fit_max_error_m,
// m) and the sag-free solve's (engine/sag_free.hpp).
std::vector<super_clothoid::ClothoidRod> clothoid_rods(const engine::HairSetup& setup,
                                                       engine::SetupMeasures* measures = nullptr);

// The arc lengths of a rod's `vertices` output points: equally spaced from the root to the tip.
std::vector<double> sample_arcs(const super_clothoid::ClothoidRod& rod, int vertices);

}  // namespace hairsim::models
