// The batched Super-Helix (kernels/super_helix/, cpu backend) against its reference (a rod per
// strand, the recursive method) on the parity case of every model (tests/simulator_parity_case.hpp:
// 16 straight, wavy and curly strands on a turning, shaking head, gusty wind, drag, damping), 200
// steps of 1 ms, with colliders that the hair actually leans on: the head (a sphere, or the same
// sphere as a triangulated mesh through its distance grid) and a second sphere under the hair.
// The colliders move the hair by up to 3.1 cm in these 200 steps (the reference with and without
// them), through ~3,200 point contacts. Both solve the same contact problem (projected
// Gauss-Seidel to a residual of 1e-6 of the largest free velocity; the reference may finish by an
// exact active-set solve, the kernels sweep on), so they could differ by up to that residual per
// step; and the kernels read a point's velocity against the head's colliders as J q̇ where the
// reference subtracts the clamp's and the colliders' differenced rigid motions (equal to ~1e-10).
// Measured 1.3e-10 L (2026-11-26). Bounds: the parity issue's, 1e-9 L in double and 2e-3 L in
// float (measured 1.1e-5 L).
#include <gtest/gtest.h>

#include <iostream>

#include "engine/host_batch.hpp"
#include "models/super_helix/super_helix_engine.hpp"
#include "reference/super_helix/step_system.hpp"
#include "simulator_parity_case.hpp"

namespace hairsim {
namespace {

engine::HairSetup leaning_setup(bool mesh_head) {
  engine::HairSetup setup = test::simulator_parity_setup(engine::Integrator::implicit);
  setup.model_settings = nullptr;  // the model's defaults
  setup.dt = 1e-3;
  if (mesh_head) setup = test::with_mesh_head(setup);
  // A sphere the hanging hair falls onto (head frame, below and behind the head).
  Collider shoulder;
  shoulder.shape = Collider::Shape::sphere;
  shoulder.center = Vec3(0, -0.16, 0);
  shoulder.radius = 0.06;
  shoulder.friction = 0.3;
  setup.colliders.push_back(shoulder);
  return setup;
}

// How far the colliders moved the hair in the reference's 200 steps (m): the contacts act.
double contact_effect(const engine::HairSetup& setup) {
  engine::HairSetup free = setup;
  free.colliders.clear();
  auto run = [](const engine::HairSetup& s) {
    auto sim = engine::Simulator::create(
        s, {"super_helix", engine::Backend::reference, engine::Precision::float64});
    for (int k = 0; k < 200; ++k) sim->step();
    std::vector<Vec3> x;
    sim->positions(x);
    return x;
  };
  const std::vector<Vec3> with = run(setup), without = run(free);
  double most = 0;
  for (std::size_t k = 0; k < with.size(); ++k)
    most = std::max(most, (with[k] - without[k]).norm());
  return most;
}

TEST(SuperHelixParity, CpuFollowsTheReferenceWithContacts) {
  const double effect = contact_effect(leaning_setup(false));
  std::cout << "the colliders moved the hair by up to " << effect << " m\n";
  EXPECT_GT(effect, 1e-3);
  for (const bool mesh : {false, true})
    for (const engine::Precision precision :
         {engine::Precision::float64, engine::Precision::float32}) {
      const test::SimulatorParityResult r = test::compare_with_reference(
          leaning_setup(mesh), engine::Backend::cpu, precision, 200, "super_helix");
      std::cout << "super_helix, head " << (mesh ? "mesh" : "sphere") << " ("
                << engine::to_string(precision) << "): " << r.max_deviation_over_length
                << " L from the reference, contacts " << r.contacts << " (reference "
                << r.reference_counts["contacts"] << ")\n";
      EXPECT_TRUE(r.finite);
      EXPECT_LE(r.max_deviation_over_length, precision == engine::Precision::float64 ? 1e-9 : 2e-3);
      EXPECT_GT(r.contacts, 1000);
      EXPECT_EQ(r.counts["dropped_contacts"], 0);
      EXPECT_EQ(r.counts["solver_failures"], 0);
    }
}

// The hair-hair stage's velocity changes enter a Super-Helix as impulses m Δv at its output points
// (add_interaction_impulses: one tip-to-root and one root-to-tip pass for all points). Expected:
// the rate change A⁻¹ Σ J_iᵀ (m_i Δv_i) from the reference's composite method, a dense LDLᵀ of
// A = M + (hν + h²) K assembled by quadrature and each point's Jacobian J_i
// (src/reference/super_helix/step_system.hpp), on the same state and clamp. The two steps of the
// kernels (with and without the change) differ by exactly that rate change.
TEST(SuperHelixParity, InteractionImpulsesAreTheDenseResponse) {
  using Engine = models::SuperHelixEngine<double>;
  engine::HairSetup setup = test::simulator_parity_setup(engine::Integrator::implicit);
  setup.model_settings = nullptr;
  setup.dt = 1e-3;
  setup.colliders.clear();
  setup.interaction.enabled = true;
  Engine engine(setup, engine::Precision::float64);
  const int strands = int(setup.strands.strand_count()), vertices = 24;
  engine::HostBatch<Engine::Batch> pushed(engine.layout(strands, vertices, 1)),
      still(engine.layout(strands, vertices, 1));
  engine.load(pushed, setup);
  engine.load(still, setup);
  // A velocity change at every output point but the root (which the stage leaves), m/s.
  auto change = [](int i) { return Vec3(0.02 * std::sin(i), 0.01 * std::cos(2.0 * i), 0.005); };
  const int s = strands - 1;  // a curly strand
  const auto& a = pushed.arrays();
  for (int i = 1; i < vertices; ++i)
    for (int c = 0; c < 3; ++c)
      a.velocity[pushed.index(3 * i + c, s, 3 * vertices)] += change(i)(c);
  long counts[Engine::Batch::kCounters] = {};
  engine::step_on_host<Engine::Batch>(pushed.arrays(), engine.parameters(0), counts);
  engine::step_on_host<Engine::Batch>(still.arrays(), engine.parameters(0), counts);
  const int n = a.elements;
  super_helix::VecX kernels(3 * n);
  for (int k = 0; k < 3 * n; ++k)
    kernels(k) = a.rate[pushed.index(k, s, 3 * n)] - still.arrays().rate[still.index(k, s, 3 * n)];
  // The dense response on the reference rod of that strand at the step's start, clamp at its end.
  const super_helix::SuperHelix rod = models::helix_rods(setup)[std::size_t(s)];
  const double h = setup.dt;
  const super_helix::RootState root = super_helix::root_state(rod, h);
  const auto starts = super_helix::element_starts(rod, root);
  const auto maps = super_helix::detail::element_maps(rod, starts);
  const super_helix::detail::StepSystem dense(rod, super_helix::Method::composite, h, h, false);
  const std::vector<models::SamplePlace> places = models::sample_places(rod, vertices);
  super_helix::VecX expected = super_helix::VecX::Zero(3 * n);
  for (int i = 1; i < vertices; ++i) {
    const models::SamplePlace& at = places[std::size_t(i)];
    const super_helix::detail::RodPoint p =
        super_helix::detail::rod_point(rod, starts, at.element, at.u);
    const double mass = a.mass[pushed.index(i, s, vertices)];
    expected +=
        dense.respond(p, super_helix::detail::point_jacobian(rod, maps, p), mass * change(i));
  }
  const double error = (kernels - expected).norm() / expected.norm();
  std::cout << "interaction impulses: |dq| " << expected.norm() << " 1/(m s), kernels vs dense "
            << error << " (relative)\n";
  EXPECT_GT(expected.norm(), 1e-3);
  EXPECT_LT(error, 1e-8);
}

}  // namespace
}  // namespace hairsim
