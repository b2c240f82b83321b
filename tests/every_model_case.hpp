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

#include "engine/head_pose.hpp"
#include "engine/model.hpp"
#include "simulator_parity_case.hpp"

namespace hairsim::test {

constexpr int kEveryModelSteps = 100;

// Every model of the table, by name: the generic tests' parameters.
inline std::vector<std::string> registered_model_names() {
  std::vector<std::string> names;
  for (const engine::Model& m : engine::models()) names.push_back(m.name);
  return names;
}

inline engine::HairSetup every_model_setup(const engine::Model& model, bool collider) {
  engine::HairSetup setup = simulator_parity_setup(model.integrators.front());
  if (!collider) setup.colliders.clear();
  setup.dt = 1e-3;
  // Converged solves for the comparison (the model's parity settings, or its defaults).
  if (model.parity_settings) setup.model_settings = model.parity_settings();
  return setup;
}

struct EveryModelResult {
  bool finite = true;
  double max_root_error = 0;  // m: root vertex from head_pose(t) applied to its start
  double max_deviation_over_length = 0;
  double max_velocity_deviation = 0;  // |Δv| Δt / L: the distance it makes in one step
  long failures = 0, contacts = 0;
  std::vector<std::string> counter_names, reference_counter_names;
};

// Steps `setup` on the reference and on `backend` for kEveryModelSteps steps.
inline EveryModelResult run_every_model_case(const engine::Model& model,
                                             const engine::HairSetup& setup,
                                             engine::Backend backend, engine::Precision precision) {
  auto reference = engine::Simulator::create(
      setup, {model.name, engine::Backend::reference, engine::Precision::float64});
  auto tested = engine::Simulator::create(setup, {model.name, backend, precision});
  std::vector<Vec3> start, expected, actual, velocity, expected_velocity;
  reference->positions(start);
  for (int k = 0; k < kEveryModelSteps; ++k) {
    reference->step();
    tested->step();
  }
  reference->positions(expected);
  tested->positions(actual);
  tested->velocities(velocity);
  reference->velocities(expected_velocity);
  EveryModelResult r;
  const int v = tested->vertices();
  engine::HairSetup centred = setup;
  if (!centred.head.center) centred.head.center = Vec3::Zero();
  const kernels::RigidPose<double> pose = engine::head_pose<double>(centred.head, tested->time());
  for (int s = 0; s < tested->strands(); ++s) {
    double length = 0;
    for (int i = 1; i < v; ++i) length += (start[s * v + i] - start[s * v + i - 1]).norm();
    for (int i = 0; i < v; ++i) {
      const std::size_t a = std::size_t(s) * v + i;
      r.finite = r.finite && actual[a].allFinite() && velocity[a].allFinite();
      r.max_deviation_over_length =
          std::max(r.max_deviation_over_length, (actual[a] - expected[a]).norm() / length);
      r.max_velocity_deviation =
          std::max(r.max_velocity_deviation,
                   (velocity[a] - expected_velocity[a]).norm() * setup.dt / length);
    }
    const kernels::Vector3<double> root =
        pose.apply({start[s * v].x(), start[s * v].y(), start[s * v].z()});
    r.max_root_error =
        std::max(r.max_root_error, (actual[s * v] - Vec3(root.x, root.y, root.z)).norm());
  }
  const engine::StepCounters counts = tested->counts(), reference_counts = reference->counts();
  r.failures = counts["solver_failures"];
  r.contacts = counts["contacts"];
  r.counter_names = counts.names;
  r.reference_counter_names = reference_counts.names;
  std::cout << model.name << " on " << engine::to_string(backend) << " ("
            << engine::to_string(precision) << "): " << r.max_deviation_over_length
            << " L from the reference (velocities " << r.max_velocity_deviation
            << " L per step), root error " << r.max_root_error << " m; counters";
  for (std::size_t k = 0; k < counts.names.size(); ++k)
    std::cout << " " << counts.names[k] << " " << counts.values[k] << " (reference "
              << reference_counts.values[k] << ")";
  std::cout << "\n";
  return r;
}

}  // namespace hairsim::test
