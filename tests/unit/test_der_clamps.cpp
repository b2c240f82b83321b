// DER reference: prescribed clamp motion (issue 3: translation, rotation, twist over time).
#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <cmath>
#include <numbers>

#include "hairsim/error.hpp"
#include "reference/der/der_dynamics.hpp"
#include "reference/der/der_implicit.hpp"

namespace hairsim::der {
namespace {

DynamicRod straight_rod(int edges, double length) {
  std::vector<Vec3> x;
  for (int i = 0; i <= edges; ++i) x.emplace_back(length * i / edges, 0, 0);
  DynamicRod rod = rod_at_rest(x, 1.0, 0.8, 1.0);
  rod.stretching_stiffness = 1e5;
  return rod;
}

TEST(DerClamps, TranslatingClampCarriesAMovingRodRigidly) {
  // A rod moving uniformly with its clamp feels no force: the exact solution is x0 + v t, for
  // both integrators (forces and Hessians are translation invariant).
  const Vec3 v(0.3, -0.2, 0.1);
  for (bool implicit : {false, true}) {
    DynamicRod rod = straight_rod(12, 1.0);
    ClampMotion motion;
    motion.velocity = v;
    clamp_end(rod, false, motion);
    const std::vector<Vec3> start = rod.state.x;
    rod.velocity.assign(start.size(), v);
    const double dt = 1e-3;
    for (int k = 0; k < 200; ++k) {
      if (implicit)
        step_linearly_implicit(rod, dt);
      else
        step_symplectic(rod, dt, 1e-13);
    }
    double worst = 0;
    for (std::size_t i = 0; i < start.size(); ++i)
      worst = std::max(worst, (rod.state.x[i] - (start[i] + v * rod.time)).norm());
    EXPECT_LT(worst, 1e-12) << (implicit ? "implicit" : "symplectic");
    EXPECT_NEAR(rod.time, 0.2, 1e-12);
  }
}

TEST(DerClamps, TwistingTipClampTwistsUniformly) {
  // Both ends clamped, the tip clamp turning at 1 rad/s about the rod for 1.5 s: the rod stays
  // straight (below Michell-type buckling) and, by eq. (5)-(6), carries uniform twist
  // θ_tip - θ_root = 1.5 rad with twist energy β Δθ² / (2L), 2L = Σ l_i.
  DynamicRod rod = straight_rod(16, 1.0);
  clamp_end(rod, false);
  ClampMotion turn;
  turn.twist_rate = 1.0;
  clamp_end(rod, true, turn);
  const std::vector<Vec3> start = rod.state.x;
  for (int k = 0; k < 1500; ++k) step_symplectic(rod, 1e-3, 1e-13);
  double moved = 0;
  for (std::size_t i = 0; i < start.size(); ++i)
    moved = std::max(moved, (rod.state.x[i] - start[i]).norm());
  EXPECT_LT(moved, 1e-12);
  EXPECT_NEAR(rod.state.theta.back() - rod.state.theta.front(), 1.5, 1e-9);
  const Frames f = compute_frames(rod.state);
  double two_l = 0;
  for (int i = 1; i < 16; ++i) two_l += rod.rest.voronoi_length[i];
  EXPECT_NEAR(twist_energy(rod.state, f, rod.rest), 0.8 * 1.5 * 1.5 / two_l, 1e-9);
}

TEST(DerClamps, RotatingClampTurnsTheMaterialFrameWithIt) {
  // The root clamp turned by π/2 about z in 1 s (no gravity, damped): the clamped edge ends up
  // along +y and its material vector m1 is the initial one turned by the same rotation.
  DynamicRod rod = straight_rod(8, 0.2);
  ClampMotion motion;
  motion.angular_velocity = Vec3(0, 0, std::numbers::pi / 2);
  clamp_end(rod, false, motion);
  rod.damping = 50;  // let the free part follow quietly
  const Vec3 m1_start = compute_frames(rod.state).m1[0];
  for (int k = 0; k < 1000; ++k) step_linearly_implicit(rod, 1e-3);
  const Frames f = compute_frames(rod.state);
  EXPECT_LT((f.t[0] - Vec3::UnitY()).norm(), 1e-9);
  const Vec3 expected_m1 = Eigen::AngleAxisd(std::numbers::pi / 2, Vec3::UnitZ()) * m1_start;
  EXPECT_LT((f.m1[0] - expected_m1).norm(), 1e-9);
}

TEST(DerClamps, MotionStopsAfterItsDuration) {
  // τ = min(t, duration): rates and sinusoid freeze at their value at `duration`.
  ClampMotion m;
  m.velocity = Vec3(1, 0, 0);
  m.angular_velocity = Vec3(0, 0, 0.5);
  m.twist_rate = 3;
  m.twist_amplitude = 0.1;
  m.frequency = 0.25;
  m.duration = 2;
  EXPECT_EQ(m.translation(5), Vec3(2, 0, 0));
  EXPECT_NEAR(m.twist(5), 3 * 2 + 0.1 * std::sin(2 * M_PI * 0.25 * 2), 1e-15);
  EXPECT_LT((m.rotation(5) - m.rotation(2)).norm(), 1e-15);
  EXPECT_NEAR(std::acos(m.rotation(9)(0, 0)), 1.0, 1e-12);  // 0.5 rad/s for 2 s about z
  EXPECT_EQ(m.translation(1), Vec3(1, 0, 0));               // before: unchanged
}

TEST(DerClamps, RestShapeRejectsAReferenceVectorNotNormalToTheFirstEdge) {
  const std::vector<Vec3> x{Vec3::Zero(), Vec3(1, 0, 0), Vec3(2, 0.1, 0)};
  const std::vector<Mat2> b(2, Mat2::Identity());
  EXPECT_THROW(rest_shape_from_polyline(x, Vec3(1, 1, 0).normalized(), b, 1.0), hairsim::Error);
  EXPECT_THROW(rest_shape_from_polyline(x, Vec3(0, 2, 0), b, 1.0), hairsim::Error);
  EXPECT_NO_THROW(rest_shape_from_polyline(x, Vec3(0, 1, 0), b, 1.0));
}

}  // namespace
}  // namespace hairsim::der
