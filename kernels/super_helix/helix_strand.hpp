#pragma once
// Super-Helices on the batched engine (Bertails 2009, "Linear Time Super-Helices"): one strand's
// semi-implicit step by the recursive method's two passes (§4, App. A), `__host__ __device__`,
// float or double, the same arithmetic as the reference's recursive method
// (src/reference/super_helix/super_helix_rod.cpp, StepSystem::solve_recursive) for a chain:
//   forward:  each element's start (point, frame, velocity, spin) from the clamp, root to tip;
//   pass 1:   tip to root, each element's local system D q̈ = u − U A (D = ∫ρGᵀG + Hᵀ I_end H +
//             (hν + h²) K, the cumulated inertia I and bias b moved to its start, eq. 16);
//   pass 2:   root to tip, q̈ = D⁻¹ (u − U A) with A the start's spatial acceleration, gravity
//             folded into the root's (a − g, §4.6);
//   then q̇ += h q̈, q += h q̇, and the output points resampled on the new state.
// Coordinates: κ per element, all three components (the twist free: the reference's
// Twist::free). Mass: the centreline's, ρS per unit length; integrals by a Gauss-Legendre rule.
// Contacts: velocity-level impulses at the quadrature points after the solve (resolve_contacts).
#include <cmath>

#include "common/batch_layout.hpp"
#include "common/drag.hpp"
#include "common/hd.hpp"
#include "common/head_clamp.hpp"
#include "common/matrix3.hpp"
#include "common/rigid_pose.hpp"
#include "common/strided.hpp"
#include "common/vector3.hpp"
#include "common/wind.hpp"
#include "super_helix/helix_contacts.hpp"
#include "super_helix/helix_element.hpp"

namespace hairsim::kernels::super_helix {

// The kernels' arithmetic: double for both batches; a float batch stores float. Measured: with
// float arithmetic an element's D = ∫ρGᵀG + Hᵀ I_end H + (hν + h²) K lost positive
// definiteness under the soak scene's jumps (the cumulated inertia I − Uᵀ D⁻¹ U cancels in float;
// a D⁻¹ diagonal of −4e15 at t = 0.039 s) and the strand diverged at t = 0.057 s.
using Real = double;

// Values to and from a batch's precision.
template <class To, class From>
HS_HD Vector3<To> cast(const Vector3<From>& v) {
  return {To(v.x), To(v.y), To(v.z)};
}

// The batch's arrays, tiled as the other models' (kernels/common/batch_layout.hpp): tiles of
// `tile_width` strands; k rows per element, vertex or strand for a k-component quantity.
template <class T>
struct HelixBatchArrays {
  int strands = 0, vertices = 0, elements = 0;
  int tile_width = 32;
  HS_HD int tile_count() const { return (strands + tile_width - 1) / tile_width; }
  // State (3 per element).
  T* curvature = nullptr;   // κ, 1/m
  T* rate = nullptr;        // κ̇, 1/(m s)
  T* start_rate = nullptr;  // κ̇ at the step's start (the contacts' drift; 3 per element)
  // Rest shape and material.
  T* rest = nullptr;        // κ⁰ (3 per element)
  T* length = nullptr;      // ℓ, m (1 per element)
  T* material = nullptr;    // GJ, EI1, EI2 (N m²), ρS (kg/m) (4 per strand)
  T* root_rest = nullptr;   // the clamp's point at the head's rest pose, m (3 per strand)
  T* frame_rest = nullptr;  // its material frame, columns n0 n1 n2, row-major (9 per strand)
  // Output points (`vertices` per strand along the centreline): where they sit, element index and
  // abscissa in it (2 per vertex), and their positions, velocities (3) and masses (1, kg).
  T* sample = nullptr;
  T* x = nullptr;
  T* velocity = nullptr;
  T* mass = nullptr;
  // The velocities the last step left at the output points (3 per vertex): what the hair-hair
  // stage changed between two steps is velocity − sampled_velocity.
  T* sampled_velocity = nullptr;
  // Each element's start (forward kinematics): point, velocity, spin (3 each), frame (9).
  T* start_point = nullptr;
  T* start_velocity = nullptr;
  T* start_spin = nullptr;
  T* start_frame = nullptr;
  // The recursion's per-element factor: D⁻¹ (9), U = [U_α U_a] (18), u (3), c_end (6), the end's
  // chord d_end (3, Φ = shift(d_end)) and H = [R Ψ(ℓ); R P(ℓ)] (18).
  T* d_inverse = nullptr;
  T* u_map = nullptr;
  T* u_rhs = nullptr;
  T* c_end = nullptr;
  T* chord = nullptr;
  T* h_map = nullptr;
  // The contacts' scratch: a response's right-hand sides and rate changes (3 per element each).
  T* impulse_rhs = nullptr;
  T* impulse_rate = nullptr;
};

template <class T, class F>
HS_HD void for_each_array(HelixBatchArrays<T>& a, F&& f) {
  const int e = a.elements, v = a.vertices;
  f(a.curvature, 3 * e), f(a.rate, 3 * e), f(a.start_rate, 3 * e), f(a.rest, 3 * e), f(a.length, e);
  f(a.material, 4), f(a.root_rest, 3), f(a.frame_rest, 9);
  f(a.sample, 2 * v), f(a.x, 3 * v), f(a.velocity, 3 * v), f(a.mass, v);
  f(a.sampled_velocity, 3 * v);
  f(a.start_point, 3 * e), f(a.start_velocity, 3 * e), f(a.start_spin, 3 * e),
      f(a.start_frame, 9 * e);
  f(a.d_inverse, 9 * e), f(a.u_map, 18 * e), f(a.u_rhs, 3 * e), f(a.c_end, 6 * e),
      f(a.chord, 3 * e), f(a.h_map, 18 * e);
  f(a.impulse_rhs, 3 * e), f(a.impulse_rate, 3 * e);
}

template <class T>
HS_HD HelixBatchArrays<T> tile_view(const HelixBatchArrays<T>& batch, int t) {
  HelixBatchArrays<T> tile = batch;
  const long offset = long(t) * batch.tile_width;
  for_each_array(tile, [&](T*& array, int rows) { array += offset * rows; });
  return tile;
}

// One strand's view: its tile's arrays and its lane; item i of R x C values at rows R C i...
template <class T>
struct HelixStrand {
  HelixBatchArrays<T> a;
  int lane;
  HS_HD Strided<T> rows(T* p) const { return {p + lane, a.tile_width}; }
  template <int R, int C>
  HS_HD Mat<Real, R, C> get(T* p, int i) const {
    const Strided<T> s = rows(p);
    Mat<Real, R, C> m;
    for (int k = 0; k < R * C; ++k) m[k] = s[R * C * i + k];
    return m;
  }
  template <int R, int C>
  HS_HD void set(T* p, int i, const Mat<Real, R, C>& m) const {
    const Strided<T> s = rows(p);
    for (int k = 0; k < R * C; ++k) s[R * C * i + k] = T(m[k]);
  }
  HS_HD Vector3<Real> vec(T* p, int i) const { return get<3, 1>(p, i); }
  HS_HD Matrix3<Real> mat(T* p, int i) const { return get<3, 3>(p, i); }
  HS_HD Real scalar(T* p, int i) const { return rows(p)[i]; }
};

template <class T>
HS_HD HelixStrand<T> strand_of(const HelixBatchArrays<T>& batch, int s) {
  return {tile_view(batch, s / batch.tile_width), s % batch.tile_width};
}

constexpr int kMaxQuadrature = 16;

// What a step takes.
template <class T>
struct StepInput {
  Real dt = 0;                 // s
  Real time = 0;               // s, the step's start (the wind's clock: it is read at the end)
  Vector3<Real> gravity;       // m/s²
  Real damping = 0;            // 1/s: the force −damping ρS ṙ per unit length
  Real drag_normal = 0;        // N s/m², the air's drag per unit length (kernels/common/drag.hpp)
  Real drag_tangent = 0;       //
  Real internal_friction = 0;  // ν, s: the generalized force −ν K κ̇ (§4.5)
  WindField<T> wind;
  HeadState head;      // at the step's end
  int quadrature = 0;  // Gauss-Legendre points per element, and their nodes and weights on [0, 1]
  Real nodes[kMaxQuadrature] = {};
  Real weights[kMaxQuadrature] = {};
  // Colliders in the head's frame, carried by the head (its pose at the step's end), each with its
  // Coulomb μ; the centreline kept `contact_thickness` outside; at most `contact_sweeps` sweeps.
  Collider<T> colliders[kMaxColliders];
  int collider_count = 0;
  RigidPose<T> head_pose;
  Real contact_thickness = 0;
  int contact_sweeps = 1000;
  // Whether a hair-hair stage runs between the steps (its velocity changes taken as impulses).
  bool interaction = false;
};

// The clamp of strand st with the head at `head` (kernels/common/head_clamp.hpp).
template <class T>
HS_HD Clamp clamp_of(const HelixStrand<T>& st, const HeadState& head) {
  return clamp_at(head, st.vec(st.a.root_rest, 0), st.mat(st.a.frame_rest, 0));
}

// Each element's start, root to tip (G¹ junctions, eq. 3b): the parent's end frame R E(ℓ), point
// r + R p(ℓ), spin ω + R Ψ κ̇ and velocity v + ω × R p + R P κ̇.
template <class T>
HS_HD void forward_kinematics(const HelixStrand<T>& st, const Clamp& clamp) {
  const HelixBatchArrays<T>& a = st.a;
  Vector3<Real> point = clamp.point, velocity = clamp.velocity, spin = clamp.spin;
  Matrix3<Real> frame = clamp.frame;
  for (int q = 0; q < a.elements; ++q) {
    st.set(a.start_point, q, point), st.set(a.start_velocity, q, velocity);
    st.set(a.start_spin, q, spin), st.set(a.start_frame, q, frame);
    const Vector3<Real> rate = st.vec(a.rate, q);
    const ElementPoint<Real> e =
        element_point(st.vec(a.curvature, q), rate, st.scalar(a.length, q));
    const Vector3<Real> d = frame * e.p;
    velocity = velocity + cross(spin, d) + frame * (e.P * rate);
    point = point + d;
    spin = spin + frame * (e.Psi * rate);
    frame = frame * e.E;
  }
}

// The output points on the current state (forward_kinematics done): position r + R p(u) and
// velocity v + ω × R p + R P κ̇ of each.
template <class T>
HS_HD void sample_points(const HelixStrand<T>& st) {
  const HelixBatchArrays<T>& a = st.a;
  for (int i = 0; i < a.vertices; ++i) {
    const Mat<Real, 2, 1> at = st.template get<2, 1>(a.sample, i);
    const int q = int(at[0]);
    const Vector3<Real> rate = st.vec(a.rate, q);
    const ElementPoint<Real> e = element_point(st.vec(a.curvature, q), rate, at[1]);
    const Matrix3<Real> frame = st.mat(a.start_frame, q);
    const Vector3<Real> d = frame * e.p;
    st.set(a.x, i, st.vec(a.start_point, q) + d);
    const Vector3<Real> v =
        st.vec(a.start_velocity, q) + cross(st.vec(a.start_spin, q), d) + frame * (e.P * rate);
    st.set(a.velocity, i, v), st.set(a.sampled_velocity, i, v);
  }
}

// The applied force per unit length at a point (gravity excluded: it is in the root's
// acceleration, §4.6): damping −c ρS ṙ, and the air's drag against the wind there.
template <class T>
HS_HD Vector3<Real> applied_force(const StepInput<T>& in, Real rho, const Vector3<Real>& x,
                                  const Vector3<Real>& velocity, const Vector3<Real>& tangent) {
  Vector3<Real> f = (-in.damping * rho) * velocity;
  if (in.drag_normal > Real(0) || in.drag_tangent > Real(0)) {
    const Matrix3<Real> drag =
        drag_matrix(tangent, tangent, Real(1), Real(1), in.drag_normal, in.drag_tangent);
    f -= drag * (velocity - cast<Real>(in.wind.at(cast<T>(x), T(in.time + in.dt))));
  }
  return f;
}

// The inverse of a symmetric positive definite 3 x 3 matrix (cofactors), scaled by its largest
// diagonal entry first: a hair element's D is ~1e-16 kg m², whose determinant (1e-48) is below
// float's range.
HS_HD inline Matrix3<Real> inverse_spd(const Matrix3<Real>& d) {
  Real largest = d(0, 0) > d(1, 1) ? d(0, 0) : d(1, 1);
  largest = largest > d(2, 2) ? largest : d(2, 2);
  const Real scale = Real(1) / largest;
  const Matrix3<Real> m = scale * d;
  Matrix3<Real> c;
  c(0, 0) = m(1, 1) * m(2, 2) - m(1, 2) * m(2, 1);
  c(0, 1) = m(0, 2) * m(2, 1) - m(0, 1) * m(2, 2);
  c(0, 2) = m(0, 1) * m(1, 2) - m(0, 2) * m(1, 1);
  c(1, 0) = m(1, 2) * m(2, 0) - m(1, 0) * m(2, 2);
  c(1, 1) = m(0, 0) * m(2, 2) - m(0, 2) * m(2, 0);
  c(1, 2) = m(0, 2) * m(1, 0) - m(0, 0) * m(1, 2);
  c(2, 0) = m(1, 0) * m(2, 1) - m(1, 1) * m(2, 0);
  c(2, 1) = m(0, 1) * m(2, 0) - m(0, 0) * m(2, 1);
  c(2, 2) = m(0, 0) * m(1, 1) - m(0, 1) * m(1, 0);
  const Real det = m(0, 0) * c(0, 0) + m(0, 1) * c(1, 0) + m(0, 2) * c(2, 0);
  return (scale / det) * c;
}

// A spatial (angular, linear) pair and the 6 x 6 blocks the passes carry.
template <class T>
struct Spatial {
  Vector3<Real> angular, linear;
};
template <class T>
struct Inertia6 {
  Matrix3<Real> aa, al, la, ll;  // [[aa, al], [la, ll]]
};
HS_HD inline Spatial<Real> operator*(const Inertia6<Real>& m, const Spatial<Real>& v) {
  return {m.aa * v.angular + m.al * v.linear, m.la * v.angular + m.ll * v.linear};
}

// Φ = [[I, 0], [−[d]×, I]]: (α, a) at an element's start to (α, a + α × d) at its end.
HS_HD inline Spatial<Real> shift(const Vector3<Real>& d, const Spatial<Real>& v) {
  return {v.angular, v.linear + cross(v.angular, d)};
}
// Φᵀ (b_α, b_a) = (b_α + d × b_a, b_a): a wrench moved back to the start.
HS_HD inline Spatial<Real> shift_back(const Vector3<Real>& d, const Spatial<Real>& b) {
  return {b.angular + cross(d, b.linear), b.linear};
}
// Φᵀ I Φ.
HS_HD inline Inertia6<Real> shift_back(const Vector3<Real>& d, const Inertia6<Real>& m) {
  const Matrix3<Real> D = cross_matrix(d);  // Φ = [[I, 0], [−D, I]], Φᵀ = [[I, D], [0, I]]
  // I Φ = [[aa − al D, al], [la − ll D, ll]]; Φᵀ (I Φ): top rows + D × bottom rows.
  const Matrix3<Real> aa = m.aa - m.al * D, la = m.la - m.ll * D;
  return {aa + D * la, m.al + D * m.ll, la, m.ll};
}

struct StepCounts {
  int failures = 0;
  int contacts = 0;  // point and collider pairs in the contact problem
  int dropped = 0;   // beyond kMaxContacts
};

// The velocity of a point (element e, offset d, map G) for rates `rates` with the clamp still,
// J q̇: the element starts' spatial velocities V_{q+1} = Φ_q V_q + H_q q̇_q from V_0 = 0, then
// v = a + α × d + G q̇_e (X V + G q̇).
template <class T>
HS_HD Vector3<Real> point_velocity(const HelixStrand<T>& st, const PointContact<Real>& c,
                                   T* rates) {
  const HelixBatchArrays<T>& a = st.a;
  Spatial<Real> V{};
  for (int q = 0; q < c.element; ++q) {
    const Vector3<Real> r = st.vec(rates, q);
    const Spatial<Real> moved = shift(st.vec(a.chord, q), V);
    V = {moved.angular + st.mat(a.h_map, 2 * q) * r, moved.linear + st.mat(a.h_map, 2 * q + 1) * r};
  }
  return V.linear + cross(V.angular, c.d) + c.G * st.vec(rates, c.element);
}

// A point force's loads on its element (the recursion's two passes take them): Gᵀ f into the
// element's u, −Xᵀ f = −(d × f, f) into its bias.
HS_HD inline void add_point_load(const Matrix3<Real>& G, const Vector3<Real>& d,
                                 const Vector3<Real>& f, Vector3<Real>& u, Spatial<Real>& bias) {
  u += transpose(G) * f;
  bias.angular -= cross(d, f);
  bias.linear -= f;
}

// Adds A⁻¹ Jᵀ f of point forces f to `rates`: the recursion's two passes with nothing but the
// forces (no motion, gravity or elasticity; the reference's StepSystem::respond), the factors
// of this step's pass 1 (A = M + (hν + h²) K). `loads(q, u, bias)` adds element q's forces
// (add_point_load); elements past `last` carry none.
template <class T, class Loads>
HS_HD void add_response(const HelixStrand<T>& st, int last, Loads&& loads, T* rates) {
  const HelixBatchArrays<T>& a = st.a;
  Spatial<Real> bias_end{};
  for (int q = last; q >= 0; --q) {
    Vector3<Real> u = -(transpose(st.mat(a.h_map, 2 * q)) * bias_end.angular +
                        transpose(st.mat(a.h_map, 2 * q + 1)) * bias_end.linear);
    Spatial<Real> bias = shift_back(st.vec(a.chord, q), bias_end);
    loads(q, u, bias);
    const Vector3<Real> Diu = st.mat(a.d_inverse, q) * u;
    bias.angular += transpose(st.mat(a.u_map, 2 * q)) * Diu;
    bias.linear += transpose(st.mat(a.u_map, 2 * q + 1)) * Diu;
    st.set(a.impulse_rhs, q, u);
    bias_end = bias;
  }
  Spatial<Real> A{};
  for (int q = 0; q < a.elements; ++q) {
    const Vector3<Real> u = q <= last ? st.vec(a.impulse_rhs, q) : Vector3<Real>{};
    const Vector3<Real> x = st.mat(a.d_inverse, q) * (u - st.mat(a.u_map, 2 * q) * A.angular -
                                                      st.mat(a.u_map, 2 * q + 1) * A.linear);
    st.set(rates, q, st.vec(rates, q) + x);
    const Spatial<Real> moved = shift(st.vec(a.chord, q), A);
    A = {moved.angular + st.mat(a.h_map, 2 * q) * x, moved.linear + st.mat(a.h_map, 2 * q + 1) * x};
  }
}

// The rate change of a force f at contact point c.
template <class T>
HS_HD void add_response(const HelixStrand<T>& st, const PointContact<Real>& c,
                        const Vector3<Real>& f, T* rates) {
  add_response(
      st, c.element,
      [&](int q, Vector3<Real>& u, Spatial<Real>& bias) {
        if (q == c.element) add_point_load(c.G, c.d, f, u, bias);
      },
      rates);
}

// The hair-hair stage's change of the output points' velocities since the last step (velocity −
// sampled_velocity), taken by the strand as impulses m Δv at those points: their rate change
// A⁻¹ Jᵀ (m Δv) added to the rates (docs/models/super-helices.md "Hair-hair interaction"). A
// reduced-coordinate rod cannot take an arbitrary velocity field: the impulses are the stage's
// momentum exchange, and the rod answers them as it answers a contact's. Returns whether any
// point changed.
template <class T>
HS_HD bool add_interaction_impulses(const HelixStrand<T>& st) {
  const HelixBatchArrays<T>& a = st.a;
  bool changed = false;
  for (int i = 0; i < 3 * a.vertices && !changed; ++i)
    changed = st.rows(a.velocity)[i] != st.rows(a.sampled_velocity)[i];
  if (!changed) return false;
  int point = a.vertices - 1;  // the output points are in arc-length order: walked tip to root
  add_response(
      st, a.elements - 1,
      [&](int q, Vector3<Real>& u, Spatial<Real>& bias) {
        const Vector3<Real> kappa = st.vec(a.curvature, q), still{};
        const Matrix3<Real> R = st.mat(a.start_frame, q);
        for (; point >= 0; --point) {
          const Mat<Real, 2, 1> at = st.template get<2, 1>(a.sample, point);
          if (int(at[0]) != q) break;
          const Vector3<Real> dv = st.vec(a.velocity, point) - st.vec(a.sampled_velocity, point);
          const ElementPoint<Real> e = element_point(kappa, still, at[1]);
          add_point_load(R * e.P, R * e.p, st.scalar(a.mass, point) * dv, u, bias);
        }
      },
      a.rate);
  return true;
}

// Each contact's drift (ContactBlock): its point on the curvatures κ + h κ̇₀ (κ̇₀ the rates at
// the step's start), hung from the clamp at the step's end (element 0's start), against its
// linearised motion x + h J κ̇₀. The contacts are in their elements' order.
template <class T>
HS_HD void add_drifts(const HelixStrand<T>& st, Real h, PointContact<Real>* contacts, int m) {
  const HelixBatchArrays<T>& a = st.a;
  Vector3<Real> point = st.vec(a.start_point, 0);
  Matrix3<Real> frame = st.mat(a.start_frame, 0);
  const Vector3<Real> still{};
  int c = 0;
  for (int q = 0; q < a.elements && c < m; ++q) {
    const Vector3<Real> kappa = st.vec(a.curvature, q) + h * st.vec(a.start_rate, q);
    for (; c < m && contacts[c].element == q; ++c) {
      const ElementPoint<Real> e = element_point(kappa, still, contacts[c].u);
      contacts[c].drift = dot(contacts[c].row(0), point + frame * e.p - contacts[c].linear_end);
    }
    const ElementPoint<Real> end = element_point(kappa, still, st.scalar(a.length, q));
    point = point + frame * end.p;
    frame = frame * end.E;
  }
}

// The contacts of the step (docs/models/super-helices.md "Contacts", the kernels' part): the
// quadrature points on the state at the step's start, the clamp at its end, against the posed
// colliders; a pair enters when its gap is below what it could close in two steps at its speed
// (plus 1 % of its element), at its speed against them; their impulses added to the rates
// q̇ + h q̈ (in a.rate). (The element starts were placed from the clamp at the step's end.)
template <class T>
HS_HD void resolve_contacts(const HelixStrand<T>& st, const StepInput<T>& in, StepCounts& counts) {
  const HelixBatchArrays<T>& a = st.a;
  if (in.collider_count == 0) return;
  const Real h = in.dt;
  PointContact<Real> contacts[kMaxContacts];
  int m = 0;
  const Vector3<Real> zero{};
  // No contacts closer to the clamp than the first output edge (the output point 1's arc
  // length): the span the other models' clamped vertices, the root and the next, hold.
  const Mat<Real, 2, 1> second = st.template get<2, 1>(a.sample, 1);
  Real clamped_span = second[1];
  for (int q = 0; q < int(second[0]); ++q) clamped_span += st.scalar(a.length, q);
  Real arc = Real(0);
  for (int q = 0; q < a.elements; arc += st.scalar(a.length, q), ++q) {
    const Real length = st.scalar(a.length, q);
    const Vector3<Real> kappa = st.vec(a.curvature, q), r0 = st.vec(a.start_point, q);
    const Matrix3<Real> R = st.mat(a.start_frame, q);
    for (int g = 0; g < in.quadrature; ++g) {
      if (arc + in.nodes[g] * length < clamped_span) continue;
      const ElementPoint<Real> e = element_point(kappa, zero, in.nodes[g] * length);
      PointContact<Real> c;
      c.element = q;
      c.u = in.nodes[g] * length;
      c.d = R * e.p;
      c.G = R * e.P;
      const Vector3<Real> x = r0 + c.d;
      const Vector3<Real> v = point_velocity(st, c, a.rate);  // against the head's colliders
      const Real reach = Real(2) * h * norm(v) + Real(0.01) * length;
      const Vector3<Real> linear_end = x + h * point_velocity(st, c, a.start_rate);
      near_colliders<T>(in, x, reach, [&](int k, Real gap, const Matrix3<Real>& basis) {
        if (m == kMaxContacts) {
          ++counts.dropped;
          return;
        }
        c.basis = basis;
        c.gap = gap;
        c.drift = Real(0);
        c.linear_end = linear_end;
        c.friction = in.colliders[k].friction;
        c.mass = st.scalar(a.material, 3) * in.weights[g] * length;
        contacts[m++] = c;
      });
    }
  }
  if (m == 0) return;
  // Each contact's block of W in its basis: the velocity change J A⁻¹ Jᵀ of a unit force along
  // each basis direction, through the scratch rates. Points the clamp holds (normal mobility times
  // mass below kMinContactMobility) leave the problem.
  int kept = 0;
  for (int i = 0; i < m; ++i) {
    PointContact<Real> c = contacts[i];
    for (int k = 0; k < 3; ++k) {
      for (int q = 0; q < a.elements; ++q) st.set(a.impulse_rate, q, zero);
      const Vector3<Real> f{c.basis(k, 0), c.basis(k, 1), c.basis(k, 2)};
      add_response(st, c, f, a.impulse_rate);
      const Vector3<Real> dv = point_velocity(st, c, a.impulse_rate);
      for (int j = 0; j < 3; ++j)
        c.W(j, k) = c.basis(j, 0) * dv.x + c.basis(j, 1) * dv.y + c.basis(j, 2) * dv.z;
    }
    c.impulse = zero;
    if (c.W(0, 0) * c.mass >= Real(kMinContactMobility)) contacts[kept++] = c;
  }
  m = kept;
  counts.contacts += m;
  if (m == 0) return;
  add_drifts(st, h, contacts, m);
  // The velocity of a point against the head's colliders is J q̇, its velocity with the clamp
  // held still: the head carries both the clamp and the colliders (the reference's relative
  // velocity, whose clamp and obstacle motions cancel).
  solve_point_contacts(
      contacts, m, in.contact_sweeps,
      [&](int i) { return contacts[i].velocity(point_velocity(st, contacts[i], a.rate), h); },
      [&](int i, const Vector3<Real>& f) { add_response(st, contacts[i], f, a.rate); });
}

// One semi-implicit step of the strand (the reference's `step` with the recursive method and no
// contacts): the clamp at the step's end, q̈ by the two passes, q̇ += h q̈, q += h q̇.
template <class T>
HS_HD StepCounts step(const HelixStrand<T>& st, const StepInput<T>& in) {
  const HelixBatchArrays<T>& a = st.a;
  const Real h = in.dt, nu = in.internal_friction;
  const Clamp clamp = clamp_of(st, in.head);
  forward_kinematics(st, clamp);
  const Mat<Real, 4, 1> material = st.template get<4, 1>(a.material, 0);
  const Real rho = material[3];
  // Pass 1, tip to root: the cumulated inertia and bias at each element's end (its child's).
  Inertia6<Real> inertia_end{Matrix3<Real>::zero(), Matrix3<Real>::zero(), Matrix3<Real>::zero(),
                             Matrix3<Real>::zero()};
  Spatial<Real> bias_end{};
  for (int q = a.elements - 1; q >= 0; --q) {
    const Vector3<Real> kappa = st.vec(a.curvature, q), rate = st.vec(a.rate, q);
    const Real length = st.scalar(a.length, q);
    const Matrix3<Real> R = st.mat(a.start_frame, q);
    const Vector3<Real> v0 = st.vec(a.start_velocity, q), w = st.vec(a.start_spin, q),
                        r0 = st.vec(a.start_point, q);
    Matrix3<Real> D = Matrix3<Real>::zero(), U_alpha = Matrix3<Real>::zero(),
                  U_a = Matrix3<Real>::zero();
    Vector3<Real> u{};
    Inertia6<Real> inertia{Matrix3<Real>::zero(), Matrix3<Real>::zero(), Matrix3<Real>::zero(),
                           Matrix3<Real>::zero()};
    Spatial<Real> bias{};
    // Its own mass: r̈ = X A + G q̈ + c at each quadrature point (eqs. 3a, 15), X = [−[d]×, I].
    for (int g = 0; g < in.quadrature; ++g) {
      const Real at = in.nodes[g] * length, weight = in.weights[g] * length;
      const ElementPoint<Real> e = element_point(kappa, rate, at);
      const Vector3<Real> d = R * e.p;
      const Matrix3<Real> G = R * e.P, Dx = cross_matrix(d);
      const Vector3<Real> Gk = G * rate;
      const Vector3<Real> c = cross(w, cross(w, d)) + Real(2) * cross(w, Gk) + R * e.p2;
      const Vector3<Real> velocity = v0 + cross(w, d) + Gk;
      const Vector3<Real> tangent = R * Vector3<Real>{e.E(0, 0), e.E(1, 0), e.E(2, 0)};
      const Vector3<Real> f = applied_force(in, rho, r0 + d, velocity, tangent);
      const Real m = weight * rho;
      const Matrix3<Real> Gt = transpose(G);
      D += m * (Gt * G);
      U_alpha -= m * (Gt * Dx);
      U_a += m * Gt;
      u += weight * (Gt * (f - rho * c));
      // Xᵀ X = [[−[d]×², [d]×], [−[d]×, I]]; Xᵀ y = (d × y, y).
      inertia.aa -= m * (Dx * Dx);
      inertia.al += m * Dx;
      inertia.la -= m * Dx;
      inertia.ll += m * identity3<Real>();
      const Vector3<Real> y = weight * (rho * c - f);
      bias.angular += cross(d, y);
      bias.linear += y;
    }
    // Its descendants, through its end (App. A, eq. 14).
    const ElementPoint<Real> e = element_point(kappa, rate, length);
    const Vector3<Real> d_end = R * e.p;
    const Matrix3<Real> H_alpha = R * e.Psi, H_a = R * e.P;
    const Vector3<Real> Gk = H_a * rate;
    const Spatial<Real> c_end{cross(w, H_alpha * rate) + R * e.psi2,
                              cross(w, cross(w, d_end)) + Real(2) * cross(w, Gk) + R * e.p2};
    const Spatial<Real> transmitted{inertia_end * c_end};
    const Spatial<Real> tr{transmitted.angular + bias_end.angular,
                           transmitted.linear + bias_end.linear};
    // Hᵀ I_end H, Hᵀ I_end Φ, Hᵀ (I_end c_end + b_end), with H = [H_α; H_a].
    const Matrix3<Real> IH_a = inertia_end.aa * H_alpha + inertia_end.al * H_a;  // rows α of I H
    const Matrix3<Real> IH_l = inertia_end.la * H_alpha + inertia_end.ll * H_a;  // rows a of I H
    D += transpose(H_alpha) * IH_a + transpose(H_a) * IH_l;
    // I Φ = [[aa − al Dx, al], [la − ll Dx, ll]] (Dx = [d_end]×); Hᵀ (I Φ).
    const Matrix3<Real> De = cross_matrix(d_end);
    const Matrix3<Real> IPhi_aa = inertia_end.aa - inertia_end.al * De,
                        IPhi_la = inertia_end.la - inertia_end.ll * De;
    U_alpha += transpose(H_alpha) * IPhi_aa + transpose(H_a) * IPhi_la;
    U_a += transpose(H_alpha) * inertia_end.al + transpose(H_a) * inertia_end.ll;
    u -= transpose(H_alpha) * tr.angular + transpose(H_a) * tr.linear;
    const Inertia6<Real> moved = shift_back(d_end, inertia_end);
    inertia.aa += moved.aa, inertia.al += moved.al, inertia.la += moved.la, inertia.ll += moved.ll;
    const Spatial<Real> b = shift_back(d_end, tr);
    bias.angular += b.angular, bias.linear += b.linear;
    // Elasticity and internal friction with the semi-implicit terms: u −= K (κ − κ⁰) + ν K κ̇ +
    // h K κ̇, D += (h ν + h²) K.
    const Vector3<Real> rest = st.vec(a.rest, q);
    for (int j = 0; j < 3; ++j) {
      const Real stiff = length * material[j];
      u[j] -= stiff * (kappa[j] - rest[j]) + (nu + h) * stiff * rate[j];
      D(j, j) += (h * nu + h * h) * stiff;
    }
    // q̈ = D⁻¹ (u − U A): the cumulated inertia and bias at the start (eq. 16).
    const Matrix3<Real> Di = inverse_spd(D);
    const Matrix3<Real> DiU_alpha = Di * U_alpha, DiU_a = Di * U_a;
    const Vector3<Real> Diu = Di * u;
    inertia.aa -= transpose(U_alpha) * DiU_alpha;
    inertia.al -= transpose(U_alpha) * DiU_a;
    inertia.la -= transpose(U_a) * DiU_alpha;
    inertia.ll -= transpose(U_a) * DiU_a;
    // The cumulated inertia is symmetric, but its blocks are summed apart and their round-off
    // differs between aa and aaᵀ, al and laᵀ. Where D is nearly singular in one direction (the
    // free twist of a nearly straight element is massless: D ≈ h² GJ ℓ there, ~1e-16 kg m²,
    // beside ~5e-15 in bending) the Schur step above amplifies that asymmetry from element to
    // element: measured ×10 an element on the parity case's straight strands (D⁻¹ 3e-6
    // asymmetric at the root of 16 elements), the first step's root twist rate 1 % off the
    // reference's, whose LDLᵀ reads D's lower triangle only. Kept symmetric: agreement to 1e-11.
    inertia.aa = Real(0.5) * (inertia.aa + transpose(inertia.aa));
    inertia.ll = Real(0.5) * (inertia.ll + transpose(inertia.ll));
    inertia.al = Real(0.5) * (inertia.al + transpose(inertia.la));
    inertia.la = transpose(inertia.al);
    bias.angular += transpose(U_alpha) * Diu;
    bias.linear += transpose(U_a) * Diu;
    st.set(a.d_inverse, q, Di);
    st.set(a.u_map, 2 * q, U_alpha), st.set(a.u_map, 2 * q + 1, U_a);
    st.set(a.u_rhs, q, u);
    st.set(a.c_end, 2 * q, c_end.angular), st.set(a.c_end, 2 * q + 1, c_end.linear);
    st.set(a.chord, q, d_end);
    st.set(a.h_map, 2 * q, H_alpha), st.set(a.h_map, 2 * q + 1, H_a);
    inertia_end = inertia;
    bias_end = bias;
  }
  // Pass 2, root to tip: A at the root with gravity folded in (a − g, §4.6); then the state.
  Spatial<Real> A{clamp.angular_acceleration, clamp.acceleration - in.gravity};
  StepCounts counts;
  for (int q = 0; q < a.elements; ++q) {
    const Vector3<Real> rhs = st.vec(a.u_rhs, q) - st.mat(a.u_map, 2 * q) * A.angular -
                              st.mat(a.u_map, 2 * q + 1) * A.linear;
    const Vector3<Real> qddot = st.mat(a.d_inverse, q) * rhs;
    const Spatial<Real> moved = shift(st.vec(a.chord, q), A);
    A = {moved.angular + st.mat(a.h_map, 2 * q) * qddot + st.vec(a.c_end, 2 * q),
         moved.linear + st.mat(a.h_map, 2 * q + 1) * qddot + st.vec(a.c_end, 2 * q + 1)};
    if (in.collider_count > 0) st.set(a.start_rate, q, st.vec(a.rate, q));  // the drifts' only
    st.set(a.rate, q, st.vec(a.rate, q) + h * qddot);
  }
  if (in.interaction) add_interaction_impulses(st);
  resolve_contacts(st, in, counts);
  for (int q = 0; q < a.elements; ++q) {
    const Vector3<Real> kappa = st.vec(a.curvature, q) + h * st.vec(a.rate, q);
    // x − x is 0 unless x is NaN or infinite.
    if (!(kappa.x - kappa.x == Real(0) && kappa.y - kappa.y == Real(0) &&
          kappa.z - kappa.z == Real(0)))
      counts.failures = 1;
    st.set(a.curvature, q, kappa);
  }
  forward_kinematics(st, clamp);
  sample_points(st);
  return counts;
}

}  // namespace hairsim::kernels::super_helix
