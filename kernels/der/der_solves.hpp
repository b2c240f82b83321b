#pragma once
// DER's per-strand solves: the quasistatic twist (§5.1, Newton with a tridiagonal solve) and the
// fast projection onto the edge lengths (§8.1, Goldenthal et al. 2007).
#include "common/lane_tridiagonal.hpp"
#include "der/der_forces.hpp"

namespace hairsim::kernels::der {

template <class T>
struct TwistResult {
  T residual;
  int iterations;
};

// Quasistatic material frame (§5.1) of a strand whose first material frame is held (θ^0 fixed)
// and whose last edge is free: naturally straight strands take the uniform twist of eqs. (5)-(6)
// (with the tip free, every θ equals θ^0); others Newton on ∂E/∂θ^j = 0 (j >= 1) with the
// tridiagonal Hessian solved on the strand's lanes (a 1e-12 relative diagonal shift, clamped row 0)
// and an Armijo backtracking line search allowing energy_round_off() |E|, falling back to steepest
// descent where the Hessian is not positive definite: the reference's algorithm step for step.
// Needs compute_frames; leaves the frames updated. Returns the residual max_{j>=1} |∂E/∂θ^j| and
// the Newton iterations taken.
template <class T, class G>
HS_HD TwistResult<T> solve_twist(const Strand<T, G>& st, T tolerance, int max_iterations) {
  const DerBatchArrays<T>& a = st.a;
  const G& lanes = st.g;
  const int n = st.edges();
  const Strided<T> theta = st.per_row(a.theta), g = st.per_row(a.tri_rhs),
                   lower = st.per_row(a.tri_lower), diag = st.per_row(a.tri_diag),
                   upper = st.per_row(a.tri_upper), step = st.per_row(a.tri_solution),
                   saved = st.per_row(a.theta_saved);
  const bool straight = reduce_rows(lanes, n, true, All{}, [&](int i) {  // and untwisted at rest
    bool flat = i == 0 || st.per_row(a.rest_twist)[i] == T(0);
    for (int k = 0; k < 4 && i > 0; ++k) flat = flat && st.per_row(a.rest_curvature[k])[i] == T(0);
    return flat;
  });
  if (straight) {
    for_each_row(lanes, n, [&](int j) {
      if (j > 0) theta[j] = theta[0];
    });
    update_material_frames(st);
  }
  T residual = 0;
  int iteration = 0;
  for (;; ++iteration) {
    theta_gradient(st, g);
    residual = reduce_rows(lanes, n, T(0), Max{},
                           [&](int j) { return j >= 1 ? T(std::fabs(g[j])) : T(0); });
    if (residual <= tolerance || iteration == max_iterations) break;
    theta_hessian(st, lower, diag, upper);
    const T largest =
        reduce_rows(lanes, n, T(0), Max{}, [&](int j) { return T(std::fabs(diag[j])); });
    for_each_row(lanes, n, [&](int j) {
      diag[j] += T(1e-12) * largest;
      step[j] = -g[j];  // right-hand side, solved in place
      if (j == 0) diag[0] = T(1), step[0] = T(0), upper[0] = T(0);  // θ^0 held
      if (j == 1) lower[1] = T(0);
    });
    if (!lane_thomas_solve(lanes, n, lower, diag, upper, step, step))
      for_each_row(lanes, n, [&](int j) { step[j] = T(0); });
    T slope =
        reduce_rows(lanes, n, T(0), Sum{}, [&](int j) { return j >= 1 ? g[j] * step[j] : T(0); });
    if (!(slope < T(0))) {
      slope = -reduce_rows(lanes, n, T(0), Sum{}, [&](int j) {
        step[j] = j >= 1 ? T(-g[j]) : T(0);
        return j >= 1 ? g[j] * g[j] : T(0);
      });
      lanes.sync();
    }
    const T e0 = elastic_energy(st), allowance = energy_round_off<T>() * std::fabs(e0);
    for_each_row(lanes, n, [&](int j) { saved[j] = theta[j]; });
    T alpha = 1;
    for (int k = 0; k < 40; ++k, alpha *= T(0.5)) {
      for_each_row(lanes, n, [&](int j) { theta[j] = saved[j] + alpha * step[j]; });
      update_material_frames(st);
      if (elastic_energy(st) <= e0 + T(1e-4) * alpha * slope + allowance) break;
    }
  }
  return {residual, iteration};
}

// Fast projection (Goldenthal et al. 2007; DER §8.1) of the new positions onto the edge
// lengths, the vertices marked in `pinned` held (the root clamp; contacts): Newton steps on
// C_j = |e^j|² - |ē^j|² in the mass metric, each a tridiagonal solve (∇C M⁻¹ ∇Cᵀ) δλ = C;
// edges with both ends held are dropped and not measured. Stops when every other edge is within
// `tolerance` (m) of its rest length. Returns the number of iterations.
template <class T, class G>
HS_HD int project_lengths(const Strand<T, G>& st, T tolerance, int max_iterations) {
  const DerBatchArrays<T>& a = st.a;
  const int n = st.edges();
  const StridedVector3<T> x = st.vectors(a.position), edge = st.vectors(a.edge_vector);
  const Strided<T> rest = st.per_row(a.edge_length), mass = st.per_row(a.mass),
                   lower = st.per_row(a.tri_lower), diag = st.per_row(a.tri_diag),
                   upper = st.per_row(a.tri_upper), c = st.per_row(a.tri_rhs),
                   dl = st.per_row(a.tri_solution);
  const Strided<T> pinned = st.per_row(a.pinned);
  auto inverse_mass = [&](int i) { return pinned[i] != T(0) ? T(0) : T(1) / mass[i]; };
  // Row j of ∇C M⁻¹ ∇Cᵀ's diagonal; 0 where both ends are held (the constraint is dropped).
  auto diagonal = [&](int j) {
    const Vector3<T> e = edge.get(j);
    return 4 * dot(e, e) * (inverse_mass(j) + inverse_mass(j + 1));
  };
  int iteration = 0;
  for (;; ++iteration) {
    const T worst = reduce_rows(st.g, n, T(0), Max{}, [&](int j) {  // over the edges it moves
      const Vector3<T> e = x.get(j + 1) - x.get(j);
      edge.set(j, e);
      c[j] = dot(e, e) - rest[j] * rest[j];
      return pinned[j] == T(0) || pinned[j + 1] == T(0) ? T(std::fabs(norm(e) - rest[j])) : T(0);
    });
    st.g.sync();
    if (worst <= tolerance || iteration == max_iterations) break;
    for_each_row(st.g, n, [&](int j) {
      const Vector3<T> e = edge.get(j);
      diag[j] = diagonal(j);
      upper[j] = j + 1 < n ? -4 * dot(e, edge.get(j + 1)) * inverse_mass(j + 1) : T(0);
      lower[j] = j > 0 ? -4 * dot(edge.get(j - 1), e) * inverse_mass(j) : T(0);
      if (diag[j] == T(0)) diag[j] = T(1), c[j] = T(0), upper[j] = lower[j] = T(0);
      if (j + 1 < n && diagonal(j + 1) == T(0)) upper[j] = T(0);  // the next one dropped
      if (j > 0 && diagonal(j - 1) == T(0)) lower[j] = T(0);      // the one before dropped
    });
    if (!lane_thomas_solve(st.g, n, lower, diag, upper, c, dl)) break;
    // x <- x - M⁻¹ ∇Cᵀ δλ, ∇C_j = (-2e^j, +2e^j), with the edges as linearised: vertex i from
    // edge i - 1, then from edge i.
    for_each_row(st.g, n + 1, [&](int i) {
      Vector3<T> xi = x.get(i);
      if (i > 0) xi = xi - (T(2) * inverse_mass(i) * dl[i - 1]) * edge.get(i - 1);
      if (i < n) xi = xi + (T(2) * inverse_mass(i) * dl[i]) * edge.get(i);
      x.set(i, xi);
    });
  }
  return iteration;
}

}  // namespace hairsim::kernels::der
