// Air drag in the DER reference (drag_matrix, issue 4): a free straight rod along x falls in y
// through air moving along x. Every vertex has ℓ_i / m_i = 1 / ρS (ends included: half an edge
// of length and of mass), so the rod translates rigidly and each velocity component relaxes to
// its terminal value on its own: across the rod (y) at rate k⊥ = ζ⊥ / ρS towards -g / k⊥, along
// it (x) at rate k∥ = ζ∥ / ρS towards the wind. The expected values are the integrators' exact
// discrete solutions: symplectic (explicit drag) v_n - v∞ = (1 - h k)^n (v_0 - v∞); implicit
// v_n - v∞ = (1 + h k)^-n (v_0 - v∞).
#include <gtest/gtest.h>

#include <cmath>

#include "reference/der/der_dynamics.hpp"
#include "reference/der/der_implicit.hpp"

namespace hairsim::der {
namespace {

constexpr double kDensity = 2e-3;  // kg/m
constexpr double kNormal = 0.02, kTangent = 0.008, kGravity = 9.81, kWind = 0.7;

DynamicRod falling_rod() {
  std::vector<Vec3> x;
  for (int i = 0; i <= 10; ++i) x.emplace_back(0.03 * i, 0, 0);
  DynamicRod rod = rod_at_rest(x, 1e-3, 1e-3, kDensity);
  rod.gravity = Vec3(0, -kGravity, 0);
  rod.drag_normal = kNormal;
  rod.drag_tangent = kTangent;
  rod.wind.mean = {kWind, 0, 0};
  rod.stretching_stiffness = 100;
  return rod;
}

void expect_terminal_relaxation(bool implicit) {
  DynamicRod rod = falling_rod();
  const double dt = 2e-3, k_normal = kNormal / kDensity, k_tangent = kTangent / kDensity;
  const int steps = 2000;  // 4 s: 40 time constants across (k⊥ = 10 /s), 16 along (k∥ = 4 /s)
  for (int n = 0; n < steps; ++n)
    if (implicit)
      step_linearly_implicit(rod, dt);
    else
      step_symplectic(rod, dt, 1e-14);
  auto decay = [&](double k) {
    return implicit ? std::pow(1 + dt * k, -steps) : std::pow(1 - dt * k, steps);
  };
  const double vy = -kGravity / k_normal * (1 - decay(k_normal));
  const double vx = kWind * (1 - decay(k_tangent));
  // Round-off: the velocity (x' - x) / h carries ε|x|/h ≤ 5e-13 m/s per step (|x| ≤ 4 m), damped
  // at the rate h k ≥ 0.008 per step: at most 6e-11 m/s accumulated. (The continuous solution
  // differs from the discrete one by 1e-3 m/s: the bound tells the two apart.)
  for (const Vec3& v : rod.velocity) {
    EXPECT_NEAR(v.y(), vy, 1e-10) << (implicit ? "implicit" : "symplectic");
    EXPECT_NEAR(v.x(), vx, 1e-10) << (implicit ? "implicit" : "symplectic");
    EXPECT_NEAR(v.z(), 0, 1e-10);
  }
  // Terminal velocity ρS g / ζ⊥ = 0.981 m/s reached; along the rod, the wind's 0.7 m/s.
  EXPECT_NEAR(rod.velocity[5].y(), -kDensity * kGravity / kNormal, 1e-6);
  EXPECT_NEAR(rod.velocity[5].x(), kWind, 1e-6);
}

TEST(DerDrag, SymplecticFallsToTheTerminalVelocity) {
  expect_terminal_relaxation(false);
}

TEST(DerDrag, ImplicitFallsToTheTerminalVelocity) {
  expect_terminal_relaxation(true);
}

TEST(DerDrag, DragMatrixSplitsAcrossAndAlong) {
  // Vertex 3 of the rod along x: ℓ = 0.03 m; D = ℓ diag(ζ∥, ζ⊥, ζ⊥).
  const DynamicRod rod = falling_rod();
  const Mat3 d = drag_matrix(rod, compute_frames(rod.state), 3);
  EXPECT_NEAR(d(0, 0), 0.03 * kTangent, 1e-15);
  EXPECT_NEAR(d(1, 1), 0.03 * kNormal, 1e-15);
  EXPECT_NEAR(d(2, 2), 0.03 * kNormal, 1e-15);
  EXPECT_NEAR(d(0, 1), 0, 1e-15);
  const Mat3 end = drag_matrix(rod, compute_frames(rod.state), 0);  // half an edge
  EXPECT_NEAR(end(1, 1), 0.015 * kNormal, 1e-15);
}

}  // namespace
}  // namespace hairsim::der
