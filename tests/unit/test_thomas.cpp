// Thomas algorithm against Eigen's dense LU (independent solver), float and double.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <random>

#include "common/thomas.hpp"

namespace hairsim {
namespace {

template <class T>
void check_random_systems(bool spd, double tolerance) {
  std::mt19937 rng(42);
  std::uniform_real_distribution<double> u(-1, 1);
  for (int n : {1, 2, 3, 7, 64, 512}) {
    std::vector<T> lo(n), di(n), up(n), rhs(n), x(n), scratch(n);
    Eigen::MatrixXd a = Eigen::MatrixXd::Zero(n, n);
    for (int i = 0; i < n; ++i) {
      if (i > 0) lo[i] = static_cast<T>(u(rng));
      if (i + 1 < n) up[i] = static_cast<T>(u(rng));
      if (spd && i > 0) lo[i] = up[i - 1];  // symmetric
      rhs[i] = static_cast<T>(u(rng));
    }
    for (int i = 0; i < n; ++i) {
      // Diagonally dominant: |a_ii| > |a_i,i-1| + |a_i,i+1|, positive for the SPD case.
      const double off =
          (i > 0 ? std::abs(double(lo[i])) : 0) + (i + 1 < n ? std::abs(double(up[i])) : 0);
      di[i] = static_cast<T>((spd ? 1 : (u(rng) < 0 ? -1 : 1)) * (off + 0.1 + std::abs(u(rng))));
      a(i, i) = di[i];
      if (i > 0) a(i, i - 1) = lo[i];
      if (i + 1 < n) a(i, i + 1) = up[i];
    }
    ASSERT_TRUE(kernels::thomas_solve(n, lo.data(), di.data(), up.data(), rhs.data(), x.data(),
                                      scratch.data()));
    Eigen::VectorXd b(n);
    for (int i = 0; i < n; ++i) b[i] = rhs[i];
    const Eigen::VectorXd expected = a.partialPivLu().solve(b);
    for (int i = 0; i < n; ++i)
      ASSERT_NEAR(double(x[i]), expected[i], tolerance * (1 + std::abs(expected[i])))
          << "n = " << n << ", i = " << i;
  }
}

TEST(Thomas, MatchesDenseSolveDouble) {
  check_random_systems<double>(false, 1e-12);
  check_random_systems<double>(true, 1e-12);
}

TEST(Thomas, MatchesDenseSolveFloat) {
  check_random_systems<float>(false, 1e-4);
  check_random_systems<float>(true, 1e-4);
}

TEST(Thomas, SolvesInPlaceAndReportsZeroPivot) {
  double lo[2] = {0, 1}, di[2] = {2, 3}, up[2] = {1, 0}, x[2] = {3, 4}, s[2];
  ASSERT_TRUE(kernels::thomas_solve(2, lo, di, up, x, x, s));  // [2 1; 1 3] x = [3 4]: x = (1, 1)
  EXPECT_NEAR(x[0], 1.0, 1e-15);
  EXPECT_NEAR(x[1], 1.0, 1e-15);
  double zero_di[2] = {0, 1}, r[2] = {1, 1};
  EXPECT_FALSE(kernels::thomas_solve(2, lo, zero_di, up, r, x, s));
}

}  // namespace
}  // namespace hairsim

namespace hairsim {
namespace {

TEST(Thomas, CyclicMatchesDenseSolve) {
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1, 1);
  for (int n : {3, 4, 9, 50, 300}) {
    std::vector<double> lo(n), di(n), up(n), rhs(n), x(n), scratch(4 * n);
    Eigen::MatrixXd a = Eigen::MatrixXd::Zero(n, n);
    for (int i = 0; i < n; ++i) {
      lo[i] = u(rng);
      up[i] = u(rng);
      rhs[i] = u(rng);
    }
    const double top_right = u(rng), bottom_left = u(rng);
    for (int i = 0; i < n; ++i) {
      di[i] = 2.5 + std::abs(u(rng));  // diagonally dominant, corners included
      a(i, i) = di[i];
      if (i > 0) a(i, i - 1) = lo[i];
      if (i + 1 < n) a(i, i + 1) = up[i];
    }
    a(0, n - 1) += top_right;
    a(n - 1, 0) += bottom_left;
    ASSERT_TRUE(kernels::cyclic_thomas_solve(n, lo.data(), di.data(), up.data(), top_right,
                                             bottom_left, rhs.data(), x.data(), scratch.data()));
    Eigen::VectorXd b = Eigen::Map<Eigen::VectorXd>(rhs.data(), n);
    const Eigen::VectorXd expected = a.partialPivLu().solve(b);
    for (int i = 0; i < n; ++i) ASSERT_NEAR(x[i], expected[i], 1e-12) << n << " " << i;
  }
}

}  // namespace
}  // namespace hairsim
