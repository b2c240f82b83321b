#pragma once
// Sag-free rest shapes of a hairstyle (HairSetup::rest, docs/architecture.md "Sag-free rest
// shapes"): each model's rods are made as groomed, then, when the setup asks for it, each rod's
// rest parameters are solved by the model's inverse statics (its hold_shape:
// reference/inverse_statics.hpp) so that the groom hangs as it is under gravity. The reference and
// the batched backends hold the same rods (the batched ones pack them), so they start from the
// same rest shape.
#include <algorithm>
#include <chrono>
#include <string>
#include <utility>
#include <vector>

#include "engine/parallel.hpp"
#include "engine/simulator.hpp"
#include "engine/strand_copies.hpp"
#include "reference/inverse_statics.hpp"

namespace hairsim::engine {

// A strand is held when the solve leaves at most this fraction of its groom's unbalanced load
// (the rest is round-off: the solve is exact where the model's rest parameters can hold the
// shape; a DER vertex where the strand is straight cannot take a twisting moment, docs).
constexpr double kHeldResidual = 1e-6;

// `hold(rods[s])` (a reference::HeldShape) for every rod when `setup.rest` is sag_free, on all
// cores; appends to `measures` (when given) the solve's time (rest_solve_s), its worst relative
// residual over the strands it holds (rest_max_residual: the unbalanced load left over the
// groom's) and how many strands it could not hold (rest_strands_not_held: their held equilibrium
// unstable, so they keep their groomed rest and sag, or a residual above kHeldResidual).
// Nothing when the setup keeps the groom.
template <class Rod, class Hold>
void hold_groom(const HairSetup& setup, std::vector<Rod>& rods, Hold&& hold,
                SetupMeasures* measures) {
  if (setup.rest != HairRest::sag_free) return;
  const auto start = std::chrono::steady_clock::now();
  std::vector<reference::HeldShape> held(rods.size());
  ProgressLines progress(setup_progress(), "rest shapes solved", rods.size());
  parallel_for(
      int(rods.size()),
      [&](int s) {
        held[std::size_t(s)] = hold(rods[std::size_t(s)]);
        held[std::size_t(s)].rest.resize(0);  // what a rod keeps is in the rod
        progress.done();
      },
      Schedule::dynamic);
  progress.finish();
  if (!measures) return;
  double worst = 0;
  long not_held = 0;
  for (const reference::HeldShape& h : held) {
    if (h.held) worst = std::max(worst, h.relative_residual);
    if (!h.held || !(h.relative_residual <= kHeldResidual)) ++not_held;
  }
  const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  measures->push_back({"rest_solve_s", took.count()});
  measures->push_back({"rest_max_residual", worst});
  measures->push_back({"rest_strands_not_held", double(not_held)});
}

}  // namespace hairsim::engine
