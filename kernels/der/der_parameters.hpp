#pragma once
// What one DER step of a batch takes: the integrator, the head's poses and colliders, gravity,
// damping, air drag in a wind, tolerances; and the air drag matrix of a vertex.
#include "common/colliders.hpp"
#include "common/drag.hpp"
#include "common/matrix3.hpp"
#include "common/rigid_pose.hpp"
#include "common/wind.hpp"
#include "der/der_arrays.hpp"

namespace hairsim::kernels::der {

using kernels::kMaxColliders;  // common/colliders.hpp
using kernels::RigidPose;      // common/rigid_pose.hpp

// Symplectic Euler with fast projection (DER's Algorithm 1), or the linearly implicit backward
// Euler step with stretching as a stiff energy (the reference's der_implicit.hpp).
enum class Integrator { symplectic, implicit };

// How the end of a step treats the edge lengths (constrain_positions): the symplectic step
// always projects them; the implicit step of hair projects where an edge is off its rest length
// by more than the tolerance (a strain limit); a single rod's implicit step leaves them to its
// stretching stiffness (extensible, as its scene says).
enum class LengthConstraint { always, beyond_tolerance, never };

// Parameters of one step of every strand of a batch.
template <class T>
struct DerStepParameters {
  Integrator integrator = Integrator::symplectic;
  RigidPose<T> head;           // pose of the root clamps and colliders at the end of the step
  RigidPose<T> head_previous;  // ... and at its start (for the colliders' surface velocity)
  Collider<T> colliders[kMaxColliders];  // head frame
  int collider_count = 0;
  T dt = 0;            // s
  Vector3<T> gravity;  // m/s²
  T damping = 0;       // 1/s: force -damping m v
  // Air drag per unit length, linear in the velocity relative to the air (drag_matrix below).
  T drag_normal = 0;       // N s/m², across the strand
  T drag_tangent = 0;      // N s/m², along it
  WindField<T> wind;       // the air's velocity, evaluated at the step's start
  T time = 0;              // s, the step's start (the wind's clock)
  T length_tolerance = 0;  // m, fast projection
  LengthConstraint implicit_lengths = LengthConstraint::beyond_tolerance;
  T twist_tolerance = 0;  // energy units, max |∂E/∂θ|
  int max_projection_iterations = 50;
  int max_twist_iterations = 50;
};

// Air drag on vertex i: f = -D (v - wind), D = ℓ_i [ζ⊥ (I - t tᵀ) + ζ∥ t tᵀ] (resistive force
// theory of a slender fibre: the air resists motion across it more than along it), ℓ_i the
// vertex's share of the rest length, t its unit tangent (the mean of its edges'). Needs the
// tangents of compute_frames.
template <class T, class G>
HS_HD Matrix3<T> drag_matrix(const Strand<T, G>& st, const DerStepParameters<T>& p, int i) {
  const DerBatchArrays<T>& a = st.a;
  const StridedVector3<T> t = st.vectors(a.tangent);
  const Strided<T> rest = st.per_row(a.edge_length);
  const int n = st.edges();
  return kernels::drag_matrix(i > 0 ? t.get(i - 1) : Vector3<T>{}, i < n ? t.get(i) : Vector3<T>{},
                              i > 0 ? rest[i - 1] : T(0), i < n ? rest[i] : T(0), p.drag_normal,
                              p.drag_tangent);
}

}  // namespace hairsim::kernels::der
