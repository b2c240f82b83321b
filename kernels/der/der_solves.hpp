#pragma once
// DER's per-strand solves: the quasistatic twist (§5.1, Newton with Thomas) and the fast
// projection onto the edge lengths (§8.1, Goldenthal et al. 2007).
#include "common/thomas.hpp"
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
// tridiagonal Hessian solved by Thomas (a 1e-12 relative diagonal shift, clamped row 0) and an
// Armijo backtracking line search allowing energy_round_off() |E|, falling back to steepest
// descent where the Hessian is not positive definite: the reference's algorithm step for step.
// Needs compute_frames; leaves the frames updated. Returns the residual max_{j>=1} |∂E/∂θ^j| and
// the Newton iterations taken.
template <class T>
HS_HD TwistResult<T> solve_twist(const Strand<T>& st, T tolerance, int max_iterations) {
  const DerBatchArrays<T>& a = st.a;
  const int n = st.edges();
  const Strided<T> theta = st.per_row(a.theta), g = st.per_row(a.tri_rhs),
                   lower = st.per_row(a.tri_lower), diag = st.per_row(a.tri_diag),
                   upper = st.per_row(a.tri_upper), step = st.per_row(a.tri_solution),
                   scratch = st.per_row(a.tri_scratch), saved = st.per_row(a.theta_saved);
  bool straight = true;  // and untwisted at rest
  for (int i = 1; i < n && straight; ++i) {
    for (int k = 0; k < 4; ++k) straight = straight && st.per_row(a.rest_curvature[k])[i] == T(0);
    straight = straight && st.per_row(a.rest_twist)[i] == T(0);
  }
  if (straight) {
    for (int j = 1; j < n; ++j) theta[j] = theta[0];
    update_material_frames(st);
  }
  T residual = 0;
  int iteration = 0;
  for (;; ++iteration) {
    theta_gradient(st, g);
    residual = 0;
    for (int j = 1; j < n; ++j) residual = std::fmax(residual, std::fabs(g[j]));
    if (residual <= tolerance || iteration == max_iterations) break;
    theta_hessian(st, lower, diag, upper);
    T largest = 0;
    for (int j = 0; j < n; ++j) largest = std::fmax(largest, std::fabs(diag[j]));
    for (int j = 0; j < n; ++j) {
      diag[j] += T(1e-12) * largest;
      step[j] = -g[j];  // right-hand side, solved in place
    }
    diag[0] = T(1), step[0] = T(0), upper[0] = T(0), lower[1] = T(0);  // θ^0 held
    if (!thomas_solve(n, lower, diag, upper, step, step, scratch))
      for (int j = 0; j < n; ++j) step[j] = T(0);
    T slope = 0;
    for (int j = 1; j < n; ++j) slope += g[j] * step[j];
    if (!(slope < T(0))) {
      slope = 0;
      for (int j = 1; j < n; ++j) step[j] = -g[j], slope -= g[j] * g[j];
      step[0] = T(0);
    }
    const T e0 = elastic_energy(st), allowance = energy_round_off<T>() * std::fabs(e0);
    for (int j = 0; j < n; ++j) saved[j] = theta[j];
    T alpha = 1;
    for (int k = 0; k < 40; ++k, alpha *= T(0.5)) {
      for (int j = 0; j < n; ++j) theta[j] = saved[j] + alpha * step[j];
      update_material_frames(st);
      if (elastic_energy(st) <= e0 + T(1e-4) * alpha * slope + allowance) break;
    }
  }
  return {residual, iteration};
}

// Fast projection (Goldenthal et al. 2007; DER §8.1) of the new positions onto the edge
// lengths, the vertices marked in `pinned` held (the root clamp; contacts): Newton steps on
// C_j = |e^j|² - |ē^j|² in the mass metric, each a tridiagonal solve (∇C M⁻¹ ∇Cᵀ) δλ = C by
// Thomas; edges with both ends held are dropped and not measured. Stops when every other edge is
// within `tolerance` (m) of its rest length. Returns the number of iterations.
template <class T>
HS_HD int project_lengths(const Strand<T>& st, T tolerance, int max_iterations) {
  const DerBatchArrays<T>& a = st.a;
  const int n = st.edges();
  const StridedVector3<T> x = st.vectors(a.position), edge = st.vectors(a.edge_vector);
  const Strided<T> rest = st.per_row(a.edge_length), mass = st.per_row(a.mass),
                   lower = st.per_row(a.tri_lower), diag = st.per_row(a.tri_diag),
                   upper = st.per_row(a.tri_upper), c = st.per_row(a.tri_rhs),
                   dl = st.per_row(a.tri_solution), scratch = st.per_row(a.tri_scratch);
  const Strided<T> pinned = st.per_row(a.pinned);
  auto inverse_mass = [&](int i) { return pinned[i] != T(0) ? T(0) : T(1) / mass[i]; };
  int iteration = 0;
  for (;; ++iteration) {
    T worst = 0;  // over the edges the projection moves
    for (int j = 0; j < n; ++j) {
      const Vector3<T> e = x.get(j + 1) - x.get(j);
      edge.set(j, e);
      c[j] = dot(e, e) - rest[j] * rest[j];
      if (pinned[j] == T(0) || pinned[j + 1] == T(0))
        worst = std::fmax(worst, std::fabs(norm(e) - rest[j]));
    }
    if (worst <= tolerance || iteration == max_iterations) break;
    for (int j = 0; j < n; ++j) {
      const Vector3<T> e = edge.get(j);
      diag[j] = 4 * dot(e, e) * (inverse_mass(j) + inverse_mass(j + 1));
      upper[j] = j + 1 < n ? -4 * dot(e, edge.get(j + 1)) * inverse_mass(j + 1) : T(0);
      lower[j] = j > 0 ? -4 * dot(edge.get(j - 1), e) * inverse_mass(j) : T(0);
    }
    for (int j = 0; j < n; ++j)
      if (diag[j] == T(0)) {  // both ends held: drop the constraint
        diag[j] = T(1), c[j] = T(0), upper[j] = lower[j] = T(0);
        if (j > 0) upper[j - 1] = T(0);
        if (j + 1 < n) lower[j + 1] = T(0);
      }
    if (!thomas_solve(n, lower, diag, upper, c, dl, scratch)) break;
    for (int j = 0; j < n; ++j) {        // x <- x - M⁻¹ ∇Cᵀ δλ, ∇C_j = (-2e^j, +2e^j)
      const Vector3<T> e = edge.get(j);  // as linearised, not as moved by edge j - 1
      x.set(j, x.get(j) + (T(2) * inverse_mass(j) * dl[j]) * e);
      x.set(j + 1, x.get(j + 1) - (T(2) * inverse_mass(j + 1) * dl[j]) * e);
    }
  }
  return iteration;
}

}  // namespace hairsim::kernels::der
