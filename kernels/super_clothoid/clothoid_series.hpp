#pragma once
// The kinematics of one space clothoid element (Casati & Bertails-Descoubes 2013, §5-6): a rod
// piece whose material curvature vector κ(s) = κ̂0 + γ s is affine in arc length. Its frame R(s)
// and centreline r(s) solve the Darboux problem R' = R [κ]×, r' = R e0 (eq. 3) and have no
// closed form; they are entire power series in s (Theorem 1) whose general terms R̃n = Rn sⁿ,
// r̃n = rn sⁿ follow eq. (10) (the 1/(n+1) of eq. 9b for r):
//   R̃0 = R(0),  R̃1 = s R̃0 [κ̂0]×,  R̃n+2 = s/(n+2) (R̃n+1 [κ̂0]× + s R̃n [γ]×),
//   r̃0 = r(0),  r̃n+1 = s/(n+1) R̃n e0.
// Summed naively over a long or curly element the terms climb a "hillock" far above 1 before they
// fall (‖Ṽn‖ ≤ λⁿ/n! with λ(s) = 2s(‖κ̂0‖∞ + s‖γ‖∞), eq. 11) and cancel catastrophically (Fig. 3).
// Adaptive Piecewise Summation (APS, §6.3) cuts [0, ℓ] into subintervals on which λ ≤ M (eq. 14),
// each summed from the frame at its start: the hillock then stays below M^M/M!.
// One source for the reference (double) and, later, the kernels (float); docs/models/
// super-clothoids.md gives M for both precisions.
#include <cmath>

#include "common/hd.hpp"
#include "common/matrix3.hpp"
#include "common/vector3.hpp"

namespace hairsim::kernels::super_clothoid {

template <class T>
struct ClothoidFrame {
  Matrix3<T> R;  // columns: the tangent n0, then n1, n2 (material frame)
  Vector3<T> r;  // centreline point
};

// The largest M with (M + 1)^M ≤ 10^(d/2) M! (eq. 13): the top of the hillock within 10^(d/2)
// for a precision of 10^-d. d = 16 (double): 19; d = 7 (float): 9.
HS_HD inline int hillock_bound(int digits) {
  int best = 0;
  for (int n = 1; n < 200; ++n) {
    // log((n+1)^n) <= (d/2) log 10 + log n!
    double log_fact = 0;
    for (int k = 2; k <= n; ++k) log_fact += std::log(double(k));
    if (double(n) * std::log(double(n + 1)) <= 0.5 * digits * std::log(10.0) + log_fact)
      best = n;
    else
      break;
  }
  return best;
}

template <class T>
HS_HD T max_norm(const Vector3<T>& v) {
  return fmax(fabs(v.x), fmax(fabs(v.y), fabs(v.z)));
}

// How far from σ (curvature κ(σ), slope γ) one subinterval may reach with λ ≤ M (eq. 14).
template <class T>
HS_HD T subinterval_length(const Vector3<T>& kappa, const Vector3<T>& gamma, T M) {
  const T k = max_norm(kappa), g = max_norm(gamma);
  if (g > T(0)) return (std::sqrt(k * k + T(2) * M * g) - k) / (T(2) * g);
  if (k > T(0)) return M / (T(2) * k);
  return T(INFINITY);
}

// Matrix max norm ‖A‖∞ (the largest absolute entry, as the paper's).
template <class T>
HS_HD T max_norm(const Matrix3<T>& a) {
  T m = T(0);
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) m = fmax(m, fabs(a(r, c)));
  return m;
}

// The series summed from `start` over a length s with curvature κ̂0 at the start and slope γ,
// term after term until two successive frame terms fall below the precision (relative to 1, the
// size of a rotation's entries), at most `max_terms`. `terms` returns how many were added.
template <class T>
HS_HD ClothoidFrame<T> sum_series(const ClothoidFrame<T>& start, T s, const Vector3<T>& kappa0,
                                  const Vector3<T>& gamma, int max_terms, int& terms) {
  const Matrix3<T> K = cross_matrix(kappa0), G = cross_matrix(gamma);
  const T eps = sizeof(T) == sizeof(float) ? T(6e-8) : T(1.2e-16);
  Matrix3<T> prev = start.R;  // R̃n
  Matrix3<T> cur = s * (start.R * K);  // R̃n+1
  ClothoidFrame<T> sum{start.R + cur, start.r + s * Vector3<T>{prev(0, 0), prev(1, 0), prev(2, 0)}};
  terms = 2;
  for (int n = 0; n + 2 < max_terms; ++n) {
    // r̃n+2 = s/(n+2) R̃n+1 e0, then R̃n+2.
    const T step = s / T(n + 2);
    sum.r += step * Vector3<T>{cur(0, 0), cur(1, 0), cur(2, 0)};
    const Matrix3<T> next = step * (cur * K + s * (prev * G));
    sum.R += next;
    ++terms;
    if (max_norm(next) < eps && max_norm(cur) < eps) break;
    prev = cur;
    cur = next;
  }
  return sum;
}

}  // namespace hairsim::kernels::super_clothoid
