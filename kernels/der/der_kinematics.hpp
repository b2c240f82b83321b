#pragma once
// DER kinematics of one strand (Bergou et al. 2008 §4): curvature binormals, parallel transport,
// the Bishop and material frames and the material curvatures, from the positions and θ.
#include <cmath>

#include "common/constants.hpp"
#include "common/matrix3.hpp"
#include "common/quaternion.hpp"
#include "der/der_arrays.hpp"

namespace hairsim::kernels::der {

// Curvature binormal (κb)_i = 2 e^{i-1} × e^i / (|e^{i-1}| |e^i| + e^{i-1}·e^i), eq. (1).
template <class T>
HS_HD Vector3<T> curvature_binormal(const Vector3<T>& e_prev, const Vector3<T>& e_next) {
  return (T(2) / (norm(e_prev) * norm(e_next) + dot(e_prev, e_next))) * cross(e_prev, e_next);
}

// The Jacobians of eq. (1) with respect to the edges a = e^{i-1} and b = e^i, D = |a||b| + a·b:
// ∂κb/∂a = (-2[b]× - κb (|b| a/|a| + b)ᵀ) / D, ∂κb/∂b = (2[a]× - κb (|a| b/|b| + a)ᵀ) / D.
template <class T>
struct CurvatureBinormalJacobian {
  Matrix3<T> prev_edge, next_edge;
};
template <class T>
HS_HD CurvatureBinormalJacobian<T> curvature_binormal_jacobian(const Vector3<T>& a,
                                                               const Vector3<T>& b,
                                                               const Vector3<T>& kb) {
  const T la = norm(a), lb = norm(b), denom = la * lb + dot(a, b);
  return {(T(1) / denom) * (T(-2) * cross_matrix(b) - outer(kb, (lb / la) * a + b)),
          (T(1) / denom) * (T(2) * cross_matrix(a) - outer(kb, (la / lb) * b + a))};
}
// The same Jacobians transposed and applied to a vector v, without forming them (the forces'):
// (∂κb/∂a)ᵀ v = (2 b × v - (κb·v)(|b| a/|a| + b)) / D, (∂κb/∂b)ᵀ v = (-2 a × v - (κb·v)(|a| b/|b| +
// a)) / D.
template <class T>
struct CurvatureBinormalGradient {
  Vector3<T> prev_edge, next_edge;
};
template <class T>
HS_HD CurvatureBinormalGradient<T> curvature_binormal_transpose_times(const Vector3<T>& a,
                                                                      const Vector3<T>& b,
                                                                      const Vector3<T>& kb,
                                                                      const Vector3<T>& v) {
  const T la = norm(a), lb = norm(b), denom = la * lb + dot(a, b), kv = dot(kb, v);
  return {(T(2) * cross(b, v) - kv * ((lb / la) * a + b)) / denom,
          (T(-2) * cross(a, v) - kv * ((la / lb) * b + a)) / denom};
}

// ∇ψ_k of eq. (9), the holonomy of edge k's Bishop frame, at the vertices before, at and after
// vertex k: κb_k / (2|e^{k-1}|), -(before + after), -κb_k / (2|e^k|).
template <class T>
struct HolonomyStencil {
  Vector3<T> before, at, after;
};
template <class T>
HS_HD HolonomyStencil<T> holonomy_stencil(const Vector3<T>& kb, T length_before, T length_after) {
  const Vector3<T> before = kb / (T(2) * length_before), after = -(kb / (T(2) * length_after));
  return {before, -(before + after), after};
}

// Parallel transport of u from unit tangent t1 to t2: rotation about t1 × t2 by their angle
// (§4.2.2), in the half-angle form that is exact and the identity when t1 = t2.
template <class T>
HS_HD Vector3<T> parallel_transport(const Vector3<T>& u, const Vector3<T>& t1,
                                    const Vector3<T>& t2) {
  const Vector3<T> b = cross(t1, t2);
  const T c = dot(t1, t2);
  return c * u + cross(b, u) + (dot(b, u) / (T(1) + c)) * b;
}

// The material frame of an edge (§5): m1 = cos θ u + sin θ v, m2 = -sin θ u + cos θ v, with the
// Bishop frame (t, u, v = t × u).
template <class T>
struct MaterialFrame {
  Vector3<T> m1, m2;
};
template <class T>
HS_HD MaterialFrame<T> material_frame(const Vector3<T>& t, const Vector3<T>& u, T theta) {
  const Vector3<T> v = cross(t, u);
  const T c = std::cos(theta), sn = std::sin(theta);
  return {c * u + sn * v, c * v - sn * u};
}

// The material curvature of eq. (2): ω = ((κb)·m2, -(κb)·m1) of an edge's material frame.
template <class T>
struct MaterialCurvature {
  T first, second;
};
template <class T>
HS_HD MaterialCurvature<T> material_curvature(const Vector3<T>& kb, const MaterialFrame<T>& m) {
  return {dot(kb, m.m2), -dot(kb, m.m1)};
}

// The angle θ at which an edge's material vector cos θ u + sin θ v is `m1` (u, v its Bishop
// frame), unwrapped to the turn nearest `near`: how a clamp holds θ (§5.1).
template <class T>
HS_HD T material_angle(const Vector3<T>& m1, const Vector3<T>& u, const Vector3<T>& v, T near) {
  const T angle = std::atan2(dot(m1, v), dot(m1, u));
  const T turn = T(2) * pi<T>();
  return angle + turn * std::floor((near - angle) / turn + T(0.5));
}

// u⁰ carried in time (§4.2.2): parallel-transported from the old first tangent to the new one,
// then made exactly normal to it and unit.
template <class T>
HS_HD Vector3<T> transport_u0(const Vector3<T>& u0, const Vector3<T>& old_t0,
                              const Vector3<T>& new_t0) {
  Vector3<T> u = parallel_transport(u0, old_t0, new_t0);
  u = u - dot(u, new_t0) * new_t0;
  return u / norm(u);
}

// The θ-dependent part of the frames: material frames m1 = cos θ u + sin θ v,
// m2 = -sin θ u + cos θ v (§5) and curvatures ω^j_i = (κb·m2^j, -κb·m1^j) (eq. 2), from the
// Bishop frame and κb already computed (what the twist solve's line search changes).
template <class T, class G>
HS_HD void update_material_frames(const Strand<T, G>& st) {
  const DerBatchArrays<T>& a = st.a;
  const int n_edges = st.edges();
  const StridedVector3<T> t = st.vectors(a.tangent), u = st.vectors(a.bishop_u),
                          m1 = st.vectors(a.m1), m2 = st.vectors(a.m2), kb = st.vectors(a.kb);
  const Strided<T> theta = st.per_row(a.theta);
  for_each_row(st.g, n_edges, [&](int j) {
    const MaterialFrame<T> m = material_frame(t.get(j), u.get(j), T(theta[j]));
    m1.set(j, m.m1);
    m2.set(j, m.m2);
  });
  const Strided<T> w[4] = {st.per_row(a.curvature[0]), st.per_row(a.curvature[1]),
                           st.per_row(a.curvature[2]), st.per_row(a.curvature[3])};
  for_each_row(st.g, n_edges + 1, [&](int i) {
    if (i == 0 || i == n_edges) {
      for (int k = 0; k < 4; ++k) w[k][i] = T(0);
      return;
    }
    const MaterialCurvature<T> before =
                                   material_curvature(kb.get(i), {m1.get(i - 1), m2.get(i - 1)}),
                               after = material_curvature(kb.get(i), {m1.get(i), m2.get(i)});
    w[0][i] = before.first, w[1][i] = before.second;
    w[2][i] = after.first, w[3][i] = after.second;
  });
}

// Everything derived from the state: edge lengths and tangents, the Bishop frame (u⁰ given,
// u^j = P_j(u^{j-1}), §4.2.2: carried along the edges by each one's transport rotation, which
// the lanes compose), curvature binormals (eq. 1), then the material frames.
template <class T, class G>
HS_HD void compute_frames(const Strand<T, G>& st) {
  const DerBatchArrays<T>& a = st.a;
  const int n_edges = st.edges();
  const StridedVector3<T> x = st.vectors(a.position), t = st.vectors(a.tangent),
                          u = st.vectors(a.bishop_u), kb = st.vectors(a.kb);
  const Strided<T> length = st.per_row(a.length);
  for_each_row(st.g, n_edges, [&](int j) {
    const Vector3<T> e = x.get(j + 1) - x.get(j);
    length[j] = norm(e);
    t.set(j, e / length[j]);
  });
  // Along a lane's edges the paper's transport of u from t^{j-1} to t^j; across the lanes the
  // same rotations as quaternions (in float the quaternion form, taken at every edge, left the
  // frames less orthonormal: 4.6x the float parity deviation on the shaking head).
  carry_rows(
      st.g, n_edges,
      Vector3<T>{st.strand_value(a.u0[0]), st.strand_value(a.u0[1]), st.strand_value(a.u0[2])},
      Quaternion<T>{},
      [&](int j, const Vector3<T>& v) {
        return j == 0 ? v : parallel_transport(v, t.get(j - 1), t.get(j));
      },
      [&](int j) { return j == 0 ? Quaternion<T>{} : transport_rotation(t.get(j - 1), t.get(j)); },
      [](const Quaternion<T>& q, const Vector3<T>& v) { return rotate(q, v); },
      [](const Quaternion<T>& first, const Quaternion<T>& next) { return then(first, next); },
      [&](int j, const Vector3<T>& v) { u.set(j, v); });
  for_each_row(st.g, n_edges + 1, [&](int i) {
    kb.set(i, i == 0 || i == n_edges
                  ? Vector3<T>{}
                  : curvature_binormal(x.get(i) - x.get(i - 1), x.get(i + 1) - x.get(i)));
  });
  update_material_frames(st);
}

}  // namespace hairsim::kernels::der
