#pragma once
// Thomas algorithm: O(n) solve of a tridiagonal system A x = d without pivoting, valid for
// diagonally dominant or symmetric positive definite A (the DER twist Hessian, the
// fast-projection constraint system of a chain). Host and device.
//   lower[i] = A(i, i-1) for i >= 1 (lower[0] unused)
//   diag[i]  = A(i, i)
//   upper[i] = A(i, i+1) for i <= n-2 (upper[n-1] unused)
// `scratch` holds n values; `x` may alias `rhs`. Returns false on a zero pivot. The arrays are
// anything indexable: pointers, or Strided slices of a batch (common/strided.hpp).
#include <type_traits>

#include "common/hd.hpp"
#include "common/strided.hpp"

namespace hairsim::kernels {

template <class Lower, class Diag, class Upper, class Rhs, class X, class Scratch>
HS_HD bool thomas_solve(int n, Lower lower, Diag diag, Upper upper, Rhs rhs, X x, Scratch scratch) {
  using T = element_t<X>;
  if (n <= 0) return true;
  // Forward sweep: scratch[i] = modified upper coefficient c'_i, x[i] = modified rhs d'_i.
  T pivot = diag[0];
  if (pivot == T(0)) return false;
  scratch[0] = upper[0] / pivot;
  x[0] = rhs[0] / pivot;
  for (int i = 1; i < n; ++i) {
    pivot = diag[i] - lower[i] * scratch[i - 1];
    if (pivot == T(0)) return false;
    scratch[i] = i + 1 < n ? upper[i] / pivot : T(0);
    x[i] = (rhs[i] - lower[i] * x[i - 1]) / pivot;
  }
  // Back substitution.
  for (int i = n - 2; i >= 0; --i) x[i] -= scratch[i] * x[i + 1];
  return true;
}

}  // namespace hairsim::kernels

namespace hairsim::kernels {

// Cyclic (periodic) tridiagonal system: the tridiagonal A plus the corners A(0, n-1) =
// `top_right` and A(n-1, 0) = `bottom_left` (closed rods). Sherman-Morrison on the Thomas
// algorithm (Press et al., Numerical Recipes, §2.7 "cyclic"). n >= 3; `scratch` holds 4n values.
// The input arrays are not modified; `x` may not alias `rhs`.
template <class T>
HS_HD bool cyclic_thomas_solve(int n, const T* lower, const T* diag, const T* upper, T top_right,
                               T bottom_left, const T* rhs, T* x, T* scratch) {
  if (n < 3) return false;
  T* modified = scratch;      // diagonal with the rank-one part taken out
  T* u = scratch + n;         // rank-one vector
  T* z = scratch + 2 * n;     // A' z = u
  T* work = scratch + 3 * n;  // Thomas scratch
  const T gamma = diag[0] == T(0) ? T(1) : -diag[0];
  for (int i = 0; i < n; ++i) {
    modified[i] = diag[i];
    u[i] = T(0);
  }
  modified[0] -= gamma;
  modified[n - 1] -= top_right * bottom_left / gamma;
  u[0] = gamma;
  u[n - 1] = bottom_left;
  if (!thomas_solve(n, lower, modified, upper, rhs, x, work)) return false;
  if (!thomas_solve(n, lower, modified, upper, u, z, work)) return false;
  // v = (1, 0, ..., 0, top_right / gamma): x -= z (v.x) / (1 + v.z).
  const T vx = x[0] + top_right * x[n - 1] / gamma;
  const T vz = z[0] + top_right * z[n - 1] / gamma;
  if (T(1) + vz == T(0)) return false;
  const T factor = vx / (T(1) + vz);
  for (int i = 0; i < n; ++i) x[i] -= factor * z[i];
  return true;
}

}  // namespace hairsim::kernels
