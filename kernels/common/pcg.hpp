#pragma once
// Preconditioned conjugate gradients for one strand's symmetric positive definite system, host
// and device, float or double, over strided vectors in the batch layout (no local arrays). The
// model supplies the product and the preconditioner as callables over its own scratch vectors.
#include <cmath>

#include "common/hd.hpp"
#include "common/strided.hpp"

namespace hairsim::kernels {

struct PcgSettings {
  double tolerance = 1e-7;           // absolute residual
  double relative_tolerance = 1e-2;  // residual relative to the right-hand side
  int max_iterations = 0;            // 0: 2 x unknowns
};

// Σ_k a[k] b[k], k = 0 .. size - 1 in order.
template <class T>
HS_HD T strided_dot(int size, const Strided<T>& a, const Strided<T>& b) {
  T sum = 0;
  for (int k = 0; k < size; ++k) sum += a[k] * b[k];
  return sum;
}

// Solves A x = b from x = 0. `apply()` writes A d into ad; `precondition()` writes P⁻¹ r into z
// and returns false when P is singular. Stops when |r| falls below the smaller of the absolute
// and relative tolerances (never below 1e-15 |b| in double, 1e-6 |b| in float: round-off), after
// max_iterations, or on a direction of non-positive curvature. Returns the iterations, -1 on a
// singular preconditioner. x, r, d, ad, z and b are distinct vectors of `size` entries.
template <class T, class Apply, class Precondition>
HS_HD int pcg(int size, const Strided<T>& b, const Strided<T>& x, const Strided<T>& r,
              const Strided<T>& d, const Strided<T>& ad, const Strided<T>& z, Apply&& apply,
              Precondition&& precondition, const PcgSettings& settings) {
  const int max_iterations = settings.max_iterations > 0 ? settings.max_iterations : 2 * size;
  for (int k = 0; k < size; ++k) x[k] = T(0), r[k] = b[k];
  const T rhs_norm = std::sqrt(strided_dot(size, b, b));
  const T floor = (sizeof(T) == sizeof(double) ? T(1e-15) : T(1e-6)) * rhs_norm;
  T stop = T(settings.relative_tolerance) * rhs_norm;
  if (T(settings.tolerance) < stop) stop = T(settings.tolerance);
  if (stop < floor) stop = floor;
  if (!(rhs_norm >= stop)) return 0;
  if (!precondition()) return -1;
  for (int k = 0; k < size; ++k) d[k] = z[k];
  T rz = strided_dot(size, r, z);
  int it = 0;
  while (it < max_iterations) {
    apply();
    const T dad = strided_dot(size, d, ad);
    if (!(dad > T(0))) break;
    const T alpha = rz / dad;
    for (int k = 0; k < size; ++k) x[k] += alpha * d[k], r[k] -= alpha * ad[k];
    ++it;
    if (std::sqrt(strided_dot(size, r, r)) < stop) break;
    if (!precondition()) return -1;
    const T rz_next = strided_dot(size, r, z);
    for (int k = 0; k < size; ++k) d[k] = z[k] + (rz_next / rz) * d[k];
    rz = rz_next;
  }
  return it;
}

}  // namespace hairsim::kernels
