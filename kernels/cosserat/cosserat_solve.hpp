#pragma once
// The Newton system's solve for one Cosserat strand: the hybrid (eq. 22) or block-diagonal
// preconditioner built in O(n) and applied by block Thomas (§3.3), or A itself factored along the
// chain in O(n) (the exact preconditioner, ours), and PCG (common/pcg.hpp).
#include "common/block_thomas.hpp"
#include "common/pcg.hpp"
#include "cosserat/cosserat_energy.hpp"

namespace hairsim::kernels::cosserat {

// --- Preconditioner (§3.3) ---------------------------------------------------------------------

enum class Preconditioner : int { diagonal = 0, block_diagonal = 1, hybrid = 2, exact = 3 };

// The bending strain's Jacobians at vertex v (joining segments v - 1 and v): its change with
// ω_{v-1} (`prev`) and with ω_v (`next`), and K l_v times each.
template <class T>
struct BendingJacobians {
  M3<T> prev, next, k_prev, k_next;
};
template <class T>
HS_HD BendingJacobians<T> bending_jacobians(const Strand<T>& st, int v) {
  const auto& a = st.a;
  const V3<T> k = st.template get<3, 1>(a.stiffness, 0);
  const T l = voronoi(st, v);
  BendingJacobians<T> b;
  b.prev = st.template get<3, 4>(a.bend_prev, v) * st.template get<4, 3>(a.dq, v - 1);
  b.next = st.template get<3, 4>(a.bend_next, v) * st.template get<4, 3>(a.dq, v);
  b.k_prev = l * scale_rows(k, b.prev);
  b.k_next = l * scale_rows(k, b.next);
  return b;
}

// --- The exact preconditioner: A factored along the chain (ours) ----------------------------
//
// A = Jᵀ H J + Σ_i Q_i + Σ_v B_vᵀ K_v B_v is the Hessian of the quadratic
//   ½ Σ_j δp_jᵀ H_j δp_j + ½ Σ_i ω_iᵀ Q_i ω_i + ½ Σ_v |prev_v ω_{v-1} + next_v ω_v|²_K,
//   δp_{i+1} = δp_i + J^i ω_i  (eq. 18's prefix sums; δp_0 = δp_1 = 0, the clamped root),
// Q_i = ∂q_iᵀ M_q,i ∂q_i + G_i. It is a chain, as an articulated body's, so A z = r is solved
// exactly in O(n) by dynamic programming from the tip (a discrete Riccati recursion): the
// minimum over ω_i .. ω_{S-1} of what lies beyond segment i is a quadratic
//   V_i(x, w) = ½ [x; w]ᵀ P_i [x; w] - p_iᵀ [x; w]
// in segment i's start vertex x = δp_i and its predecessor's w = ω_{i-1}. With H' = P_xx + H_{i+1}
// and D = J^i, segment i's part of ω is minimised by G ω = g - C_x x - C_w w:
//   G   = Q_i + nextᵀ K next + Dᵀ H' D + Dᵀ P_xw + P_wx D + P_ww,
//   C_x = Dᵀ H' + P_wx,  C_w = nextᵀ K prev,  g = r_i + Dᵀ p_x + p_w,
// and V_i's P_xx = H' - C_xᵀ G⁻¹ C_x, P_xw = -C_xᵀ G⁻¹ C_w, P_ww = prevᵀ K prev - C_wᵀ G⁻¹ C_w,
// p = [p_x; 0] - [C_x C_w]ᵀ G⁻¹ g. G is A's Schur complement on ω_i (positive definite when A
// is). The factorisation keeps G⁻¹, F_x = G⁻¹ C_x and F_w = G⁻¹ C_w per segment (in pc_diag,
// pc_upper, pc_scratch); a solve is one sweep tip-to-root for g and one root-to-tip for ω.
// About three PCG iterations' work, and PCG with it stops after one iteration however stiff the
// contacts make A (in float some solves take a few more, refining the factorisation's round-off:
// docs/models/cosserat.md, "The exact chain solve"). False on a G singular to working precision (a
// non-finite state).
template <class T>
HS_HD bool factor_chain(const Strand<T>& st, T dt, bool resistive) {
  const auto& a = st.a;
  M3<T> pxx = M3<T>::zero(), pxw = M3<T>::zero(), pww = M3<T>::zero();
  for (int i = st.segments() - 1; i >= 1; --i) {
    const M3<T> d = st.template get<3, 3>(a.dx, i), pwx = transpose(pxw);
    const M3<T> h = pxx + vertex_block(st, dt, resistive, i + 1);
    const Mat<T, 4, 3> dq = st.template get<4, 3>(a.dq, i);
    const BendingJacobians<T> bend = bending_jacobians(st, i);
    const M3<T> cx = transpose_times(d, h) + pwx;
    const M3<T> cw = transpose_times(bend.next, bend.k_prev);
    M3<T> g = transpose_times(dq, st.template get<4, 4>(a.mq, i) * dq) +
              st.template get<3, 3>(a.chain, i) + transpose_times(bend.next, bend.k_next) + cx * d +
              transpose_times(d, pxw) + pww;
    // G [G⁻¹ F_x F_w] = [I C_x C_w], one elimination.
    T negligible[3] = {};
    T rhs[27];
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) {
        const T size = T(3) * epsilon<T>() * (g(r, c) < T(0) ? -g(r, c) : g(r, c));
        negligible[r] = size > negligible[r] ? size : negligible[r];
        rhs[9 * r + c] = r == c ? T(1) : T(0);
        rhs[9 * r + 3 + c] = cx(r, c);
        rhs[9 * r + 6 + c] = cw(r, c);
      }
    if (!block_detail::solve_in_place<T, 3, 9>(&g(0, 0), rhs, negligible)) return false;
    M3<T> g_inverse, fx, fw;
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c)
        g_inverse(r, c) = rhs[9 * r + c], fx(r, c) = rhs[9 * r + 3 + c],
                     fw(r, c) = rhs[9 * r + 6 + c];
    st.set(a.pc_diag, 1 + i, g_inverse);
    st.set(a.pc_upper, 1 + i, fx);
    st.set(a.pc_scratch, 1 + i, fw);
    pxx = h - transpose_times(cx, fx);
    pxw = T(-1) * transpose_times(cx, fw);
    pww = transpose_times(bend.prev, bend.k_prev) - transpose_times(cw, fw);
  }
  return true;
}

// z = A⁻¹ r from factor_chain's blocks: g tip-to-root, ω root-to-tip; the fixed blocks 0.
template <class T>
HS_HD void solve_chain(const Strand<T>& st, T* r, T* z) {
  const auto& a = st.a;
  V3<T> px = V3<T>::zero(), pw = V3<T>::zero();
  for (int i = st.segments() - 1; i >= 1; --i) {
    const V3<T> g =
        st.template get<3, 1>(r, 1 + i) + transpose_times(st.template get<3, 3>(a.dx, i), px) + pw;
    st.set(z, 1 + i, st.template get<3, 3>(a.pc_diag, 1 + i) * g);  // G⁻¹ g, for the sweep back
    px -= transpose_times(st.template get<3, 3>(a.pc_upper, 1 + i), g);
    pw = T(-1) * transpose_times(st.template get<3, 3>(a.pc_scratch, 1 + i), g);
  }
  st.set(z, 0, V3<T>::zero());
  st.set(z, 1, V3<T>::zero());
  V3<T> x = V3<T>::zero(), w = V3<T>::zero();
  for (int i = 1; i < st.segments(); ++i) {
    w = st.template get<3, 1>(z, 1 + i) - st.template get<3, 3>(a.pc_upper, 1 + i) * x -
        st.template get<3, 3>(a.pc_scratch, 1 + i) * w;
    st.set(z, 1 + i, w);
    x += st.template get<3, 3>(a.dx, i) * w;
  }
}

// --- The paper's preconditioners (§3.3) -------------------------------------------------------

// Builds the preconditioner of `kind`; false when the exact one's factorisation fails.
template <class T>
HS_HD bool build_preconditioner(const Strand<T>& st, T dt, bool resistive, Preconditioner kind) {
  if (kind == Preconditioner::exact) return factor_chain(st, dt, resistive);
  const auto& a = st.a;
  const int n = st.vertices();
  // H_j summed beyond each segment (eq. 28).
  const M3<T> beyond_root = reverse_inclusive_scan(
      st.segments(), M3<T>::zero(), [&](int i) { return vertex_block(st, dt, resistive, i + 1); },
      [&](int i, const M3<T>& beyond) {
        const M3<T> dx = st.template get<3, 3>(a.dx, i);
        const Mat<T, 4, 3> dq = st.template get<4, 3>(a.dq, i);
        st.set(a.pc_diag, 1 + i,
               transpose_times(dx, beyond) * dx +
                   transpose_times(dq, st.template get<4, 4>(a.mq, i) * dq) +
                   st.template get<3, 3>(a.chain, i));
      });
  st.set(a.pc_diag, 0, beyond_root + vertex_block(st, dt, resistive, 0));
  for (int b = 0; b < n; ++b) st.set(a.pc_upper, b, M3<T>::zero());
  for (int v = 1; v + 1 < n; ++v) {
    const BendingJacobians<T> bend = bending_jacobians(st, v);
    st.set(a.pc_diag, v,
           st.template get<3, 3>(a.pc_diag, v) + transpose_times(bend.prev, bend.k_prev));
    st.set(a.pc_diag, v + 1,
           st.template get<3, 3>(a.pc_diag, v + 1) + transpose_times(bend.next, bend.k_next));
    if (kind == Preconditioner::hybrid)
      st.set(a.pc_upper, v, transpose_times(bend.prev, bend.k_next));
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
  return true;
}

template <class T>
HS_HD bool apply_preconditioner(const Strand<T>& st, Preconditioner kind, T* r, T* z) {
  if (kind == Preconditioner::exact) {
    solve_chain(st, r, z);
    return true;
  }
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
HS_HD int pcg(const Strand<T>& st, T dt, bool resistive, Preconditioner kind, T* rhs, T* x,
              const PcgSettings& settings) {
  const auto& a = st.a;
  return kernels::pcg<T>(
      3 * st.vertices(), st.rows(rhs), st.rows(x), st.rows(a.residual), st.rows(a.direction),
      st.rows(a.product), st.rows(a.precond),
      [&] { apply_a(st, dt, resistive, a.direction, a.product); },
      [&] { return apply_preconditioner(st, kind, a.residual, a.precond); }, settings);
}

}  // namespace hairsim::kernels::cosserat
