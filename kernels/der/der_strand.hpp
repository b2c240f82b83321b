#pragma once
// DER on the batched engine: one strand's kinematics, energies and forces (Bergou et al. 2008),
// host and device, float or double, over the vertex-major batch layout (entry (i, s) at
// i * strands + s). The same equations as the reference (src/reference/der/), specialised to
// hair: open strands, isotropic bending B = α Id per strand (round fibres), a rest curvature ω̄
// per vertex, twist modulus β per strand. The reference is the yardstick: tests/unit/
// test_der_strand_kernels.cpp compares every quantity here with it.
#include "common/hd.hpp"
#include "common/strided.hpp"
#include "common/vector3.hpp"

namespace hairsim::kernels::der {

// Pointers into the batch arrays. Per-vertex arrays hold `vertices` rows, per-edge arrays
// `vertices - 1` rows, per-strand arrays one row; every row has `strands` entries.
template <class T>
struct DerBatchArrays {
  int strands = 0, vertices = 0;
  // State.
  T* position[3] = {};  // m, per vertex
  T* velocity[3] = {};  // m/s, per vertex
  T* theta = nullptr;   // rad, per edge: material frame angle from the Bishop frame (§4.2.2)
  T* u0[3] = {};        // per strand: Bishop vector of edge 0, unit, normal to t⁰
  // Rest shape and material.
  T* edge_length = nullptr;     // m, per edge: |ē^j|
  T* voronoi_length = nullptr;  // m, per vertex: l̄_i = |ē^{i-1}| + |ē^i|, 0 at the ends
  T* rest_curvature[4] = {};    // per vertex: ω̄ of the edge before (0, 1) and of edge i (2, 3)
  T* mass = nullptr;            // kg, per vertex
  T* bending = nullptr;         // N m², per strand: α (B = α Id)
  T* twist = nullptr;           // N m², per strand: β
  // Derived per step (compute_frames): one place computes them, everything else reads them.
  T* tangent[3] = {};    // per edge
  T* bishop_u[3] = {};   // per edge
  T* m1[3] = {};         // per edge
  T* m2[3] = {};         // per edge
  T* length = nullptr;   // m, per edge: |e^j|
  T* kb[3] = {};         // per vertex: curvature binormal (eq. 1), 0 at the ends
  T* curvature[4] = {};  // per vertex: ω of the edge before (0, 1) and of edge i (2, 3), eq. (2)
  // Outputs and scratch.
  T* force[3] = {};           // N, per vertex
  T* edge_scratch = nullptr;  // per edge
};

// Every array of the batch with its row count (vertices, edges, or 1 for per-strand values): the
// one list of fields, for the code that allocates, copies or maps them. f(T*& array, int rows).
template <class T, class F>
void for_each_array(DerBatchArrays<T>& a, F&& f) {
  const int v = a.vertices, e = a.vertices - 1;
  for (int k = 0; k < 3; ++k) {
    f(a.position[k], v), f(a.velocity[k], v), f(a.u0[k], 1), f(a.tangent[k], e);
    f(a.bishop_u[k], e), f(a.m1[k], e), f(a.m2[k], e), f(a.kb[k], v), f(a.force[k], v);
  }
  for (int k = 0; k < 4; ++k) f(a.rest_curvature[k], v), f(a.curvature[k], v);
  f(a.theta, e), f(a.edge_length, e), f(a.voronoi_length, v), f(a.mass, v);
  f(a.bending, 1), f(a.twist, 1), f(a.length, e), f(a.edge_scratch, e);
}

// One strand's view of the batch arrays.
template <class T>
struct Strand {
  const DerBatchArrays<T>& a;
  int s;

  HS_HD int edges() const { return a.vertices - 1; }
  HS_HD Strided<T> per_row(T* p) const { return {p + s, a.strands}; }
  HS_HD StridedVector3<T> vectors(T* const (&p)[3]) const {
    return {p[0] + s, p[1] + s, p[2] + s, a.strands};
  }
  HS_HD T strand_value(const T* p) const { return p[s]; }
};

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

// Tangents, Bishop frame (u⁰ given, u^j = P_j(u^{j-1})), material frame
// m1 = cos θ u + sin θ v, m2 = -sin θ u + cos θ v (§5), curvature binormals (eq. 1) and
// material curvatures ω^j_i = (κb·m2^j, -κb·m1^j) (eq. 2).
template <class T>
HS_HD void compute_frames(const Strand<T>& st) {
  const DerBatchArrays<T>& a = st.a;
  const int n_edges = st.edges();
  const StridedVector3<T> x = st.vectors(a.position), t = st.vectors(a.tangent),
                          u = st.vectors(a.bishop_u), m1 = st.vectors(a.m1), m2 = st.vectors(a.m2),
                          kb = st.vectors(a.kb);
  const Strided<T> length = st.per_row(a.length), theta = st.per_row(a.theta);
  for (int j = 0; j < n_edges; ++j) {
    const Vector3<T> e = x.get(j + 1) - x.get(j);
    length[j] = norm(e);
    t.set(j, e / length[j]);
  }
  u.set(0, {st.strand_value(a.u0[0]), st.strand_value(a.u0[1]), st.strand_value(a.u0[2])});
  for (int j = 1; j < n_edges; ++j)
    u.set(j, parallel_transport(u.get(j - 1), t.get(j - 1), t.get(j)));
  for (int j = 0; j < n_edges; ++j) {
    const Vector3<T> uj = u.get(j), vj = cross(t.get(j), uj);
    const T c = std::cos(theta[j]), sn = std::sin(theta[j]);
    m1.set(j, c * uj + sn * vj);
    m2.set(j, c * vj - sn * uj);
  }
  const Strided<T> w[4] = {st.per_row(a.curvature[0]), st.per_row(a.curvature[1]),
                           st.per_row(a.curvature[2]), st.per_row(a.curvature[3])};
  kb.set(0, {});
  kb.set(n_edges, {});
  for (int k = 0; k < 4; ++k) w[k][0] = w[k][n_edges] = T(0);
  for (int i = 1; i < n_edges; ++i) {
    const Vector3<T> b = curvature_binormal(x.get(i) - x.get(i - 1), x.get(i + 1) - x.get(i));
    kb.set(i, b);
    w[0][i] = dot(b, m2.get(i - 1)), w[1][i] = -dot(b, m1.get(i - 1));
    w[2][i] = dot(b, m2.get(i)), w[3][i] = -dot(b, m1.get(i));
  }
}

// Bending energy Σ_i Σ_{j∈{i-1,i}} α |ω^j_i - ω̄^j_i|² / (2 l̄_i), eq. (3) with B = α Id.
template <class T>
HS_HD T bending_energy(const Strand<T>& st) {
  const DerBatchArrays<T>& a = st.a;
  const T alpha = st.strand_value(a.bending);
  const Strided<T> l = st.per_row(a.voronoi_length);
  T energy = 0;
  for (int i = 1; i < st.edges(); ++i)
    for (int k = 0; k < 4; ++k) {
      const T d = st.per_row(a.curvature[k])[i] - st.per_row(a.rest_curvature[k])[i];
      energy += alpha * d * d / (2 * l[i]);
    }
  return energy;
}

// Twist energy Σ_i β m_i² / l̄_i, m_i = θ^i - θ^{i-1} (§4.2.2).
template <class T>
HS_HD T twist_energy(const Strand<T>& st) {
  const DerBatchArrays<T>& a = st.a;
  const T beta = st.strand_value(a.twist);
  const Strided<T> l = st.per_row(a.voronoi_length), theta = st.per_row(a.theta);
  T energy = 0;
  for (int i = 1; i < st.edges(); ++i) {
    const T m = theta[i] - theta[i - 1];
    energy += beta * m * m / l[i];
  }
  return energy;
}

// ∂E/∂θ^j, eq. (7): bending (1/l̄_i) ωᵀ J B (ω - ω̄) with J the rotation by π/2, and twist
// ±2β m_i / l̄_i. Written into g (per edge).
template <class T>
HS_HD void theta_gradient(const Strand<T>& st, const Strided<T>& g) {
  const DerBatchArrays<T>& a = st.a;
  const T alpha = st.strand_value(a.bending), beta = st.strand_value(a.twist);
  const Strided<T> l = st.per_row(a.voronoi_length), theta = st.per_row(a.theta);
  for (int j = 0; j < st.edges(); ++j) g[j] = T(0);
  for (int i = 1; i < st.edges(); ++i) {
    for (int k = 0; k < 2; ++k) {  // slot k: edge i - 1 + k
      const T w1 = st.per_row(a.curvature[2 * k])[i], w2 = st.per_row(a.curvature[2 * k + 1])[i];
      const T d1 = w1 - st.per_row(a.rest_curvature[2 * k])[i],
              d2 = w2 - st.per_row(a.rest_curvature[2 * k + 1])[i];
      // ωᵀ J (α d) with J (d1, d2) = (-d2, d1).
      g[i - 1 + k] += alpha * (-w1 * d2 + w2 * d1) / l[i];
    }
    const T torque = 2 * beta * (theta[i] - theta[i - 1]) / l[i];
    g[i] += torque;
    g[i - 1] -= torque;
  }
}

// ∂E/∂x at fixed θ (eq. 11 with the exact gradient of eq. 1) for a rod whose first edge's
// material frame is held and whose last is free: force = -∂E/∂x into a.force. The θ-dependence
// of the frames enters through the holonomy gradient (eqs. 9-10) weighted by the bending part of
// ∂E/∂θ^j, summed from the tip (a suffix sum keeps it O(N)).
template <class T>
HS_HD void elastic_forces(const Strand<T>& st) {
  const DerBatchArrays<T>& a = st.a;
  const int n_edges = st.edges();
  const T alpha = st.strand_value(a.bending);
  const StridedVector3<T> x = st.vectors(a.position), kb = st.vectors(a.kb), m1 = st.vectors(a.m1),
                          m2 = st.vectors(a.m2), f = st.vectors(a.force);
  const Strided<T> l = st.per_row(a.voronoi_length), length = st.per_row(a.length),
                   c = st.per_row(a.edge_scratch);
  for (int i = 0; i <= n_edges; ++i) f.set(i, {});
  for (int j = 0; j < n_edges; ++j) c[j] = T(0);
  for (int i = 1; i < n_edges; ++i) {
    const Vector3<T> ea = x.get(i) - x.get(i - 1), eb = x.get(i + 1) - x.get(i), b = kb.get(i);
    Vector3<T> dE_dkb;
    for (int k = 0; k < 2; ++k) {
      const int j = i - 1 + k;
      const T w1 = st.per_row(a.curvature[2 * k])[i], w2 = st.per_row(a.curvature[2 * k + 1])[i];
      const T b1 = alpha * (w1 - st.per_row(a.rest_curvature[2 * k])[i]) / l[i],
              b2 = alpha * (w2 - st.per_row(a.rest_curvature[2 * k + 1])[i]) / l[i];
      dE_dkb += b1 * m2.get(j) - b2 * m1.get(j);  // ∂ω/∂κb = [m2ᵀ; -m1ᵀ]
      c[j] += b1 * w2 - b2 * w1;                  // (B(ω - ω̄))ᵀ (-J ω)
    }
    // Transposed Jacobians of eq. (1) applied to ∂E/∂κb (reference: curvature_binormal_jacobian).
    const T la = norm(ea), lb = norm(eb), denom = la * lb + dot(ea, eb), kd = dot(b, dE_dkb);
    const Vector3<T> ga = (T(2) * cross(eb, dE_dkb) - kd * ((lb / la) * ea + eb)) / denom;
    const Vector3<T> gb = (T(-2) * cross(ea, dE_dkb) - kd * ((la / lb) * eb + ea)) / denom;
    f.set(i - 1, f.get(i - 1) + ga);  // force = -gradient
    f.set(i, f.get(i) - ga + gb);
    f.set(i + 1, f.get(i + 1) - gb);
  }
  T suffix = 0;  // Σ_{j>=k} c_j
  for (int k = n_edges - 1; k >= 1; --k) {
    suffix += c[k];
    const Vector3<T> b = kb.get(k);
    const Vector3<T> before = b / (2 * length[k - 1]), after = -(b / (2 * length[k]));
    f.set(k - 1, f.get(k - 1) - suffix * before);
    f.set(k, f.get(k) + suffix * (before + after));
    f.set(k + 1, f.get(k + 1) - suffix * after);
  }
}

}  // namespace hairsim::kernels::der
