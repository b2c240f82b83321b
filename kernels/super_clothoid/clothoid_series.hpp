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
  Matrix3<T> prev = start.R;           // R̃n
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

// The series of a frame together with its derivatives along C directions of the curvature
// (§7.1, eq. 15): for a perturbation δκ(s) = a + b s of κ on the piece, D = ∂R solves
// D' = D [κ]× + R [δκ]× and d = ∂r solves d' = D e0, whose general terms follow
//   D̃n+1 = s/(n+1) (D̃n [κ̂0]× + s D̃n−1 [γ]× + R̃n [a]× + s R̃n−1 [b]×),  d̃n+1 = s/(n+1) D̃n e0,
// from D̃0 = D(0), d̃0 = d(0) (the derivatives at the piece's start). Summed until the last two
// terms of R and of every D fall below the precision (times max(1, s) for D).
template <class T, int C>
HS_HD void sum_series_tangents(ClothoidFrame<T>& frame, ClothoidFrame<T> (&tangent)[C], T s,
                               const Vector3<T>& kappa0, const Vector3<T>& gamma,
                               const Vector3<T> (&a)[C], const Vector3<T> (&b)[C], int max_terms,
                               int& terms) {
  const Matrix3<T> K = cross_matrix(kappa0), G = cross_matrix(gamma);
  const T eps = sizeof(T) == sizeof(float) ? T(6e-8) : T(1.2e-16);
  const T d_eps = eps * fmax(T(1), s);
  Matrix3<T> A[C], B[C], d_prev[C], d_cur[C];
  auto e0 = [](const Matrix3<T>& m) { return Vector3<T>{m(0, 0), m(1, 0), m(2, 0)}; };
  Matrix3<T> prev = frame.R, cur = s * (frame.R * K);
  for (int c = 0; c < C; ++c) {
    A[c] = cross_matrix(a[c]), B[c] = cross_matrix(b[c]);
    d_prev[c] = tangent[c].R;
    d_cur[c] = s * (tangent[c].R * K + frame.R * A[c]);  // D̃1 (no n−1 terms)
    tangent[c].r += s * e0(d_prev[c]);
    tangent[c].R += d_cur[c];
  }
  frame.r += s * e0(prev);
  frame.R += cur;
  terms = 2;
  for (int n = 1; n + 1 < max_terms; ++n) {
    // Terms n + 1 (from n and n − 1; `cur` is R̃n, `prev` R̃n−1).
    const T step = s / T(n + 1);
    frame.r += step * e0(cur);
    const Matrix3<T> next = step * (cur * K + s * (prev * G));
    bool small = max_norm(next) < eps && max_norm(cur) < eps;
    for (int c = 0; c < C; ++c) {
      tangent[c].r += step * e0(d_cur[c]);
      const Matrix3<T> d_next =
          step * (d_cur[c] * K + s * (d_prev[c] * G) + cur * A[c] + s * (prev * B[c]));
      tangent[c].R += d_next;
      small = small && max_norm(d_next) < d_eps && max_norm(d_cur[c]) < d_eps;
      d_prev[c] = d_cur[c];
      d_cur[c] = d_next;
    }
    frame.R += next;
    ++terms;
    prev = cur;
    cur = next;
    if (small) break;
  }
}

// A frame with its first two time derivatives as the curvature moves at κ̇(s) = a + b s on the
// piece and does not accelerate (κ̈ = 0: the velocity-product part of the acceleration, the
// q̇ ∂²r/∂q² q̇ of eq. 6). Differentiating R' = R[κ]× in time: Ṙ' = Ṙ[κ]× + R[κ̇]× and
// R̈' = R̈[κ]× + 2Ṙ[κ̇]×; ṙ' = Ṙ e0, r̈' = R̈ e0. General terms as sum_series_tangents', the
// second derivative forced by twice the first's:
//   V̈n+1 = s/(n+1) (V̈n [κ̂0]× + s V̈n−1 [γ]× + 2 (V̇n [a]× + s V̇n−1 [b]×)).
template <class T>
struct ClothoidMotion {
  ClothoidFrame<T> frame, velocity, acceleration;
};

template <class T>
HS_HD void sum_series_motion(ClothoidMotion<T>& m, T s, const Vector3<T>& kappa0,
                             const Vector3<T>& gamma, const Vector3<T>& a, const Vector3<T>& b,
                             int max_terms, int& terms) {
  const Matrix3<T> K = cross_matrix(kappa0), G = cross_matrix(gamma);
  const Matrix3<T> A = cross_matrix(a), B = cross_matrix(b);
  const T eps = sizeof(T) == sizeof(float) ? T(6e-8) : T(1.2e-16);
  auto e0 = [](const Matrix3<T>& x) { return Vector3<T>{x(0, 0), x(1, 0), x(2, 0)}; };
  // (previous, current) general terms of R, Ṙ, R̈.
  Matrix3<T> r0 = m.frame.R, v0 = m.velocity.R, w0 = m.acceleration.R;
  Matrix3<T> r1 = s * (r0 * K), v1 = s * (v0 * K + r0 * A), w1 = s * (w0 * K + T(2) * (v0 * A));
  m.frame.r += s * e0(r0), m.velocity.r += s * e0(v0), m.acceleration.r += s * e0(w0);
  m.frame.R += r1, m.velocity.R += v1, m.acceleration.R += w1;
  terms = 2;
  for (int n = 1; n + 1 < max_terms; ++n) {
    const T step = s / T(n + 1);
    m.frame.r += step * e0(r1), m.velocity.r += step * e0(v1), m.acceleration.r += step * e0(w1);
    const Matrix3<T> r2 = step * (r1 * K + s * (r0 * G));
    const Matrix3<T> v2 = step * (v1 * K + s * (v0 * G) + r1 * A + s * (r0 * B));
    const Matrix3<T> w2 = step * (w1 * K + s * (w0 * G) + T(2) * (v1 * A + s * (v0 * B)));
    m.frame.R += r2, m.velocity.R += v2, m.acceleration.R += w2;
    ++terms;
    const T scale = fmax(T(1), fmax(max_norm(m.velocity.R), max_norm(m.acceleration.R)));
    const bool small = max_norm(r2) < eps && max_norm(r1) < eps &&
                       fmax(max_norm(v2), max_norm(w2)) < eps * scale &&
                       fmax(max_norm(v1), max_norm(w1)) < eps * scale;
    r0 = r1, v0 = v1, w0 = w1;
    r1 = r2, v1 = v2, w1 = w2;
    if (small) break;
  }
}

}  // namespace hairsim::kernels::super_clothoid
