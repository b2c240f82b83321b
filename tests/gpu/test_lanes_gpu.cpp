// The cooperative vocabulary (kernels/common/lanes.hpp, lane_tridiagonal.hpp) on the device
// (label gpu): every problem of a batch on one cooperative-groups tile (TileLanes<32>, and
// TileLanes<8> four to a warp; kernels/cuda/lanes_check.cu) against the same algorithm on the
// host's loop of lanes (LoopLanes<W>, which tests/unit/test_lanes.cpp checks against sequential
// folds and Eigen) and, for the solves, against Eigen's dense LU. Skips, saying why, without CUDA
// or a device.
//
// Tolerances against the host's lanes: the two run the same operations in the same order; nvcc
// contracts a * b + c into a fused multiply-add (one rounding instead of two), g++ for x86-64
// does not. Sums and maxima have no product to fuse and are compared bit for bit; a fused step
// differs by at most an ulp of its result, and the scans (products of rotations, entries at most
// 1) and the solves (diagonally dominant: Higham, Accuracy and Stability, §9.5, errors a few
// round-offs times the size) carry such differences with little growth: 1e-13 absolute for the
// scans (test_lanes.cpp's bound for a different association), 1e-12 relative in double and 1e-5
// in float (a hundred float ulps; test_der_kernels_gpu.cpp's float bound) for the solves. A host
// stand-in for lanes_check.cu (the same calls on LoopLanes<W>, compiled with -mfma
// -ffp-contract=fast, 2026-11-29) differed from the host's lanes by at most 3e-16 relative in the
// double solves, 1.6e-7 in the float ones, 3e-17 in the block ones and 2e-15 in the scans.
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <iostream>
#include <random>
#include <vector>

#include "common/block_thomas.hpp"
#include "common/lane_tridiagonal.hpp"
#include "common/lanes.hpp"
#include "lanes_test_support.hpp"
#ifdef HAIRSIM_HAVE_CUDA
#include "cuda/cuda_api.hpp"
#include "cuda/lanes_check.hpp"
#endif

namespace hairsim {
namespace {

#ifdef HAIRSIM_HAVE_CUDA
using kernels::LoopLanes;
using lanes_test::distance;
using lanes_test::Mat3;
using lanes_test::random_rotation;

// Row counts around every boundary of a 32-lane and an 8-lane tile (fewer rows than lanes, one
// a lane, a partial last lane, several a lane, DER's 16-128 vertices), each kCopies times with
// other values: 30 problems, not a multiple of the tiles in a block (4 or 16), so that the last
// block has idle tiles.
const int kRowCounts[] = {1, 2, 3, 5, 31, 32, 33, 64, 100, 128};
constexpr int kCopies = 3, kStride = 128;

std::vector<int> batch_rows() {
  std::vector<int> rows;
  for (int copy = 0; copy < kCopies; ++copy)
    rows.insert(rows.end(), std::begin(kRowCounts), std::end(kRowCounts));
  return rows;
}

// ---- Exchanges ---------------------------------------------------------------------------------

template <int W>
void check_exchanges() {
  const int tiles = 5;  // two blocks of 4 tiles at W = 32, the second mostly idle
  const cuda::LaneExchanges device = cuda::lane_exchanges_check(W, tiles);
  LoopLanes<W> g;
  typename LoopLanes<W>::template Value<Mat3> x;
  typename LoopLanes<W>::template Value<bool> last;
  typename LoopLanes<W>::template Value<int> count;
  g.each_lane([&](int lane) {
    for (int k = 0; k < 9; ++k) x(lane)[k] = 100.0 * lane + k;
    last(lane) = lane == W - 1;
    count(lane) = lane + 1;
  });
  const auto up = g.shfl_up(x, 1), down = g.shfl_down(x, 2), flip = g.shfl_xor(x, 1);
  const auto scan =
      kernels::lane_inclusive_scan<LoopLanes<W>, int>(g, count, [](int a, int b) { return a + b; });
  for (int t = 0; t < tiles; ++t)
    g.each_lane([&](int lane) {
      const int at = t * W + lane;
      for (int k = 0; k < 9; ++k) {
        ASSERT_EQ(device.up[at][k], up(lane)[k])
            << "W " << W << ", tile " << t << ", lane " << lane;
        ASSERT_EQ(device.down[at][k], down(lane)[k]) << "W " << W << ", lane " << lane;
        ASSERT_EQ(device.flip[at][k], flip(lane)[k]) << "W " << W << ", lane " << lane;
        ASSERT_EQ(device.broadcast[at][k], g.broadcast(x, W - 1)[k]) << "W " << W;
      }
      EXPECT_EQ(device.any_last[at], 1) << "W " << W << ", lane " << lane;
      EXPECT_EQ(device.all_last[at], 0) << "W " << W << ", lane " << lane;
      EXPECT_EQ(device.scan[at], scan(lane)) << "W " << W << ", lane " << lane;
      EXPECT_EQ(scan(lane), (lane + 1) * (lane + 2) / 2);
    });
}

// ---- Reductions and scans ----------------------------------------------------------------------

template <int W>
void check_reductions() {
  const std::vector<int> rows = batch_rows();
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> terms(rows.size() * kStride);
  for (double& t : terms) t = u(rng);
  std::vector<double> sums, maxima;
  cuda::lane_reduce_rows_check(W, rows, kStride, terms, sums, maxima);
  ASSERT_EQ(sums.size(), rows.size());
  for (std::size_t p = 0; p < rows.size(); ++p) {
    const int n = rows[p];
    const double* term = terms.data() + p * kStride;
    auto read = [&](int i) { return term[i]; };
    const double host_sum = kernels::reduce_rows(
        LoopLanes<W>{}, n, 0.0, [](double a, double b) { return a + b; }, read);
    double sequential = 0, magnitude = 0, largest = -INFINITY;
    for (int i = 0; i < n; ++i)
      sequential += term[i], magnitude += std::abs(term[i]), largest = std::max(largest, term[i]);
    // Same additions in the same order on both groups: bit for bit.
    EXPECT_EQ(sums[p], host_sum) << "W " << W << ", n " << n;
    // Against the sequential fold: another association, round-offs of the terms' magnitudes.
    EXPECT_NEAR(sums[p], sequential, 1e-14 * (1 + magnitude)) << "W " << W << ", n " << n;
    EXPECT_EQ(maxima[p], largest) << "W " << W << ", n " << n;
  }
}

template <int W>
void check_scans() {
  const std::vector<int> rows = batch_rows();
  std::mt19937 rng(5);
  std::vector<Mat3> terms(rows.size() * kStride, Mat3::identity()), starts(rows.size());
  for (std::size_t p = 0; p < rows.size(); ++p) {
    for (int i = 0; i < rows[p]; ++i) terms[p * kStride + i] = random_rotation(rng);
    starts[p] = random_rotation(rng);
  }
  std::vector<Mat3> forward, reverse, totals;
  cuda::lane_scan_rows_check(W, rows, kStride, terms, starts, forward, reverse, totals);
  auto product = [](const Mat3& a, const Mat3& b) { return a * b; };
  double worst_host = 0, worst_sequential = 0;
  for (std::size_t p = 0; p < rows.size(); ++p) {
    const int n = rows[p];
    const Mat3* term = terms.data() + p * kStride;
    std::vector<Mat3> host(n), host_reverse(n), sequential(n), sequential_reverse(n);
    auto read = [&](int i) { return term[i]; };
    const Mat3 total = kernels::scan_rows(LoopLanes<W>{}, n, starts[p], Mat3::identity(), product,
                                          read, [&](int i, const Mat3& v) { host[i] = v; });
    const Mat3 total_reverse =
        kernels::reverse_scan_rows(LoopLanes<W>{}, n, starts[p], Mat3::identity(), product, read,
                                   [&](int i, const Mat3& v) { host_reverse[i] = v; });
    Mat3 s = starts[p];
    for (int i = 0; i < n; ++i) sequential[i] = s = s * term[i];
    s = starts[p];
    for (int i = n - 1; i >= 0; --i) sequential_reverse[i] = s = s * term[i];
    for (int i = 0; i < n; ++i) {
      const Mat3 &f = forward[p * kStride + i], &r = reverse[p * kStride + i];
      worst_host = std::max({worst_host, distance(f, host[i]), distance(r, host_reverse[i])});
      worst_sequential = std::max(
          {worst_sequential, distance(f, sequential[i]), distance(r, sequential_reverse[i])});
      ASSERT_LT(distance(f, host[i]), 1e-13) << "W " << W << ", n " << n << ", row " << i;
      ASSERT_LT(distance(r, host_reverse[i]), 1e-13) << "W " << W << ", n " << n << ", row " << i;
      ASSERT_LT(distance(f, sequential[i]), 1e-13) << "W " << W << ", n " << n;
      ASSERT_LT(distance(r, sequential_reverse[i]), 1e-13) << "W " << W << ", n " << n;
    }
    EXPECT_LT(distance(totals[2 * p], total), 1e-13) << "W " << W << ", n " << n;
    EXPECT_LT(distance(totals[2 * p + 1], total_reverse), 1e-13) << "W " << W << ", n " << n;
  }
  std::cout << "W " << W << ": scans' largest difference from the host's lanes " << worst_host
            << ", from the sequential products " << worst_sequential << "\n";
}

// The row-dealing collectives (lanes_check.hpp's lane_rows_check). The scatters and the copies
// only add and double, so both groups, which add each row's terms in the same passes' order,
// agree bit for bit; against the sequential sums (another order of at most 5 terms of size <= 1:
// at most 4 · 5 · 2⁻⁵³ ≈ 2.2e-15 apart) within 1e-14; the carried vectors (products of
// rotations) within the scans' 1e-13 of the host's lanes and of the sequential transport.
template <int W>
void check_rows() {
  using Vec3 = kernels::Vec<double, 3>;
  const std::vector<int> rows = batch_rows();
  std::mt19937 rng(23);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> terms(rows.size() * kStride * 5);
  for (double& t : terms) t = u(rng);
  std::vector<Mat3> rotations(rows.size() * kStride, Mat3::identity());
  for (std::size_t p = 0; p < rows.size(); ++p)
    for (int i = 0; i < rows[p]; ++i) rotations[p * kStride + i] = random_rotation(rng);
  const cuda::LaneRowsResults device = cuda::lane_rows_check(W, rows, kStride, terms, rotations);
  const LoopLanes<W> g;
  for (std::size_t p = 0; p < rows.size(); ++p) {
    const int n = rows[p];
    const std::size_t base = p * kStride;
    auto term = [&](int i, int j) { return terms[(base + i) * 5 + j + 2]; };
    EXPECT_EQ(device.once[p], 1) << "W " << W << ", n " << n << ": on_one_lane";
    for (int reach = 1; reach <= 2; ++reach) {
      const std::vector<double>& got = reach == 1 ? device.scatter_1 : device.scatter_2;
      std::vector<double> host(n, 0.0), sequential(n, 0.0);
      auto scatter = [&](std::vector<double>& into, int i) {
        for (int j = -reach; j <= reach; ++j)
          if (i + j >= 0 && i + j < n) into[i + j] += term(i, j);
      };
      kernels::scatter_rows(g, n, reach, [&](int i) { scatter(host, i); });
      for (int i = 0; i < n; ++i) scatter(sequential, i);
      for (int i = 0; i < n; ++i) {
        ASSERT_EQ(got[base + i], host[i]) << "W " << W << ", n " << n << ", reach " << reach;
        ASSERT_NEAR(got[base + i], sequential[i], 1e-14)
            << "W " << W << ", n " << n << ", reach " << reach;
      }
    }
    std::vector<Vec3> host(n), sequential(n);
    const Vec3 start{0.3, -0.5, 0.8};
    kernels::carry_rows(
        g, n, start, Mat3::identity(),
        [&](int i, const Vec3& x) { return rotations[base + i] * x; },
        [&](int i) { return rotations[base + i]; },
        [](const Mat3& r, const Vec3& v) { return r * v; },
        [](const Mat3& first, const Mat3& then) { return then * first; },
        [&](int i, const Vec3& v) { host[i] = v; });
    Vec3 v = start;
    for (int i = 0; i < n; ++i) sequential[i] = v = rotations[base + i] * v;
    for (int i = 0; i < n; ++i) {
      const double copies_ahead = 2 * term((i + 1) % n, 0),
                   copies_behind = 2 * term((i + n - 1) % n, 0);
      ASSERT_EQ(device.neighbours[base + i], copies_ahead - copies_behind)
          << "W " << W << ", n " << n << ", row " << i << ": for_each_row then a neighbour's row";
      for (int k = 0; k < 3; ++k) {
        ASSERT_NEAR(device.carried[base + i][k], host[i][k], 1e-13) << "W " << W << ", n " << n;
        ASSERT_NEAR(device.carried[base + i][k], sequential[i][k], 1e-13)
            << "W " << W << ", n " << n << ", row " << i;
      }
    }
  }
}

// ---- Tridiagonal solves ------------------------------------------------------------------------

// A batch of random diagonally dominant tridiagonal systems (symmetric or not) in thomas_solve's
// arrays at p * kStride, and each problem's dense matrix for Eigen; after the regular problems
// three whose row n / 2 is zeroed (singular: every width must report it).
struct ScalarBatch {
  std::vector<int> rows;
  std::vector<double> lower, diag, upper, rhs;
  std::vector<Eigen::MatrixXd> dense;
  std::vector<bool> singular;
};
ScalarBatch scalar_batch(bool spd, std::mt19937& rng) {
  ScalarBatch b;
  b.rows = batch_rows();
  const std::size_t regular = b.rows.size();
  for (int n : {5, 33, 64}) b.rows.push_back(n);
  const std::size_t size = b.rows.size() * kStride;
  b.lower.assign(size, 0), b.diag.assign(size, 1), b.upper.assign(size, 0), b.rhs.assign(size, 0);
  for (std::size_t p = 0; p < b.rows.size(); ++p) {
    const int n = b.rows[p];
    lanes_test::Tridiagonal t = lanes_test::random_tridiagonal(n, spd, rng);
    b.singular.push_back(p >= regular);
    if (b.singular.back()) t.lower[n / 2] = t.diag[n / 2] = t.upper[n / 2] = 0;
    std::copy(t.lower.begin(), t.lower.end(), b.lower.begin() + p * kStride);
    std::copy(t.diag.begin(), t.diag.end(), b.diag.begin() + p * kStride);
    std::copy(t.upper.begin(), t.upper.end(), b.upper.begin() + p * kStride);
    std::copy(t.rhs.begin(), t.rhs.end(), b.rhs.begin() + p * kStride);
    b.dense.push_back(std::move(t.dense));
  }
  return b;
}

template <class T, int W>
void check_scalar_solves(bool spd, double tolerance) {
  std::mt19937 rng(spd ? 42 : 43);
  const ScalarBatch b = scalar_batch(spd, rng);
  auto as = [](const std::vector<double>& v) { return std::vector<T>(v.begin(), v.end()); };
  std::vector<T> x;
  std::vector<int> ok;
  cuda::lane_thomas_check<T>(W, b.rows, kStride, as(b.lower), as(b.diag), as(b.upper), as(b.rhs), x,
                             ok);
  std::vector<T> lower = as(b.lower), upper = as(b.upper), host = as(b.rhs);
  const std::vector<T> diag = as(b.diag);
  double worst = 0;
  for (std::size_t p = 0; p < b.rows.size(); ++p) {
    const int n = b.rows[p];
    const std::size_t at = p * kStride;
    const bool host_ok = kernels::lane_thomas_solve(LoopLanes<W>{}, n, &lower[at], &diag[at],
                                                    &upper[at], &host[at], &host[at]);
    EXPECT_EQ(host_ok, !b.singular[p]) << "W " << W << ", n " << n;
    ASSERT_EQ(ok[p], host_ok ? 1 : 0) << "W " << W << ", n " << n << ": the device's verdict";
    if (b.singular[p]) continue;
    const Eigen::VectorXd expected =
        b.dense[p].partialPivLu().solve(Eigen::Map<const Eigen::VectorXd>(&b.rhs[at], n));
    for (int i = 0; i < n; ++i) {
      const double scale = 1 + std::abs(expected[i]);
      worst = std::max(worst, std::abs(double(x[at + i]) - double(host[at + i])) / scale);
      ASSERT_NEAR(double(x[at + i]), double(host[at + i]), tolerance * scale)
          << "W " << W << ", n " << n << ", row " << i << ": device against host lanes";
      ASSERT_NEAR(double(x[at + i]), expected[i], tolerance * scale)
          << "W " << W << ", n " << n << ", row " << i << ": device against Eigen";
    }
  }
  std::cout << "W " << W << (sizeof(T) == 4 ? " float" : " double") << (spd ? " spd" : "")
            << ": largest relative difference from the host's lanes " << worst << "\n";
}

// 6 x 6 block rows, symmetric positive definite, the sub-diagonal read from the super-diagonal
// (LowerFromUpper) as DER's implicit step stores it; against the host's lanes and Eigen.
template <int W>
void check_block_solves(double tolerance) {
  constexpr int B = 6;
  const std::vector<int> rows = batch_rows();
  std::mt19937 rng(17);
  std::vector<double> diag(rows.size() * kStride * B * B), upper(diag.size()),
      rhs(rows.size() * kStride * B);
  std::vector<Eigen::MatrixXd> dense;
  for (std::size_t p = 0; p < rows.size(); ++p) {
    lanes_test::BlockTridiagonal t = lanes_test::random_block_tridiagonal<B>(rows[p], rng);
    std::copy(t.diag.begin(), t.diag.end(), diag.begin() + p * kStride * B * B);
    std::copy(t.upper.begin(), t.upper.end(), upper.begin() + p * kStride * B * B);
    std::copy(t.rhs.begin(), t.rhs.end(), rhs.begin() + p * kStride * B);
    dense.push_back(std::move(t.dense));
  }
  std::vector<double> x;
  std::vector<int> ok;
  cuda::lane_block6_thomas_check(W, rows, kStride, diag, upper, rhs, x, ok);
  std::vector<double> host_diag = diag, host_upper = upper, host = rhs;
  double worst = 0;
  for (std::size_t p = 0; p < rows.size(); ++p) {
    const int n = rows[p], dim = n * B;
    const std::size_t blocks = p * kStride * B * B, at = p * kStride * B;
    const kernels::LowerFromUpper<B, const double*> lower{&host_upper[blocks]};
    ASSERT_TRUE((kernels::lane_block_thomas_solve<double, B>(
        LoopLanes<W>{}, n, lower, &host_diag[blocks], &host_upper[blocks], &host[at], &host[at])));
    ASSERT_EQ(ok[p], 1) << "W " << W << ", n " << n << ": the device's verdict";
    const Eigen::VectorXd expected =
        dense[p].partialPivLu().solve(Eigen::Map<const Eigen::VectorXd>(&rhs[at], dim));
    for (int i = 0; i < dim; ++i) {
      const double scale = 1 + std::abs(expected[i]);
      worst = std::max(worst, std::abs(x[at + i] - host[at + i]) / scale);
      ASSERT_NEAR(x[at + i], host[at + i], tolerance * scale)
          << "W " << W << ", n " << n << ", unknown " << i << ": device against host lanes";
      ASSERT_NEAR(x[at + i], expected[i], tolerance * scale)
          << "W " << W << ", n " << n << ", unknown " << i << ": device against Eigen";
    }
  }
  std::cout << "W " << W << " 6 x 6 blocks: largest relative difference from the host's lanes "
            << worst << "\n";
}
// Every test skips, saying why, without a device.
class LanesGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    if (cuda::device_count() == 0)
      GTEST_SKIP() << "no CUDA device present (cudaGetDeviceCount failed or returned 0)";
  }
};

TEST_F(LanesGpu, ExchangesMatchTheHostsLanes) {
  check_exchanges<32>();
  check_exchanges<8>();
}

TEST_F(LanesGpu, ReductionsMatchTheHostsLanesBitForBit) {
  check_reductions<32>();
  check_reductions<8>();
}

TEST_F(LanesGpu, ScansKeepTheRowsOrder) {
  check_scans<32>();
  check_scans<8>();
}

TEST_F(LanesGpu, RowCollectivesMatchTheHostsLanes) {
  check_rows<32>();
  check_rows<8>();
}

TEST_F(LanesGpu, ScalarSolvesMatchTheHostsLanesAndEigen) {
  for (bool spd : {false, true}) {
    check_scalar_solves<double, 32>(spd, 1e-12);
    check_scalar_solves<double, 8>(spd, 1e-12);
    check_scalar_solves<float, 32>(spd, 1e-5);
    check_scalar_solves<float, 8>(spd, 1e-5);
  }
}

TEST_F(LanesGpu, BlockSolvesMatchTheHostsLanesAndEigen) {
  check_block_solves<32>(1e-12);
  check_block_solves<8>(1e-12);
}
#else
TEST(LanesGpu, NeedsCuda) {
  GTEST_SKIP() << "hairsim was built without CUDA (HAIRSIM_CUDA=OFF or no nvcc)";
}
#endif

}  // namespace
}  // namespace hairsim
