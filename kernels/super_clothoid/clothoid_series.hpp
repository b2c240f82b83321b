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
#include "common/scalar.hpp"
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
  return max_of(abs_of(v.x), max_of(abs_of(v.y), abs_of(v.z)));
}

// How far from σ (curvature κ(σ), slope γ) one subinterval may reach with λ ≤ M (eq. 14).
template <class T>
HS_HD T subinterval_length(const Vector3<T>& kappa, const Vector3<T>& gamma, T M) {
  const T k = max_norm(kappa), g = max_norm(gamma);
  // The root of g λ² + k λ = M/2, (√(k² + 2Mg) − k) / 2g, written without the difference: where
  // g ≪ k it cancelled to 0 (k = 2e4, g = 1e-9: no reach, the walk summed its piece cap on a
  // benign element). g = 0 gives M / 2k, the linear bound.
  if (k > T(0) || g > T(0)) return M / (std::sqrt(k * k + T(2) * M * g) + k);
  return T(INFINITY);
}

// The most APS pieces one element may take. Eq. (14) cuts an element into about λ(ℓ)/M pieces;
// 1000 at M = 10 is λ ≈ 10⁴ over one element: on a 2 cm element a curvature of 2.5e5 /m, a
// 4 µm radius, a hundred times tighter than the tightest curl of real hair. Only a diverged
// state asks for more; the cap keeps it from summing without end (each piece costs as much as a
// well-behaved element): the reference throws "the curvature diverged", the kernels fail the
// strand's solve.
constexpr int kMaxPieces = 1000;

// How many APS pieces element [0, ℓ] of curvature κ̂a + γ s takes at bound M, counted without
// summing (a few flops a piece, the walks' own cuts) up to `cap` + 1: so that a diverged state
// fails before any piece is summed. A non-finite curvature counts cap + 1.
template <class T>
HS_HD int aps_pieces(const Vector3<T>& ka, const Vector3<T>& gamma, T ell, T M, int cap) {
  // x − x is 0 unless x is NaN or infinite.
  const Vector3<T> finite = (ka - ka) + (gamma - gamma);
  if (!(finite.x == T(0) && finite.y == T(0) && finite.z == T(0))) return cap + 1;
  T sigma = T(0);
  int pieces = 0;
  // At most cap + 1 rounds: the count is the answer past the cap.
  for (; sigma < ell && pieces <= cap; ++pieces) {
    const T reach = subinterval_length(ka + sigma * gamma, gamma, M);
    sigma += sigma + reach < ell ? reach : ell - sigma;
  }
  return pieces;
}

// Matrix max norm ‖A‖∞ (the largest absolute entry, as the paper's).
template <class T>
HS_HD T max_norm(const Matrix3<T>& a) {
  T m = T(0);
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) m = max_of(m, abs_of(a(r, c)));
  return m;
}

// Where a series stops by default: its terms below the arithmetic's precision (relative to 1, the
// size of a rotation's entries). A caller whose results are stored in a coarser type passes that
// type's (the kernels: series_epsilon for their storage, docs/models/super-clothoids.md).
template <class T>
HS_HD constexpr T series_epsilon() {
  return sizeof(T) == sizeof(float) ? T(6e-8) : T(1.2e-16);
}

// The series summed from `start` over a length s with curvature κ̂0 at the start and slope γ,
// term after term until two successive frame terms fall below the precision (relative to 1, the
// size of a rotation's entries), at most `max_terms`. `terms` returns how many were added.
template <class T>
HS_HD ClothoidFrame<T> sum_series(const ClothoidFrame<T>& start, T s, const Vector3<T>& kappa0,
                                  const Vector3<T>& gamma, int max_terms, int& terms) {
  const Matrix3<T> K = cross_matrix(kappa0), G = cross_matrix(gamma);
  const T eps = series_epsilon<T>();
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

// The state carried along an element: the frame, its derivatives along C directions of the
// curvature (§7.1, eq. 15), and its motion as the curvature moves without accelerating (κ̈ = 0:
// the velocity and the velocity-product part of the acceleration, the q̇ ∂²r/∂q² q̇ of eq. 6).
template <class T, int C>
struct ClothoidState {
  ClothoidFrame<T> frame, tangent[C], velocity, acceleration;
};

// The state an element starts from in its own frame: the identity at the origin, at rest.
template <class T, int C>
HS_HD ClothoidState<T, C> start_state() {
  ClothoidState<T, C> x;
  x.frame = {Matrix3<T>::identity(), Vector3<T>{}};
  for (int c = 0; c < C; ++c) x.tangent[c] = {Matrix3<T>::zero(), Vector3<T>{}};
  x.velocity = x.acceleration = {Matrix3<T>::zero(), Vector3<T>{}};
  return x;
}

// How the curvature varies on a piece of length s (t from the piece's start): κ = κ̂0 + γ t, the
// C directions δκc = ac + bc t, the rate κ̇ = av + bv t.
template <class T, int C>
struct PieceCurvature {
  Vector3<T> kappa0, gamma, a[C], b[C], rate_a, rate_b;
};

// The piece from σ of an element of length ℓ whose curvature is κ̂a + γ s and whose rate is
// κ̇a + γ̇ s: κ = κ̂a + γσ + γ t, κ̇ = κ̇a + γ̇σ + γ̇ t, and with C = 6 the directions of the
// element's six coordinates (κ̂a's component c moves κ by (1 − (σ + t)/ℓ) e_c, κ̂b's by
// (σ + t)/ℓ e_c, eq. 15); with C = 1 none.
template <int C, class T>
HS_HD PieceCurvature<T, C> piece_curvature(const Vector3<T>& ka, const Vector3<T>& gamma,
                                           const Vector3<T>& rate_a, const Vector3<T>& rate_slope,
                                           T ell, T sigma) {
  PieceCurvature<T, C> k;
  k.kappa0 = ka + sigma * gamma, k.gamma = gamma;
  k.rate_a = rate_a + sigma * rate_slope, k.rate_b = rate_slope;
  for (int c = 0; c < C; ++c) k.a[c] = k.b[c] = Vector3<T>{};
  if constexpr (C == 6)
    for (int c = 0; c < 3; ++c) {
      Vector3<T> e{};
      e[c] = T(1);
      k.a[c] = (T(1) - sigma / ell) * e, k.b[c] = (T(-1) / ell) * e;
      k.a[c + 3] = (sigma / ell) * e, k.b[c + 3] = (T(1) / ell) * e;
    }
  return k;
}

// One APS piece summed from the state at its start, which `x` becomes the state at its end; and
// every general term of the centreline's series handed to `record(n, r̃n, k̃n, d̃n[C], ṽn, ãn)`
// (position, unit tangent R̃n e0, the C derivatives, velocity, acceleration; scaled terms
// ṽn = vn sⁿ, term 0 the start's), which the dynamics integrate (§7.1). Differentiating
// R' = R[κ]× along a direction and in time gives D' = D[κ]× + R[δκ]×, Ṙ' = Ṙ[κ]× + R[κ̇]× and
// R̈' = R̈[κ]× + 2Ṙ[κ̇]×, the centrelines' x' = X e0; their general terms follow eq. (10)'s:
//   X̃n+1 = s/(n+1) (X̃n [κ̂0]× + s X̃n−1 [γ]× + F̃n [a]× + s F̃n−1 [b]×),  x̃n+1 = s/(n+1) X̃n e0,
// forced by F = 0 for R, R for D and Ṙ, 2Ṙ for R̈ (X̃−1 = 0). Summed until the last two terms of
// R fall below the precision and those of D, Ṙ, R̈ below it relative to max(1, s, their sums).
// `terms` returns the matrix terms added, at most `max_terms`; the result, whether the series met
// its tolerance (false: cut at `max_terms`). Without `Moving` the motion is taken as zero (no
// rate, at rest at the start) and its products skipped.
template <bool Moving, class T, int C, class Record>
HS_HD bool expand_piece(ClothoidState<T, C>& x, T s, const PieceCurvature<T, C>& k, int max_terms,
                        int& terms, Record&& record, T eps = series_epsilon<T>()) {
  const Matrix3<T> K = cross_matrix(k.kappa0), G = cross_matrix(k.gamma);
  const Matrix3<T> Av = cross_matrix(k.rate_a), Bv = cross_matrix(k.rate_b);
  auto e0 = [](const Matrix3<T>& m) { return Vector3<T>{m(0, 0), m(1, 0), m(2, 0)}; };
  Matrix3<T> A[C], B[C];
  // (previous, current) general terms of R, D, Ṙ, R̈.
  Matrix3<T> r0 = Matrix3<T>::zero(), r1 = x.frame.R, d0[C], d1[C];
  Matrix3<T> v0 = Matrix3<T>::zero(), v1 = x.velocity.R, w0 = Matrix3<T>::zero(),
             w1 = x.acceleration.R;
  Vector3<T> dn[C];
  for (int c = 0; c < C; ++c) {
    A[c] = cross_matrix(k.a[c]), B[c] = cross_matrix(k.b[c]);
    d0[c] = Matrix3<T>::zero(), d1[c] = x.tangent[c].R;
    dn[c] = x.tangent[c].r;
  }
  record(0, x.frame.r, e0(r1), dn, x.velocity.r, x.acceleration.r);
  terms = 1;
  for (int n = 0; n + 1 < max_terms; ++n) {
    const T step = s / T(n + 1);
    const Vector3<T> rn = step * e0(r1), vn = step * e0(v1), an = step * e0(w1);
    const Matrix3<T> r2 = step * (r1 * K + s * (r0 * G));
    x.frame.r += rn;
    x.frame.R += r2;
    Matrix3<T> v2 = Matrix3<T>::zero(), w2 = Matrix3<T>::zero();
    if constexpr (Moving) {
      v2 = step * (v1 * K + s * (v0 * G) + r1 * Av + s * (r0 * Bv));
      w2 = step * (w1 * K + s * (w0 * G) + T(2) * (v1 * Av + s * (v0 * Bv)));
      x.velocity.r += vn, x.acceleration.r += an;
      x.velocity.R += v2, x.acceleration.R += w2;
    }
    // Small enough to stop: checked lazily (R first), as the norms cost as much as the products.
    const T scale =
        max_of(max_of(T(1), s), max_of(max_norm(x.velocity.R), max_norm(x.acceleration.R)));
    const T tolerance = eps * scale;
    bool small = max_norm(r2) < eps && max_norm(r1) < eps &&
                 (!Moving || max_of(max_of(max_norm(v2), max_norm(w2)),
                                    max_of(max_norm(v1), max_norm(w1))) < tolerance);
    for (int c = 0; c < C; ++c) {
      dn[c] = step * e0(d1[c]);
      const Matrix3<T> d2 = step * (d1[c] * K + s * (d0[c] * G) + r1 * A[c] + s * (r0 * B[c]));
      x.tangent[c].r += dn[c];
      x.tangent[c].R += d2;
      small = small && max_norm(d2) < tolerance && max_norm(d1[c]) < tolerance;
      d0[c] = d1[c];
      d1[c] = d2;
    }
    record(n + 1, rn, e0(r2), dn, vn, an);
    ++terms;
    r0 = r1, v0 = v1, w0 = w1;
    r1 = r2, v1 = v2, w1 = w2;
    if (small) return true;
  }
  return false;
}

// How many times a piece is halved when its series does not meet its tolerance within the
// caller's terms (expand_piece_within).
constexpr int kMaxHalvings = 4;

// One APS piece of length at most `h` from `x`, as expand_piece, with at most `max_terms` terms a
// series: where the series does not meet its tolerance within them, the piece is summed again from
// its start at half the length (at most kMaxHalvings times; `h` returns the length summed, the
// caller's walk goes on from there). Eq. (14)'s bound λ ≤ M keeps R's series within ~55 terms in
// double, but the motion's series (Ṙ, R̈, summed to a tolerance relative to their sums, forced
// by the rates) can take more: the parity case's wavy strands took 56 to 64 at M = 10 (the
// reference, 400 terms a series, needs no split). A shorter piece's terms fall faster (λ
// halves), its series are the same functions (Theorem 1): the sums agree to round-off. Returns
// whether the last expansion met its tolerance (false: truncated at the shortest length).
template <bool Moving, class T, int C, class Record>
HS_HD bool expand_piece_within(ClothoidState<T, C>& x, T& h, const PieceCurvature<T, C>& k,
                               int max_terms, int& terms, Record&& record,
                               T eps = series_epsilon<T>()) {
  const ClothoidState<T, C> start = x;
  for (int halvings = 0;; ++halvings) {
    if (expand_piece<Moving>(x, h, k, max_terms, terms, record, eps)) return true;
    if (halvings == kMaxHalvings) return false;
    x = start;
    h *= T(0.5);
  }
}

// A point of an APS piece in the frame the piece is summed in (an element's own): its position,
// its derivatives in the C directions and its velocity; or one general term of their series.
template <class T, int C>
struct ClothoidPoint {
  Vector3<T> r, d[C], v;
};

// The point at t = τh of a piece of length h from the `terms` scaled centreline terms
// x̃n = xn hⁿ that expand_piece records summing it to h (term 0 the piece's start): Σ x̃n τⁿ by
// Horner, the same series (Theorem 1) summed at a shorter length, whose terms are smaller still
// (τ ≤ 1). One expansion a piece serves all its points (the kernels' output and quadrature
// points, the reference fit's samples) instead of one a point.
template <class T, int C>
HS_HD ClothoidPoint<T, C> point_of_piece(const ClothoidPoint<T, C>* term, int terms, T tau) {
  ClothoidPoint<T, C> point = term[terms - 1];
  for (int n = terms - 1; n-- > 0;) {
    point.r = tau * point.r + term[n].r, point.v = tau * point.v + term[n].v;
    for (int c = 0; c < C; ++c) point.d[c] = tau * point.d[c] + term[n].d[c];
  }
  return point;
}

// The Cauchy product of two series of scaled terms (na and nb of them) under a bilinear `op`:
// the na + nb − 1 terms c̃n = Σk+m=n op(ãk, b̃m) written to `c` (Fig. 7).
template <class A, class B, class C, class Op>
HS_HD void multiply_series(const A* a, int na, const B* b, int nb, C* c, Op&& op) {
  for (int n = 0; n + 1 < na + nb; ++n) {
    const int first = n < nb ? 0 : n - nb + 1, last = n < na ? n : na - 1;
    c[n] = op(a[first], b[n - first]);
    for (int k = first + 1; k <= last; ++k) c[n] += op(a[k], b[n - k]);
  }
}

}  // namespace hairsim::kernels::super_clothoid
