// The byte counter behind the performance model (scripts/kernel_counts.py, docs/gpu.md): in a
// build with HAIRSIM_COUNT_ACCESSES every read and write through Strided / StridedVector3 is
// counted. Checked against counts derived by hand from the code: the Thomas solve
// (kernels/common/thomas.hpp) of n unknowns reads 10 n - 8 and writes 3 n - 1 elements (forward
// sweep: 3 + 9 (n - 1) reads less one `upper` at the last row, 2 n writes; back substitution:
// 3 reads and 1 write for each of n - 1 rows), and the counting build solves it exactly as the
// plain one. Its own executable (no engine linked): the rest of the build is compiled without the
// counter, and one program may hold only one definition of Strided.
#include <gtest/gtest.h>

#include <vector>

#include "common/strided.hpp"
#include "common/thomas.hpp"

namespace hairsim::kernels {
namespace {

static_assert(std::is_same_v<decltype(Strided<float>{nullptr, 1}[0]), CountedRef<float>>,
              "this test needs the counting build (HAIRSIM_COUNT_ACCESSES)");

struct Counted {
  long long loads, stores;
};

Counted counted_since(const Counted& before) {
  return {access_counts().load_bytes - before.loads, access_counts().store_bytes - before.stores};
}

Counted now() {
  return {access_counts().load_bytes, access_counts().store_bytes};
}

template <class T>
void expect_thomas_counts(int n) {
  // A diagonally dominant system with solution x_i = i + 1, stored with a stride of 3 (every
  // third element), as a tile stores one strand's rows.
  const int stride = 3;
  std::vector<T> lower(n * stride, T(-1)), diag(n * stride, T(4)), upper(n * stride, T(-1)),
      rhs(n * stride), x(n * stride), scratch(n * stride);
  for (int i = 0; i < n; ++i) {
    const T left = i > 0 ? T(i) : T(0), right = i + 1 < n ? T(i + 2) : T(0);
    rhs[i * stride] = T(4) * T(i + 1) - left - right;
  }
  auto view = [&](std::vector<T>& v) { return Strided<T>{v.data(), stride}; };
  const Counted before = now();
  ASSERT_TRUE(
      thomas_solve(n, view(lower), view(diag), view(upper), view(rhs), view(x), view(scratch)));
  const Counted bytes = counted_since(before);
  EXPECT_EQ(bytes.loads, (10LL * n - 8) * static_cast<long long>(sizeof(T))) << "n = " << n;
  EXPECT_EQ(bytes.stores, (3LL * n - 1) * static_cast<long long>(sizeof(T))) << "n = " << n;
  for (int i = 0; i < n; ++i) EXPECT_NEAR(double(x[i * stride]), i + 1.0, 1e-5 * (i + 1));
}

TEST(AccessCounts, ThomasSolveMatchesTheHandCount) {
  for (const int n : {2, 5, 31}) {
    expect_thomas_counts<float>(n);
    expect_thomas_counts<double>(n);
  }
}

TEST(AccessCounts, VectorAccessesCountThreeElements) {
  std::vector<float> x(6), y(6), z(6);
  const StridedVector3<float> v{x.data(), y.data(), z.data(), 2};
  const Counted before = now();
  v.set(1, {1.f, 2.f, 3.f});
  const Vector3<float> back = v.get(1);
  const Counted bytes = counted_since(before);
  EXPECT_EQ(bytes.stores, 3 * 4);
  EXPECT_EQ(bytes.loads, 3 * 4);
  EXPECT_EQ(back.y, 2.f);
  EXPECT_EQ(y[2], 2.f);  // element 1 at index stride * 1
}

}  // namespace
}  // namespace hairsim::kernels
