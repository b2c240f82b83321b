#pragma once
// DER energies and their derivatives for one strand (§4-§7): bending and twist energies,
// ∂E/∂θ and its tridiagonal Hessian, and the elastic forces at fixed θ (eq. 11).
#include "common/constants.hpp"
#include "common/matrix3.hpp"
#include "der/der_kinematics.hpp"

namespace hairsim::kernels::der {

// Bending energy Σ_i Σ_{j∈{i-1,i}} α |ω^j_i - ω̄^j_i|² / (2 l̄_i), eq. (3) with B = α Id.
template <class T, class G>
HS_HD T bending_energy(const Strand<T, G>& st) {
  const DerBatchArrays<T>& a = st.a;
  const T alpha = st.strand_value(a.bending);
  const Strided<T> l = st.per_row(a.voronoi_length);
  const int n_edges = st.edges();
  return reduce_rows(st.g, n_edges, T(0), Sum{}, [&](int i) {
    T energy = 0;
    if (i == 0) return energy;
    for (int k = 0; k < 4; ++k) {
      const T d = st.per_row(a.curvature[k])[i] - st.per_row(a.rest_curvature[k])[i];
      energy += alpha * d * d / (2 * l[i]);
    }
    return energy;
  });
}

// Twist energy Σ_i β (m_i - m̄_i)² / l̄_i, m_i = θ^i - θ^{i-1} (§4.2.2; m̄ the undeformed twist,
// 0 in the paper).
template <class T, class G>
HS_HD T twist_energy(const Strand<T, G>& st) {
  const DerBatchArrays<T>& a = st.a;
  const T beta = st.strand_value(a.twist);
  const Strided<T> l = st.per_row(a.voronoi_length), theta = st.per_row(a.theta),
                   rest = st.per_row(a.rest_twist);
  return reduce_rows(st.g, st.edges(), T(0), Sum{}, [&](int i) {
    if (i == 0) return T(0);
    const T m = theta[i] - theta[i - 1] - rest[i];
    return beta * m * m / l[i];
  });
}

// ∂E/∂θ^j, eq. (7): bending (1/l̄_i) ωᵀ J B (ω - ω̄) with J the rotation by π/2, and twist
// ±2β (m_i - m̄_i) / l̄_i. Written into g (per edge): each interior vertex's terms added into its
// two edges (a scatter of reach 1).
template <class T, class G>
HS_HD void theta_gradient(const Strand<T, G>& st, const Strided<T>& g) {
  const DerBatchArrays<T>& a = st.a;
  const T alpha = st.strand_value(a.bending), beta = st.strand_value(a.twist);
  const Strided<T> l = st.per_row(a.voronoi_length), theta = st.per_row(a.theta),
                   rest = st.per_row(a.rest_twist);
  for_each_row(st.g, st.edges(), [&](int j) { g[j] = T(0); });
  scatter_rows(st.g, st.edges(), 1, [&](int i) {
    if (i == 0) return;
    for (int k = 0; k < 2; ++k) {  // slot k: edge i - 1 + k
      const T w1 = st.per_row(a.curvature[2 * k])[i], w2 = st.per_row(a.curvature[2 * k + 1])[i];
      const T d1 = w1 - st.per_row(a.rest_curvature[2 * k])[i],
              d2 = w2 - st.per_row(a.rest_curvature[2 * k + 1])[i];
      // ωᵀ J (α d) with J (d1, d2) = (-d2, d1).
      g[i - 1 + k] += alpha * (-w1 * d2 + w2 * d1) / l[i];
    }
    const T torque = 2 * beta * (theta[i] - theta[i - 1] - rest[i]) / l[i];
    g[i] += torque;
    g[i - 1] -= torque;
  });
}

// ∂E/∂x at fixed θ (eq. 11 with the exact gradient of eq. 1) for a rod whose first edge's
// material frame is held and whose last is free: force = -∂E/∂x into a.force. The θ-dependence
// of the frames enters through the holonomy gradient (eqs. 9-10) weighted by the bending part of
// ∂E/∂θ^j, summed from the tip (a suffix scan keeps it O(N)).
template <class T, class G>
HS_HD void elastic_forces(const Strand<T, G>& st) {
  const DerBatchArrays<T>& a = st.a;
  const int n_edges = st.edges();
  const T alpha = st.strand_value(a.bending);
  const StridedVector3<T> x = st.vectors(a.position), kb = st.vectors(a.kb), m1 = st.vectors(a.m1),
                          m2 = st.vectors(a.m2), f = st.vectors(a.force);
  const Strided<T> l = st.per_row(a.voronoi_length), length = st.per_row(a.length),
                   c = st.per_row(a.edge_scratch);
  for_each_row(st.g, n_edges + 1, [&](int i) {
    f.set(i, {});
    if (i < n_edges) c[i] = T(0);
  });
  // Each interior vertex's bending stencil: forces on its three vertices, c_j of its two edges.
  scatter_rows(st.g, n_edges, 1, [&](int i) {
    if (i == 0) return;
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
    // Transposed Jacobians of eq. (1) applied to ∂E/∂κb.
    const CurvatureBinormalGradient<T> g = curvature_binormal_transpose_times(ea, eb, b, dE_dkb);
    const Vector3<T>&ga = g.prev_edge, &gb = g.next_edge;
    f.set(i - 1, f.get(i - 1) + ga);  // force = -gradient
    f.set(i, f.get(i) - ga + gb);
    f.set(i + 1, f.get(i + 1) - gb);
  });
  // c_k <- Σ_{j>=k} c_j (edges 1 .. n - 1), then each edge k's holonomy stencil.
  reverse_scan_rows(
      st.g, n_edges, T(0), T(0), Sum{}, [&](int k) { return k >= 1 ? T(c[k]) : T(0); },
      [&](int k, T suffix) { c[k] = suffix; });
  scatter_rows(st.g, n_edges, 1, [&](int k) {
    if (k == 0) return;
    const T suffix = c[k];
    const HolonomyStencil<T> h = holonomy_stencil(kb.get(k), T(length[k - 1]), T(length[k]));
    f.set(k - 1, f.get(k - 1) - suffix * h.before);
    f.set(k, f.get(k) - suffix * h.at);
    f.set(k + 1, f.get(k + 1) - suffix * h.after);
  });
}

// ∂²E/∂θ², tridiagonal (§5.1): bending (1/l̄_i)[ωᵀJᵀBJω - ωᵀB(ω - ω̄)] = α ω·ω̄ / l̄_i with
// B = α Id, twist 2β/l̄_i on the diagonal and -2β/l̄_i off it.
template <class T, class G>
HS_HD void theta_hessian(const Strand<T, G>& st, const Strided<T>& lower, const Strided<T>& diag,
                         const Strided<T>& upper) {
  const DerBatchArrays<T>& a = st.a;
  const T alpha = st.strand_value(a.bending), beta = st.strand_value(a.twist);
  const Strided<T> l = st.per_row(a.voronoi_length);
  for_each_row(st.g, st.edges(), [&](int j) { lower[j] = diag[j] = upper[j] = T(0); });
  scatter_rows(st.g, st.edges(), 1, [&](int i) {
    if (i == 0) return;
    for (int k = 0; k < 2; ++k) {
      T w_dot_rest = 0;
      for (int c = 0; c < 2; ++c)
        w_dot_rest +=
            st.per_row(a.curvature[2 * k + c])[i] * st.per_row(a.rest_curvature[2 * k + c])[i];
      diag[i - 1 + k] += alpha * w_dot_rest / l[i];
    }
    const T c = 2 * beta / l[i];
    diag[i] += c;
    diag[i - 1] += c;
    lower[i] -= c;
    upper[i - 1] -= c;
  });
}

// Stretching of an edge d = x_{j+1} - x_j of rest length L0 as the implicit step's stiff energy
// ½ EA (L - L0)² / L0 (EA in N): g = ∂E/∂x_{j+1} = EA (L - L0) / L0 d̂ (the force on x_j is +g,
// on x_{j+1} -g), and the Hessian block ∂²E/∂x_{j+1}² = EA/L0 [d̂d̂ᵀ + max(0, 1 - L0/L)(I - d̂d̂ᵀ)]
// (the compressed part dropped: positive semi-definite).
template <class T>
HS_HD Vector3<T> stretching_gradient(const Vector3<T>& d, T rest, T ea) {
  const T length = norm(d);
  return (ea * (length - rest) / rest) * (d / length);
}
template <class T>
HS_HD Matrix3<T> stretching_hessian(const Vector3<T>& d, T rest, T ea) {
  const T length = norm(d);
  const Vector3<T> dir = d / length;
  const Matrix3<T> along = outer(dir, dir);
  const T stretched = T(1) - rest / length;
  return (ea / rest) * (along + (stretched > T(0) ? stretched : T(0)) * (identity3<T>() - along));
}

template <class T, class G>
HS_HD T elastic_energy(const Strand<T, G>& st) {
  return bending_energy(st) + twist_energy(st);
}

// Relative round-off allowed in energy comparisons: 45 ε, the reference's 1e-14 in double.
template <class T>
HS_HD constexpr T energy_round_off() {
  return T(45) * epsilon<T>();
}

}  // namespace hairsim::kernels::der
