#pragma once
// Super Space Clothoids on the batched engine (issue 21): one strand's step, `__host__
// __device__`, in double arithmetic for both batch precisions (a float batch stores float; the
// float series' own APS bound is tested in clothoid_dynamics.hpp's test, but the dense solve of
// M, whose entries span many orders, is kept in double as the Super-Helix's). Per step: the
// clamp at the step's end from the head, the free rates by the semi-implicit step
// (clothoid_step.hpp), q += h q̇, the output points resampled on the new state. Not yet: obstacles
// and the hair-hair stage's impulses (the model refuses both on these backends).
#include "common/batch_layout.hpp"
#include "common/head_clamp.hpp"
#include "common/strided.hpp"
#include "common/wind.hpp"
#include "super_clothoid/clothoid_step.hpp"

namespace hairsim::kernels::super_clothoid {

using Real = double;

// The batch's arrays, tiled as the other models' (kernels/common/batch_layout.hpp): tiles of
// `tile_width` strands; k rows per node, element, vertex or strand for a k-component quantity.
template <class T>
struct ClothoidBatchArrays {
  int strands = 0, vertices = 0, elements = 0;
  int tile_width = 32;
  HS_HD int tile_count() const { return (strands + tile_width - 1) / tile_width; }
  // State (3 per node, N + 1 nodes): κ̂ and its rate.
  T* curvature = nullptr;
  T* rate = nullptr;
  // Rest shape and material.
  T* rest = nullptr;        // κ̂⁰ (3 per node)
  T* length = nullptr;      // ℓ, m (1 per element)
  T* material = nullptr;    // GJ, EI1, EI2 (N m²), ρS (kg/m) (4 per strand)
  T* root_rest = nullptr;   // the clamp's point at the head's rest pose, m (3 per strand)
  T* frame_rest = nullptr;  // its material frame, columns n0 n1 n2, row-major (9 per strand)
  // Output points (`vertices` per strand along the centreline): their arc lengths (1), positions,
  // velocities (3), masses (1, kg), and the velocities the last step left there (3: what a
  // hair-hair stage would have changed is velocity − sampled_velocity).
  T* sample = nullptr;
  T* x = nullptr;
  T* velocity = nullptr;
  T* mass = nullptr;
  T* sampled_velocity = nullptr;
};

template <class T, class F>
HS_HD void for_each_array(ClothoidBatchArrays<T>& a, F&& f) {
  const int nodes = a.elements + 1, v = a.vertices;
  f(a.curvature, 3 * nodes), f(a.rate, 3 * nodes), f(a.rest, 3 * nodes), f(a.length, a.elements);
  f(a.material, 4), f(a.root_rest, 3), f(a.frame_rest, 9);
  f(a.sample, v), f(a.x, 3 * v), f(a.velocity, 3 * v), f(a.mass, v);
  f(a.sampled_velocity, 3 * v);
}

template <class T>
HS_HD ClothoidBatchArrays<T> tile_view(const ClothoidBatchArrays<T>& batch, int t) {
  ClothoidBatchArrays<T> tile = batch;
  const long offset = long(t) * batch.tile_width;
  for_each_array(tile, [&](T*& array, int rows) { array += offset * rows; });
  return tile;
}

// What a step takes.
template <class T>
struct StepInput {
  Real dt = 0;                 // s
  Real time = 0;               // s, the step's start
  Real internal_friction = 0;  // ν, s
  Loads<Real> loads;           // gravity, damping, drag, wind, gusts (their clock set per step)
  HeadState head;              // at the step's end
};

// One strand's values, loaded from its tile into local arrays for the step.
struct StrandState {
  int elements = 0;
  Real length[kMaxElements];
  Vector3<Real> kappa[kMaxElements + 1], rate[kMaxElements + 1], rest[kMaxElements + 1];
  Vector3<Real> stiffness;
  Real rho = 0;
  HS_HD StrandShape<Real> shape() const { return {elements, length, kappa, rate, rho}; }
};

// One strand's view: its tile's arrays and its lane; item i of k values at rows k i...
template <class T>
struct ClothoidStrand {
  ClothoidBatchArrays<T> a;
  int lane;
  HS_HD Strided<T> rows(T* p) const { return {p + lane, a.tile_width}; }
  HS_HD Vector3<Real> vec(T* p, int i) const {
    const Strided<T> s = rows(p);
    return {Real(s[3 * i]), Real(s[3 * i + 1]), Real(s[3 * i + 2])};
  }
  HS_HD void set(T* p, int i, const Vector3<Real>& v) const {
    const Strided<T> s = rows(p);
    s[3 * i] = T(v.x), s[3 * i + 1] = T(v.y), s[3 * i + 2] = T(v.z);
  }
  HS_HD Real scalar(T* p, int i) const { return Real(rows(p)[i]); }
  HS_HD Matrix3<Real> frame_rest() const {
    Matrix3<Real> m;
    for (int k = 0; k < 9; ++k) m(k / 3, k % 3) = scalar(a.frame_rest, k);
    return m;
  }
  HS_HD StrandState load() const {
    StrandState s;
    s.elements = a.elements;
    for (int i = 0; i < a.elements; ++i) s.length[i] = scalar(a.length, i);
    for (int i = 0; i <= a.elements; ++i) {
      s.kappa[i] = vec(a.curvature, i), s.rate[i] = vec(a.rate, i), s.rest[i] = vec(a.rest, i);
    }
    s.stiffness = {scalar(a.material, 0), scalar(a.material, 1), scalar(a.material, 2)};
    s.rho = scalar(a.material, 3);
    return s;
  }
};

template <class T>
HS_HD ClothoidStrand<T> strand_of(const ClothoidBatchArrays<T>& batch, int s) {
  return {tile_view(batch, s / batch.tile_width), s % batch.tile_width};
}

// The chain's start as the dynamics take it: the clamp's frame and point, Ṙ = [ω]× R,
// R̈ = ([α]× + [ω]×²) R, ṙ, r̈ (the reference's chain_start).
HS_HD inline ClampMotion<Real> clamp_motion(const Clamp& c) {
  const Matrix3<Real> w = cross_matrix(c.spin);
  ClampMotion<Real> m;
  m.R = c.frame;
  m.R_dot = w * c.frame;
  m.R_ddot = (cross_matrix(c.angular_acceleration) + w * w) * c.frame;
  m.r = c.point, m.r_dot = c.velocity, m.r_ddot = c.acceleration;
  return m;
}

// The centreline's point and velocity at each output point (arc lengths ascending), for the
// state `s` and the clamp's motion: the chain walked element by element (frame, point and their
// velocities at each start), each point expanded from its element's start.
template <class T>
HS_HD void sample_points(const ClothoidStrand<T>& st, const StrandState& s,
                         const ClampMotion<Real>& clamp, Real aps_bound) {
  Matrix3<Real> R = clamp.R, R_dot = clamp.R_dot;
  Vector3<Real> r = clamp.r, r_dot = clamp.r_dot;
  int point = 0;
  Real element_start = Real(0);
  for (int i = 0; i < s.elements; ++i) {
    const Real ell = s.length[i];
    const bool last = i + 1 == s.elements;
    const Vector3<Real> ka = s.kappa[i], gamma = (Real(1) / ell) * (s.kappa[i + 1] - ka);
    const Vector3<Real> rate_a = s.rate[i], rate_slope = (Real(1) / ell) * (s.rate[i + 1] - rate_a);
    // The element's own state from an identity start after a length u, its pieces' way.
    auto local = [&](Real u) {
      ClothoidState<Real, 1> x;
      x.frame = {Matrix3<Real>::identity(), Vector3<Real>{}};
      x.tangent[0] = {Matrix3<Real>::zero(), Vector3<Real>{}};
      x.velocity = x.acceleration = {Matrix3<Real>::zero(), Vector3<Real>{}};
      Real sigma = Real(0);
      while (sigma < u) {
        const Vector3<Real> kappa = ka + sigma * gamma;
        const Real reach = subinterval_length(kappa, gamma, aps_bound);
        const Real h = sigma + reach < u ? reach : u - sigma;
        PieceCurvature<Real, 1> k;
        k.kappa0 = kappa, k.gamma = gamma;
        k.rate_a = rate_a + sigma * rate_slope, k.rate_b = rate_slope;
        k.a[0] = k.b[0] = Vector3<Real>{};
        int terms = 0;
        expand_piece<true>(
            x, h, k, kMaxTerms, terms,
            [](int, const Vector3<Real>&, const Vector3<Real>&, const Vector3<Real>(&)[1],
               const Vector3<Real>&, const Vector3<Real>&) {});
        sigma += h;
      }
      return x;
    };
    for (; point < st.a.vertices; ++point) {
      const Real at = st.scalar(st.a.sample, point) - element_start;
      if (!(at <= ell * (Real(1) + Real(1e-12)) || last)) break;
      const ClothoidState<Real, 1> x = local(at < ell ? at : ell);
      st.set(st.a.x, point, r + R * x.frame.r);
      const Vector3<Real> v = r_dot + R_dot * x.frame.r + R * x.velocity.r;
      st.set(st.a.velocity, point, v);
      st.set(st.a.sampled_velocity, point, v);
    }
    const ClothoidState<Real, 1> end = local(ell);
    r_dot = r_dot + R_dot * end.frame.r + R * end.velocity.r;
    const Matrix3<Real> next_R_dot = R_dot * end.frame.R + R * end.velocity.R;
    r = r + R * end.frame.r;
    R = R * end.frame.R;
    R_dot = next_R_dot;
    element_start += ell;
  }
}

struct StepCounts {
  int failures = 0;
  int truncated = 0;  // series cut at kMaxTerms
};

// One strand's step: the semi-implicit rates, q += h q̇, the output points resampled.
template <class T>
HS_HD StepCounts step(const ClothoidStrand<T>& st, const StepInput<T>& in,
                      StepScratch<Real>& scratch) {
  StepCounts counts;
  StrandState s = st.load();
  const Clamp clamp = clamp_at(in.head, st.vec(st.a.root_rest, 0), st.frame_rest());
  const ClampMotion<Real> motion = clamp_motion(clamp);
  Loads<Real> loads = in.loads;
  loads.time = in.time + in.dt;
  StepSettings<Real> set;
  set.rest = s.rest;
  set.stiffness = s.stiffness;
  set.internal_friction = in.internal_friction;
  set.h = in.dt;
  const StepOutcome out = free_rates(s.shape(), s.rate, set, motion, loads, scratch);
  counts.truncated = out.series.truncated ? 1 : 0;
  move(s.elements, s.kappa, s.rate, in.dt);
  for (int i = 0; i <= s.elements; ++i) {
    const Vector3<Real> k = s.kappa[i];
    // x − x is 0 unless x is NaN or infinite.
    if (!out.solved || !(k.x - k.x == Real(0) && k.y - k.y == Real(0) && k.z - k.z == Real(0)))
      counts.failures = 1;
    st.set(st.a.curvature, i, k);
    st.set(st.a.rate, i, s.rate[i]);
  }
  sample_points(st, s, motion, loads.M);
  return counts;
}

}  // namespace hairsim::kernels::super_clothoid
