#pragma once
// The implicit Euler step's energy of one Cosserat strand (App. A, eq. 30-31) and its derivatives:
// the energy, the gradient Jᵀ ∂E/∂x, and the Hessian products by O(n) prefix and suffix sums
// (§3.2, eq. 18).
#include "common/matrix3.hpp"
#include "cosserat/cosserat_loads.hpp"

namespace hairsim::kernels::cosserat {

template <class T>
struct Energy {
  T total = 0;
  T scale = 0;  // Σ |terms|: the round-off yardstick of the line search
};
// E of eq. (8a) at the current kinematics, the colliders carried by the head at `head`.
template <class T>
HS_HD Energy<T> energy(const Strand<T>& st, T dt, const Loads<T>& loads, const RigidPose<T>& head) {
  const V3<T>& gravity = loads.gravity;
  const auto& a = st.a;
  const V3<T> k = st.template get<3, 1>(a.stiffness, 0), j = st.template get<3, 1>(a.inertia, 0);
  const T inv_dt2 = T(1) / (dt * dt);
  T bend = 0, twist = 0, trans = 0, rot = 0, grav = 0, resist = 0;
  for (int v = 1; v + 1 < st.vertices(); ++v) {
    const T l = voronoi(st, v);
    const V3<T> strain = darboux(st.template get<4, 1>(a.q, v - 1), st.template get<4, 1>(a.q, v),
                                 l, a.bending_strain)
                             .value -
                         st.template get<3, 1>(a.darboux, v);
    bend += T(0.5) * l * (k[0] * strain[0] * strain[0] + k[1] * strain[1] * strain[1]);
    twist += T(0.5) * l * k[2] * strain[2] * strain[2];
  }
  for (int v = 0; v < st.vertices(); ++v) {
    const T m = st.rows(a.mass)[v];
    const V3<T> x = st.template get<3, 1>(a.x, v);
    const V3<T> d = x - st.template get<3, 1>(a.predicted, v);
    trans += T(0.5) * m * inv_dt2 * dot(d, d);
    grav -= m * dot(gravity, x);
  }
  for (int v = 2; v < st.vertices() && loads.collider_count > 0; ++v) {
    const Gap<T> g = contact_gap(loads, st.template get<3, 1>(a.x, v), head);
    if (g.value < T(0)) resist += T(0.5) * contact_stiffness(st, loads, dt, v) * g.value * g.value;
  }
  if (loads.frictional())
    for (int v = 2; v < st.vertices(); ++v) resist += friction_term(st, v).energy();
  if (loads.resistive())
    for (int v = 0; v < st.vertices(); ++v) {
      const V3<T> d = st.template get<3, 1>(a.x, v) - st.template get<3, 1>(a.start_x, v);
      resist += T(0.5) / dt * dot(d, st.template get<3, 3>(a.resistance, v) * d) -
                dot(d, st.template get<3, 1>(a.air_force, v));
    }
  for (int i = 0; i < st.segments(); ++i) {
    const V3<T> e = rotational_term(st, st.template get<4, 1>(a.q, i), i).error;
    rot += T(0.5) * st.rows(a.length)[i] * inv_dt2 * dot(e, scale_rows(j, e));
  }
  const auto abs = [](T v) { return v < T(0) ? -v : v; };
  return {bend + twist + trans + rot + grav + resist,
          abs(bend) + abs(twist) + abs(trans) + abs(rot) + abs(grav) + abs(resist)};
}

// --- Products (§3.2) ---------------------------------------------------------------------------

// Jᵀ y from the x-space arrays xp, xq into the s-space array `out`, suffix sums (eq. 18).
template <class T>
HS_HD void apply_jt(const Strand<T>& st, T* yp, T* yq, T* out) {
  const auto& a = st.a;
  const V3<T> beyond_root = reverse_inclusive_scan(
      st.segments(), V3<T>::zero(), [&](int i) { return st.template get<3, 1>(yp, i + 1); },
      [&](int i, const V3<T>& beyond) {
        st.set(out, 1 + i,
               transpose_times(st.template get<3, 3>(a.dx, i), beyond) +
                   transpose_times(st.template get<4, 3>(a.dq, i), st.template get<4, 1>(yq, i)));
      });
  st.set(out, 0, beyond_root + st.template get<3, 1>(yp, 0));
}

// J v (prefix sums) into xp, xq.
template <class T>
HS_HD void apply_j(const Strand<T>& st, T* v) {
  const auto& a = st.a;
  const V3<T> root = st.template get<3, 1>(v, 0);
  st.set(a.xp, 0, root);
  inclusive_scan(
      st.segments(), root,
      [&](int i) { return st.template get<3, 3>(a.dx, i) * st.template get<3, 1>(v, 1 + i); },
      [&](int i, const V3<T>& p) { st.set(a.xp, i + 1, p); });
  for (int i = 0; i < st.segments(); ++i)
    st.set(a.xq, i, st.template get<4, 3>(a.dq, i) * st.template get<3, 1>(v, 1 + i));
}

// ∂E/∂p_v without the contacts' terms: inertia, gravity, and the resistance C (p - p_t) / Δt - D w.
template <class T>
HS_HD V3<T> smooth_vertex_gradient(const Strand<T>& st, T dt, const Loads<T>& loads, int v) {
  const auto& a = st.a;
  const T m = st.rows(a.mass)[v];
  V3<T> g = m * ((T(1) / (dt * dt)) *
                     (st.template get<3, 1>(a.x, v) - st.template get<3, 1>(a.predicted, v)) -
                 loads.gravity);
  if (loads.resistive()) {
    const V3<T> cd = st.template get<3, 3>(a.resistance, v) *
                     (st.template get<3, 1>(a.x, v) - st.template get<3, 1>(a.start_x, v));
    const V3<T> f = st.template get<3, 1>(a.air_force, v);
    for (int c = 0; c < 3; ++c) g[c] += cd[c] / dt - f[c];
  }
  return g;
}

// b = Jᵀ ∂E/∂x into `gradient`, the fixed root blocks zeroed; the colliders at `head`.
template <class T>
HS_HD void compute_gradient(const Strand<T>& st, T dt, const Loads<T>& loads,
                            const RigidPose<T>& head, T* out) {
  const auto& a = st.a;
  const V3<T> k = st.template get<3, 1>(a.stiffness, 0), j = st.template get<3, 1>(a.inertia, 0);
  const T inv_dt2 = T(1) / (dt * dt);
  for (int v = 0; v < st.vertices(); ++v) {
    V3<T> g = smooth_vertex_gradient(st, dt, loads, v);
    if (v >= 2 && loads.collider_count > 0) {  // the penalty's k φ ∇φ
      const Gap<T> gap = contact_gap(loads, st.template get<3, 1>(a.x, v), head);
      if (gap.value < T(0)) g += (contact_stiffness(st, loads, dt, v) * gap.value) * gap.gradient;
      if (loads.frictional()) g += friction_term(st, v).gradient();
    }
    st.set(a.xp, v, g);
  }
  for (int i = 0; i < st.segments(); ++i) {
    const RotationalTerm<T> t = rotational_term(st, st.template get<4, 1>(a.q, i), i);
    st.set(a.xq, i,
           (st.rows(a.length)[i] * inv_dt2) * transpose_times(t.r, scale_rows(j, t.error)));
  }
  for (int v = 1; v + 1 < st.vertices(); ++v) {
    const T l = voronoi(st, v);
    const Darboux<T> d = darboux(st.template get<4, 1>(a.q, v - 1), st.template get<4, 1>(a.q, v),
                                 l, a.bending_strain);
    const V3<T> moment = l * scale_rows(k, d.value - st.template get<3, 1>(a.darboux, v));
    st.set(a.xq, v - 1, st.template get<4, 1>(a.xq, v - 1) + transpose_times(d.d_prev, moment));
    st.set(a.xq, v, st.template get<4, 1>(a.xq, v) + transpose_times(d.d_next, moment));
  }
  apply_jt(st, a.xp, a.xq, out);
  st.set(out, 0, V3<T>::zero());  // the clamped root: blocks 0 and 1 are held
  st.set(out, 1, V3<T>::zero());
}

// H's quaternion blocks at the current kinematics: M_q / Δt² and the Darboux Jacobians; the
// contacts' blocks with the colliders at `head`.
template <class T>
HS_HD void compute_hessian(const Strand<T>& st, T dt, const Loads<T>& loads,
                           const RigidPose<T>& head) {
  const auto& a = st.a;
  const V3<T> j = st.template get<3, 1>(a.inertia, 0);
  const T inv_dt2 = T(1) / (dt * dt);
  // The contacts' block: the penalty's Gauss-Newton k ∇φ ∇φᵀ at the vertices in contact now, and
  // the friction's Hessian at those in contact at the step's start (zero elsewhere).
  for (int v = 0; v < st.vertices(); ++v) {
    M3<T> c = M3<T>::zero();
    if (v >= 2 && loads.collider_count > 0) {
      const Gap<T> gap = contact_gap(loads, st.template get<3, 1>(a.x, v), head);
      if (gap.value < T(0)) {
        const T k = contact_stiffness(st, loads, dt, v);
        for (int r = 0; r < 3; ++r)
          for (int e = 0; e < 3; ++e) c(r, e) = k * gap.gradient[r] * gap.gradient[e];
      }
      if (loads.frictional()) c += friction_term(st, v).hessian();
    }
    st.set(a.contact, v, c);
  }
  for (int i = 0; i < st.segments(); ++i) {
    const Mat<T, 3, 4> r = rotational_term(st, st.template get<4, 1>(a.q, i), i).r;
    st.set(a.mq, i, (st.rows(a.length)[i] * inv_dt2) * transpose_times(r, scale_rows(j, r)));
  }
  for (int v = 1; v + 1 < st.vertices(); ++v) {
    const Darboux<T> d = darboux(st.template get<4, 1>(a.q, v - 1), st.template get<4, 1>(a.q, v),
                                 voronoi(st, v), a.bending_strain);
    st.set(a.bend_prev, v, d.d_prev);
    st.set(a.bend_next, v, d.d_next);
  }
}

// The chain's curvature (ours; docs/models/cosserat.md, "Newton's Hessian"): the part of
// ∂²E/∂ω_i² the Gauss-Newton A = Jᵀ H J leaves out because the vertices and q_i are nonlinear in
// ω_i: with F_i = Σ_{j>i} ∂E/∂p_j (the load segment i carries) and y_i = ∂E/∂q_i (through the
// vertices, l_i ∂dᵀ/∂q F_i, and directly),
//   G_i = ∂q/∂ωᵀ (l_i Σ_r F_r ∂²d_r/∂q²) ∂q/∂ω + Σ_c y_c ∂²q_c/∂ω².
// Nothing else is dropped between segments (p_j is a sum of one term per segment, each of one
// ω_i), so G is block diagonal. A whipped strand's inertia pulls on it (F along -d, a tension):
// G is then positive and large, and without it Newton's steps overshoot by a constant factor
// (measured under violent_shake.json: α = 1/4 on most line searches, ~30 iterations a step).
// Where G is indefinite (a compressed segment) its positive part is kept (projected Newton), so
// A stays positive definite. F leaves out the contacts (penalty and friction), whose own
// Hessian is Gauss-Newton too (k n nᵀ): they switch on and off between iterates, and their
// curvature in F made the push-out bench take more Newton iterations (double 1.84 per strand
// step against 1.60 without, 1.51 with none of G). Reads xq as compute_gradient left it.
enum class ChainCurvature : int { none = 0, projected = 1, exact = 2 };
template <class T>
HS_HD void compute_chain_curvature(const Strand<T>& st, T dt, const Loads<T>& loads,
                                   ChainCurvature kind) {
  const auto& a = st.a;
  if (kind == ChainCurvature::none) {
    for (int i = 0; i < st.segments(); ++i) st.set(a.chain, i, M3<T>::zero());
    return;
  }
  reverse_inclusive_scan(
      st.segments(), V3<T>::zero(),
      [&](int i) { return smooth_vertex_gradient(st, dt, loads, i + 1); },
      [&](int i, const V3<T>& load) {
        const T l = st.rows(a.length)[i];
        const V4<T> q = st.template get<4, 1>(a.q, i);
        const Mat<T, 4, 3> dq = st.template get<4, 3>(a.dq, i);
        const V4<T> y =
            l * transpose_times(director_jacobian(q), load) + st.template get<4, 1>(a.xq, i);
        const M3<T> g = transpose_times(dq, (l * director_curvature(load)) * dq) +
                        quaternion_curvature(st.template get<3, 1>(a.config, 1 + i), y);
        st.set(a.chain, i, kind == ChainCurvature::exact ? g : positive_semidefinite_part(g));
      });
}

// C_j / Δt (divided entry by entry, as the reference's Mat3 / Δt).
template <class T>
HS_HD M3<T> resistance_dt(const Strand<T>& st, T dt, int v) {
  M3<T> c = st.template get<3, 3>(st.a.resistance, v);
  for (int k = 0; k < 9; ++k) c[k] = c[k] / dt;
  return c;
}

// H_j = h_j I (+ C_j / Δt) + the contacts' block: vertex j's block of H, as A·v, the paper's
// preconditioners and the exact chain solve use it.
template <class T>
HS_HD M3<T> vertex_block(const Strand<T>& st, T dt, bool resistive, int j) {
  M3<T> b = (st.rows(st.a.mass)[j] * (T(1) / (dt * dt))) * M3<T>::identity();
  if (resistive) b += resistance_dt(st, dt, j);
  b += st.template get<3, 3>(st.a.contact, j);
  return b;
}

// out = A v on the free blocks (v's fixed blocks are zero), 0 on the fixed ones.
template <class T>
HS_HD void apply_a(const Strand<T>& st, T dt, bool resistive, T* v, T* out) {
  const auto& a = st.a;
  const V3<T> k = st.template get<3, 1>(a.stiffness, 0);
  apply_j(st, v);
  for (int p = 0; p < st.vertices(); ++p)
    st.set(a.hp, p, vertex_block(st, dt, resistive, p) * st.template get<3, 1>(a.xp, p));
  for (int i = 0; i < st.segments(); ++i)
    st.set(a.hq, i, st.template get<4, 4>(a.mq, i) * st.template get<4, 1>(a.xq, i));
  for (int p = 1; p + 1 < st.vertices(); ++p) {
    const Mat<T, 3, 4> gp = st.template get<3, 4>(a.bend_prev, p),
                       gn = st.template get<3, 4>(a.bend_next, p);
    const V3<T> w = voronoi(st, p) * scale_rows(k, gp * st.template get<4, 1>(a.xq, p - 1) +
                                                       gn * st.template get<4, 1>(a.xq, p));
    st.set(a.hq, p - 1, st.template get<4, 1>(a.hq, p - 1) + transpose_times(gp, w));
    st.set(a.hq, p, st.template get<4, 1>(a.hq, p) + transpose_times(gn, w));
  }
  apply_jt(st, a.hp, a.hq, out);
  for (int i = 1; i < st.segments(); ++i)
    st.set(out, 1 + i,
           st.template get<3, 1>(out, 1 + i) +
               st.template get<3, 3>(a.chain, i) * st.template get<3, 1>(v, 1 + i));
  st.set(out, 0, V3<T>::zero());
  st.set(out, 1, V3<T>::zero());
}

}  // namespace hairsim::kernels::cosserat
