#pragma once
// Tridiagonal and block-tridiagonal solves on a group of lanes (common/lanes.hpp): the Thomas-PCR
// hybrid of László, Giles and Appleyard (ACM TOMS 42(4), 2016, "Manycore algorithms for batch
// scalar and block tridiagonal solvers"; OP-DSL/tridsolver). One algorithm for scalar and B x B
// block coefficients; no pivoting between rows (the systems it serves are symmetric positive
// definite or diagonally dominant: DER's twist Hessian and length projection, its implicit step's
// block system).
//
// With W lanes each lane owns a block of m consecutive rows (LaneRows) and:
//  1. eliminates inside its block, Thomas-like, forward then backward, until every inner row k
//     reads x_k = D_k - A_k x_first - C_k x_last in the block's own first and last unknowns, the
//     first row reads x_first = D - A x_prev - C x_last (x_prev: the previous block's last
//     unknown) and the last row q x_first + x_last + s x_next = t (x_next: the next block's
//     first);
//  2. substitutes the first rows' expressions into the last rows: one row per lane in the lanes'
//     last unknowns, tridiagonal across the lanes;
//  3. solves that by parallel cyclic reduction across the lanes (log2 W shuffle steps, every row
//     kept normalised to a unit diagonal so that only left divisions occur);
//  4. recovers each block's first unknown (its neighbour's last by a shuffle) and the inner rows.
// One lane (LoopLanes<1>) is plain Thomas (block Thomas: thomas.hpp, block_thomas.hpp), nothing
// more.
#include <type_traits>

#include "common/block_thomas.hpp"
#include "common/constants.hpp"
#include "common/hd.hpp"
#include "common/lanes.hpp"
#include "common/small_matrix.hpp"
#include "common/strided.hpp"
#include "common/thomas.hpp"

namespace hairsim::kernels {

// ---- The coefficients' algebra: scalars, or blocks (Mat) --------------------------------------

namespace tridiagonal_detail {

template <class T>
HS_HD T zero_like(const T&) {
  return T(0);
}
template <class T, int R, int C>
HS_HD Mat<T, R, C> zero_like(const Mat<T, R, C>&) {
  return Mat<T, R, C>::zero();
}
template <class T>
HS_HD T identity_like(const T&) {
  return T(1);
}
template <class T, int B>
HS_HD Mat<T, B, B> identity_like(const Mat<T, B, B>&) {
  return Mat<T, B, B>::identity();
}
template <class T>
HS_HD T negate(const T& x) {
  return -x;
}
template <class T, int R, int C>
HS_HD Mat<T, R, C> negate(const Mat<T, R, C>& x) {
  return T(-1) * x;
}

// x <- d⁻¹ x for each x given (one elimination of d for all of them). False where d is
// singular: a zero scalar; a block whose pivot is negligible against its row's largest entry
// (block_thomas.hpp's test).
template <class T, class... X, std::enable_if_t<std::is_arithmetic<T>::value, int> = 0>
HS_HD bool left_divide(const T& d, X&... x) {
  if (d == T(0)) return false;
  ((x = x / d), ...);
  return true;
}

template <class M>
struct ColumnsOf;
template <class T, int R, int C>
struct ColumnsOf<Mat<T, R, C>> {
  static constexpr int value = C;
};
template <class M>
inline constexpr int kColumnsOf = ColumnsOf<std::remove_cv_t<std::remove_reference_t<M>>>::value;

template <class T, int B, class... X>
HS_HD bool left_divide(const Mat<T, B, B>& d, X&... x) {
  Mat<T, B, B> m = d;
  T negligible[B] = {};
  for (int r = 0; r < B; ++r)
    for (int c = 0; c < B; ++c) {
      const T size = T(B) * epsilon<T>() * (m(r, c) < T(0) ? -m(r, c) : m(r, c));
      negligible[r] = size > negligible[r] ? size : negligible[r];
    }
  // The right-hand sides side by side, through a plain array (Mat<T, 3, 1> keeps named
  // components): row r holds row r of each x in turn.
  constexpr int kColumns = (kColumnsOf<X> + ...);
  T y[B * kColumns];
  int first = 0;
  auto pack = [&](const auto& z) {
    constexpr int c = kColumnsOf<decltype(z)>;
    for (int r = 0; r < B; ++r)
      for (int k = 0; k < c; ++k) y[r * kColumns + first + k] = z[r * c + k];
    first += c;
  };
  (pack(x), ...);
  if (!block_detail::solve_in_place<T, B, kColumns>(&m.m[0][0], y, negligible)) return false;
  first = 0;
  auto unpack = [&](auto& z) {
    constexpr int c = kColumnsOf<decltype(z)>;
    for (int r = 0; r < B; ++r)
      for (int k = 0; k < c; ++k) z[r * c + k] = y[r * kColumns + first + k];
    first += c;
  };
  (unpack(x), ...);
  return true;
}

}  // namespace tridiagonal_detail

// What the eliminated rows keep (step 1): x_k = D - A x_first - C x_last.
template <class Coefficient, class Vector>
struct EliminatedRow {
  Coefficient A, C;
  Vector D;
};

// ---- Systems the solve reads and writes -------------------------------------------------------
// A system adapter gives the rows' coefficients a(i) (below the diagonal; row 0's is never read),
// b(i), c(i) (above; row n - 1's is never read), d(i) (the right-hand side), keeps an eliminated
// row (store(i, row) after every read of row i and of a(i + 1); load(i)) and takes the solution
// (solution(i, x), after load(i)). Whatever aliasing those orders allow is the adapter's. On one
// lane it solves the whole system itself, sequentially (solve_on_one_lane(n): Thomas, block
// Thomas).

// Scalar rows in indexable arrays (pointers, Strided slices), thomas_solve's arguments: lower,
// upper hold the eliminated rows (both are overwritten), x the solution; x may alias rhs.
template <class Lower, class Diag, class Upper, class Rhs, class X>
struct ScalarTridiagonal {
  using Scalar = element_t<X>;
  using Coefficient = Scalar;
  using Vector = Scalar;
  Lower lower;
  Diag diag;
  Upper upper;
  Rhs rhs;
  X x;
  HS_HD Scalar a(int i) const { return lower[i]; }
  HS_HD Scalar b(int i) const { return diag[i]; }
  HS_HD Scalar c(int i) const { return upper[i]; }
  HS_HD Scalar d(int i) const { return rhs[i]; }
  HS_HD void store(int i, const EliminatedRow<Scalar, Scalar>& row) const {
    lower[i] = row.A, upper[i] = row.C, x[i] = row.D;
  }
  HS_HD EliminatedRow<Scalar, Scalar> load(int i) const { return {lower[i], upper[i], x[i]}; }
  HS_HD void solution(int i, Scalar v) const { x[i] = v; }
  // Thomas, its scratch in upper (each upper[i] is read before scratch[i] is written).
  HS_HD bool solve_on_one_lane(int n) const {
    return thomas_solve(n, lower, diag, upper, rhs, x, upper);
  }
};

// B x B blocks in indexable arrays, block_thomas_solve's layout (block i at i B², row-major;
// vectors at i B), the sub-diagonal possibly read from the super-diagonal (LowerFromUpper): the
// eliminated rows go to diag (A), upper (C) and x (D); x may alias rhs.
template <class T, int B, class Lower, class Diag, class Upper, class Rhs, class X>
struct BlockTridiagonal {
  using Scalar = T;
  using Coefficient = Mat<T, B, B>;
  using Vector = Vec<T, B>;
  Lower lower;
  Diag diag;
  Upper upper;
  Rhs rhs;
  X x;
  template <class Array>
  HS_HD static Coefficient block(const Array& array, int i) {
    Coefficient m;
    for (int k = 0; k < B * B; ++k) m[k] = T(array[i * B * B + k]);
    return m;
  }
  template <class Array>
  HS_HD static Vector vector(const Array& array, int i) {
    Vector v;
    for (int k = 0; k < B; ++k) v[k] = T(array[i * B + k]);
    return v;
  }
  HS_HD Coefficient a(int i) const { return block(lower, i); }
  HS_HD Coefficient b(int i) const { return block(diag, i); }
  HS_HD Coefficient c(int i) const { return block(upper, i); }
  HS_HD Vector d(int i) const { return vector(rhs, i); }
  HS_HD void store(int i, const EliminatedRow<Coefficient, Vector>& row) const {
    for (int k = 0; k < B * B; ++k) diag[i * B * B + k] = row.A[k], upper[i * B * B + k] = row.C[k];
    for (int k = 0; k < B; ++k) x[i * B + k] = row.D[k];
  }
  HS_HD EliminatedRow<Coefficient, Vector> load(int i) const {
    return {block(diag, i), block(upper, i), vector(x, i)};
  }
  HS_HD void solution(int i, const Vector& v) const {
    for (int k = 0; k < B; ++k) x[i * B + k] = v[k];
  }
  // Block Thomas, its scratch in diag (as block_thomas_solve allows).
  HS_HD bool solve_on_one_lane(int n) const {
    return block_thomas_solve<T, B>(n, lower, diag, upper, rhs, x, diag);
  }
};

// ---- The solve ---------------------------------------------------------------------------------

namespace tridiagonal_detail {

// A lane's contribution after step 1: its first row's expression (A, C, D) and its last row,
// reduced to p x_prev_last + q x_first + r x_last + s x_next_first = t.
template <class Coefficient, class Vector>
struct LaneBlock {
  Coefficient first_A, first_C;
  Vector first_D;
  Coefficient p, q, r, s;
  Vector t;
  bool ok;
};

// Step 1 for the rows [begin, end) of an n-row system; `a_first` is a(begin), read before any
// lane stored anything.
template <class System>
HS_HD LaneBlock<typename System::Coefficient, typename System::Vector> eliminate_block(
    const System& sys, int n, int begin, int end, const typename System::Coefficient& a_first) {
  using Coefficient = typename System::Coefficient;
  using Vector = typename System::Vector;
  const int m = end - begin;
  LaneBlock<Coefficient, Vector> out;
  const Coefficient zero = zero_like(a_first), one = identity_like(a_first);
  const Vector zero_vector = zero_like(Vector{});
  out.ok = true;
  if (m <= 0) {  // past the last row: the identity row x = 0, coupled to nothing
    out.first_A = out.first_C = zero, out.first_D = zero_vector;
    out.p = out.q = out.s = zero, out.r = one, out.t = zero_vector;
    return out;
  }
  const Coefficient a0 = begin > 0 ? a_first : zero, b0 = sys.b(begin);
  const Coefficient c0 = begin + 1 < n ? sys.c(begin) : zero;
  const Vector d0 = sys.d(begin);
  if (m == 1) {  // its one row is its first and its last: x_first = x_last
    out.first_A = zero, out.first_C = negate(one), out.first_D = zero_vector;
    out.p = a0, out.q = zero, out.r = b0, out.s = c0, out.t = d0;
    return out;
  }
  // Forward, rows k = 1 .. m - 1: x_k + C'_k x_{k+1} + A'_k x_first = D'_k.
  Coefficient a_k = sys.a(begin + 1), A_prev = zero, C_prev = zero;
  Vector D_prev = zero_vector;
  for (int k = 1; k < m; ++k) {
    const int i = begin + k;
    const Coefficient a = a_k;
    if (k + 1 < m) a_k = sys.a(i + 1);
    Coefficient den = sys.b(i);
    Coefficient A = a, C = i + 1 < n ? sys.c(i) : zero;
    Vector D = sys.d(i);
    if (k > 1) {
      den = den - a * C_prev;
      A = negate(a * A_prev);
      D = D - a * D_prev;
    }
    if (!left_divide(den, A, C, D)) out.ok = false;
    if (k + 1 < m) sys.store(i, {A, C, D});
    A_prev = A, C_prev = C, D_prev = D;
  }
  out.p = zero, out.q = A_prev, out.r = one, out.s = C_prev, out.t = D_prev;
  // Backward, rows k = m - 2 .. 1: x_k = D''_k - A''_k x_first - C''_k x_last, from row m - 1's
  // (0, -1, 0) (x_last itself).
  Coefficient A_next = zero, C_next = negate(one);
  Vector D_next = zero_vector;
  for (int k = m - 2; k >= 1; --k) {
    const int i = begin + k;
    const EliminatedRow<Coefficient, Vector> row = sys.load(i);
    A_next = row.A - row.C * A_next;
    C_next = negate(row.C * C_next);
    D_next = row.D - row.C * D_next;
    sys.store(i, {A_next, C_next, D_next});
  }
  // The first row with x_1 substituted: x_first = D - A x_prev - C x_last.
  const Coefficient den0 = b0 - c0 * A_next;
  Coefficient A = a0, C = negate(c0 * C_next);
  Vector D = d0 - c0 * D_next;
  if (!left_divide(den0, A, C, D)) out.ok = false;
  out.first_A = A, out.first_C = C, out.first_D = D;
  return out;
}

}  // namespace tridiagonal_detail

// Solves the n-row (block-)tridiagonal system of `sys` on the group g; every lane returns the
// same verdict: false where a pivot was singular (the solution is then unspecified).
template <class G, class System>
HS_HD bool lane_tridiagonal_solve(const G& g, int n, const System& sys) {
  using namespace tridiagonal_detail;
  if constexpr (G::kWidth == 1) {
    return sys.solve_on_one_lane(n);
  } else {
    using Coefficient = typename System::Coefficient;
    using Vector = typename System::Vector;
    const LaneRows rows = lane_rows(g, n);
    // Each lane's a(first row) before anyone stores (it may live in the previous lane's slots).
    typename G::template Value<Coefficient> a_first;
    g.each_lane([&](int lane) {
      const int i = rows.begin(lane);
      a_first(lane) = i > 0 && i < n ? sys.a(i) : Coefficient{};
    });
    g.sync();
    // 1. Eliminate each block.
    typename G::template Value<LaneBlock<Coefficient, Vector>> block;
    g.each_lane([&](int lane) {
      block(lane) = eliminate_block(sys, n, rows.begin(lane), rows.end(lane), a_first(lane));
    });
    // 2. One row per lane in the lanes' last unknowns: the next lane's first expression by a
    // shuffle (the last lane's s is 0: nothing follows it).
    const typename G::template Value<LaneBlock<Coefficient, Vector>> next = g.shfl_down(block, 1);
    struct Row {
      Coefficient lower, upper;
      Vector rhs;
    };
    typename G::template Value<Row> row;
    typename G::template Value<bool> failed;
    g.each_lane([&](int lane) {
      const LaneBlock<Coefficient, Vector>& k = block(lane);
      const LaneBlock<Coefficient, Vector>& nx = next(lane);
      const bool last = lane + 1 == G::kWidth;
      Coefficient lower = k.p - k.q * k.first_A;
      Coefficient diag = k.r - k.q * k.first_C;
      Coefficient upper = zero_like(diag);
      Vector rhs = k.t - k.q * k.first_D;
      if (!last) {
        diag = diag - k.s * nx.first_A;
        upper = negate(k.s * nx.first_C);
        rhs = rhs - k.s * nx.first_D;
      }
      bool ok = k.ok && left_divide(diag, lower, upper, rhs);
      row(lane) = {lower, upper, rhs};
      failed(lane) = !ok;
    });
    // 3. Cyclic reduction on the normalised rows x_l + L x_{l-d} + U x_{l+d} = R.
    for (int d = 1; d < G::kWidth; d *= 2) {
      const typename G::template Value<Row> before = g.shfl_up(row, d), after = g.shfl_down(row, d);
      g.each_lane([&](int lane) {
        Row& r = row(lane);
        const bool has_before = lane >= d, has_after = lane + d < G::kWidth;
        const Coefficient one = identity_like(r.lower);
        Coefficient diag = one, lower = zero_like(one), upper = zero_like(one);
        Vector rhs = r.rhs;
        if (has_before) {
          const Row& m = before(lane);
          diag = diag - r.lower * m.upper;
          lower = negate(r.lower * m.lower);
          rhs = rhs - r.lower * m.rhs;
        }
        if (has_after) {
          const Row& p = after(lane);
          diag = diag - r.upper * p.lower;
          upper = negate(r.upper * p.upper);
          rhs = rhs - r.upper * p.rhs;
        }
        if (!left_divide(diag, lower, upper, rhs)) failed(lane) = true;
        r = {lower, upper, rhs};
      });
    }
    if (g.any(failed)) return false;
    // 4. x_last = R; x_first from the previous lane's x_last; the inner rows.
    typename G::template Value<Vector> last;
    g.each_lane([&](int lane) { last(lane) = row(lane).rhs; });
    const typename G::template Value<Vector> previous_last = g.shfl_up(last, 1);
    g.each_lane([&](int lane) {
      const int begin = rows.begin(lane), end = rows.end(lane);
      if (begin >= end) return;
      const LaneBlock<Coefficient, Vector>& k = block(lane);
      const Vector x_last = last(lane);
      const Vector x_prev = lane > 0 ? previous_last(lane) : zero_like(x_last);
      const Vector x_first = k.first_D - k.first_A * x_prev - k.first_C * x_last;
      for (int i = begin + 1; i + 1 < end; ++i) {
        const EliminatedRow<Coefficient, Vector> r = sys.load(i);
        sys.solution(i, r.D - r.A * x_first - r.C * x_last);
      }
      sys.solution(begin, x_first);
      if (end - 1 > begin) sys.solution(end - 1, x_last);
    });
    g.sync();
    return true;
  }
}

// Where a solve runs on a group: across its lanes (the hybrid above), or on its first lane alone,
// sequentially, the others waiting (Thomas, block Thomas): for blocks too large to hold on every
// lane (DER's 6 x 6 vertex pairs across 32 lanes: 6.3 kB of stack and 21 kB of spills a thread
// in the compiler's report, against 1.2-1.5 kB and 0.4-3 kB on one lane; bench/RESULTS.md
// 2026-11-29).
enum class LaneSolve { across_lanes, first_lane };

template <class G, class System>
HS_HD bool lane_tridiagonal_solve(const G& g, int n, const System& sys, LaneSolve where) {
  if (where == LaneSolve::across_lanes || G::kWidth == 1) return lane_tridiagonal_solve(g, n, sys);
  typename G::template Value<bool> ok;
  g.each_lane([&](int lane) { ok(lane) = lane != 0 || sys.solve_on_one_lane(n); });
  g.sync();
  return g.all(ok);
}

// Scalar rows in arrays (thomas_solve's arguments; lower and upper are overwritten).
template <class G, class Lower, class Diag, class Upper, class Rhs, class X>
HS_HD bool lane_thomas_solve(const G& g, int n, Lower lower, Diag diag, Upper upper, Rhs rhs, X x,
                             LaneSolve where = LaneSolve::across_lanes) {
  return lane_tridiagonal_solve(
      g, n, ScalarTridiagonal<Lower, Diag, Upper, Rhs, X>{lower, diag, upper, rhs, x}, where);
}

// B x B block rows in arrays (block_thomas_solve's layout; diag and upper are overwritten).
template <class T, int B, class G, class Lower, class Diag, class Upper, class Rhs, class X>
HS_HD bool lane_block_thomas_solve(const G& g, int n, Lower lower, Diag diag, Upper upper, Rhs rhs,
                                   X x, LaneSolve where = LaneSolve::across_lanes) {
  return lane_tridiagonal_solve(
      g, n, BlockTridiagonal<T, B, Lower, Diag, Upper, Rhs, X>{lower, diag, upper, rhs, x}, where);
}

}  // namespace hairsim::kernels
