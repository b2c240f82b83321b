#pragma once
// DER contacts with the head's colliders: vertices put on the surface with the Coulomb contact
// velocity, then the fast projection with the contacts' tangent planes as extra constraints.
#include "common/lane_tridiagonal.hpp"
#include "der/der_parameters.hpp"
#include "der/der_solves.hpp"

namespace hairsim::kernels::der {

// Contacts with the head colliders at the end of the step: every free vertex inside one is put
// on its surface and marked in `pinned`, with the surface's tangent plane recorded
// (contact_normal, contact_offset), its velocity (as it penetrated) replaced by the contact
// velocity (inelastic, Coulomb friction, relative to the surface's own velocity). Returns how
// many vertices were in contact.
// With `refresh` (after a projection on the contacts' planes), only vertices deeper than the
// length tolerance count, and a vertex already in contact keeps its contact velocity: its
// position and plane move to the surface where it slid.
template <class T, class G>
HS_HD int resolve_contacts(const Strand<T, G>& st, const DerStepParameters<T>& p,
                           bool refresh = false) {
  const DerBatchArrays<T>& a = st.a;
  const StridedVector3<T> x = st.vectors(a.position), v = st.vectors(a.velocity);
  const Strided<T> pinned = st.per_row(a.pinned);
  const int touching = reduce_rows(st.g, a.vertices, 0, Sum{}, [&](int i) {
    int touching_here = 0;
    if (i < 2) return touching_here;  // the root clamp
    for (int c = 0; c < p.collider_count; ++c) {
      const Vector3<T> local = p.head.apply_inverse(x.get(i));
      const Contact<T> k = contact(p.colliders[c], local);
      if (!k.inside || (refresh && !(norm(local - k.surface) > p.length_tolerance))) continue;
      const Vector3<T> surface = p.head.apply(k.surface), normal = p.head.rotate(k.normal);
      const Vector3<T> w = (surface - p.head_previous.apply(k.surface)) / p.dt;
      x.set(i, surface);
      if (!refresh || pinned[i] == T(0))
        v.set(i, contact_velocity(v.get(i), w, normal, p.colliders[c].friction));
      pinned[i] = T(1);
      st.vectors(a.contact_normal).set(i, normal);
      st.per_row(a.contact_offset)[i] = dot(normal, surface);
      ++touching_here;
    }
    return touching_here;
  });
  st.g.sync();
  return touching;
}

// The fast projection again after contacts (Goldenthal et al. 2007 with one more kind of
// constraint): the edge lengths C_j = |e^j|² - |ē^j|² and, for each contact vertex k, its
// collider's tangent plane g_k = n_k . x_k - n_k . s_k = 0, so contacts slide on the surface
// while the lengths are restored (the root vertices stay held; an edge with both ends held is
// dropped). Ordering the constraints vertex by vertex as [g_k, C_k] makes ∇Φ M⁻¹ ∇Φᵀ
// block-tridiagonal with symmetric 2 x 2 blocks: each Newton step is one block solve.
// Stops when every edge length and plane is within `tolerance` (m). Returns the iterations.
template <class T, class G>
HS_HD int project_on_contact_planes(const Strand<T, G>& st, T tolerance, int max_iterations) {
  const DerBatchArrays<T>& a = st.a;
  const int nv = a.vertices, n = st.edges();
  const StridedVector3<T> x = st.vectors(a.position), edge = st.vectors(a.edge_vector),
                          normal = st.vectors(a.contact_normal);
  const Strided<T> rest = st.per_row(a.edge_length), mass = st.per_row(a.mass),
                   pinned = st.per_row(a.pinned), offset = st.per_row(a.contact_offset),
                   diag = st.per_row(a.plane_diag), upper = st.per_row(a.plane_upper),
                   rhs = st.per_row(a.plane_rhs);
  auto w = [&](int i) { return i < 2 ? T(0) : T(1) / mass[i]; };  // roots held
  auto on_plane = [&](int i) { return i >= 2 && pinned[i] != T(0); };
  auto kept = [&](int j) { return j >= 1 && j < n; };  // edge 0 joins the two held roots
  int iteration = 0;
  for (;; ++iteration) {
    // Per vertex k: edge k's error (if kept) and its plane's (if on one).
    const T worst = reduce_rows(st.g, nv, T(0), Max{}, [&](int k) {
      T error = 0;
      if (k < n) {
        const Vector3<T> e = x.get(k + 1) - x.get(k);
        edge.set(k, e);
        if (kept(k)) error = std::fabs(norm(e) - rest[k]);
      }
      if (on_plane(k))
        error = std::fmax(error, std::fabs(dot(normal.get(k), x.get(k)) - offset[k]));
      return error;
    });
    st.g.sync();
    if (worst <= tolerance || iteration == max_iterations) break;
    for_each_row(st.g, nv, [&](int k) {  // block k: rows [g_k, C_k]
      const bool g = on_plane(k), c = kept(k);
      const Vector3<T> nk = g ? normal.get(k) : Vector3<T>{};
      const Vector3<T> ek = k < n ? edge.get(k) : Vector3<T>{};
      diag[4 * k] = g ? w(k) : T(1);
      diag[4 * k + 1] = diag[4 * k + 2] = g && c ? T(-2) * w(k) * dot(nk, ek) : T(0);
      diag[4 * k + 3] = c ? T(4) * dot(ek, ek) * (w(k) + w(k + 1)) : T(1);
      rhs[2 * k] = g ? dot(nk, x.get(k)) - offset[k] : T(0);
      rhs[2 * k + 1] = c ? dot(ek, ek) - rest[k] * rest[k] : T(0);
      // Coupling to block k + 1 through vertex k + 1: (C_k, g_{k+1}) and (C_k, C_{k+1}).
      upper[4 * k] = upper[4 * k + 1] = T(0);
      const bool next = k + 1 < nv && c;
      upper[4 * k + 2] =
          next && on_plane(k + 1) ? T(2) * w(k + 1) * dot(ek, normal.get(k + 1)) : T(0);
      upper[4 * k + 3] = next && kept(k + 1) ? T(-4) * w(k + 1) * dot(ek, edge.get(k + 1)) : T(0);
    });
    const LowerFromUpper<2, Strided<T>> lower{upper};
    if (!lane_block_thomas_solve<T, 2>(st.g, nv, lower, diag, upper, rhs, rhs)) break;
    for_each_row(st.g, nv, [&](int k) {  // x <- x - M⁻¹ ∇Φᵀ δλ, with the edges as linearised
      if (k < 2) return;
      Vector3<T> step = on_plane(k) ? rhs[2 * k] * normal.get(k) : Vector3<T>{};
      if (k < n) step -= (T(2) * rhs[2 * k + 1]) * edge.get(k);
      step += (T(2) * rhs[2 * k - 1]) * edge.get(k - 1);
      x.set(k, x.get(k) - w(k) * step);
    });
  }
  return iteration;
}

}  // namespace hairsim::kernels::der
