// DER reference: applied point forces and end moments (issue 3).
#include <gtest/gtest.h>

#include <cmath>

#include "reference/der/der_dynamics.hpp"
#include "reference/der/der_implicit.hpp"

namespace hairsim::der {
namespace {

// Straight rod along x from the clamp point (midpoint of the clamped first edge), L = 1,
// EI = GJ = 1 unless given, ρS = 1, no gravity.
DynamicRod clamped_rod(int edges, double bending = 1.0, double twisting = 1.0) {
  const double h = 1.0 / (edges - 0.5);
  std::vector<Vec3> x;
  for (int i = 0; i <= edges; ++i) x.emplace_back((i - 0.5) * h, 0, 0);
  DynamicRod rod = rod_at_rest(x, bending, twisting, 1.0);
  rod.stretching_stiffness = 1e7;
  clamp_end(rod, false);
  return rod;
}

TEST(DerLoads, TwistingMomentAtFreeTipTwistsUniformly) {
  // Moment τ along the rod at its free tip: quasistatic twist with 2β m_i / l̄_i = τ at every
  // vertex, so θ_tip - θ_root = τ Σ l̄_i / (2β) (the discrete θ' = τ/β); the rod stays straight.
  DynamicRod rod = clamped_rod(20, 1.0, 0.7);
  const double tau = 0.35;
  rod.tip_moment = Vec3(tau, 0, 0);
  const std::vector<Vec3> start = rod.state.x;
  for (int k = 0; k < 50; ++k) step_symplectic(rod, 1e-4, 1e-13);
  double sum_l = 0;
  for (int i = 1; i < 20; ++i) sum_l += rod.rest.voronoi_length[i];
  EXPECT_NEAR(rod.state.theta.back() - rod.state.theta.front(), tau * sum_l / (2 * 0.7), 1e-9);
  for (std::size_t i = 0; i < start.size(); ++i)
    EXPECT_LT((rod.state.x[i] - start[i]).norm(), 1e-12);
}

TEST(DerLoads, BendingMomentAtTipGivesCircularArc) {
  // Pure bending by an end moment M about z: the equilibrium is an arc of curvature M/EI
  // (Euler-Bernoulli), so the last edge is turned by M (L - h/2) / EI from the clamp (its
  // midpoint is L - h/2 from the clamp point along the rod); the per-joint angle M h / EI = 1/80
  // makes the tan(φ/2) nonlinearity of eq. (1) negligible (< 1e-4).
  const int edges = 40;
  DynamicRod rod = clamped_rod(edges);
  const double moment = 0.5, h = 1.0 / (edges - 0.5);
  rod.tip_moment = Vec3(0, 0, moment);
  const RelaxReport r = relax_implicit(rod, 0.01, 8.0, 1e-10, 20000);
  ASSERT_TRUE(r.converged);
  const Frames f = compute_frames(rod.state);
  const double angle = std::atan2(f.t.back().y(), f.t.back().x());
  EXPECT_NEAR(angle, moment * (1.0 - h / 2), 1e-4);
}

TEST(DerLoads, PointForceOnCantileverTipMatchesBeamTheory) {
  // Small tip load P on a weightless cantilever: deflection P L³ / (3 EI) (Euler-Bernoulli);
  // P L² / EI = 1e-3 keeps it linear (geometric correction ~ 1e-6 relative).
  const int edges = 80;
  DynamicRod rod = clamped_rod(edges);
  const double load = 1e-3;
  rod.point_force.assign(rod.state.x.size(), Vec3::Zero());
  rod.point_force.back() = Vec3(0, -load, 0);
  ASSERT_TRUE(relax_implicit(rod, 0.01, 8.0, 1e-12, 20000).converged);
  // The tip vertex sits at L from the clamp point.
  EXPECT_NEAR(-rod.state.x.back().y() / (load / 3), 1.0, 2e-3);
}

}  // namespace
}  // namespace hairsim::der
