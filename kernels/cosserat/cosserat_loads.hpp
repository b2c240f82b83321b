#pragma once
// What acts on a Cosserat strand besides its elasticity: the head's pose, gravity, damping, air
// drag in a wind, and the colliders by an implicit penalty with lagged, smoothed Coulomb friction.
#include "common/colliders.hpp"
#include "common/friction.hpp"
#include "common/rigid_pose.hpp"
#include "common/wind.hpp"
#include "cosserat/cosserat_kinematics.hpp"

namespace hairsim::kernels::cosserat {

// External loads of a step: gravity, the linear resistance the reference takes implicitly
// (cosserat::CosseratRod): viscous damping -d m ṗ and air drag -ℓ [ζ⊥ (I - ttᵀ) + ζ∥ ttᵀ] (ṗ - w),
// and the head: its pose at the end of the step (the root clamp's, and the colliders').
template <class T>
struct Loads {
  V3<T> gravity = V3<T>::zero();        // m/s²
  T damping = 0;                        // 1/s
  T drag_normal = 0, drag_tangent = 0;  // N s/m²
  WindField<T> wind;                    // evaluated at the step's start
  T time = 0;                           // s, the step's start (the wind's clock)
  RigidPose<T> head;                    // at the step's end
  RigidPose<T> head_start;              // at the step's start (friction's lagged contacts)
  // Colliders (head frame) by an implicit penalty, not the reference's active set: a free
  // vertex with gap c = φ - δ < 0 adds ½ k_j c², k_j = κ m_j / Δt², so that it penetrates by about
  // (v Δt + g Δt²) / κ: 1e-7 m for 1 m/s at 1 ms with κ = 1e4 (docs/models/cosserat.md; the
  // engine takes κ = 300 in float, HairSetup::contact_ratio).
  int collider_count = 0;
  Collider<T> colliders[kMaxColliders];
  T contact_thickness = 0;   // δ, m
  T contact_ratio = T(1e4);  // κ
  // Coulomb friction (the colliders' μ): a vertex inside a collider at the step's start, pushed
  // out by the penalty's λ = k_j |c|, adds μ λ f0(|u|) (kernels/common/friction.hpp), its slip u
  // measured from the surface point it touched, carried by the head; ε_v = stick_speed.
  T stick_speed = T(1e-3);  // m/s
  HS_HD bool resistive() const {
    return damping != T(0) || drag_normal != T(0) || drag_tangent != T(0);
  }
  HS_HD bool frictional() const {
    for (int c = 0; c < collider_count; ++c)
      if (colliders[c].friction > T(0)) return true;
    return false;
  }
};

// A step, or one of the substeps a failed step is retried in (step()): its length, its start
// (the wind's clock) and the head's poses at its ends. Loads holds the whole step's; the step
// reads the rest of Loads (colliders, wind) in place, not from a copy per substep (2.2 kB of a
// device thread's stack in double).
template <class T>
struct Substep {
  T dt;                     // s
  T time;                   // s, at the start
  RigidPose<T> head_start;  // the head at the start
  RigidPose<T> head;        // ... and at the end
};

// The smallest gap φ - δ of point x over the colliders with the head at `pose` (head frame:
// x_head = Rᵀ (x - t)), that collider's outward normal in the world, its μ, and the gap's
// derivative in x (distance_gradient, in the world; the penalty's force and Hessian take it);
// 1 m and no normal without colliders. By default the head at the step's end.
template <class T>
struct Gap {
  T value;
  V3<T> normal;
  T friction;
  V3<T> gradient;
};
template <class T>
HS_HD Gap<T> contact_gap(const Loads<T>& loads, const V3<T>& x, const RigidPose<T>& pose) {
  Gap<T> gap{T(1), V3<T>::zero(), T(0), V3<T>::zero()};
  if (loads.collider_count == 0) return gap;
  const V3<T> local = pose.apply_inverse(x);
  for (int c = 0; c < loads.collider_count; ++c) {
    const SignedDistance<T> sd = signed_distance(loads.colliders[c], local);
    const T value = sd.distance - loads.contact_thickness;
    if (value < gap.value)
      gap = {value, pose.rotate(sd.normal), loads.colliders[c].friction,
             pose.rotate(distance_gradient(loads.colliders[c], local, sd))};
  }
  return gap;
}
template <class T>
HS_HD Gap<T> contact_gap(const Loads<T>& loads, const V3<T>& x) {
  return contact_gap(loads, x, loads.head);
}
// The penalty stiffness of vertex j, κ m_j / Δt² (N/m).
template <class T>
HS_HD T contact_stiffness(const Strand<T>& st, const Loads<T>& loads, T dt, int j) {
  return loads.contact_ratio * st.rows(st.a.mass)[j] / (dt * dt);
}

// Friction's lagged contacts of a (sub)step: a free vertex inside a collider with μ > 0 at its
// start (the head then) keeps the normal n there, the touched surface point carried by the head
// to its end (its anchor a), μ λ, λ = k_j |c| the penalty's force then, and the stick
// length (kernels::stick_length); μ λ = 0 at the other vertices. The reference takes its own last
// multipliers as λ (cosserat::CosseratRod).
template <class T>
HS_HD void set_friction(const Strand<T>& st, const Loads<T>& loads, const Substep<T>& sub) {
  for (int v = 0; v < st.vertices(); ++v) {
    Vec<T, 8> f = Vec<T, 8>::zero();
    const V3<T> x = st.template get<3, 1>(st.a.start_x, v);
    const Gap<T> gap = v >= 2 ? contact_gap(loads, x, sub.head_start) : Gap<T>{T(1), {}, T(0), {}};
    if (gap.value < T(0) && gap.friction > T(0)) {
      const V3<T> anchor = sub.head.apply(sub.head_start.apply_inverse(x));
      for (int k = 0; k < 3; ++k) f[k] = gap.normal[k], f[3 + k] = anchor[k];
      f[6] = gap.friction * contact_stiffness(st, loads, sub.dt, v) * -gap.value;
      f[7] = stick_length(loads.stick_speed, sub.dt, f[6], T(st.rows(st.a.mass)[v]));
    }
    st.set(st.a.friction, v, f);
  }
}

// Vertex v's friction at its current position (kernels/common/friction.hpp).
template <class T>
HS_HD FrictionTerm<T> friction_term(const Strand<T>& st, int v) {
  const Vec<T, 8> f = st.template get<8, 1>(st.a.friction, v);
  V3<T> normal, anchor;
  for (int k = 0; k < 3; ++k) normal[k] = f[k], anchor[k] = f[3 + k];
  return friction_term(f[6], normal, anchor, f[7], st.template get<3, 1>(st.a.x, v));
}

}  // namespace hairsim::kernels::cosserat
