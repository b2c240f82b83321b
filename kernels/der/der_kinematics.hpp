#pragma once
// DER kinematics of one strand (Bergou et al. 2008 §4): curvature binormals, parallel transport,
// the Bishop and material frames and the material curvatures, from the positions and θ.
#include <cmath>

#include "der/der_arrays.hpp"

namespace hairsim::kernels::der {

// Curvature binormal (κb)_i = 2 e^{i-1} × e^i / (|e^{i-1}| |e^i| + e^{i-1}·e^i), eq. (1).
template <class T>
HS_HD Vector3<T> curvature_binormal(const Vector3<T>& e_prev, const Vector3<T>& e_next) {
  return (T(2) / (norm(e_prev) * norm(e_next) + dot(e_prev, e_next))) * cross(e_prev, e_next);
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

// The θ-dependent part of the frames: material frames m1 = cos θ u + sin θ v,
// m2 = -sin θ u + cos θ v (§5) and curvatures ω^j_i = (κb·m2^j, -κb·m1^j) (eq. 2), from the
// Bishop frame and κb already computed (what the twist solve's line search changes).
template <class T>
HS_HD void update_material_frames(const Strand<T>& st) {
  const DerBatchArrays<T>& a = st.a;
  const int n_edges = st.edges();
  const StridedVector3<T> t = st.vectors(a.tangent), u = st.vectors(a.bishop_u),
                          m1 = st.vectors(a.m1), m2 = st.vectors(a.m2), kb = st.vectors(a.kb);
  const Strided<T> theta = st.per_row(a.theta);
  for (int j = 0; j < n_edges; ++j) {
    const Vector3<T> uj = u.get(j), vj = cross(t.get(j), uj);
    const T c = std::cos(theta[j]), sn = std::sin(theta[j]);
    m1.set(j, c * uj + sn * vj);
    m2.set(j, c * vj - sn * uj);
  }
  const Strided<T> w[4] = {st.per_row(a.curvature[0]), st.per_row(a.curvature[1]),
                           st.per_row(a.curvature[2]), st.per_row(a.curvature[3])};
  for (int k = 0; k < 4; ++k) w[k][0] = w[k][n_edges] = T(0);
  for (int i = 1; i < n_edges; ++i) {
    const Vector3<T> b = kb.get(i);
    w[0][i] = dot(b, m2.get(i - 1)), w[1][i] = -dot(b, m1.get(i - 1));
    w[2][i] = dot(b, m2.get(i)), w[3][i] = -dot(b, m1.get(i));
  }
}

// Everything derived from the state: edge lengths and tangents, the Bishop frame (u⁰ given,
// u^j = P_j(u^{j-1}), §4.2.2), curvature binormals (eq. 1), then the material frames.
template <class T>
HS_HD void compute_frames(const Strand<T>& st) {
  const DerBatchArrays<T>& a = st.a;
  const int n_edges = st.edges();
  const StridedVector3<T> x = st.vectors(a.position), t = st.vectors(a.tangent),
                          u = st.vectors(a.bishop_u), kb = st.vectors(a.kb);
  const Strided<T> length = st.per_row(a.length);
  for (int j = 0; j < n_edges; ++j) {
    const Vector3<T> e = x.get(j + 1) - x.get(j);
    length[j] = norm(e);
    t.set(j, e / length[j]);
  }
  u.set(0, {st.strand_value(a.u0[0]), st.strand_value(a.u0[1]), st.strand_value(a.u0[2])});
  for (int j = 1; j < n_edges; ++j)
    u.set(j, parallel_transport(u.get(j - 1), t.get(j - 1), t.get(j)));
  kb.set(0, {});
  kb.set(n_edges, {});
  for (int i = 1; i < n_edges; ++i)
    kb.set(i, curvature_binormal(x.get(i) - x.get(i - 1), x.get(i + 1) - x.get(i)));
  update_material_frames(st);
}

}  // namespace hairsim::kernels::der
