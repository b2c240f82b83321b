#pragma once
// Thomas algorithm: O(n) solve of a tridiagonal system A x = d without pivoting, valid for
// diagonally dominant or symmetric positive definite A (the DER twist Hessian, the
// fast-projection constraint system of a chain). Host and device.
//   lower[i] = A(i, i-1) for i >= 1 (lower[0] unused)
//   diag[i]  = A(i, i)
//   upper[i] = A(i, i+1) for i <= n-2 (upper[n-1] unused)
// `scratch` holds n values; `x` may alias `rhs`. Returns false on a zero pivot.
#include "common/hd.hpp"

namespace hairsim::kernels {

template <class T>
HS_HD bool thomas_solve(int n, const T* lower, const T* diag, const T* upper, const T* rhs, T* x,
                        T* scratch) {
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
