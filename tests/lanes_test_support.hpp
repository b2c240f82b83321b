#pragma once
// Random problems for the cooperative vocabulary's tests (kernels/common/lanes.hpp,
// lane_tridiagonal.hpp), on the host's lanes (tests/unit/test_lanes.cpp) and on the device's tiles
// (tests/gpu/test_lanes_gpu.cpp): rotations whose products do not commute, and diagonally
// dominant scalar and symmetric positive definite block tridiagonal systems with their dense
// matrices for Eigen.
#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "common/small_matrix.hpp"

namespace hairsim::lanes_test {

using Mat3 = kernels::Mat<double, 3, 3>;

// A rotation by a random angle about a random axis (Rodrigues, through Eigen).
inline Mat3 random_rotation(std::mt19937& rng) {
  std::uniform_real_distribution<double> u(-1, 1);
  Eigen::Vector3d axis(u(rng), u(rng), u(rng));
  const Eigen::Matrix3d r = Eigen::AngleAxisd(3 * u(rng), axis.normalized()).toRotationMatrix();
  Mat3 m;
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 3; ++j) m(i, j) = r(i, j);
  return m;
}

// The largest entry of |a - b|.
inline double distance(const Mat3& a, const Mat3& b) {
  double d = 0;
  for (int k = 0; k < 9; ++k) d = std::max(d, std::abs(a[k] - b[k]));
  return d;
}

// A random tridiagonal system in thomas_solve's arrays, diagonally dominant (spd: symmetric with
// a positive diagonal), and its dense matrix.
struct Tridiagonal {
  std::vector<double> lower, diag, upper, rhs;
  Eigen::MatrixXd dense;
};
inline Tridiagonal random_tridiagonal(int n, bool spd, std::mt19937& rng) {
  std::uniform_real_distribution<double> u(-1, 1);
  Tridiagonal t{std::vector<double>(n), std::vector<double>(n), std::vector<double>(n),
                std::vector<double>(n), Eigen::MatrixXd::Zero(n, n)};
  for (int i = 0; i < n; ++i) {
    if (i > 0) t.lower[i] = u(rng);
    if (i + 1 < n) t.upper[i] = u(rng);
    if (spd && i > 0) t.lower[i] = t.upper[i - 1];
    t.rhs[i] = u(rng);
  }
  for (int i = 0; i < n; ++i) {
    const double off = (i > 0 ? std::abs(t.lower[i]) : 0) + (i + 1 < n ? std::abs(t.upper[i]) : 0);
    t.diag[i] = (spd || u(rng) > 0 ? 1 : -1) * (off + 0.1 + std::abs(u(rng)));
    t.dense(i, i) = t.diag[i];
    if (i > 0) t.dense(i, i - 1) = t.lower[i];
    if (i + 1 < n) t.dense(i, i + 1) = t.upper[i];
  }
  return t;
}

// A random symmetric positive definite system of n rows of B x B blocks in block_thomas_solve's
// layout (block i at i B², row-major; vectors at i B) with the sub-diagonal the super-diagonal's
// transpose (read through LowerFromUpper, as DER's implicit step stores it): diagonal blocks
// D Dᵀ + (2 B + 1) I, off-diagonal entries in [-1, 1] (diagonally dominant by rows).
struct BlockTridiagonal {
  std::vector<double> diag, upper, rhs;
  Eigen::MatrixXd dense;
};
template <int B>
BlockTridiagonal random_block_tridiagonal(int n, std::mt19937& rng) {
  std::uniform_real_distribution<double> u(-1, 1);
  const int dim = n * B;
  BlockTridiagonal t{std::vector<double>(n * B * B), std::vector<double>(n * B * B),
                     std::vector<double>(dim), Eigen::MatrixXd::Zero(dim, dim)};
  for (int i = 0; i + 1 < n; ++i)
    for (int k = 0; k < B * B; ++k) t.upper[i * B * B + k] = u(rng);
  for (int i = 0; i < n; ++i) {
    Eigen::MatrixXd d(B, B);
    for (int r = 0; r < B; ++r)
      for (int c = 0; c < B; ++c) d(r, c) = u(rng);
    d = d * d.transpose() + (2.0 * B + 1) * Eigen::MatrixXd::Identity(B, B);
    t.dense.block(i * B, i * B, B, B) = d;
    for (int r = 0; r < B; ++r)
      for (int c = 0; c < B; ++c) {
        t.diag[i * B * B + r * B + c] = d(r, c);
        if (i + 1 < n) {
          t.dense(i * B + r, (i + 1) * B + c) = t.upper[i * B * B + r * B + c];
          t.dense((i + 1) * B + c, i * B + r) = t.upper[i * B * B + r * B + c];
        }
      }
    for (int r = 0; r < B; ++r) t.rhs[i * B + r] = u(rng);
  }
  return t;
}

}  // namespace hairsim::lanes_test
