// DER reference: analytic derivatives against central finite differences (issue 3, case 1),
// on random naturally curved rods with anisotropic (non-diagonal) bending matrices.
#include <gtest/gtest.h>

#include <Eigen/Geometry>
#include <cmath>
#include <numbers>
#include <random>

#include "der_test_support.hpp"
#include "reference/der/der_rod.hpp"

namespace hairsim::der {
namespace {

struct RandomRod {
  RestShape rest;
  RodState state;
};

// A random smooth space curve (rest shape), random SPD B^j, and a perturbed state with random θ.
RandomRod random_rod(int vertices, unsigned seed, bool closed = false) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<Vec3> rest_x;
  if (closed) {  // a wobbly, non-planar ring
    for (int i = 0; i < vertices; ++i) {
      const double a = 2 * std::numbers::pi * i / vertices;
      rest_x.emplace_back((1 + 0.2 * u(rng)) * std::cos(a), (1 + 0.2 * u(rng)) * std::sin(a),
                          0.3 * u(rng));
    }
  } else {
    rest_x.push_back(Vec3::Zero());
    Vec3 dir = Vec3(u(rng), u(rng), u(rng)).normalized();
    for (int i = 1; i < vertices; ++i) {
      dir = (dir + 0.6 * Vec3(u(rng), u(rng), u(rng))).normalized();
      rest_x.push_back(rest_x.back() + (0.1 + 0.05 * u(rng)) * dir);
    }
  }
  const int edges = closed ? vertices : vertices - 1;
  std::vector<Mat2> b(edges);
  for (Mat2& m : b) {
    Mat2 a;
    a << u(rng), u(rng), u(rng), u(rng);
    m = a * a.transpose() + 0.2 * Mat2::Identity();
  }
  const Vec3 u0 = any_orthogonal((rest_x[1] - rest_x[0]).normalized());
  RandomRod rod;
  rod.rest = rest_shape_from_polyline(rest_x, u0, b, 0.7, closed);
  rod.rest.closing_twist += 1.3;  // rings: some imposed twist, so the closing term is exercised
  RodState rest_state{rest_x, std::vector<double>(edges, 0.0), u0, closed};
  std::vector<Vec3> x = rest_x;
  for (Vec3& p : x) p += 0.03 * Vec3(u(rng), u(rng), u(rng));
  rod.state = moved_to(rest_state, x);
  for (double& th : rod.state.theta) th = 0.8 * u(rng);
  return rod;
}

double energy_at(const RodState& s, const RestShape& r) {
  return elastic_energy(s, compute_frames(s), r);
}

double max_abs(const std::vector<double>& v) {
  double m = 0;
  for (double x : v) m = std::max(m, std::abs(x));
  return m;
}

constexpr double kStep = 1e-6;
constexpr double kRelativeTolerance = 1e-6;  // issue 3, validation case 1

TEST(DerEnergy, CurvedRestPolylineIsAtRest) {
  // Any polyline is its own rest shape: zero energy and zero forces at θ = 0 (issue 3).
  std::vector<Vec3> helix;
  for (int i = 0; i < 40; ++i)
    helix.emplace_back(0.01 * std::cos(0.5 * i), 0.01 * std::sin(0.5 * i), -0.004 * i);
  const Vec3 u0 = any_orthogonal((helix[1] - helix[0]).normalized());
  const std::vector<Mat2> b(39, 2.0 * Mat2::Identity());
  const RestShape r = rest_shape_from_polyline(helix, u0, b, 1.5);
  const RodState s{helix, std::vector<double>(39, 0.0), u0};
  const Frames f = compute_frames(s);
  EXPECT_EQ(elastic_energy(s, f, r), 0.0);
  for (const Vec3& g : position_gradient(s, f, r)) EXPECT_EQ(g.norm(), 0.0);
  EXPECT_EQ(max_abs(theta_gradient(s, f, r)), 0.0);
}

TEST(DerDerivatives, ThetaGradientMatchesFiniteDifferences) {
  for (unsigned seed : {1u, 2u, 3u, 101u, 102u}) {
    const RandomRod rod = random_rod(14, seed, seed > 100);
    const auto g = theta_gradient(rod.state, compute_frames(rod.state), rod.rest);
    std::vector<double> err(g.size());
    for (std::size_t j = 0; j < g.size(); ++j) {
      RodState p = rod.state, m = rod.state;
      p.theta[j] += kStep;
      m.theta[j] -= kStep;
      err[j] = (energy_at(p, rod.rest) - energy_at(m, rod.rest)) / (2 * kStep) - g[j];
    }
    EXPECT_LE(max_abs(err), kRelativeTolerance * max_abs(g)) << "seed " << seed;
  }
}

TEST(DerDerivatives, ThetaHessianMatchesFiniteDifferences) {
  for (unsigned seed : {4u, 5u, 104u}) {
    const RandomRod rod = random_rod(14, seed, seed > 100);
    const Tridiagonal h = theta_hessian(rod.state, compute_frames(rod.state), rod.rest);
    const int n = static_cast<int>(h.diag.size());
    double worst = 0, scale = 0;
    for (int j = 0; j < n; ++j) {
      RodState p = rod.state, m = rod.state;
      p.theta[j] += kStep;
      m.theta[j] -= kStep;
      const auto gp = theta_gradient(p, compute_frames(p), rod.rest);
      const auto gm = theta_gradient(m, compute_frames(m), rod.rest);
      for (int i = 0; i < n; ++i) {  // column j of the Hessian
        const double fd = (gp[i] - gm[i]) / (2 * kStep);
        const bool corner = rod.rest.closed && ((i == 0 && j == n - 1) || (i == n - 1 && j == 0));
        const double analytic = i == j       ? h.diag[j]
                                : corner     ? h.corner
                                : i == j - 1 ? h.upper[i]
                                : i == j + 1 ? h.lower[i]
                                             : 0;
        worst = std::max(worst, std::abs(fd - analytic));
        scale = std::max(scale, std::abs(analytic));
      }
    }
    EXPECT_LE(worst, kRelativeTolerance * scale) << "seed " << seed;
  }
}

TEST(DerDerivatives, PositionGradientMatchesFiniteDifferences) {
  // E(x, θ) with θ held and the Bishop frame following the centerline (u0 transported in time),
  // so the gradient includes the holonomy terms of eqs. (9)-(11).
  for (unsigned seed : {6u, 7u, 8u, 106u, 107u}) {
    const RandomRod rod = random_rod(12, seed, seed > 100);
    const auto g = position_gradient(rod.state, compute_frames(rod.state), rod.rest);
    const auto [worst, scale] = test::check_gradient(
        rod.state.x, g,
        [&](const std::vector<Vec3>& y) { return energy_at(moved_to(rod.state, y), rod.rest); },
        kStep);
    EXPECT_LE(worst, kRelativeTolerance * scale) << "seed " << seed;
  }
}

TEST(DerDerivatives, HolonomyGradientMatchesFiniteDifferences) {
  // Ψ_j: angle from the time-transported Bishop frame of edge j to its new Bishop frame.
  const RandomRod rod = random_rod(10, 9);
  const Frames f0 = compute_frames(rod.state);
  const int edge = 7;
  const auto g = holonomy_gradient(f0, rod.rest, edge);
  auto psi = [&](const std::vector<Vec3>& x) {
    const RodState s = moved_to(rod.state, x);
    const Frames f = compute_frames(s);
    const Vec3 transported = parallel_transport(f0.u[edge], f0.t[edge], f.t[edge]);
    // Angle about t from the transported old frame to the new one (material frame moves with it).
    return std::atan2(f.t[edge].dot(transported.cross(f.u[edge])), transported.dot(f.u[edge]));
  };
  const auto [worst, scale] = test::check_gradient(rod.state.x, g, psi, kStep);
  EXPECT_LE(worst, kRelativeTolerance * scale);
}

TEST(DerEnergy, BentRodConvergesToContinuumBendingEnergy) {
  // A rod bent into a circular arc of radius R (regular polygon, isotropic, naturally straight):
  // E_bend -> ½ α D / R² (Kirchhoff) over the domain D the discrete energy covers, the interior
  // Voronoi regions: D = Σ l̄_i / 2 = (n - 1) h. Discretisation error O(h²).
  const double alpha = 1.3, radius = 0.7, angle = 2.0;
  double previous_error = 1;
  for (int n_edges : {20, 40, 80}) {
    std::vector<Vec3> straight, arc;
    for (int i = 0; i <= n_edges; ++i) {
      const double a = angle * i / n_edges;
      straight.emplace_back(radius * angle * i / n_edges, 0, 0);
      arc.emplace_back(radius * std::sin(a), radius * (1 - std::cos(a)), 0);
    }
    const std::vector<Mat2> b(n_edges, alpha * Mat2::Identity());
    // Rest lengths: the arc's chords (inextensible bending of a straight rod of that length).
    std::vector<Vec3> rest;
    const double chord = 2 * radius * std::sin(angle / (2 * n_edges));
    for (int i = 0; i <= n_edges; ++i) rest.emplace_back(chord * i, 0, 0);
    const RestShape r = rest_shape_from_polyline(rest, Vec3::UnitY(), b, 1.0);
    RodState s{arc, std::vector<double>(n_edges, 0.0), Vec3::UnitZ()};
    const double e = bending_energy(compute_frames(s), r);
    const double expected = 0.5 * alpha * (n_edges - 1) * chord / (radius * radius);
    const double error = std::abs(e / expected - 1);
    EXPECT_LT(error, 0.3 * previous_error + 1e-12) << n_edges;  // second order: /4 per halving
    previous_error = error;
  }
  EXPECT_LT(previous_error, 1e-3);
}

}  // namespace
}  // namespace hairsim::der
