#pragma once
// The Newton system's solve for one Cosserat strand: the hybrid (eq. 22) or block-diagonal
// preconditioner built in O(n) and applied by block Thomas (§3.3), and PCG (common/pcg.hpp).
#include "common/block_thomas.hpp"
#include "common/pcg.hpp"
#include "cosserat/cosserat_energy.hpp"

namespace hairsim::kernels::cosserat {

// --- Preconditioner (§3.3) ---------------------------------------------------------------------

enum class Preconditioner : int { diagonal = 0, block_diagonal = 1, hybrid = 2 };

template <class T>
HS_HD void build_preconditioner(const Strand<T>& st, T dt, bool resistive, Preconditioner kind) {
  const auto& a = st.a;
  const int n = st.vertices();
  const V3<T> k = st.template get<3, 1>(a.stiffness, 0);
  const T inv_dt2 = T(1) / (dt * dt);
  // H_j = h_j I (+ C_j / Δt), summed beyond each segment (eq. 28).
  auto block = [&](int j) {
    M3<T> b = (st.rows(a.mass)[j] * inv_dt2) * M3<T>::identity();
    if (resistive) b += resistance_dt(st, dt, j);
    b += st.template get<3, 3>(a.contact, j);
    return b;
  };
  const M3<T> beyond_root = reverse_inclusive_scan(
      st.segments(), M3<T>::zero(), [&](int i) { return block(i + 1); },
      [&](int i, const M3<T>& beyond) {
        const M3<T> dx = st.template get<3, 3>(a.dx, i);
        const Mat<T, 4, 3> dq = st.template get<4, 3>(a.dq, i);
        st.set(a.pc_diag, 1 + i,
               transpose_times(dx, beyond) * dx +
                   transpose_times(dq, st.template get<4, 4>(a.mq, i) * dq) +
                   st.template get<3, 3>(a.chain, i));
      });
  st.set(a.pc_diag, 0, beyond_root + block(0));
  for (int b = 0; b < n; ++b) st.set(a.pc_upper, b, M3<T>::zero());
  for (int v = 1; v + 1 < n; ++v) {
    const T l = voronoi(st, v);
    const M3<T> pa = st.template get<3, 4>(a.bend_prev, v) * st.template get<4, 3>(a.dq, v - 1);
    const M3<T> pb = st.template get<3, 4>(a.bend_next, v) * st.template get<4, 3>(a.dq, v);
    const M3<T> kpa = l * scale_rows(k, pa), kpb = l * scale_rows(k, pb);
    st.set(a.pc_diag, v, st.template get<3, 3>(a.pc_diag, v) + transpose_times(pa, kpa));
    st.set(a.pc_diag, v + 1, st.template get<3, 3>(a.pc_diag, v + 1) + transpose_times(pb, kpb));
    if (kind == Preconditioner::hybrid) st.set(a.pc_upper, v, transpose_times(pa, kpb));
  }
  if (kind == Preconditioner::diagonal)
    for (int b = 0; b < n; ++b) {
      M3<T> d = st.template get<3, 3>(a.pc_diag, b);
      for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c)
          if (r != c) d(r, c) = T(0);
      st.set(a.pc_diag, b, d);
    }
  // The clamped root's blocks: the identity, uncoupled.
  st.set(a.pc_diag, 0, M3<T>::identity());
  st.set(a.pc_diag, 1, M3<T>::identity());
  st.set(a.pc_upper, 0, M3<T>::zero());
  st.set(a.pc_upper, 1, M3<T>::zero());
}

template <class T>
HS_HD bool apply_preconditioner(const Strand<T>& st, T* r, T* z) {
  const auto& a = st.a;
  const Strided<T> upper = st.rows(a.pc_upper);
  return block_thomas_solve<T, 3>(st.vertices(), LowerFromUpper<3, Strided<T>>{upper},
                                  st.rows(a.pc_diag), upper, st.rows(r), st.rows(z),
                                  st.rows(a.pc_scratch));
}

// --- PCG ---------------------------------------------------------------------------------------

using kernels::PcgSettings;  // common/pcg.hpp

template <class T>
HS_HD T s_dot(const Strand<T>& st, T* u, T* v) {
  return strided_dot(3 * st.vertices(), st.rows(u), st.rows(v));
}

// Solves A x = rhs from x = 0 (`x` and `rhs` distinct s-space arrays) by the common PCG, with
// the O(n) product A d and the preconditioner. Returns the iterations, -1 on a singular
// preconditioner.
template <class T>
HS_HD int pcg(const Strand<T>& st, T dt, bool resistive, T* rhs, T* x,
              const PcgSettings& settings) {
  const auto& a = st.a;
  return kernels::pcg<T>(
      3 * st.vertices(), st.rows(rhs), st.rows(x), st.rows(a.residual), st.rows(a.direction),
      st.rows(a.product), st.rows(a.precond),
      [&] { apply_a(st, dt, resistive, a.direction, a.product); },
      [&] { return apply_preconditioner(st, a.residual, a.precond); }, settings);
}

}  // namespace hairsim::kernels::cosserat
