#pragma once
// The simulator-level parity case of issue 4, shared by the cpu (parity) and cuda (gpu) tests:
// 16 strands of generated hairstyles (6 straight, 5 wavy, 5 curly; 24 vertices, about 0.25 m)
// rooted on the head ellipsoid, the head shaking (±0.4 rad about y at 3 Hz, about its centre)
// and moving (0.3 m/s along x); gravity, damping, air drag in a wind; the head as a sphere
// collider with friction. The same HairSetup through Simulator::create on two backends, 200
// steps, the largest centerline difference over the strand length.
#include <algorithm>
#include <vector>

#include "engine/model.hpp"
#include "engine/simulator.hpp"
#include "hairsim/generate.hpp"
#include "hairsim/sdf.hpp"
#include "reference/eigen_bridge.hpp"

namespace hairsim::test {

// Float's bound for the implicit integrator, cpu and cuda alike (the 2e-3 L holds for the
// symplectic one): since issue 27 the implicit step's lengths are projected (a strain limit) and
// its ~2,400 contacts slide on tangent planes, each solve stopping at float's tolerance (3e-5 of
// the shortest edge, the reference's too: DER's parity settings); over 200 steps of hair resting
// and sliding on the head that round-off carries 2.6e-3 L apart (velocities 7e-5 L per step).
// Before the projection (hair free to stretch) it was 5.3e-4 L. Measured: cpu 2.61e-3 L (this
// machine, 2026-11-25), cuda 2.60e-3 L (H200, 2026-11-26, FMA contraction on the device).
// Since the generator's smooth rise and curls from the root (2026-11-29) the case's hair lies
// on the head in more places (3,259 vertex contacts in float, 2,386 before) and float carries it
// 6.36e-3 L apart on the cpu (velocities 4.1e-4 L per step), while double stays 1.9e-11 L from
// the reference (the same algorithm: what remains is float's round-off); the bound keeps the
// same margin over the measured (1.6x; it was 1.9x). cuda: not yet measured on this groom.
inline constexpr double kImplicitFloatBound = 1e-2;

inline engine::HairSetup simulator_parity_setup(engine::Integrator integrator) {
  engine::HairSetup setup;
  const std::pair<HairStyle, int> styles[] = {
      {HairStyle::straight, 6}, {HairStyle::wavy, 5}, {HairStyle::curly, 5}};
  for (const auto& [style, count] : styles) {
    HairstyleParams p;
    p.style = style;
    p.strands = count;
    p.vertices = 24;
    p.seed = 7 + std::uint64_t(style);
    const StrandSet part = generate_hairstyle(p);
    for (std::size_t s = 0; s < part.strand_count(); ++s) setup.strands.add_strand(part.strand(s));
  }
  setup.head.rotation_amplitude = Vec3(0, 0.4, 0);
  setup.head.frequency = 3;
  setup.head.velocity = Vec3(0.3, 0, 0);
  setup.head.center = Vec3::Zero();
  Collider head;
  head.shape = Collider::Shape::sphere;
  head.radius = 0.074;  // inside the scalp ellipsoid (semi-axes 0.075, 0.095, 0.095)
  head.friction = 0.3;
  setup.colliders = {head};
  setup.damping = 0.5;
  setup.drag_normal = 1e-4;  // N s/m²: Stokes drag on a 80 µm fibre in air, about 17 /s
  setup.drag_tangent = 5e-5;
  // A mean wind with gusts (4 modes, 0.3 m/s RMS, 2 Hz, 0.2 m): it varies along the strands and
  // over the run.
  setup.wind = {Vec3(0.5, 0, 0.2), 0.3, 2, 0.2, 4, 11};
  setup.integrator = integrator;
  // DER's parity settings: one projection tolerance on every backend (der_model.cpp says why).
  setup.model_settings = engine::find_model("der").parity_settings();
  // The symplectic stability limit (docs/models/der.md); the implicit step runs at 10 times it.
  setup.dt = engine::explicit_step_limit(setup.strands, setup.material);
  if (integrator == engine::Integrator::implicit) setup.dt *= 10;
  return setup;
}

// The same setup with its head sphere replaced by a triangulated sphere (a mesh collider, read
// through its signed-distance grid).
inline engine::HairSetup with_mesh_head(engine::HairSetup setup) {
  setup.colliders[0].mesh = std::make_shared<SignedDistanceGrid>(
      make_sdf_grid(ellipsoid_mesh(Vec3::Constant(setup.colliders[0].radius), 32), 48, "head"));
  setup.colliders[0].shape = Collider::Shape::mesh;
  return setup;
}

struct SimulatorParityResult {
  double max_deviation_over_length = 0;
  // The velocities' largest difference as the distance it makes in one step, |Δv| Δt / L: the
  // same measure as the positions'.
  double max_velocity_deviation = 0;
  double max_root_motion = 0;  // m: how far the head carried the roots
  double max_root_error = 0;   // m: tested root vertex from the head pose at the end on its start
  bool finite = true;          // every tested position and velocity
  long contacts = 0;           // on the backend under test
  long pcg_iterations = 0, reference_pcg_iterations = 0;  // model cosserat
  engine::StepCounters counts, reference_counts;          // all of them
};

// The parity measures of `tested` against the reference's start, end positions and velocities.
inline SimulatorParityResult measure_against(const engine::HairSetup& setup,
                                             engine::Simulator& reference,
                                             const std::vector<Vec3>& start,
                                             const std::vector<Vec3>& expected,
                                             const std::vector<Vec3>& expected_v,
                                             engine::Simulator& tested) {
  std::vector<Vec3> actual, actual_v;
  tested.positions(actual);
  tested.velocities(actual_v);
  SimulatorParityResult r;
  const int v = reference.vertices();
  engine::HairSetup centred = setup;  // create() turns about the origin when no centre is set
  if (!centred.head.center) centred.head.center = Vec3::Zero();
  const kernels::RigidPose<double> pose = bridge::rigid_pose<double>(centred.head, tested.time());
  for (int s = 0; s < reference.strands(); ++s) {
    double length = 0;
    for (int i = 1; i < v; ++i) length += (start[s * v + i] - start[s * v + i - 1]).norm();
    for (int i = 0; i < v; ++i) {
      r.finite = r.finite && actual[s * v + i].allFinite() && actual_v[s * v + i].allFinite();
      r.max_deviation_over_length = std::max(
          r.max_deviation_over_length, (actual[s * v + i] - expected[s * v + i]).norm() / length);
      r.max_velocity_deviation =
          std::max(r.max_velocity_deviation,
                   (actual_v[s * v + i] - expected_v[s * v + i]).norm() * setup.dt / length);
    }
    r.max_root_motion = std::max(r.max_root_motion, (expected[s * v] - start[s * v]).norm());
    r.max_root_error = std::max(
        r.max_root_error,
        (actual[s * v] - bridge::from_kernel(pose.apply(bridge::to_kernel(start[s * v])))).norm());
  }
  r.counts = tested.counts();
  r.reference_counts = reference.counts();
  r.contacts = r.counts["contacts"];
  if (r.counts.has("pcg_iterations")) {
    r.pcg_iterations = r.counts["pcg_iterations"];
    r.reference_pcg_iterations = r.reference_counts["pcg_iterations"];
  }
  return r;
}

// Each of `tested` against `reference` (all made from `setup`), `steps` steps of each: one
// result per tested simulator.
inline std::vector<SimulatorParityResult> compare_simulators(
    const engine::HairSetup& setup, std::unique_ptr<engine::Simulator> reference,
    std::vector<std::unique_ptr<engine::Simulator>> tested, int steps) {
  std::vector<Vec3> start, expected, expected_v;
  reference->positions(start);
  for (int k = 0; k < steps; ++k) {
    reference->step();
    for (auto& t : tested) t->step();
  }
  reference->positions(expected);
  reference->velocities(expected_v);
  std::vector<SimulatorParityResult> results;
  for (auto& t : tested)
    results.push_back(measure_against(setup, *reference, start, expected, expected_v, *t));
  return results;
}

// `tested` against `reference`, `steps` steps of each.
inline SimulatorParityResult compare_simulators(const engine::HairSetup& setup,
                                                std::unique_ptr<engine::Simulator> reference,
                                                std::unique_ptr<engine::Simulator> tested,
                                                int steps) {
  std::vector<std::unique_ptr<engine::Simulator>> one;
  one.push_back(std::move(tested));
  return compare_simulators(setup, std::move(reference), std::move(one), steps).front();
}

inline SimulatorParityResult compare_with_reference(const engine::HairSetup& setup,
                                                    engine::Backend backend,
                                                    engine::Precision precision, int steps,
                                                    const std::string& model = "der") {
  return compare_simulators(setup,
                            engine::Simulator::create(setup, {model, engine::Backend::reference,
                                                              engine::Precision::float64}),
                            engine::Simulator::create(setup, {model, backend, precision}), steps);
}

}  // namespace hairsim::test
