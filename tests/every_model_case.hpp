#pragma once
// The generic checks every registered model gets for free (tests/parity/test_every_model.cpp on
// the cpu backend, tests/gpu/test_every_model_gpu.cpp on cuda): the simulator parity case's 16
// straight, wavy and curly strands on a shaking, moving head with a collider, gusty wind, drag and
// damping (tests/simulator_parity_case.hpp), in the model's default integrator at 1 ms, stepped
// by the reference and by a batched backend. Expected: every value finite, every root where the
// head's pose puts it, no failed solve, and the two backends' centerlines within the parity
// bounds (1e-9 L in double, 2e-3 L in float) without the collider; with it, contacts, and the
// centerlines within 2e-3 L, since a model's reference and kernels may resolve contacts by
// different methods (Cosserat: an active set against a penalty, docs/models/cosserat.md).
#include <cmath>
#include <iostream>
#include <string>
#include <vector>

#include "engine/model.hpp"
#include "reference/eigen_bridge.hpp"
#include "simulator_parity_case.hpp"

namespace hairsim::test {

constexpr int kEveryModelSteps = 100;

// Every model of the table with batched backends, by name: the generic tests' parameters.
inline std::vector<std::string> registered_model_names() {
  std::vector<std::string> names;
  for (const engine::Model& m : engine::models())
    if (engine::runs_on(m, engine::Backend::cpu)) names.push_back(m.name);
  return names;
}

inline engine::HairSetup every_model_setup(const engine::Model& model, bool collider) {
  engine::HairSetup setup = simulator_parity_setup(model.integrators.front());
  if (!collider) setup.colliders.clear();
  setup.dt = 1e-3;
  // Converged solves for the comparison (the model's parity settings, or its defaults).
  setup.model_settings = model.parity_settings ? model.parity_settings() : nullptr;
  return setup;
}

// Steps `setup` on the reference and on `backend` for kEveryModelSteps steps
// (compare_with_reference) and prints what it measured.
inline SimulatorParityResult run_every_model_case(const engine::Model& model,
                                                  const engine::HairSetup& setup,
                                                  engine::Backend backend,
                                                  engine::Precision precision) {
  const SimulatorParityResult r =
      compare_with_reference(setup, backend, precision, kEveryModelSteps, model.name);
  std::cout << model.name << " on " << engine::to_string(backend) << " ("
            << engine::to_string(precision) << "): " << r.max_deviation_over_length
            << " L from the reference (velocities " << r.max_velocity_deviation
            << " L per step), root error " << r.max_root_error << " m; counters";
  for (std::size_t k = 0; k < r.counts.names.size(); ++k)
    std::cout << " " << r.counts.names[k] << " " << r.counts.values[k] << " (reference "
              << (r.reference_counts.has(r.counts.names[k])
                      ? std::to_string(r.reference_counts[r.counts.names[k]])
                      : std::string("none"))
              << ")";
  std::cout << "\n";
  return r;
}

}  // namespace hairsim::test
