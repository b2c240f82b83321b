// The Cosserat kernels' Newton system (kernels/cosserat/): the chain's curvature makes A the
// exact Hessian of E where the paper's Gauss-Newton A = Jᵀ H J is not (docs/models/cosserat.md,
// "Newton's Hessian"), checked against central differences of the kernels' own gradient; and the
// positive part of a symmetric 3 x 3 block (kernels/common/matrix3.hpp) against Eigen's
// eigendecomposition.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <random>

#include "common/matrix3.hpp"
#include "cosserat/cosserat_strand.hpp"
#include "cosserat_test_support.hpp"
#include "models/cosserat/cosserat_host_batch.hpp"

namespace hairsim {
namespace {

namespace kc = kernels::cosserat;
using MatX = Eigen::MatrixXd;
using VecX = Eigen::VectorXd;

template <class T>
Eigen::Matrix3d to_eigen(const kernels::Matrix3<T>& m) {
  Eigen::Matrix3d e;
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) e(r, c) = double(m(r, c));
  return e;
}

template <class T>
void expect_positive_part_matches_eigen(double tolerance) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1, 1);
  for (int trial = 0; trial < 200; ++trial) {
    kernels::Matrix3<T> m;
    const double scale = std::pow(10.0, 6 * u(rng));  // entries from 1e-6 to 1e6
    for (int r = 0; r < 3; ++r)
      for (int c = r; c < 3; ++c) m(r, c) = m(c, r) = T(scale * u(rng));
    if (trial % 4 == 0) m(0, 1) = m(1, 0) = T(0);  // already partly diagonal
    if (trial % 7 == 0) m(0, 0) = m(1, 1);         // repeated diagonal entries
    const Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d> eig(to_eigen(m));
    const Eigen::Matrix3d expected = eig.eigenvectors() *
                                     eig.eigenvalues().cwiseMax(0.0).asDiagonal() *
                                     eig.eigenvectors().transpose();
    const Eigen::Matrix3d got = to_eigen(kernels::positive_semidefinite_part(m));
    EXPECT_LE((got - expected).norm(), tolerance * to_eigen(m).norm()) << "trial " << trial;
    EXPECT_GE(Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d>(got).eigenvalues().minCoeff(),
              -tolerance * to_eigen(m).norm());
  }
}

TEST(CosseratNewton, PositivePartOfASymmetricBlockMatchesEigen) {
  // V max(Λ, 0) Vᵀ against Eigen's SelfAdjointEigenSolver, relative to |M|: round-off of the
  // rotations (measured ~1e-15 double, ~3e-7 float).
  expect_positive_part_matches_eigen<double>(1e-12);
  expect_positive_part_matches_eigen<float>(2e-5);
}

// One strand of the curly test rod (tests/unit/cosserat_test_support.hpp) on a host batch, at the
// start of a 1 ms step with random velocities and spins, then moved to a Newton iterate away from
// the start (every free ω by up to `spread` rad): the vertices are then far from their inertial
// predictions, so the load each segment carries is large, as in a whipped strand.
struct NewtonCase {
  int vertices;
  engine::CosseratHostBatch<double> batch;
  kc::Loads<double> loads;
  kc::StepSettings settings;
  double dt = 1e-3;
  kc::Strand<double> st() const { return kc::strand_of(batch.arrays(), 0); }

  NewtonCase(double stiffness, double spread, unsigned seed, int vertex_count = 8)
      : vertices(vertex_count), batch(1, vertex_count, 1) {
    std::mt19937 rng(seed);
    std::uniform_real_distribution<double> u(-1, 1);
    const std::vector<cosserat::Vec3> polyline = cosserat::testing::curly_polyline(vertices);
    cosserat::CosseratRod rod = cosserat::rod_at_rest(
        polyline, cosserat::Vec3(stiffness, stiffness, 0.8 * stiffness),
        cosserat::Vec3(2.6e-15, 2.6e-15, 5.2e-15), 6.5e-6, cosserat::Vec3::UnitX());
    cosserat::clamp_root(rod);
    for (auto& v : rod.velocity) v = 2.0 * cosserat::Vec3(u(rng), u(rng), u(rng));
    for (auto& w : rod.angular_velocity) w = 50.0 * cosserat::Vec3(u(rng), u(rng), u(rng));
    batch.load(0, rod);
    loads.gravity = {0.0, -9.81, 0.0};
    kc::begin_step(st(), kc::Substep<double>{dt, 0.0, loads.head, loads.head}, loads);
    VecX s = config();
    for (int k = 6; k < s.size(); ++k) s(k) += spread * u(rng);  // the free ω's
    set_config(s);
  }
  VecX config() const {
    VecX s(3 * vertices);
    for (int k = 0; k < s.size(); ++k) s(k) = st().rows(st().a.config)[k];
    return s;
  }
  void set_config(const VecX& s) const {
    for (int k = 0; k < s.size(); ++k) st().rows(st().a.config)[k] = s(k);
    kc::compute_kinematics(st());
  }
  VecX gradient(const VecX& s) const {
    set_config(s);
    kc::compute_gradient(st(), dt, loads, loads.head, st().a.gradient);
    VecX g(s.size());
    for (int k = 0; k < g.size(); ++k) g(k) = st().rows(st().a.gradient)[k];
    return g;
  }
  // A at s, assembled column by column from apply_a, on the free blocks (from index 6).
  MatX newton_matrix(const VecX& s, kc::ChainCurvature curvature) {
    gradient(s);
    settings.chain_curvature = curvature;
    kc::prepare_newton_system(st(), dt, loads, loads.head, settings);
    return assembled_matrix();
  }
  // A as the arrays now hold it, column by column from apply_a, on the free blocks.
  MatX assembled_matrix() const {
    const int n = 3 * vertices - 6;
    MatX a(n, n);
    for (int c = 0; c < n; ++c) {
      for (int k = 0; k < 3 * vertices; ++k) st().rows(st().a.direction)[k] = k == 6 + c ? 1 : 0;
      kc::apply_a(st(), dt, false, st().a.direction, st().a.product);
      for (int r = 0; r < n; ++r) a(r, c) = st().rows(st().a.product)[6 + r];
    }
    return a;
  }
  // ∂b/∂s on the free blocks by central differences of the kernels' gradient.
  MatX finite_difference_hessian(const VecX& s) const {
    const int n = int(s.size()) - 6;
    MatX h(n, n);
    const double eps = 1e-6;
    for (int c = 0; c < n; ++c) {
      VecX plus = s, minus = s;
      plus(6 + c) += eps, minus(6 + c) -= eps;
      h.col(c) = (gradient(plus) - gradient(minus)).tail(n) / (2 * eps);
    }
    set_config(s);
    return 0.5 * (h + h.transpose());
  }
};

TEST(CosseratNewton, ChainCurvatureMakesTheHessianExactWithoutBending) {
  // A rod without elastic energy (K = 0): E is inertia, rotational inertia (linear in q) and
  // gravity, whose exact Hessian is Jᵀ H J plus the chain's curvature. Expected: A (exact chain
  // curvature) = central differences to their truncation and round-off (measured ~1e-9
  // relative); the paper's Gauss-Newton A misses by the curvature (measured ~0.5).
  for (double spread : {0.1, 0.5}) {
    NewtonCase c(0.0, spread, 3);
    const VecX s = c.config();
    const MatX fd = c.finite_difference_hessian(s);
    const double exact = (c.newton_matrix(s, kc::ChainCurvature::exact) - fd).norm() / fd.norm();
    const double gauss_newton =
        (c.newton_matrix(s, kc::ChainCurvature::none) - fd).norm() / fd.norm();
    std::cout << "spread " << spread << ": exact chain " << exact << ", Gauss-Newton "
              << gauss_newton << " (relative to |H|)\n";
    EXPECT_LT(exact, 1e-6);
    EXPECT_GT(gauss_newton, 1e-2);
  }
}

TEST(CosseratNewton, ProjectedChainCurvatureKeepsTheSystemPositiveDefinite) {
  // With bending and twist (hair's EI), at iterates far from the start where some segments are
  // compressed (their curvature block indefinite): A with the projected curvature is symmetric
  // and positive definite (Cholesky succeeds), as PCG needs; the exact one is not always.
  int indefinite_exact = 0;
  for (unsigned seed = 1; seed <= 20; ++seed) {
    NewtonCase c(6e-9, 0.8, seed);
    const VecX s = c.config();
    const MatX a = c.newton_matrix(s, kc::ChainCurvature::projected);
    EXPECT_LT((a - a.transpose()).norm(), 1e-12 * a.norm()) << "seed " << seed;
    EXPECT_EQ(Eigen::LLT<MatX>(a).info(), Eigen::Success) << "seed " << seed;
    const MatX exact = c.newton_matrix(s, kc::ChainCurvature::exact);
    if (Eigen::LLT<MatX>(0.5 * (exact + exact.transpose())).info() != Eigen::Success)
      ++indefinite_exact;
  }
  std::cout << "exact chain curvature indefinite at " << indefinite_exact << " of 20 iterates\n";
}

TEST(CosseratNewton, ExactChainSolveInvertsTheNewtonMatrix) {
  // factor_chain / solve_chain (kernels/cosserat/cosserat_solve.hpp) against Eigen's dense LLT of
  // A assembled from apply_a: hair-like rods of 8 and 64 vertices at iterates far from the step's
  // start (projected chain curvature), once without contacts and once with stiff penalty blocks
  // k n nᵀ at a third of the vertices, k up to 1e4 m/Δt² (the double contact ratio), which make
  // A's condition number up to ~1e7 and PCG with the hybrid preconditioner slow. Expected: a
  // backward-stable solve, |A z - r| / (|A| |z|) below 1e-14 (measured ≤ 5e-16), so z agrees
  // with Eigen's A⁻¹r to the conditioning's bound, 10 cond(A) ε (measured 0.1 cond(A) ε at most).
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(-1, 1);
  for (int vertices : {8, 64})
    for (bool contacts : {false, true})
      for (unsigned seed = 1; seed <= 5; ++seed) {
        NewtonCase c(6e-9, 0.8, seed, vertices);
        const VecX s = c.config();
        c.newton_matrix(s, kc::ChainCurvature::projected);
        const kc::Strand<double> st = c.st();
        if (contacts)
          for (int v = 2; v < vertices; v += 3) {
            const double m = st.rows(st.a.mass)[v];
            const double k = 1e4 * m / (c.dt * c.dt) * (0.5 + 0.5 * u(rng));
            const Eigen::Vector3d n = Eigen::Vector3d(u(rng), u(rng), u(rng)).normalized();
            kernels::Matrix3<double> block;
            for (int r = 0; r < 3; ++r)
              for (int e = 0; e < 3; ++e) block(r, e) = k * n[r] * n[e];
            st.set(st.a.contact, v, block);
          }
        const MatX a = c.assembled_matrix();
        ASSERT_TRUE(kc::build_preconditioner(st, c.dt, false, kc::Preconditioner::exact));
        VecX r = VecX::Zero(3 * vertices);
        for (int k = 6; k < r.size(); ++k) r(k) = u(rng);
        for (int k = 0; k < r.size(); ++k) st.rows(st.a.residual)[k] = r(k);
        kc::apply_preconditioner(st, kc::Preconditioner::exact, st.a.residual, st.a.precond);
        VecX z(r.size());
        for (int k = 0; k < z.size(); ++k) z(k) = st.rows(st.a.precond)[k];
        const VecX free = z.tail(r.size() - 6), rhs = r.tail(r.size() - 6);
        const VecX expected = a.llt().solve(rhs);
        const Eigen::VectorXd eig = Eigen::SelfAdjointEigenSolver<MatX>(a).eigenvalues();
        const double condition = eig.maxCoeff() / eig.minCoeff();
        const double error = (free - expected).norm() / expected.norm();
        const double backward = (a * free - rhs).norm() / (a.norm() * free.norm());
        EXPECT_LT(backward, 1e-14)
            << vertices << " vertices, contacts " << contacts << ", seed " << seed;
        EXPECT_LT(error, 10 * condition * 2.2e-16)
            << vertices << " vertices, contacts " << contacts << ", seed " << seed;
        EXPECT_EQ(z.head(6).norm(), 0.0);  // the clamped root's blocks
        if (seed == 1)
          std::cout << vertices << " vertices, contacts " << contacts << ": cond(A) " << condition
                    << ", relative error " << error << ", backward error " << backward << "\n";
      }
}

}  // namespace
}  // namespace hairsim
