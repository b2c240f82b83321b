#pragma once
// Kinematics of one compact inextensible Cosserat rod (Zhao et al. 2022 §2.1, eq. 7): unit
// quaternions from rotation vectors, directors, the chain of vertices and its Jacobians; and the
// strains of App. A: the discrete Darboux vector (eq. 29) and the rotational term.
#include <cmath>

#include "common/constants.hpp"
#include "common/quaternion.hpp"
#include "common/scan.hpp"
#include "cosserat/cosserat_arrays.hpp"

namespace hairsim::kernels::cosserat {

// --- Kinematics (§2.1) -------------------------------------------------------------------------

// std::sin(θ/2)/θ and (θ/2 std::cos(θ/2) - std::sin(θ/2))/θ³, with the reference's series below 0.1
// rad.
template <class T>
HS_HD T half_sinc(T theta) {
  if (theta < T(0.1)) {
    const T t2 = theta * theta;
    return T(0.5) - t2 / T(48) + t2 * t2 / T(3840) - t2 * t2 * t2 / T(645120);
  }
  return std::sin(T(0.5) * theta) / theta;
}
template <class T>
HS_HD T half_sinc_derivative_over_theta(T theta) {
  if (theta < T(0.1)) {
    const T t2 = theta * theta;
    return T(-1) / T(24) + t2 / T(960) - t2 * t2 / T(107520) + t2 * t2 * t2 / T(23224320);
  }
  return (T(0.5) * theta * std::cos(T(0.5) * theta) - std::sin(T(0.5) * theta)) /
         (theta * theta * theta);
}

// Eqs. (4)-(5).
// (S''(θ) - S'(θ)/θ)/θ³ with S(θ) = std::sin(θ/2)/θ, i.e. d/dθ[S'(θ)/θ]/θ: the third-order
// coefficient of ∂²q/∂ω² (quaternion_curvature). Closed form
// (3 sin(θ/2) - (3θ/2) cos(θ/2) - (θ²/4) sin(θ/2))/θ⁵ cancels to θ⁵/480 at small θ, so below
// 0.5 rad the series Σ_k 2k(2k-2) c_k θ^(2k-4), c_k = (-1)^k / (2^(2k+1) (2k+1)!).
template <class T>
HS_HD T half_sinc_third_coefficient(T theta) {
  const T t2 = theta * theta;
  if (theta < T(0.5))
    return T(1) / T(480) - t2 / T(26880) + t2 * t2 / T(3870720) - t2 * t2 * t2 / T(1021870080);
  const T s = std::sin(T(0.5) * theta), c = std::cos(T(0.5) * theta);
  return (T(3) * s - T(1.5) * theta * c - T(0.25) * t2 * s) / (t2 * t2 * theta);
}

template <class T>
HS_HD V4<T> quaternion(const V3<T>& w) {
  const T theta = norm(w), s = half_sinc(theta);
  return {{{std::cos(T(0.5) * theta)}, {s * w[0]}, {s * w[1]}, {s * w[2]}}};
}
template <class T>
HS_HD Mat<T, 4, 3> quaternion_jacobian(const V3<T>& w) {
  const T theta = norm(w), s = half_sinc(theta), d = half_sinc_derivative_over_theta(theta);
  Mat<T, 4, 3> j;
  for (int c = 0; c < 3; ++c) {
    j(0, c) = T(-0.5) * s * w[c];
    for (int r = 0; r < 3; ++r) j(1 + r, c) = (r == c ? s : T(0)) + d * w[r] * w[c];
  }
  return j;
}
// Σ_c y_c ∂²q_c/∂ω², the second-order part of a function of q(ω) with gradient y = ∂f/∂q. With
// S = sin(θ/2)/θ, D = S'/θ, E = D'/θ and u = y's vector part: q_0 = cos(θ/2) gives
// -½ y_0 (S I + D ω ωᵀ), q_r = S ω_r gives D (u ωᵀ + ω uᵀ + (u·ω) I) + E (u·ω) ω ωᵀ.
template <class T>
HS_HD M3<T> quaternion_curvature(const V3<T>& w, const V4<T>& y) {
  const T theta = norm(w), s = half_sinc(theta), d = half_sinc_derivative_over_theta(theta),
          e = half_sinc_third_coefficient(theta);
  const V3<T> u{y[1], y[2], y[3]};
  const T uw = dot(u, w);
  M3<T> h;
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) {
      const T delta = r == c ? T(1) : T(0);
      h(r, c) = T(-0.5) * y[0] * (s * delta + d * w[r] * w[c]) +
                d * (u[r] * w[c] + w[r] * u[c] + uw * delta) + e * uw * w[r] * w[c];
    }
  return h;
}

template <class T>
HS_HD V3<T> director(const V4<T>& q) {
  const T w = q[0], x = q[1], y = q[2], z = q[3];
  return {T(2) * (x * z + w * y), T(2) * (y * z - w * x), w * w - x * x - y * y + z * z};
}
template <class T>
HS_HD Mat<T, 3, 4> director_jacobian(const V4<T>& q) {
  const T w = q[0], x = q[1], y = q[2], z = q[3];
  return {{{2 * y, 2 * z, 2 * w, 2 * x},
           {-2 * x, -2 * w, 2 * z, 2 * y},
           {2 * w, -2 * x, -2 * y, 2 * z}}};
}
// Σ_r F_r ∂²d_r/∂q², constant in q (the director is quadratic in q): the second-order part of
// F · d(q).
template <class T>
HS_HD Mat<T, 4, 4> director_curvature(const V3<T>& f) {
  const T a = 2 * f[0], b = 2 * f[1], c = 2 * f[2];
  return {{{c, -b, a, T(0)}, {-b, -c, T(0), a}, {a, T(0), -c, b}, {T(0), a, b, c}}};
}

// ω of a unit quaternion, |ω| <= π: 2 atan2(|v|, |w|) v / |v| on w's hemisphere (q and -q are
// one rotation).
template <class T>
HS_HD V3<T> rotation_vector(const V4<T>& q) {
  const V3<T> v{q[1], q[2], q[3]};
  const T n = norm(v);
  if (!(n > T(0))) return V3<T>::zero();
  const T angle = T(2) * std::atan2(n, q[0] < T(0) ? -q[0] : q[0]);
  return ((q[0] < T(0) ? -angle : angle) / n) * v;
}

// The frame a segment turning on at its spin reaches: ω of q_t ⊗ r with vec(r) = Δt Ω / 2, the
// rotational term's measure (relative_rotation(q_t, q) = Δt Ω there). False, ω untouched, when
// |Δt Ω / 2| >= 1: no rotation has that measure.
template <class T>
HS_HD bool spin_prediction(const V4<T>& qt, const V3<T>& rotation_dt, V3<T>& omega) {
  const V3<T> half = T(0.5) * rotation_dt;
  const T h2 = dot(half, half);
  if (!(h2 < T(1))) return false;
  const Quaternion<T> r{std::sqrt(T(1) - h2), {half[0], half[1], half[2]}};
  const Quaternion<T> turned = then(r, Quaternion<T>{qt[0], {qt[1], qt[2], qt[3]}});  // q_t ⊗ r
  omega = rotation_vector(V4<T>{{{turned.w}, {turned.v.x}, {turned.v.y}, {turned.v.z}}});
  return true;
}

// f(a, b) = vec(conj(a) ⊗ b) and its derivatives (bilinear).
template <class T>
HS_HD Mat<T, 3, 4> d_vec_d_first(const V4<T>& b) {
  return {{{b[1], -b[0], -b[3], b[2]}, {b[2], b[3], -b[0], -b[1]}, {b[3], -b[2], b[1], -b[0]}}};
}
template <class T>
HS_HD Mat<T, 3, 4> d_vec_d_second(const V4<T>& a) {
  return {{{-a[1], a[0], a[3], -a[2]}, {-a[2], -a[3], a[0], a[1]}, {-a[3], a[2], -a[1], a[0]}}};
}
// 2 vec(conj(a) ⊗ b) with b on a's hemisphere.
template <class T>
HS_HD V3<T> relative_rotation(const V4<T>& a, V4<T> b) {
  if (dot(a, b) < T(0)) b = T(-1) * b;
  return T(2) * (d_vec_d_second(a) * b);
}

// q, ∂q/∂ω, the vertices (eq. 7) and J^i from the strand's current s.
template <class T>
HS_HD void compute_kinematics(const Strand<T>& st) {
  const auto& a = st.a;
  for (int i = 0; i < st.segments(); ++i) {
    const V3<T> w = st.template get<3, 1>(a.config, 1 + i);
    const V4<T> q = quaternion(w);
    const Mat<T, 4, 3> dq = quaternion_jacobian(w);
    st.set(a.q, i, q);
    st.set(a.dq, i, dq);
    st.set(a.dx, i, st.rows(a.length)[i] * (director_jacobian(q) * dq));
  }
  const V3<T> root = st.template get<3, 1>(a.config, 0);
  st.set(a.x, 0, root);
  inclusive_scan(
      st.segments(), root,
      [&](int i) { return st.rows(a.length)[i] * director(st.template get<4, 1>(a.q, i)); },
      [&](int i, const V3<T>& p) { st.set(a.x, i + 1, p); });
}

// --- Energies (App. A)
// ----------------------------------------------------------------------------

template <class T>
struct Darboux {
  V3<T> value;
  Mat<T, 3, 4> d_prev, d_next;
};
// Ω_k and its derivatives with q_k taken on q_{k-1}'s side (q and -q are one frame): with
// f = vec(conj(q_{k-1}) ⊗ q_k) = sin(θ/2) n and c = q_{k-1} · q_k = cos(θ/2) >= 0,
// sine: Ω = 2 f / l̄; tangent: Ω = 2 f / (c l̄), ∂Ω/∂q = (2 / l̄)(∂f/∂q / c - f ∂c/∂q / c²).
// c is held above the precision's ε (θ within ~ε of π), where the energy is ~1/ε² of a unit bend.
template <class T>
HS_HD Darboux<T> darboux(const V4<T>& q_prev, const V4<T>& q_next, T voronoi,
                         BendingStrain measure) {
  const T sign = dot(q_prev, q_next) < T(0) ? T(-1) : T(1);
  const V4<T> next = sign * q_next;
  const Mat<T, 3, 4> f_prev = d_vec_d_first(next), f_next = d_vec_d_second(q_prev);
  if (measure == BendingStrain::sine)
    return {(T(2) / voronoi) * (f_next * next), (T(2) / voronoi) * f_prev,
            (T(2) * sign / voronoi) * f_next};
  const T epsilon = kernels::epsilon<T>();
  const T c_raw = dot(q_prev, next), c = c_raw > epsilon ? c_raw : epsilon;
  const V3<T> f = f_next * next;
  const T w = T(2) / (voronoi * c), wf = T(2) / (voronoi * c * c);
  Mat<T, 3, 4> d_prev, d_next;
  for (int r = 0; r < 3; ++r)
    for (int col = 0; col < 4; ++col) {
      d_prev(r, col) = w * f_prev(r, col) - wf * f[r] * next[col];
      d_next(r, col) = sign * (w * f_next(r, col) - wf * f[r] * q_prev[col]);
    }
  return {w * f, d_prev, d_next};
}
template <class T>
HS_HD T voronoi(const Strand<T>& st, int k) {
  const Strided<T> l = st.rows(st.a.length);
  return T(0.5) * (l[k - 1] + l[k]);
}

// The rotational term of segment i: e = R q - Δt Ω_t, R = ∂e/∂q.
template <class T>
struct RotationalTerm {
  Mat<T, 3, 4> r;
  V3<T> error;
};
template <class T>
HS_HD RotationalTerm<T> rotational_term(const Strand<T>& st, const V4<T>& q, int i) {
  const V4<T> qt = st.template get<4, 1>(st.a.start_q, i);
  const T sign = dot(qt, q) < T(0) ? T(-1) : T(1);
  return {(T(2) * sign) * d_vec_d_second(qt),
          relative_rotation(qt, q) - st.template get<3, 1>(st.a.rotation_dt, i)};
}

}  // namespace hairsim::kernels::cosserat
