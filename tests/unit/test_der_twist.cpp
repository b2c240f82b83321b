// DER reference: quasistatic material frame (§5.1) and forces of the quasistatic rod (§7.1).
#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <cmath>
#include <numbers>
#include <random>

#include "der_test_support.hpp"
#include "reference/der/der_rod.hpp"

namespace hairsim::der {
namespace {

// Straight rod along x with uneven edge lengths, isotropic bending α, twist modulus β.
RestShape straight_rest(std::vector<Vec3>& x, int edges, double alpha, double beta) {
  x.clear();
  double s = 0;
  for (int i = 0; i <= edges; ++i) {
    x.emplace_back(s, 0, 0);
    s += 0.1 * (1 + 0.5 * std::sin(1.7 * i));
  }
  return rest_shape_from_polyline(x, Vec3::UnitY(),
                                  std::vector<Mat2>(edges, alpha * Mat2::Identity()), beta);
}

TEST(DerTwist, ClampedStraightRodTwistsUniformly) {
  // Eq. (5): a naturally straight isotropic rod clamped at both ends has uniform twist,
  // m_i / l_i = (θ^n - θ^0) / (2L), 2L = Σ l_i, and by eq. (6) twist energy β Δθ² / (2L).
  std::vector<Vec3> x;
  const int edges = 17;
  const double beta = 0.8, delta = 5.0;
  const RestShape rest = straight_rest(x, edges, 1.2, beta);
  RodState s{x, std::vector<double>(edges, 0.0), Vec3::UnitY()};
  std::mt19937 rng(1);
  std::uniform_real_distribution<double> u(-1, 1);
  for (double& th : s.theta) th = u(rng);  // a poor initial guess
  s.theta.front() = 0.3;
  s.theta.back() = 0.3 + delta;
  // Solved to 1e-13: the Newton steps carry a 1e-12 diagonal shift (see der_twist.cpp).
  const TwistSolveReport report = solve_quasistatic_twist(s, rest, {true, true}, 1e-13);
  ASSERT_TRUE(report.converged);
  EXPECT_LE(report.residual, 1e-13);
  double two_l = 0;
  for (int i = 1; i < edges; ++i) two_l += rest.voronoi_length[i];
  for (int i = 1; i < edges; ++i)
    EXPECT_NEAR((s.theta[i] - s.theta[i - 1]) / rest.voronoi_length[i], delta / two_l, 1e-12) << i;
  EXPECT_NEAR(twist_energy(s, compute_frames(s), rest), beta * delta * delta / two_l, 1e-12);
  EXPECT_TRUE(report.closed_form);  // eqs. (5)-(6), no Newton step
  EXPECT_EQ(report.iterations, 0);
}

TEST(DerTwist, TwistedRingTakesTheClosedFormAndCurvedRodsDoNot) {
  // A naturally straight ring (a regular 24-gon, planar: holonomy χ = 0) closed with twist Θ:
  // uniform m_i = Θ l̄_i / Σ l̄ (eqs. 5-6 with the closing vertex). A curved rest shape couples
  // bending and twist: Newton, with the same residual tolerance.
  const int n = 24;
  std::vector<Vec3> x;
  for (int i = 0; i < n; ++i)
    x.emplace_back(std::cos(2 * M_PI * i / n), std::sin(2 * M_PI * i / n), 0);
  RestShape ring =
      rest_shape_from_polyline(x, Vec3::UnitZ(), std::vector<Mat2>(n, Mat2::Identity()), 0.7, true);
  ring.curvature.assign(n, {Vec2::Zero(), Vec2::Zero()});
  ring.closing_twist = 4.0;
  RodState s{x, std::vector<double>(n, 0.0), Vec3::UnitZ(), true};
  const TwistSolveReport report = solve_quasistatic_twist(s, ring, {false, false});
  EXPECT_TRUE(report.closed_form);
  EXPECT_LE(report.residual, 1e-10);
  const Frames f = compute_frames(s);
  double total = 0;
  for (int i = 0; i < n; ++i) total += ring.voronoi_length[i];
  for (int i = 0; i < n; ++i)
    EXPECT_NEAR(twist_at(s, f, ring, i) / ring.voronoi_length[i], 4.0 / total, 1e-12) << i;

  RestShape curved =
      rest_shape_from_polyline(x, Vec3::UnitZ(), std::vector<Mat2>(n, Mat2::Identity()), 0.7, true);
  curved.closing_twist += 4.0;
  RodState t{x, std::vector<double>(n, 0.0), Vec3::UnitZ(), true};
  const TwistSolveReport newton = solve_quasistatic_twist(t, curved, {false, false});
  EXPECT_FALSE(newton.closed_form);
  EXPECT_TRUE(newton.converged);
}

TEST(DerTwist, CurvedAnisotropicRodReachesQuasistaticEquilibrium) {
  // Issue 3, case 7: |∂E/∂θ| <= 1e-10 after the update, on a rod where twist and bending couple.
  std::mt19937 rng(11);
  const std::vector<Vec3> x = test::random_curve(30, 0.05, 0.5, rng);
  std::vector<Mat2> b(29);
  for (Mat2& m : b) m << 2.0, 0.4, 0.4, 0.7;
  const Vec3 u0 = any_orthogonal((x[1] - x[0]).normalized());
  const RestShape rest = rest_shape_from_polyline(x, u0, b, 0.5);
  std::vector<Vec3> bent = x;
  for (std::size_t i = 0; i < bent.size(); ++i)
    bent[i] += 0.02 * std::sin(0.3 * double(i)) * Vec3::UnitZ();
  RodState s = moved_to(RodState{x, std::vector<double>(29, 0.0), u0}, bent);
  s.theta.back() = 3.0;  // clamp turned
  const double before = elastic_energy(s, compute_frames(s), rest);
  const TwistSolveReport report = solve_quasistatic_twist(s, rest, {true, true});
  EXPECT_TRUE(report.converged);
  EXPECT_LE(report.residual, 1e-10);
  EXPECT_LT(elastic_energy(s, compute_frames(s), rest), before);
  EXPECT_EQ(s.theta.back(), 3.0);  // clamped angles stay
  EXPECT_EQ(s.theta.front(), 0.0);
}

TEST(DerTwist, ForcesAreMinusGradientOfReducedEnergyWithClampedEnds) {
  // E*(x) = min over free θ of E(x, θ), with the last material frame prescribed in space:
  // the forces of §7.1 must be -∇E*, by central differences (interior vertices; the clamped
  // end edges stay put).
  std::mt19937 rng(5);
  std::uniform_real_distribution<double> u(-1, 1);
  const std::vector<Vec3> x = test::random_curve(12, 0.1, 0.4, rng);
  std::vector<Mat2> b(11);
  for (Mat2& m : b) m << 1.5, 0.3, 0.3, 0.9;
  const Vec3 u0 = any_orthogonal((x[1] - x[0]).normalized());
  const RestShape rest = rest_shape_from_polyline(x, u0, b, 0.6);
  std::vector<Vec3> deformed = x;
  for (std::size_t i = 2; i + 2 < deformed.size(); ++i)
    deformed[i] += 0.03 * Vec3(u(rng), u(rng), u(rng));
  RodState s = moved_to(RodState{x, std::vector<double>(11, 0.0), u0}, deformed);
  s.theta.back() = 1.7;
  const TwistBoundary bc{true, true};
  solve_quasistatic_twist(s, rest, bc, 1e-14);
  const Vec3 clamped_m1 = compute_frames(s).m1.back();  // the prescribed material vector

  auto reduced_energy = [&](const std::vector<Vec3>& y) {
    RodState t = moved_to(s, y);
    t.theta.back() = angle_to_material_vector(compute_frames(t), 10, clamped_m1, s.theta.back());
    solve_quasistatic_twist(t, rest, bc, 1e-14);
    return elastic_energy(t, compute_frames(t), rest);
  };
  // Forces are -∇E*: compare the negated forces with the gradient, interior vertices only.
  std::vector<Vec3> minus_force = elastic_forces(s, compute_frames(s), rest, bc);
  for (Vec3& v : minus_force) v = -v;
  const auto [worst, scale] =
      test::check_gradient(s.x, minus_force, reduced_energy, 1e-6, 2, s.x.size() - 2);
  EXPECT_LE(worst, 1e-6 * scale);
}

}  // namespace
}  // namespace hairsim::der
