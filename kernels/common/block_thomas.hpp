#pragma once
// Block Thomas algorithm: O(n B³) solve of a block-tridiagonal system with B x B blocks, no
// pivoting between blocks (valid for block diagonally dominant or symmetric positive definite
// systems: the DER implicit step, the Cosserat hybrid preconditioner). Within a block, Gaussian
// elimination with partial pivoting. Host and device; blocks row-major, B fixed at compile time.
//   lower[i] = A(i, i-1) for i >= 1 (lower[0] unused), diag[i] = A(i, i),
//   upper[i] = A(i, i+1) for i <= n-2 (upper[n-1] unused); each a pointer offset of i * B * B.
//   rhs, x: n * B values. scratch: n * B * B values. `x` may alias `rhs`; `scratch` may alias
//   `diag` (block i of scratch is written after block i of diag is read for the last time).
// The arrays are anything indexable: pointers, Strided slices of a batch, LowerFromUpper.
// Returns false on a singular diagonal block: one whose pivot is at or below B epsilon times the
// largest entry of its row in the diagonal block before elimination, i.e. zero up to the rounding
// of the elimination itself (per row: a block's rows may carry different units). (An
// exact-zero test was not enough: with fused multiply-adds, as nvcc compiles by default, a block
// that is singular in exact arithmetic left a pivot of rounding size, and the first GPU run,
// 2026-11-26, went on to solve with it where the cpu stopped.)
#include "common/constants.hpp"
#include "common/hd.hpp"

namespace hairsim::kernels {

namespace block_detail {

// Solves M X = Y in place for an B x B matrix M (destroyed) and `cols` right-hand columns of Y
// (B x cols, row-major), by Gaussian elimination with partial pivoting. False when a pivot is at
// or below negligible[r] for its row r (singular to working precision); `negligible` is permuted
// with the rows. The column count is a compile-time one: its loops unroll (a run-time count
// left the elimination out of line and twice as slow).
template <class T, int B, int cols>
HS_HD bool solve_in_place(T* m, T* y, T* negligible) {
  for (int k = 0; k < B; ++k) {
    int pivot = k;
    T best = m[k * B + k] < T(0) ? -m[k * B + k] : m[k * B + k];
    for (int r = k + 1; r < B; ++r) {
      const T v = m[r * B + k] < T(0) ? -m[r * B + k] : m[r * B + k];
      if (v > best) best = v, pivot = r;
    }
    if (best <= negligible[pivot]) return false;
    if (pivot != k) {
      const T row_negligible = negligible[k];
      negligible[k] = negligible[pivot];
      negligible[pivot] = row_negligible;
      for (int c = 0; c < B; ++c) {
        const T t = m[k * B + c];
        m[k * B + c] = m[pivot * B + c];
        m[pivot * B + c] = t;
      }
      for (int c = 0; c < cols; ++c) {
        const T t = y[k * cols + c];
        y[k * cols + c] = y[pivot * cols + c];
        y[pivot * cols + c] = t;
      }
    }
    for (int r = k + 1; r < B; ++r) {
      const T f = m[r * B + k] / m[k * B + k];
      for (int c = k; c < B; ++c) m[r * B + c] -= f * m[k * B + c];
      for (int c = 0; c < cols; ++c) y[r * cols + c] -= f * y[k * cols + c];
    }
  }
  for (int k = B - 1; k >= 0; --k)
    for (int c = 0; c < cols; ++c) {
      T v = y[k * cols + c];
      for (int j = k + 1; j < B; ++j) v -= m[k * B + j] * y[j * cols + c];
      y[k * cols + c] = v / m[k * B + k];
    }
  return true;
}

}  // namespace block_detail

template <class T, int B, class Lower, class Diag, class Upper, class Rhs, class X, class Scratch>
HS_HD bool block_thomas_solve(int n, Lower lower, Diag diag, Upper upper, Rhs rhs, X x,
                              Scratch scratch) {
  constexpr int kBB = B * B;
  T pivot[kBB];
  T vec[B];
  for (int i = 0; i < n; ++i) {
    // D'_i = D_i - L_i C'_{i-1};  d'_i = r_i - L_i d'_{i-1}.
    T negligible[B] = {};  // per row: B epsilon times its largest entry, what rounding leaves
    for (int r = 0; r < B; ++r)
      for (int c = 0; c < B; ++c) {
        const T entry = pivot[r * B + c] = diag[i * kBB + r * B + c];
        const T size = T(B) * epsilon<T>() * (entry < T(0) ? -entry : entry);
        negligible[r] = size > negligible[r] ? size : negligible[r];
      }
    for (int r = 0; r < B; ++r) vec[r] = rhs[i * B + r];
    if (i > 0) {
      const int l = i * kBB, c_prev = (i - 1) * kBB;
      for (int r = 0; r < B; ++r)
        for (int j = 0; j < B; ++j) {
          const T lrj = lower[l + r * B + j];
          for (int c = 0; c < B; ++c) pivot[r * B + c] -= lrj * scratch[c_prev + j * B + c];
          vec[r] -= lrj * x[(i - 1) * B + j];
        }
    }
    // C'_i = D'_i⁻¹ U_i and d'_i = D'_i⁻¹ (...): one elimination for both.
    const int c_i = i * kBB;
    T work[B * (B + 1)];
    for (int r = 0; r < B; ++r) {
      for (int c = 0; c < B; ++c)
        work[r * (B + 1) + c] = i + 1 < n ? upper[i * kBB + r * B + c] : T(0);
      work[r * (B + 1) + B] = vec[r];
    }
    if (!block_detail::solve_in_place<T, B, B + 1>(pivot, work, negligible)) return false;
    for (int r = 0; r < B; ++r) {
      for (int c = 0; c < B; ++c) scratch[c_i + r * B + c] = work[r * (B + 1) + c];
      x[i * B + r] = work[r * (B + 1) + B];
    }
  }
  // Back substitution: x_i = d'_i - C'_i x_{i+1}.
  for (int i = n - 2; i >= 0; --i) {
    const int c_i = i * kBB;
    for (int r = 0; r < B; ++r) {
      T v = x[i * B + r];
      for (int c = 0; c < B; ++c) v -= scratch[c_i + r * B + c] * x[(i + 1) * B + c];
      x[i * B + r] = v;
    }
  }
  return true;
}

// The sub-diagonal blocks of a symmetric block-tridiagonal matrix read from its super-diagonal
// ones, lower block i = (upper block i - 1)ᵀ: a symmetric system stores two block arrays, not
// three.
template <int B, class Upper>
struct LowerFromUpper {
  Upper upper;
  HS_HD auto operator[](int k) const {
    const int i = k / (B * B), r = k % (B * B) / B, c = k % B;
    return upper[(i - 1) * B * B + c * B + r];
  }
};

}  // namespace hairsim::kernels
