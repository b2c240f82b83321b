// The cooperative vocabulary (kernels/common/lanes.hpp, lane_tridiagonal.hpp) on the host's group
// of W lanes run as a loop: the same algorithms a warp runs (LoopLanes<32>) and the sequential
// strand (LoopLanes<1>), against sequential folds and Eigen's dense LU (independent solver).
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <random>
#include <vector>

#include "common/lane_tridiagonal.hpp"
#include "common/lanes.hpp"
#include "common/thomas.hpp"
#include "lanes_test_support.hpp"

namespace hairsim {
namespace {

using kernels::LoopLanes;
using lanes_test::distance;
using lanes_test::Mat3;
using lanes_test::random_rotation;
using lanes_test::random_tridiagonal;
using lanes_test::Tridiagonal;

// Row counts around every boundary of a 32-lane group: fewer rows than lanes, one row a lane,
// a partial last lane, several rows a lane (DER's 16-128 vertices).
const int kRowCounts[] = {1, 2, 3, 5, 8, 31, 32, 33, 63, 64, 65, 100, 128};

template <int W>
void check_shuffles() {
  LoopLanes<W> g;
  typename LoopLanes<W>::template Value<int> x;
  g.each_lane([&](int lane) { x(lane) = 10 * lane; });
  const auto up = g.shfl_up(x, 1), down = g.shfl_down(x, 2), flip = g.shfl_xor(x, 1 % W);
  g.each_lane([&](int lane) {
    EXPECT_EQ(up(lane), 10 * (lane >= 1 ? lane - 1 : lane));  // __shfl_up_sync keeps lane 0's
    EXPECT_EQ(down(lane), 10 * (lane + 2 < W ? lane + 2 : lane));
    EXPECT_EQ(flip(lane), 10 * (lane ^ (1 % W)));
  });
  EXPECT_EQ(g.broadcast(x, W - 1), 10 * (W - 1));
}

TEST(Lanes, ShufflesFollowTheWarpsSemantics) {
  check_shuffles<1>();
  check_shuffles<2>();
  check_shuffles<8>();
  check_shuffles<32>();
}

// Integer folds are exact, so the lanes' sums and maxima must equal the sequential ones.
template <int W>
void check_reductions() {
  LoopLanes<W> g;
  for (int n : kRowCounts) {
    auto term = [](int i) { return (i * 7919) % 101 - 50; };
    long sum = 0;
    int largest = -1000;
    for (int i = 0; i < n; ++i) sum += term(i), largest = std::max(largest, term(i));
    EXPECT_EQ(
        kernels::reduce_rows(
            g, n, 0L, [](long a, long b) { return a + b; }, [&](int i) { return long(term(i)); }),
        sum)
        << "W " << W << ", n " << n;
    EXPECT_EQ(kernels::reduce_rows(
                  g, n, -1000, [](int a, int b) { return std::max(a, b); }, term),
              largest)
        << "W " << W << ", n " << n;
    int visits = 0;
    kernels::for_each_row(g, n, [&](int) { ++visits; });
    EXPECT_EQ(visits, n);
  }
}

TEST(Lanes, ReductionsEqualTheSequentialFold) {
  check_reductions<1>();
  check_reductions<2>();
  check_reductions<4>();
  check_reductions<32>();
}

// A product of rotations does not commute: the scans must keep the rows' order. Each row's term
// is a rotation by a random angle about a random axis (Rodrigues); the scan's partial products
// must match the sequential ones to round-off (their association differs).
template <int W>
void check_scans() {
  LoopLanes<W> g;
  std::mt19937 rng(5);
  for (int n : kRowCounts) {
    std::vector<Mat3> term(n);
    for (Mat3& t : term) t = random_rotation(rng);
    const Mat3 start = random_rotation(rng), one = Mat3::identity();
    auto product = [](const Mat3& a, const Mat3& b) { return a * b; };
    std::vector<Mat3> expected(n), got(n), expected_reverse(n), got_reverse(n);
    Mat3 s = start;
    for (int i = 0; i < n; ++i) expected[i] = s = s * term[i];
    const Mat3 total = kernels::scan_rows(
        g, n, start, one, product, [&](int i) { return term[i]; },
        [&](int i, const Mat3& v) { got[i] = v; });
    s = start;
    for (int i = n - 1; i >= 0; --i) expected_reverse[i] = s = s * term[i];
    const Mat3 total_reverse = kernels::reverse_scan_rows(
        g, n, start, one, product, [&](int i) { return term[i]; },
        [&](int i, const Mat3& v) { got_reverse[i] = v; });
    for (int i = 0; i < n; ++i) {
      ASSERT_LT(distance(got[i], expected[i]), 1e-13) << "W " << W << ", n " << n << ", row " << i;
      ASSERT_LT(distance(got_reverse[i], expected_reverse[i]), 1e-13)
          << "W " << W << ", n " << n << ", row " << i;
    }
    EXPECT_LT(distance(total, expected[n - 1]), 1e-13);
    EXPECT_LT(distance(total_reverse, expected_reverse[0]), 1e-13);
  }
}

TEST(Lanes, ScansKeepTheRowsOrder) {
  check_scans<1>();
  check_scans<2>();
  check_scans<4>();
  check_scans<32>();
}

// A stencil's scatter: row i adds into rows i - 1 .. i + 1 (DER's forces). Integer sums are
// exact, so every width must give the sequential sums; and rows that add into a common row never
// run between the same two syncs (a group that counts its syncs says which pass a row ran in).
template <int W>
struct SyncCountingLanes : LoopLanes<W> {
  int* syncs;
  void sync() const { ++*syncs; }
};

template <int W>
void check_scatter() {
  int syncs = 0;
  const SyncCountingLanes<W> g{{}, &syncs};
  for (int n : kRowCounts) {
    std::vector<long> expected(n), got(n);
    for (int i = 0; i < n; ++i)
      for (int k = -1; k <= 1; ++k)
        if (i + k >= 0 && i + k < n) expected[i + k] += (i + 3) * (k + 2);
    std::vector<int> pass_of(n, -1);
    kernels::scatter_rows(g, n, 1, [&](int i) {
      pass_of[i] = syncs;
      for (int k = -1; k <= 1; ++k)
        if (i + k >= 0 && i + k < n) got[i + k] += (i + 3) * (k + 2);
    });
    EXPECT_EQ(got, expected) << "W " << W << ", n " << n;
    if (W == 1) continue;
    for (int i = 0; i + 1 < n; ++i) {
      EXPECT_NE(pass_of[i], pass_of[i + 1]) << "W " << W << ", n " << n << ", row " << i;
      if (i + 2 < n) {
        EXPECT_NE(pass_of[i], pass_of[i + 2]) << "W " << W << ", n " << n;
      }
    }
  }
}

TEST(Lanes, ScatterKeepsNeighboursApart) {
  check_scatter<1>();
  check_scatter<4>();
  check_scatter<32>();
}

// A vector carried along the rows by each row's rotation (the Bishop frame's parallel transport):
// the same vectors as applying the rotations one after the other, to round-off.
template <int W>
void check_carry() {
  LoopLanes<W> g;
  std::mt19937 rng(9);
  for (int n : kRowCounts) {
    std::vector<Mat3> term(n);
    for (Mat3& t : term) t = random_rotation(rng);
    const kernels::Vec<double, 3> start{0.3, -0.5, 0.8};
    std::vector<kernels::Vec<double, 3>> expected(n), got(n);
    kernels::Vec<double, 3> v = start;
    for (int i = 0; i < n; ++i) expected[i] = v = term[i] * v;
    kernels::carry_rows(
        g, n, start, Mat3::identity(),
        [&](int i, const kernels::Vec<double, 3>& u) { return term[i] * u; },
        [&](int i) { return term[i]; },
        [](const Mat3& r, const kernels::Vec<double, 3>& u) { return r * u; },
        [](const Mat3& first, const Mat3& then) { return then * first; },
        [&](int i, const kernels::Vec<double, 3>& u) { got[i] = u; });
    for (int i = 0; i < n; ++i)
      for (int k = 0; k < 3; ++k)
        ASSERT_NEAR(got[i][k], expected[i][k], 1e-13) << "W " << W << ", n " << n << ", row " << i;
  }
}

TEST(Lanes, CarriedVectorsFollowTheRowsInOrder) {
  check_carry<1>();
  check_carry<2>();
  check_carry<32>();
}

template <class T, int W>
void check_scalar_solve(bool spd, double tolerance) {
  LoopLanes<W> g;
  std::mt19937 rng(42);
  for (int n : kRowCounts) {
    const Tridiagonal t = random_tridiagonal(n, spd, rng);
    std::vector<T> lo(t.lower.begin(), t.lower.end()), di(t.diag.begin(), t.diag.end()),
        up(t.upper.begin(), t.upper.end()), x(t.rhs.begin(), t.rhs.end());  // x aliases rhs
    ASSERT_TRUE(
        kernels::lane_thomas_solve(g, n, lo.data(), di.data(), up.data(), x.data(), x.data()));
    const Eigen::VectorXd expected =
        t.dense.partialPivLu().solve(Eigen::Map<const Eigen::VectorXd>(t.rhs.data(), n));
    for (int i = 0; i < n; ++i)
      ASSERT_NEAR(double(x[i]), expected[i], tolerance * (1 + std::abs(expected[i])))
          << "W " << W << ", n " << n << ", row " << i;
  }
}

// Tolerances: a diagonally dominant system's error is a few round-offs of its size (Thomas:
// Higham, Accuracy and Stability, §9.5); 1e-12 double, 1e-5 float, as test_thomas.cpp.
TEST(LaneTridiagonal, SolvesDominantAndSymmetricSystems) {
  for (bool spd : {false, true}) {
    check_scalar_solve<double, 1>(spd, 1e-12);
    check_scalar_solve<double, 2>(spd, 1e-12);
    check_scalar_solve<double, 4>(spd, 1e-12);
    check_scalar_solve<double, 32>(spd, 1e-12);
    check_scalar_solve<float, 1>(spd, 1e-5);
    check_scalar_solve<float, 32>(spd, 1e-5);
  }
}

// One lane is Thomas itself: the same arithmetic as thomas_solve, so bit for bit its answer.
TEST(LaneTridiagonal, OneLaneIsThomas) {
  std::mt19937 rng(3);
  for (int n : kRowCounts) {
    const Tridiagonal t = random_tridiagonal(n, true, rng);
    std::vector<double> lo = t.lower, di = t.diag, up = t.upper, x = t.rhs;
    std::vector<double> expected(n), scratch(n);
    ASSERT_TRUE(kernels::thomas_solve(n, t.lower.data(), t.diag.data(), t.upper.data(),
                                      t.rhs.data(), expected.data(), scratch.data()));
    ASSERT_TRUE(kernels::lane_thomas_solve(LoopLanes<1>{}, n, lo.data(), di.data(), up.data(),
                                           x.data(), x.data()));
    for (int i = 0; i < n; ++i) ASSERT_EQ(x[i], expected[i]) << "n " << n << ", row " << i;
  }
}

// A zero row makes the system singular: every width says so.
template <int W>
void check_singular() {
  for (int n : {1, 5, 33, 64}) {
    for (int zero_row : {0, n / 2, n - 1}) {
      std::mt19937 rng(n);
      Tridiagonal t = random_tridiagonal(n, true, rng);
      t.diag[zero_row] = 0;
      if (zero_row > 0) t.lower[zero_row] = 0;
      if (zero_row + 1 < n) t.upper[zero_row] = 0;
      std::vector<double> x = t.rhs;
      EXPECT_FALSE(kernels::lane_thomas_solve(LoopLanes<W>{}, n, t.lower.data(), t.diag.data(),
                                              t.upper.data(), x.data(), x.data()))
          << "W " << W << ", n " << n << ", zero row " << zero_row;
    }
  }
}

TEST(LaneTridiagonal, ReportsASingularSystem) {
  check_singular<1>();
  check_singular<4>();
  check_singular<32>();
}

// Block rows, B = 3 and 6 (DER's implicit step pairs vertices into 6 x 6 blocks), symmetric
// positive definite with the sub-diagonal read from the super-diagonal (LowerFromUpper), as the
// step stores it; against Eigen.
template <int B, int W>
void check_block_solve(double tolerance) {
  std::mt19937 rng(17);
  for (int n : kRowCounts) {
    const int dim = n * B;
    const lanes_test::BlockTridiagonal t = lanes_test::random_block_tridiagonal<B>(n, rng);
    const Eigen::VectorXd expected =
        t.dense.partialPivLu().solve(Eigen::Map<const Eigen::VectorXd>(t.rhs.data(), dim));
    std::vector<double> diag = t.diag, upper = t.upper, x = t.rhs;
    const kernels::LowerFromUpper<B, const double*> lower{upper.data()};
    ASSERT_TRUE((kernels::lane_block_thomas_solve<double, B>(LoopLanes<W>{}, n, lower, diag.data(),
                                                             upper.data(), x.data(), x.data())));
    for (int i = 0; i < dim; ++i)
      ASSERT_NEAR(x[i], expected[i], tolerance * (1 + std::abs(expected[i])))
          << "B " << B << ", W " << W << ", n " << n << ", unknown " << i;
  }
}

TEST(LaneTridiagonal, SolvesSymmetricBlockSystems) {
  check_block_solve<3, 1>(1e-12);
  check_block_solve<3, 4>(1e-12);
  check_block_solve<3, 32>(1e-12);
  check_block_solve<6, 1>(1e-12);
  check_block_solve<6, 32>(1e-12);
}

}  // namespace
}  // namespace hairsim
