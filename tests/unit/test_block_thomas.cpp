// Block Thomas against Eigen's dense LU (independent solver): block sizes 3 and 6, random block
// diagonally dominant and SPD systems, n = 2 ... 512 blocks, float and double (issue 4).
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <random>

#include "common/block_thomas.hpp"

namespace hairsim {
namespace {

template <class T, int B>
void check(bool spd, double tolerance) {
  std::mt19937 rng(17);
  std::uniform_real_distribution<double> u(-1, 1);
  for (int n : {1, 2, 3, 16, 1536 / B}) {  // up to 1536 unknowns: the dense reference stays fast
    const int dim = n * B;
    Eigen::MatrixXd a = Eigen::MatrixXd::Zero(dim, dim);
    for (int i = 0; i + 1 < n; ++i)  // off-diagonal blocks: upper, then lower (its transpose)
      for (int r = 0; r < B; ++r)
        for (int c = 0; c < B; ++c) a(i * B + r, (i + 1) * B + c) = u(rng);
    for (int i = 0; i + 1 < n; ++i)
      for (int r = 0; r < B; ++r)
        for (int c = 0; c < B; ++c)
          a((i + 1) * B + r, i * B + c) = spd ? a(i * B + c, (i + 1) * B + r) : u(rng);
    for (int i = 0; i < n; ++i) {
      Eigen::MatrixXd d = Eigen::MatrixXd::Zero(B, B);
      for (int r = 0; r < B; ++r)
        for (int c = 0; c < B; ++c) d(r, c) = u(rng);
      if (spd) d = d * d.transpose();
      d += (2.0 * B + 1) * Eigen::MatrixXd::Identity(B, B);  // dominant over both neighbours
      a.block(i * B, i * B, B, B) = d;
    }
    if (spd) {
      ASSERT_EQ(a, a.transpose());
    }
    std::vector<T> lower(n * B * B), diag(n * B * B), upper(n * B * B), rhs(dim), x(dim),
        scratch(n * B * B);
    for (int i = 0; i < n; ++i)
      for (int r = 0; r < B; ++r)
        for (int c = 0; c < B; ++c) {
          diag[(i * B + r) * B + c] = static_cast<T>(a(i * B + r, i * B + c));
          if (i > 0) lower[(i * B + r) * B + c] = static_cast<T>(a(i * B + r, (i - 1) * B + c));
          if (i + 1 < n) upper[(i * B + r) * B + c] = static_cast<T>(a(i * B + r, (i + 1) * B + c));
        }
    Eigen::VectorXd b(dim);
    for (int k = 0; k < dim; ++k) rhs[k] = static_cast<T>(b[k] = u(rng));
    // Use the values as stored (float rounding included) for the reference.
    Eigen::MatrixXd stored = a;
    for (int i = 0; i < dim; ++i)
      for (int j = 0; j < dim; ++j) stored(i, j) = static_cast<double>(static_cast<T>(a(i, j)));
    for (int k = 0; k < dim; ++k) b[k] = static_cast<double>(rhs[k]);
    ASSERT_TRUE((kernels::block_thomas_solve<T, B>(n, lower.data(), diag.data(), upper.data(),
                                                   rhs.data(), x.data(), scratch.data())));
    const Eigen::VectorXd expected = stored.partialPivLu().solve(b);
    for (int k = 0; k < dim; ++k)
      ASSERT_NEAR(double(x[k]), expected[k], tolerance * (1 + std::abs(expected[k])))
          << "B = " << B << ", n = " << n << ", k = " << k;
    if (!spd) continue;
    // Symmetric storage, as the DER implicit step uses it: the lower blocks read from the upper
    // ones, the scratch in the diagonal's place, the solution in the right-hand side's.
    std::vector<T> solution = rhs;
    ASSERT_TRUE((kernels::block_thomas_solve<T, B>(
        n, kernels::LowerFromUpper<B, const T*>{upper.data()}, diag.data(), upper.data(),
        solution.data(), solution.data(), diag.data())));
    for (int k = 0; k < dim; ++k) ASSERT_EQ(solution[k], x[k]) << "symmetric storage, k = " << k;
  }
}

TEST(BlockThomas, MatchesDenseSolve) {
  check<double, 3>(false, 1e-12);
  check<double, 3>(true, 1e-12);
  check<double, 6>(false, 1e-12);
  check<double, 6>(true, 1e-12);
  check<float, 3>(true, 1e-4);
  check<float, 6>(false, 1e-4);
}

TEST(BlockThomas, SolvesInPlaceAndReportsSingularBlock) {
  // Two 1 x 1 "blocks" as a sanity case: [2 1; 1 3] x = [3 4] -> (1, 1), with x aliasing rhs.
  double lo[2] = {0, 1}, di[2] = {2, 3}, up[2] = {1, 0}, x[2] = {3, 4}, s[2];
  ASSERT_TRUE((kernels::block_thomas_solve<double, 1>(2, lo, di, up, x, x, s)));
  EXPECT_NEAR(x[0], 1.0, 1e-15);
  EXPECT_NEAR(x[1], 1.0, 1e-15);
  double zero[4] = {0, 0, 0, 0}, r[2] = {1, 1}, out[2], sc[4];
  EXPECT_FALSE((kernels::block_thomas_solve<double, 2>(1, zero, zero, zero, r, out, sc)));
}

// A block singular to working precision: [1 1; 1 1 + δ] leaves the pivot δ after elimination. With
// δ = ε (the precision's epsilon, a rounding's size: what fused multiply-adds left of an exactly
// singular block on the GPU, 2026-11-26) it is refused; with δ = 1e3 ε it is solved. The old
// exact-zero test accepted both.
template <class T>
void check_rounding_size_pivot() {
  const T eps = kernels::epsilon<T>();
  for (const T delta : {eps, T(1e3) * eps}) {
    T lo[4] = {}, up[4] = {}, di[4] = {1, 1, 1, T(1) + delta}, r[2] = {2, T(2) + delta}, x[2], s[4];
    const bool solved = kernels::block_thomas_solve<T, 2>(1, lo, di, up, r, x, s);
    EXPECT_EQ(solved, delta > eps) << "delta " << delta / eps << " eps";
    if (solved) {  // x = (1, 1), to the block's condition (~4 / δ) times ε
      EXPECT_NEAR(x[0], 1, 1e-2);
      EXPECT_NEAR(x[1], 1, 1e-2);
    }
  }
}

TEST(BlockThomas, RefusesABlockSingularToWorkingPrecision) {
  check_rounding_size_pivot<float>();
  check_rounding_size_pivot<double>();
}

}  // namespace
}  // namespace hairsim
