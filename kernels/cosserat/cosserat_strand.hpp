#pragma once
// Compact inextensible Cosserat rods (Zhao et al. 2022) for the batched engine: one strand's
// implicit Euler step as `__host__ __device__` code, float or double. The same mathematics as the
// reference (src/reference/cosserat/, docs/models/cosserat.md), function for function: the chain
// of eq. (7), the energies of App. A, J·v and Jᵀ·v as prefix and suffix sums (eq. 18), the
// hybrid (eq. 22) or block-diagonal preconditioner applied by block Thomas, PCG, and Newton with
// the same line search. The root is clamped to the head (root vertex and segment 0's frame move
// with the head's rigid pose); the head's colliders act through an implicit penalty (Loads).
//
// Split along the physics' seams, each header including the ones before it: cosserat_arrays.hpp
// (layout), cosserat_kinematics.hpp (chain, strains), cosserat_loads.hpp (head, air, contacts),
// cosserat_energy.hpp (energy, gradient, products), cosserat_solve.hpp (preconditioner, PCG);
// this header is the step (Newton with the line search).
#include <cmath>

#include "common/constants.hpp"
#include "common/drag.hpp"
#include "cosserat/cosserat_solve.hpp"

namespace hairsim::kernels::cosserat {

// --- One step (Alg. 1, no obstacles) -------------------------------------------------------------

struct StepSettings {
  Preconditioner preconditioner = Preconditioner::hybrid;
  double newton_tolerance = 1e-5;
  int newton_max_iterations = 5;
  PcgSettings pcg;
  // A step whose solve failed is retried from its start in 2, 4, ... substeps, at most
  // 2^max_halvings (0: never).
  int max_halvings = 0;
  // A strand step whose Newton stopped at newton_max_iterations without meeting its tolerance
  // counts as failed (the run stops naming it), unless this is set: then it is kept as it is and
  // only counted (StepCounts::unconverged). Not retried in substeps: measured under
  // violent_shake.json, 8 substeps converged 3 % of such steps (docs/models/cosserat.md).
  bool accept_unconverged = false;
  // The Hessian's chain curvature (compute_chain_curvature): none (the paper's Gauss-Newton),
  // its positive part (the default), or all of it (tests: the exact Hessian of a rod without
  // bending energy).
  ChainCurvature chain_curvature = ChainCurvature::projected;
};

struct StepCounts {
  int newton = 0, pcg_iterations = 0, pcg_solves = 0, failures = 0;
  int contacts = 0;  // vertices inside a collider (gap < 0) at the end of the step
  int retried = 0;   // steps redone in substeps (0 or 1 per strand step)
  // Strand steps whose Newton stopped at its iteration cap, the tolerance not met (0 or 1 per
  // strand step; the last round's when retried).
  int unconverged = 0;
  int unconverged_failure = 0;  // 1 when that made the step fail (not accepted)
};

// ω of a rotation matrix, |ω| <= π, through its unit quaternion (the largest of w, x, y, z
// found first, as Eigen's Quaternion(Matrix3) and AngleAxis the reference uses).
template <class T>
HS_HD V3<T> rotation_vector(const M3<T>& m) {
  V4<T> q;
  const T trace = m(0, 0) + m(1, 1) + m(2, 2);
  if (trace > T(0)) {
    T t = std::sqrt(trace + T(1));
    q[0] = T(0.5) * t;
    t = T(0.5) / t;
    q[1] = (m(2, 1) - m(1, 2)) * t, q[2] = (m(0, 2) - m(2, 0)) * t, q[3] = (m(1, 0) - m(0, 1)) * t;
  } else {
    int i = 0;
    if (m(1, 1) > m(0, 0)) i = 1;
    if (m(2, 2) > m(i, i)) i = 2;
    const int j = (i + 1) % 3, k = (j + 1) % 3;
    T t = std::sqrt(m(i, i) - m(j, j) - m(k, k) + T(1));
    q[1 + i] = T(0.5) * t;
    t = T(0.5) / t;
    q[0] = (m(k, j) - m(j, k)) * t;
    q[1 + j] = (m(j, i) + m(i, j)) * t;
    q[1 + k] = (m(k, i) + m(i, k)) * t;
  }
  return rotation_vector(q);
}

// |ω| <= π (the reference's `wrapped`).
template <class T>
HS_HD V3<T> wrapped(const V3<T>& w) {
  const T theta = norm(w);
  const T pi = kernels::pi<T>();
  if (theta <= pi) return w;
  const T reduced = std::remainder(theta, T(2) * pi);
  return (reduced / theta) * w;
}

// Every segment's ω back into |ω| <= π (the same rotation): at the step's start and at every
// Newton iterate, as the reference's step. The rotation map B(ω) of eq. (4) is singular at
// |ω| = 2π; an iterate of a segment turning by more than π in one step (a 3 rad, 8 Hz shake)
// reached it and the Hessian's block became rank one, failing the preconditioner (issue 27).
template <class T>
HS_HD void wrap_rotations(const Strand<T>& st) {
  for (int i = 0; i < st.segments(); ++i)
    st.set(st.a.config, 1 + i, wrapped(st.template get<3, 1>(st.a.config, 1 + i)));
}

// Root vertex and segment 0's frame at the head pose: p_0 = pose(p_0,rest), frame = R frame_rest.
template <class T>
HS_HD void place_root(const Strand<T>& st, const RigidPose<T>& pose) {
  const auto& a = st.a;
  st.set(a.config, 0, pose.apply(st.template get<3, 1>(a.root_rest, 0)));
  st.set(a.config, 1, rotation_vector(pose.rotation() * st.template get<3, 3>(a.frame_rest, 0)));
}

// The merit's value (no constraints: E) at the current kinematics.
template <class T>
HS_HD void set_trial(const Strand<T>& st, T alpha) {
  const Strided<T> s = st.rows(st.a.config), saved = st.rows(st.a.saved), p = st.rows(st.a.step);
  for (int k = 0; k < 3 * st.vertices(); ++k) s[k] = saved[k] + alpha * p[k];
  compute_kinematics(st);
}

// Backtracking from α = 1 as the reference's line_search: Armijo on E while the decrease it
// predicts is above 1e-12 of the energy terms (1e-4 in float), else the slope test. `b` holds
// the gradient at s. Returns α, 0 when none qualifies (s restored). The colliders at `head`.
template <class T>
HS_HD T line_search(const Strand<T>& st, T dt, const Loads<T>& loads, const RigidPose<T>& head) {
  const auto& a = st.a;
  const Energy<T> e0 = energy(st, dt, loads, head);
  const T slope = s_dot(st, a.gradient, a.step);
  const T resolution = sizeof(T) == sizeof(double) ? T(1e-12) : T(1e-4);
  const bool energy_resolves = -slope > resolution * e0.scale;
  T alpha = 1;
  for (int tries = 0; tries < 40; ++tries, alpha *= T(0.5)) {
    set_trial(st, alpha);
    bool accepted;
    if (energy_resolves) {
      accepted = energy(st, dt, loads, head).total <= e0.total + T(1e-4) * alpha * slope;
    } else {
      compute_gradient(st, dt, loads, head, a.precond);
      accepted = s_dot(st, a.precond, a.step) <= T(-0.9) * slope;
    }
    if (accepted) return alpha;
  }
  set_trial(st, T(0));
  return T(0);
}

// C_j = D_j + d m_j I and D_j w_j at the step's start, `time` (the reference's step_start): D_j
// the drag ℓ_j [ζ⊥ (I - ttᵀ) + ζ∥ ttᵀ], t the normalised mean of the adjacent segments' directions.
template <class T>
HS_HD void set_resistance(const Strand<T>& st, const Loads<T>& loads, T time) {
  const auto& a = st.a;
  const int n = st.vertices();
  const Strided<T> l = st.rows(a.length);
  for (int j = 0; j < n; ++j) {
    const V3<T> x = st.template get<3, 1>(a.x, j);
    const Matrix3<T> drag = kernels::drag_matrix(
        j > 0 ? normalized(x - st.template get<3, 1>(a.x, j - 1)) : Vector3<T>{},
        j + 1 < n ? normalized(st.template get<3, 1>(a.x, j + 1) - x) : Vector3<T>{},
        j > 0 ? l[j - 1] : T(0), j + 1 < n ? l[j] : T(0), loads.drag_normal, loads.drag_tangent);
    const M3<T>& d = drag;
    const Vector3<T> w = loads.wind.at(x, time);
    const V3<T> wv = w;
    st.set(a.resistance, j, d + (loads.damping * st.rows(a.mass)[j]) * M3<T>::identity());
    st.set(a.air_force, j, d * wv);
  }
}

// Whether a Newton step α p moved the centerline by less than the precision resolves: a bound on
// every vertex's displacement, |α p_root| + Σ ℓ_i |α p_ωi| (each segment's rotation swings the
// rest of the rod), below 16 ulps of the largest coordinate. In double (~1e-15 m) the gradient
// test always stops first. In float the penalty's k_j = κ m_j/Δt² turns the gap's round-off
// (an ulp of the coordinates) into a gradient of ~10 vertex weights, far above Newton's
// tolerance, which then never holds at a strand in contact: without this test float iterated on
// round-off to the cap (measured 8.3 Newton iterations per strand-step against 3.0 in double on
// hair sliding on a head), though the position it fixes is resolved to an ulp.
template <class T>
HS_HD bool below_resolution(const Strand<T>& st, T alpha, T coordinate_scale) {
  const Strided<T> p = st.rows(st.a.step), l = st.rows(st.a.length);
  T bound = norm(V3<T>{p[0], p[1], p[2]});
  for (int i = 0; i < st.segments(); ++i)
    bound += l[i] * norm(V3<T>{p[3 + 3 * i], p[4 + 3 * i], p[5 + 3 * i]});
  const T epsilon = kernels::epsilon<T>();
  return (alpha < T(0) ? -alpha : alpha) * bound < T(16) * epsilon * coordinate_scale;
}

// Newton's first iterate: every free segment turned on by its own spin (spin_prediction: the
// rotational term's error starts at 0), the root already at the head's pose at the step's end;
// as the reference's step. A whipped strand moves centimetres in a step (violent_shake.json:
// 2.3 cm), and its motion is mostly inertial: starting there leaves Newton the O(Δt²) part to
// find instead of the whole step's motion. Measured (docs/models/cosserat.md): 20.9 → 16.9
// Newton iterations per strand step in float, 24.7 → 20.6 in double there; 3.33 → 1.68 on the
// demo scene. Taken always, not only where it lowers the energy: that test flipped on round-off
// where the two were close, and Newton then stopped at another point within its tolerance
// (kernels against kernels with another interaction stage, 2.5e-8 L apart after 100 steps
// instead of 1.8e-11 L). A spin with |Δt Ω / 2| >= 1 has no such rotation: that segment starts
// where it is.
template <class T>
HS_HD void start_from_prediction(const Strand<T>& st) {
  const auto& a = st.a;
  for (int i = 1; i < st.segments(); ++i) {
    V3<T> omega;
    if (spin_prediction(st.template get<4, 1>(a.start_q, i),
                        st.template get<3, 1>(a.rotation_dt, i), omega))
      st.set(a.config, 1 + i, omega);
  }
}

// The start of a step over `sub`: ω wrapped, the kinematics, the inertial predictions, the
// resistance and friction terms lagged at the start, and the root moved to the head's pose at
// the end. Returns max |x_j| at the start (below_resolution's scale).
template <class T>
HS_HD T begin_step(const Strand<T>& st, const Substep<T>& sub, const Loads<T>& loads) {
  const auto& a = st.a;
  const T dt = sub.dt;
  wrap_rotations(st);
  compute_kinematics(st);
  for (int v = 0; v < st.vertices(); ++v) {
    const V3<T> x = st.template get<3, 1>(a.x, v);
    st.set(a.start_x, v, x);
    st.set(a.predicted, v, x + dt * st.template get<3, 1>(a.velocity, v));
  }
  for (int i = 0; i < st.segments(); ++i) {
    st.set(a.start_q, i, st.template get<4, 1>(a.q, i));
    st.set(a.rotation_dt, i, dt * st.template get<3, 1>(a.spin, i));
  }
  if (loads.resistive()) set_resistance(st, loads, sub.time);
  if (loads.frictional()) set_friction(st, loads, sub);
  place_root(st, sub.head);
  start_from_prediction(st);
  T coordinate_scale = 0;
  for (int v = 0; v < st.vertices(); ++v) {
    const T r = norm(st.template get<3, 1>(a.start_x, v));
    coordinate_scale = r > coordinate_scale ? r : coordinate_scale;
  }
  return coordinate_scale;
}

// The Newton system's matrix at the current kinematics, after compute_gradient: H's blocks, the
// chain's curvature, the preconditioner. False when the preconditioner is singular.
template <class T>
HS_HD bool prepare_newton_system(const Strand<T>& st, T dt, const Loads<T>& loads,
                                 const RigidPose<T>& head, const StepSettings& settings) {
  compute_hessian(st, dt, loads, head);
  compute_chain_curvature(st, dt, loads, settings.chain_curvature);
  return build_preconditioner(st, dt, loads.resistive(), settings.preconditioner);
}

// One implicit Euler step over `sub` (Alg. 1 without obstacles): the root moves to the head's
// pose at its end, then inexact Newton with PCG and the line search, as the reference's `step`.
template <class T>
HS_HD HS_FORCE_INLINE StepCounts newton_step(const Strand<T>& st, const Substep<T>& sub,
                                             const Loads<T>& loads, const StepSettings& settings) {
  const auto& a = st.a;
  const T dt = sub.dt;
  StepCounts counts;
  const int size = 3 * st.vertices();
  const T coordinate_scale = begin_step(st, sub, loads);
  for (int it = 0;; ++it) {
    wrap_rotations(st);
    compute_kinematics(st);
    compute_gradient(st, dt, loads, sub.head, a.gradient);
    if (std::sqrt(s_dot(st, a.gradient, a.gradient)) < T(settings.newton_tolerance)) break;
    if (it == settings.newton_max_iterations) {
      counts.unconverged = 1;
      break;
    }
    const bool prepared = prepare_newton_system(st, dt, loads, sub.head, settings);
    const Strided<T> b = st.rows(a.gradient), saved = st.rows(a.saved), s = st.rows(a.config);
    for (int k = 0; k < size; ++k) b[k] = -b[k];
    const int iterations = prepared ? pcg(st, dt, loads.resistive(), settings.preconditioner,
                                          a.gradient, a.step, settings.pcg)
                                    : -1;
    for (int k = 0; k < size; ++k) b[k] = -b[k], saved[k] = s[k];
    ++counts.pcg_solves;
    if (iterations < 0) {
      ++counts.failures;
      break;
    }
    counts.pcg_iterations += iterations;
    const T alpha = line_search(st, dt, loads, sub.head);
    if (alpha == T(0)) break;
    ++counts.newton;
    if (below_resolution(st, alpha, coordinate_scale)) break;
  }
  compute_kinematics(st);
  for (int v = 0; v < st.vertices(); ++v)
    st.set(a.velocity, v,
           (T(1) / dt) * (st.template get<3, 1>(a.x, v) - st.template get<3, 1>(a.start_x, v)));
  for (int i = 0; i < st.segments(); ++i)
    st.set(a.spin, i,
           (T(1) / dt) * relative_rotation(st.template get<4, 1>(a.start_q, i),
                                           st.template get<4, 1>(a.q, i)));
  for (int v = 2; v < st.vertices() && loads.collider_count > 0; ++v)
    counts.contacts +=
        contact_gap(loads, st.template get<3, 1>(a.x, v), sub.head).value < T(0) ? 1 : 0;
  return counts;
}

// The pose a fraction τ of the way from `a` to `b`: rotation R_a exp(τ log(R_aᵀ R_b)) (the
// shorter way), translation interpolated linearly, the same centre.
template <class T>
HS_HD RigidPose<T> interpolated_pose(const RigidPose<T>& a, const RigidPose<T>& b, T tau) {
  const M3<T> ra = a.rotation(), rb = b.rotation();
  const V3<T> w = tau * rotation_vector(transpose_times(ra, rb));
  const T angle = norm(w);
  M3<T> r = ra;
  if (angle > T(0)) {  // Rodrigues: I + sin θ K + (1 - cos θ) K², K the unit axis' cross matrix
    const M3<T> k = cross_matrix((T(1) / angle) * w);
    r = ra * (identity3<T>() + std::sin(angle) * k + (T(1) - std::cos(angle)) * (k * k));
  }
  RigidPose<T> p = a;
  for (int i = 0; i < 3; ++i) p.row[i] = {r(i, 0), r(i, 1), r(i, 2)};
  p.translation = a.translation + tau * (b.translation - a.translation);
  return p;
}

// One step of `dt`: newton_step, and when its solve fails (a singular preconditioner: a
// non-finite or degenerate state), the strand's step again from its start in 2, then 4, ...
// substeps (settings.max_halvings) before the failure is reported, the head's pose interpolated
// between the step's ends (interpolated_pose; the motion's own poses inside the step are not
// known here). Counts add over every attempt; contacts are the last round's, failures 1 when
// its last round failed. Not on Newton merely reaching its cap: measured under the 3 rad, 8 Hz
// shake (20 strands, double), retrying those too redid 83 % of the steps at 227 Newton iterations
// per strand step, and the deepest contact went from 4.5 to 1.3 mm while tips still reached 247
// m/s: ten times the cost for a partial cure (docs/models/cosserat.md). The reference has no
// retries.
//
// The state a step changes (configuration, velocities, spins), saved to the retry arrays or
// restored from them.
template <class T>
HS_HD void keep_step_start(const Strand<T>& st, bool restore) {
  const auto& a = st.a;
  const Strided<T> state[3] = {st.rows(a.config), st.rows(a.velocity), st.rows(a.spin)};
  const Strided<T> kept[3] = {st.rows(a.retry_config), st.rows(a.retry_velocity),
                              st.rows(a.retry_spin)};
  const int sizes[3] = {3 * st.vertices(), 3 * st.vertices(), 3 * st.segments()};
  for (int f = 0; f < 3; ++f)
    for (int k = 0; k < sizes[f]; ++k) {
      if (restore)
        state[f][k] = kept[f][k];
      else
        kept[f][k] = state[f][k];
    }
}

template <class T>
HS_HD HS_FORCE_INLINE StepCounts step(const Strand<T>& st, T dt, const Loads<T>& loads,
                                      const StepSettings& settings) {
  if (settings.max_halvings > 0) keep_step_start(st, false);
  StepCounts total;
  // Level 0 is the whole step, level l > 0 its retry in 2^l substeps: newton_step is called at
  // one place only, so that it is inlined (a call puts the strand view on the device's stack).
  for (int level = 0; level <= settings.max_halvings; ++level) {
    if (level > 0) {
      keep_step_start(st, true);
      total.retried = 1, total.failures = 0, total.unconverged = 0;
    }
    const int parts = 1 << level;
    for (int part = 0; part < parts; ++part) {
      Substep<T> sub{dt, loads.time, loads.head_start, loads.head};
      if (level > 0) {
        sub.dt = dt / T(parts);
        sub.time = loads.time + T(part) * sub.dt;
        sub.head_start = interpolated_pose(loads.head_start, loads.head, T(part) / T(parts));
        sub.head = interpolated_pose(loads.head_start, loads.head, T(part + 1) / T(parts));
      }
      const StepCounts c = newton_step(st, sub, loads, settings);
      total.newton += c.newton;
      total.pcg_iterations += c.pcg_iterations;
      total.pcg_solves += c.pcg_solves;
      total.failures += c.failures;
      total.unconverged = total.unconverged > c.unconverged ? total.unconverged : c.unconverged;
      total.contacts = c.contacts;
    }
    if (total.failures == 0) break;
  }
  // A failed strand step counts once, however many of its last round's substeps failed (the run's
  // message and summary count strand steps); so does an unconverged one, unless accepted.
  if (total.unconverged > 0 && !settings.accept_unconverged)
    total.failures = 1, total.unconverged_failure = 1;
  if (total.failures > 0) total.failures = 1;
  return total;
}

}  // namespace hairsim::kernels::cosserat
