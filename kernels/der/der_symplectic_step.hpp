#pragma once
// DER's symplectic step of one strand (Algorithm 1): forces, symplectic Euler, the root on the
// head, fast projection, contacts, then the Bishop frame carried in time and the quasistatic twist.
#include "common/constants.hpp"
#include "der/der_contacts.hpp"

namespace hairsim::kernels::der {

// Iterations one step took (summed over strands by the backends, reported by the benchmark).
struct StepCounts {
  long projection_iterations = 0;
  long twist_iterations = 0;
  long contacts = 0;  // vertices put back on a collider's surface
  // Implicit steps whose block solve met a singular pivot (the velocities then keep their old
  // values); the system is SPD, so any is a bug or a non-finite state, reported as a failure.
  long solver_failures = 0;
};

// Where the head pose puts root vertex k (0 or 1) of the strand.
template <class T, class G>
HS_HD Vector3<T> root_target(const Strand<T, G>& st, const RigidPose<T>& head, int k) {
  const DerBatchArrays<T>& a = st.a;
  return head.apply({st.strand_value(a.root_rest[3 * k]), st.strand_value(a.root_rest[3 * k + 1]),
                     st.strand_value(a.root_rest[3 * k + 2])});
}

// The end of both integrators' steps, once the centerline has moved: the Bishop frame carried in
// time (u⁰ parallel-transported from the old first tangent `old_t0` to the new, §4.2.2), θ⁰
// from the head-rotated root frame (unwrapped to the nearest turn), and the quasistatic twist
// (§5.1). Returns the twist solve's Newton iterations.
template <class T, class G>
HS_HD int finish_step(const Strand<T, G>& st, const DerStepParameters<T>& p,
                      const Vector3<T>& old_t0) {
  const DerBatchArrays<T>& a = st.a;
  const StridedVector3<T> x = st.vectors(a.position);
  // Every lane computes the strand's new u⁰ and θ⁰ alike; one writes them.
  const Vector3<T> e0 = x.get(1) - x.get(0), new_t0 = e0 / norm(e0);
  const Vector3<T> u0 = transport_u0(
      Vector3<T>{st.strand_value(a.u0[0]), st.strand_value(a.u0[1]), st.strand_value(a.u0[2])},
      old_t0, new_t0);
  const Vector3<T> m1 = p.head.rotate({st.strand_value(a.root_m1[0]), st.strand_value(a.root_m1[1]),
                                       st.strand_value(a.root_m1[2])});
  const T theta0 = material_angle(m1, u0, cross(new_t0, u0), st.strand_value(a.theta));
  on_one_lane(st.g, [&] {
    a.u0[0][st.s] = u0.x, a.u0[1][st.s] = u0.y, a.u0[2][st.s] = u0.z;
    a.theta[st.s] = theta0;
  });
  compute_frames(st);
  return solve_twist(st, p.twist_tolerance, p.max_twist_iterations).iterations;
}

// The largest | |e^j| - |ē^j| | (m) over the edges a projection moves (not edge 0, whose ends
// are the root clamp's).
template <class T, class G>
HS_HD T worst_length_error(const Strand<T, G>& st) {
  const StridedVector3<T> x = st.vectors(st.a.position);
  const Strided<T> rest = st.per_row(st.a.edge_length);
  return reduce_rows(st.g, st.edges(), T(0), Max{}, [&](int j) {
    return j >= 1 ? T(std::fabs(norm(x.get(j + 1) - x.get(j)) - rest[j])) : T(0);
  });
}

// The end of both integrators' position updates (the reference's constrain_positions), the
// unconstrained new positions in a.position, the step's start in a.previous_position, the root
// vertices on the head: fast projection onto the rest lengths to p.length_tolerance with
// v = (x_projected - x_old)/h (§8.1), contacts, and with any contact the lengths re-projected
// while contacts slide on their tangent planes, as `lengths` says (LengthConstraint): always
// (the symplectic step), or only where an edge is off its rest length by more than the
// tolerance (hair's implicit step: where its stiff stretching held every length its solved
// velocities stay and contacts are resolved alone; elsewhere the projection limits the strain,
// where a 3 rad, 8 Hz shake stretched hair 227 % before issue 27), or never (contacts alone).
template <class T, class G>
HS_HD void constrain_positions(const Strand<T, G>& st, const DerStepParameters<T>& p,
                               StepCounts& counts, LengthConstraint lengths) {
  const DerBatchArrays<T>& a = st.a;
  const int nv = a.vertices;
  const StridedVector3<T> x = st.vectors(a.position), v = st.vectors(a.velocity),
                          old = st.vectors(a.previous_position);
  const Strided<T> pinned = st.per_row(a.pinned);
  for_each_row(st.g, nv, [&](int i) { pinned[i] = i < 2 ? T(1) : T(0); });
  auto beyond_limit = [&] {
    return lengths == LengthConstraint::always || (lengths == LengthConstraint::beyond_tolerance &&
                                                   worst_length_error(st) > p.length_tolerance);
  };
  if (beyond_limit()) {
    counts.projection_iterations +=
        project_lengths(st, p.length_tolerance, p.max_projection_iterations);
    for_each_row(st.g, nv, [&](int i) { v.set(i, (x.get(i) - old.get(i)) / p.dt); });
  }
  counts.contacts = resolve_contacts(st, p);
  if (counts.contacts > 0 && beyond_limit()) {
    // Contacts on their tangent planes; everything back onto the lengths. A plane is the
    // surface's tangent where the contact began: sliding d along it cuts d²/2R into a collider
    // of radius R (1.1 mm at the 15 mm per step of a 3 rad, 8 Hz shake), so contacts found
    // deeper than the tolerance are moved to the surface where they slid and projected again,
    // twice at most.
    for (int round = 0; round < 3; ++round) {
      if (round > 0 && resolve_contacts(st, p, true) == 0) break;
      counts.projection_iterations +=
          project_on_contact_planes(st, p.length_tolerance, p.max_projection_iterations);
      for_each_row(st.g, nv, [&](int i) {
        if (i >= 2 && pinned[i] == T(0)) v.set(i, (x.get(i) - old.get(i)) / p.dt);
      });
    }
  }
}

// One step of Algorithm 1 for a hair strand (root clamp carried by the head, tip free): forces
// of the quasistatic rod (§7.1) with gravity, damping and air drag, symplectic Euler (§7.2), the
// root vertices placed by the head pose, fast projection with the velocity update
// v = (x_projected - x_old)/h (§8.1), contacts, then finish_step.
template <class T, class G>
HS_HD HS_FORCE_INLINE StepCounts symplectic_step(const Strand<T, G>& st,
                                                 const DerStepParameters<T>& p) {
  const DerBatchArrays<T>& a = st.a;
  const int nv = a.vertices;
  const StridedVector3<T> x = st.vectors(a.position), v = st.vectors(a.velocity),
                          f = st.vectors(a.force), old = st.vectors(a.previous_position);
  const Strided<T> mass = st.per_row(a.mass);
  compute_frames(st);
  elastic_forces(st);
  const Vector3<T> old_t0 = st.vectors(a.tangent).get(0);
  const bool drag = p.drag_normal != T(0) || p.drag_tangent != T(0);
  for_each_row(st.g, nv, [&](int i) {
    old.set(i, x.get(i));
    if (i < 2) {  // the root clamp
      x.set(i,
            i == 0 ? root_target(st, p.head, 0) : root_target(st, p.head, 1));  // constant indices
      return;
    }
    const Vector3<T> vi = v.get(i);
    Vector3<T> force = f.get(i);
    if (drag) force -= drag_matrix(st, p, i) * (vi - p.wind.at(x.get(i), p.time));
    const Vector3<T> accel = force / mass[i] + p.gravity - p.damping * vi;
    const Vector3<T> vn = vi + p.dt * accel;
    v.set(i, vn);
    x.set(i, x.get(i) + p.dt * vn);
  });
  StepCounts counts;
  constrain_positions(st, p, counts, LengthConstraint::always);
  counts.twist_iterations = finish_step(st, p, old_t0);
  return counts;
}

}  // namespace hairsim::kernels::der
