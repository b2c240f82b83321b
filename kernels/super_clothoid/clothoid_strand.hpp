#pragma once
// Super Space Clothoids on the batched engine: one strand's step, `__host__ __device__`, in double
// arithmetic for both batch precisions (a float batch stores float; the float series' own APS
// bound is tested in clothoid_dynamics.hpp's test, but the dense solve of M, whose entries span
// many orders, is kept in double as the Super-Helix's). Per step: the clamp at the step's end from
// the head, the free rates by the semi-implicit step (clothoid_step.hpp), the hair-hair stage's
// impulses, the contacts' impulses (as the reference's, at the quadrature points, solved by the
// reduced models' projected Gauss-Seidel: kernels/common/point_contacts.hpp), q += h q̇, the
// output points resampled on the new state. Every loop is bounded: APS pieces by kMaxPieces
// (clothoid_series.hpp), a series by kMaxTerms, the contacts' sweeps by solver.contact_sweeps.
#include "common/batch_layout.hpp"
#include "common/colliders.hpp"
#include "common/head_clamp.hpp"
#include "common/point_contacts.hpp"
#include "common/rigid_pose.hpp"
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
  // Colliders in the head's frame, carried by the head (its pose at the step's end), each with its
  // Coulomb μ; the centreline kept `contact_thickness` outside; at most `contact_sweeps` sweeps.
  Collider<T> colliders[kMaxColliders];
  int collider_count = 0;
  RigidPose<T> head_pose;
  Real contact_thickness = 0;
  int contact_sweeps = 1000;
  bool interaction = false;  // a hair-hair stage runs between the steps (add_interaction_impulses)
};

// Per strand and step (16 elements of 8 points); the engine refuses settings with more
// quadrature points, so a pair is dropped (and counted) only where a point nears two colliders.
constexpr int kMaxContacts = 128;

// A point and collider pair: the generic contact, the point's Jacobian J (3 x n, rows x y z; its
// velocity against the head's colliders J q̇) and Y_k = A⁻¹ Jᵀ b_k for the basis rows b_k (the
// rates' change for a unit impulse along each).
struct ClothoidContact : ContactBlock {
  Real J[3][kMaxCoordinates];
  Real Y[3][kMaxCoordinates];
  int point = 0;               // its quadrature point, element × points an element + node
  Vector3<Real> linear_end{};  // where its linearised motion takes it, x + h J q̇₀ (the drift's)
};

// The contacts' scratch of a step (the caller's: 128 contacts of 2 x 3 x 51 values, 313 KB).
struct ContactScratch {
  ClothoidContact contacts[kMaxContacts];
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

// Element i's own state (from an identity start) at `count` ascending lengths u(j) < ℓ, visit(j,
// point), and at its end, returned. The series summed piece after piece (APS, bound M) in one walk
// along the element, each piece expanded once to its end: its centreline terms are scaled to the
// piece's length h, so a point at t = τh in it is Σ x̃n τⁿ (point_of_piece). With `Moving`, its
// motion as its node curvatures move at their rates (the velocity and the velocity-product
// acceleration); with C = 6, its derivatives in its six coordinates (κ̂i then κ̂i+1); with C = 1,
// none.
template <bool Moving, int C, class Length, class Visit>
HS_HD ClothoidState<Real, C> element_states(const StrandState& s, int i, int count, Length&& u_of,
                                            const Loads<Real>& loads, Visit&& visit) {
  const Real ell = s.length[i];
  const Vector3<Real> ka = s.kappa[i], gamma = (Real(1) / ell) * (s.kappa[i + 1] - ka);
  const Vector3<Real> rate_a = Moving ? s.rate[i] : Vector3<Real>{};
  const Vector3<Real> rate_slope =
      Moving ? (Real(1) / ell) * (s.rate[i + 1] - s.rate[i]) : Vector3<Real>{};
  ClothoidPoint<Real, C> term[kMaxTerms];  // the piece's scaled centreline terms
  int terms = 0;
  auto record = [&](int n, const Vector3<Real>& r, const Vector3<Real>&, const Vector3<Real>(&d)[C],
                    const Vector3<Real>& v, const Vector3<Real>&) {
    term[n].r = r, term[n].v = v;
    for (int c = 0; c < C; ++c) term[n].d[c] = d[c];
  };
  ClothoidState<Real, C> x = start_state<Real, C>();
  Real sigma = Real(0);
  int j = 0;
  // At most kMaxPieces pieces: the step checks the state first (pieces_within_cap); the bound
  // only guards the loop.
  for (int pieces = 0; sigma < ell && pieces < kMaxPieces; ++pieces) {
    const PieceCurvature<Real, C> k = piece_curvature<C>(ka, gamma, rate_a, rate_slope, ell, sigma);
    const Real reach = subinterval_length(k.kappa0, gamma, loads.M);
    Real h = sigma + reach < ell ? reach : ell - sigma;
    expand_piece_within<Moving>(x, h, k, kMaxTerms, terms, record, loads.series_tolerance);
    for (; j < count; ++j) {
      const Real u = u_of(j);
      if (!(u < sigma + h) && sigma + h < ell) break;  // in a later piece
      const Real tau = (u > sigma ? u - sigma : Real(0)) / h;
      visit(j, point_of_piece(term, terms, tau));
    }
    sigma += h;
  }
  return x;
}

// Every output point (arc lengths ascending) element by element: each element's points in its
// own frame, visit(i, point, state) (an output point past the last element's end taken at it),
// then finish(i, the element's end state) before the next element (a caller carries its chain
// there).
template <bool Moving, int C, class T, class Visit, class Finish>
HS_HD void for_each_output_point(const ClothoidStrand<T>& st, const StrandState& s,
                                 const Loads<Real>& loads, Visit&& visit, Finish&& finish) {
  int point = 0;
  Real start = Real(0);
  for (int i = 0; i < s.elements; ++i) {
    const Real ell = s.length[i];
    const bool last = i + 1 == s.elements;
    auto arc = [&](int j) { return st.scalar(st.a.sample, point + j) - start; };
    int points = 0;  // this element's, from `point` on
    while (point + points < st.a.vertices && (last || arc(points) <= ell * (Real(1) + Real(1e-12))))
      ++points;
    auto u_of = [&](int j) { return arc(j) < ell ? arc(j) : ell; };
    finish(i, element_states<Moving, C>(
                  s, i, points, u_of, loads,
                  [&](int j, const ClothoidPoint<Real, C>& x) { visit(i, point + j, x); }));
    point += points;
    start += ell;
  }
}

// A point's Jacobian J = ∂x/∂q on element i (3 x n, as n columns) from the walk at the element's
// start: the start's columns moved to the point, then the element's own six (κ̂i, κ̂i+1) added;
// the columns past them are zero and not written. Returns how many are written (3i + 6).
HS_HD inline int point_jacobian(const ChainWalk<Real>& w, const ClothoidPoint<Real, 6>& x, int i,
                                Vector3<Real>* column) {
  for (int a = 0; a < 3 * i + 3; ++a) column[a] = w.dr[a] + w.dR[a] * x.r;
  for (int a = 3 * i + 3; a < 3 * i + 6; ++a) column[a] = Vector3<Real>{};
  for (int c = 0; c < 6; ++c) column[3 * i + c] += w.R * x.d[c];
  return 3 * i + 6;
}

// The centreline's point and velocity at each output point (arc lengths ascending), for the
// state `s` and the clamp's motion: the chain walked element by element (frame, point and their
// velocities at each start), each point expanded from its element's start.
template <class T>
HS_HD void sample_points(const ClothoidStrand<T>& st, const StrandState& s,
                         const ClampMotion<Real>& clamp, const Loads<Real>& loads) {
  Matrix3<Real> R = clamp.R, R_dot = clamp.R_dot;
  Vector3<Real> r = clamp.r, r_dot = clamp.r_dot;
  for_each_output_point<true, 1>(
      st, s, loads,
      [&](int, int point, const ClothoidPoint<Real, 1>& x) {
        st.set(st.a.x, point, r + R * x.r);
        const Vector3<Real> v = r_dot + R_dot * x.r + R * x.v;
        st.set(st.a.velocity, point, v);
        st.set(st.a.sampled_velocity, point, v);
      },
      [&](int, const ClothoidState<Real, 1>& end) {
        r_dot = r_dot + R_dot * end.frame.r + R * end.velocity.r;
        const Matrix3<Real> next_R_dot = R_dot * end.frame.R + R * end.velocity.R;
        r = r + R * end.frame.r;
        R = R * end.frame.R;
        R_dot = next_R_dot;
      });
}

struct StepCounts {
  int failures = 0;
  int truncated = 0;  // series cut at kMaxTerms
  int contacts = 0;   // point and collider pairs in the contact problem
  int dropped = 0;    // beyond kMaxContacts
};

// Each contact's drift (ContactBlock): its point on the coordinates q + h q̇₀ (q̇₀ the rates at
// the step's start), the clamp at the step's end, against its linearised motion x + h J q̇₀. The
// contacts are in their points' order; one the walk does not reach (a piece cap) keeps none.
HS_HD inline void add_drifts(const StrandState& s, const Vector3<Real>* start_rate,
                             const ClampMotion<Real>& clamp, Real h, const Loads<Real>& rule,
                             ClothoidContact* contacts, int m) {
  StrandState reached = s;
  for (int k = 0; k <= s.elements; ++k) reached.kappa[k] = s.kappa[k] + h * start_rate[k];
  Matrix3<Real> R = clamp.R;
  Vector3<Real> r = clamp.r;
  int c = 0;
  for (int i = 0; i < s.elements && c < m; ++i) {
    const Real ell = s.length[i];
    const ClothoidState<Real, 1> end = element_states<false, 1>(
        reached, i, rule.rule_points, [&](int g) { return rule.rule_nodes[g] * ell; }, rule,
        [&](int g, const ClothoidPoint<Real, 1>& x) {
          const int point = i * rule.rule_points + g;
          while (c < m && contacts[c].point < point) ++c;
          for (; c < m && contacts[c].point == point; ++c)
            contacts[c].drift = dot(contacts[c].row(0), r + R * x.r - contacts[c].linear_end);
        });
    r = r + R * end.frame.r;
    R = R * end.frame.R;
  }
}

// The contacts of the step (the reference's resolve_contacts, the kernels' way): the quadrature
// points on the state at the step's start, the clamp at its end, against the posed colliders; a
// pair enters when its gap is below what it could close in two steps at its speed against them
// (plus 1 % of the shortest element); their impulses added to the free rates `s.rate` through
// the Cholesky factor of A in scratch.mass. No contacts closer to the clamp than the first
// output edge (the span the head holds).
template <class T>
HS_HD void resolve_contacts(const ClothoidStrand<T>& st, const StepInput<T>& in, StrandState& s,
                            const ClampMotion<Real>& clamp, StepScratch<Real>& scratch,
                            ContactScratch& cs, StepCounts& counts) {
  if (in.collider_count == 0) return;
  const int n = 3 * (s.elements + 1), stride = kMaxCoordinates;
  const Real h = in.dt;
  const Loads<Real>& rule = in.loads;
  const Real contact_start = st.scalar(st.a.sample, 1);
  Real shortest = s.length[0];
  for (int i = 1; i < s.elements; ++i) shortest = s.length[i] < shortest ? s.length[i] : shortest;
  // The rates at the step's start (the batch's arrays hold them until the step stores its own):
  // the drifts' (add_drifts).
  Vector3<Real> start_rate[kMaxElements + 1];
  for (int k = 0; k <= s.elements; ++k) start_rate[k] = st.vec(st.a.rate, k);
  ChainWalk<Real>& w = scratch.walk;
  start_walk(w, clamp, n);
  int m = 0;
  Real element_start = Real(0);
  for (int i = 0; i < s.elements; ++i) {
    const Real ell = s.length[i];
    auto u_of = [&](int g) { return rule.rule_nodes[g] * ell; };
    const ClothoidState<Real, 6> end = element_states<false, 6>(
        s, i, rule.rule_points, u_of, rule, [&](int g, const ClothoidPoint<Real, 6>& x) {
          if (element_start + u_of(g) < contact_start) return;
          const Vector3<Real> X = w.r + w.R * x.r;
          Vector3<Real> column[kMaxCoordinates];
          const int columns = point_jacobian(w, x, i, column);
          Vector3<Real> v{}, v0{};  // J q̇ at the free rates, and at the step's start ones
          for (int a = 0; a < columns; ++a) {
            v += s.rate[a / 3][a % 3] * column[a];
            v0 += start_rate[a / 3][a % 3] * column[a];
          }
          const Real reach = Real(2) * h * std::sqrt(dot(v, v)) + Real(0.01) * shortest;
          near_colliders<T>(in, X, reach, [&](int k, Real gap, const Matrix3<Real>& basis) {
            if (m == kMaxContacts) {
              ++counts.dropped;
              return;
            }
            ClothoidContact& c = cs.contacts[m++];
            c.basis = basis;
            c.gap = gap;
            c.drift = Real(0);
            c.point = i * rule.rule_points + g;
            c.linear_end = X + h * v0;
            c.friction = Real(in.colliders[k].friction);
            c.mass = s.rho * rule.rule_weights[g] * ell;
            c.impulse = Vector3<Real>{};
            for (int a = 0; a < n; ++a)
              for (int r = 0; r < 3; ++r) c.J[r][a] = a < columns ? column[a][r] : Real(0);
          });
        });
    advance(w, end, i);
    element_start += ell;
  }
  // Each contact's Y_k = A⁻¹ Jᵀ b_k and its block W = B J Y. Points the clamp holds (normal
  // mobility times mass below kMinContactMobility) leave the problem.
  int kept = 0;
  for (int i = 0; i < m; ++i) {
    ClothoidContact& c = cs.contacts[i];
    for (int k = 0; k < 3; ++k) {
      for (int a = 0; a < n; ++a)
        c.Y[k][a] =
            c.J[0][a] * c.basis(k, 0) + c.J[1][a] * c.basis(k, 1) + c.J[2][a] * c.basis(k, 2);
      cholesky_solve(scratch.mass, n, stride, c.Y[k]);
    }
    for (int j = 0; j < 3; ++j)
      for (int k = 0; k < 3; ++k) {
        Real sum = Real(0);
        for (int a = 0; a < n; ++a)
          sum +=
              (c.J[0][a] * c.basis(j, 0) + c.J[1][a] * c.basis(j, 1) + c.J[2][a] * c.basis(j, 2)) *
              c.Y[k][a];
        c.W(j, k) = sum;
      }
    if (c.W(0, 0) * c.mass >= Real(kMinContactMobility)) {
      if (kept != i) cs.contacts[kept] = c;
      ++kept;
    }
  }
  m = kept;
  counts.contacts += m;
  if (m == 0) return;
  add_drifts(s, start_rate, clamp, h, rule, cs.contacts, m);
  auto velocity = [&](int i) {
    const ClothoidContact& c = cs.contacts[i];
    Vector3<Real> v{};
    for (int a = 0; a < n; ++a) {
      const Real q = s.rate[a / 3][a % 3];
      v += q * Vector3<Real>{c.J[0][a], c.J[1][a], c.J[2][a]};
    }
    return c.velocity(v, h);
  };
  auto apply = [&](int i, const Vector3<Real>& f) {
    const ClothoidContact& c = cs.contacts[i];
    const Real f0 = dot(c.row(0), f), f1 = dot(c.row(1), f), f2 = dot(c.row(2), f);
    for (int a = 0; a < n; ++a)
      s.rate[a / 3][a % 3] += f0 * c.Y[0][a] + f1 * c.Y[1][a] + f2 * c.Y[2][a];
  };
  solve_point_contacts(cs.contacts, m, in.contact_sweeps, velocity, apply);
}

// The hair-hair stage's velocity changes at the output points (velocity − sampled_velocity, the
// stage between the steps changed `velocity`) taken as impulses m Δv at those points, answered as
// a contact's: q̇ += A⁻¹ Σ Jᵀ m Δv, J each point's Jacobian on the state at the step's start, the
// clamp at its end (A factored in scratch.mass), as the Super-Helix's kernels do. Returns whether
// any point changed.
template <class T>
HS_HD bool add_interaction_impulses(const ClothoidStrand<T>& st, StrandState& s,
                                    const ClampMotion<Real>& clamp, StepScratch<Real>& scratch,
                                    const Loads<Real>& loads) {
  const int vertices = st.a.vertices;
  bool changed = false;
  for (int k = 0; k < 3 * vertices && !changed; ++k)
    changed = st.rows(st.a.velocity)[k] != st.rows(st.a.sampled_velocity)[k];
  if (!changed) return false;
  const int n = 3 * (s.elements + 1);
  Real impulse[kMaxCoordinates] = {};  // Σ Jᵀ m Δv
  ChainWalk<Real>& w = scratch.walk;
  start_walk(w, clamp, n);
  for_each_output_point<false, 6>(
      st, s, loads,
      [&](int i, int point, const ClothoidPoint<Real, 6>& x) {
        const Vector3<Real> p =
            st.scalar(st.a.mass, point) *
            (st.vec(st.a.velocity, point) - st.vec(st.a.sampled_velocity, point));
        Vector3<Real> column[kMaxCoordinates];
        const int columns = point_jacobian(w, x, i, column);
        for (int a = 0; a < columns; ++a) impulse[a] += dot(column[a], p);
      },
      [&](int i, const ClothoidState<Real, 6>& end) { advance(w, end, i); });
  cholesky_solve(scratch.mass, n, kMaxCoordinates, impulse);
  for (int a = 0; a < n; ++a) s.rate[a / 3][a % 3] += impulse[a];
  return true;
}

// One strand's step: the semi-implicit rates, the contacts' impulses, q += h q̇, the output points
// resampled. A step that cannot be taken (an element past kMaxPieces APS pieces, A not positive
// definite, a non-finite state) fails the strand's solve, which the engine reports naming strand
// and step; the strand then keeps the state it had (nothing non-finite is stored or sampled).
template <class T>
HS_HD StepCounts step(const ClothoidStrand<T>& st, const StepInput<T>& in,
                      StepScratch<Real>& scratch, ContactScratch& contacts) {
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
  counts.failures = 1;  // until the step is taken
  if (!out.solved) return counts;
  if (in.interaction) add_interaction_impulses(st, s, motion, scratch, loads);
  resolve_contacts(st, in, s, motion, scratch, contacts, counts);
  move(s.elements, s.kappa, s.rate, in.dt);
  for (int i = 0; i <= s.elements; ++i) {
    // x − x is 0 unless x is NaN or infinite.
    const Vector3<Real> k = s.kappa[i] - s.kappa[i], r = s.rate[i] - s.rate[i];
    if (!(k.x == Real(0) && k.y == Real(0) && k.z == Real(0) && r.x == Real(0) && r.y == Real(0) &&
          r.z == Real(0)))
      return counts;
  }
  if (!pieces_within_cap(s.elements, s.length, s.kappa, loads.M)) return counts;
  counts.failures = 0;
  for (int i = 0; i <= s.elements; ++i) {
    st.set(st.a.curvature, i, s.kappa[i]);
    st.set(st.a.rate, i, s.rate[i]);
  }
  sample_points(st, s, motion, loads);
  return counts;
}

}  // namespace hairsim::kernels::super_clothoid
