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
#include "common/matrix3.hpp"
#include "common/rigid_pose.hpp"
#include "common/strided.hpp"
#include "common/vector3.hpp"
#include "common/wind.hpp"
#include "super_helix/helix_contacts.hpp"
#include "super_helix/helix_element.hpp"

namespace hairsim::kernels::super_helix {

// The batch's arrays, tiled as the other models' (kernels/common/batch_layout.hpp): tiles of
// `tile_width` strands; k rows per element, vertex or strand for a k-component quantity.
template <class T>
struct HelixBatchArrays {
  int strands = 0, vertices = 0, elements = 0;
  int tile_width = 32;
  HS_HD int tile_count() const { return (strands + tile_width - 1) / tile_width; }
  // State (3 per element).
  T* curvature = nullptr;  // κ, 1/m
  T* rate = nullptr;       // κ̇, 1/(m s)
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
  f(a.curvature, 3 * e), f(a.rate, 3 * e), f(a.rest, 3 * e), f(a.length, e);
  f(a.material, 4), f(a.root_rest, 3), f(a.frame_rest, 9);
  f(a.sample, 2 * v), f(a.x, 3 * v), f(a.velocity, 3 * v), f(a.mass, v);
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
  HS_HD Mat<T, R, C> get(T* p, int i) const {
    const Strided<T> s = rows(p);
    Mat<T, R, C> m;
    for (int k = 0; k < R * C; ++k) m[k] = s[R * C * i + k];
    return m;
  }
  template <int R, int C>
  HS_HD void set(T* p, int i, const Mat<T, R, C>& m) const {
    const Strided<T> s = rows(p);
    for (int k = 0; k < R * C; ++k) s[R * C * i + k] = m[k];
  }
  HS_HD Vector3<T> vec(T* p, int i) const { return get<3, 1>(p, i); }
  HS_HD Matrix3<T> mat(T* p, int i) const { return get<3, 3>(p, i); }
  HS_HD T scalar(T* p, int i) const { return rows(p)[i]; }
};

template <class T>
HS_HD HelixStrand<T> strand_of(const HelixBatchArrays<T>& batch, int s) {
  return {tile_view(batch, s / batch.tile_width), s % batch.tile_width};
}

// The head's pose and motion at the step's end, as the reference's clamp_state computes a
// clamp's (five-point central differences of the prescribed motion): a clamp at rest point x0 and
// frame F0 is at c + R (x0 − c) + τ with frame R F0, velocity Ṙ (x0 − c) + τ̇, acceleration
// R̈ (x0 − c) + τ̈, spin ω and angular acceleration α (the skew parts, as clamp_state).
template <class T>
struct HeadState {
  Matrix3<T> R, R_dot, R_ddot;
  Vector3<T> center, shift, shift_dot, shift_ddot, spin, angular_acceleration;
};

constexpr int kMaxQuadrature = 16;

// What a step takes.
template <class T>
struct StepInput {
  T dt = 0;                 // s
  T time = 0;               // s, the step's start (the wind's clock: it is read at the end)
  Vector3<T> gravity;       // m/s²
  T damping = 0;            // 1/s: the force −damping ρS ṙ per unit length
  T drag_normal = 0;        // N s/m², the air's drag per unit length (kernels/common/drag.hpp)
  T drag_tangent = 0;       //
  T internal_friction = 0;  // ν, s: the generalized force −ν K κ̇ (§4.5)
  WindField<T> wind;
  HeadState<T> head;   // at the step's end
  int quadrature = 0;  // Gauss-Legendre points per element, and their nodes and weights on [0, 1]
  T nodes[kMaxQuadrature] = {};
  T weights[kMaxQuadrature] = {};
  // Colliders in the head's frame, carried by the head (its pose at the step's end), each with its
  // Coulomb μ; the centreline kept `contact_thickness` outside; at most `contact_sweeps` sweeps.
  Collider<T> colliders[kMaxColliders];
  int collider_count = 0;
  RigidPose<T> head_pose;
  T contact_thickness = 0;
  int contact_sweeps = 1000;
};

// The clamp of strand st with the head at `head`.
template <class T>
struct Clamp {
  Vector3<T> point, velocity, acceleration, spin, angular_acceleration;
  Matrix3<T> frame;
};
template <class T>
HS_HD Clamp<T> clamp_of(const HelixStrand<T>& st, const HeadState<T>& head) {
  const Vector3<T> offset = st.vec(st.a.root_rest, 0) - head.center;
  Clamp<T> c;
  c.point = head.center + head.R * offset + head.shift;
  c.velocity = head.R_dot * offset + head.shift_dot;
  c.acceleration = head.R_ddot * offset + head.shift_ddot;
  c.frame = head.R * st.mat(st.a.frame_rest, 0);
  c.spin = head.spin;
  c.angular_acceleration = head.angular_acceleration;
  return c;
}

// Each element's start, root to tip (G¹ junctions, eq. 3b): the parent's end frame R E(ℓ), point
// r + R p(ℓ), spin ω + R Ψ κ̇ and velocity v + ω × R p + R P κ̇.
template <class T>
HS_HD void forward_kinematics(const HelixStrand<T>& st, const Clamp<T>& clamp) {
  const HelixBatchArrays<T>& a = st.a;
  Vector3<T> point = clamp.point, velocity = clamp.velocity, spin = clamp.spin;
  Matrix3<T> frame = clamp.frame;
  for (int q = 0; q < a.elements; ++q) {
    st.set(a.start_point, q, point), st.set(a.start_velocity, q, velocity);
    st.set(a.start_spin, q, spin), st.set(a.start_frame, q, frame);
    const Vector3<T> rate = st.vec(a.rate, q);
    const ElementPoint<T> e = element_point(st.vec(a.curvature, q), rate, st.scalar(a.length, q));
    const Vector3<T> d = frame * e.p;
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
    const Mat<T, 2, 1> at = st.template get<2, 1>(a.sample, i);
    const int q = int(at[0]);
    const Vector3<T> rate = st.vec(a.rate, q);
    const ElementPoint<T> e = element_point(st.vec(a.curvature, q), rate, at[1]);
    const Matrix3<T> frame = st.mat(a.start_frame, q);
    const Vector3<T> d = frame * e.p;
    st.set(a.x, i, st.vec(a.start_point, q) + d);
    st.set(a.velocity, i,
           st.vec(a.start_velocity, q) + cross(st.vec(a.start_spin, q), d) + frame * (e.P * rate));
  }
}

// The applied force per unit length at a point (gravity excluded: it is in the root's
// acceleration, §4.6): damping −c ρS ṙ, and the air's drag against the wind there.
template <class T>
HS_HD Vector3<T> applied_force(const StepInput<T>& in, T rho, const Vector3<T>& x,
                               const Vector3<T>& velocity, const Vector3<T>& tangent) {
  Vector3<T> f = (-in.damping * rho) * velocity;
  if (in.drag_normal > T(0) || in.drag_tangent > T(0)) {
    const Matrix3<T> drag =
        drag_matrix(tangent, tangent, T(1), T(1), in.drag_normal, in.drag_tangent);
    f -= drag * (velocity - in.wind.at(x, in.time + in.dt));
  }
  return f;
}

// The inverse of a symmetric positive definite 3 x 3 matrix (cofactors), scaled by its largest
// diagonal entry first: a hair element's D is ~1e-16 kg m², whose determinant (1e-48) is below
// float's range.
template <class T>
HS_HD Matrix3<T> inverse_spd(const Matrix3<T>& d) {
  T largest = d(0, 0) > d(1, 1) ? d(0, 0) : d(1, 1);
  largest = largest > d(2, 2) ? largest : d(2, 2);
  const T scale = T(1) / largest;
  const Matrix3<T> m = scale * d;
  Matrix3<T> c;
  c(0, 0) = m(1, 1) * m(2, 2) - m(1, 2) * m(2, 1);
  c(0, 1) = m(0, 2) * m(2, 1) - m(0, 1) * m(2, 2);
  c(0, 2) = m(0, 1) * m(1, 2) - m(0, 2) * m(1, 1);
  c(1, 0) = m(1, 2) * m(2, 0) - m(1, 0) * m(2, 2);
  c(1, 1) = m(0, 0) * m(2, 2) - m(0, 2) * m(2, 0);
  c(1, 2) = m(0, 2) * m(1, 0) - m(0, 0) * m(1, 2);
  c(2, 0) = m(1, 0) * m(2, 1) - m(1, 1) * m(2, 0);
  c(2, 1) = m(0, 1) * m(2, 0) - m(0, 0) * m(2, 1);
  c(2, 2) = m(0, 0) * m(1, 1) - m(0, 1) * m(1, 0);
  const T det = m(0, 0) * c(0, 0) + m(0, 1) * c(1, 0) + m(0, 2) * c(2, 0);
  return (scale / det) * c;
}

// A spatial (angular, linear) pair and the 6 x 6 blocks the passes carry.
template <class T>
struct Spatial {
  Vector3<T> angular, linear;
};
template <class T>
struct Inertia6 {
  Matrix3<T> aa, al, la, ll;  // [[aa, al], [la, ll]]
};
template <class T>
HS_HD Spatial<T> operator*(const Inertia6<T>& m, const Spatial<T>& v) {
  return {m.aa * v.angular + m.al * v.linear, m.la * v.angular + m.ll * v.linear};
}

// Φ = [[I, 0], [−[d]×, I]]: (α, a) at an element's start to (α, a + α × d) at its end.
template <class T>
HS_HD Spatial<T> shift(const Vector3<T>& d, const Spatial<T>& v) {
  return {v.angular, v.linear + cross(v.angular, d)};
}
// Φᵀ (b_α, b_a) = (b_α + d × b_a, b_a): a wrench moved back to the start.
template <class T>
HS_HD Spatial<T> shift_back(const Vector3<T>& d, const Spatial<T>& b) {
  return {b.angular + cross(d, b.linear), b.linear};
}
// Φᵀ I Φ.
template <class T>
HS_HD Inertia6<T> shift_back(const Vector3<T>& d, const Inertia6<T>& m) {
  const Matrix3<T> D = cross_matrix(d);  // Φ = [[I, 0], [−D, I]], Φᵀ = [[I, D], [0, I]]
  // I Φ = [[aa − al D, al], [la − ll D, ll]]; Φᵀ (I Φ): top rows + D × bottom rows.
  const Matrix3<T> aa = m.aa - m.al * D, la = m.la - m.ll * D;
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
HS_HD Vector3<T> point_velocity(const HelixStrand<T>& st, const PointContact<T>& c, T* rates) {
  const HelixBatchArrays<T>& a = st.a;
  Spatial<T> V{};
  for (int q = 0; q < c.element; ++q) {
    const Vector3<T> r = st.vec(rates, q);
    const Spatial<T> moved = shift(st.vec(a.chord, q), V);
    V = {moved.angular + st.mat(a.h_map, 2 * q) * r, moved.linear + st.mat(a.h_map, 2 * q + 1) * r};
  }
  return V.linear + cross(V.angular, c.d) + c.G * st.vec(rates, c.element);
}

// Adds A⁻¹ Jᵀ f, the rate change of a force f at contact point c, to `rates`: the recursion's
// two passes with nothing but the force (no motion, gravity or elasticity; the reference's
// StepSystem::respond). The force enters its element's u as Gᵀ f and its bias as −Xᵀ f.
template <class T>
HS_HD void add_response(const HelixStrand<T>& st, const PointContact<T>& c, const Vector3<T>& f,
                        T* rates) {
  const HelixBatchArrays<T>& a = st.a;
  Spatial<T> bias_end{};  // elements past c's carry nothing
  for (int q = c.element; q >= 0; --q) {
    Vector3<T> u = -(transpose(st.mat(a.h_map, 2 * q)) * bias_end.angular +
                     transpose(st.mat(a.h_map, 2 * q + 1)) * bias_end.linear);
    Spatial<T> bias = shift_back(st.vec(a.chord, q), bias_end);
    if (q == c.element) {
      u += transpose(c.G) * f;
      bias.angular -= cross(c.d, f);
      bias.linear -= f;
    }
    const Vector3<T> Diu = st.mat(a.d_inverse, q) * u;
    bias.angular += transpose(st.mat(a.u_map, 2 * q)) * Diu;
    bias.linear += transpose(st.mat(a.u_map, 2 * q + 1)) * Diu;
    st.set(a.impulse_rhs, q, u);
    bias_end = bias;
  }
  Spatial<T> A{};
  for (int q = 0; q < a.elements; ++q) {
    const Vector3<T> u = q <= c.element ? st.vec(a.impulse_rhs, q) : Vector3<T>{};
    const Vector3<T> x = st.mat(a.d_inverse, q) * (u - st.mat(a.u_map, 2 * q) * A.angular -
                                                   st.mat(a.u_map, 2 * q + 1) * A.linear);
    st.set(rates, q, st.vec(rates, q) + x);
    const Spatial<T> moved = shift(st.vec(a.chord, q), A);
    A = {moved.angular + st.mat(a.h_map, 2 * q) * x, moved.linear + st.mat(a.h_map, 2 * q + 1) * x};
  }
}

// The contact's velocities for the current rates: (normal with the gap over h, J q̇ with the
// clamp still, as the reference's b; tangents of the full velocity, the clamp's rigid motion
// added: the slip).
template <class T>
HS_HD Vector3<T> contact_velocity(const HelixStrand<T>& st, const PointContact<T>& c,
                                  const Vector3<T>& rigid, T h) {
  const Vector3<T> v = point_velocity(st, c, st.a.rate), full = v + rigid;
  const Vector3<T> n{c.basis(0, 0), c.basis(0, 1), c.basis(0, 2)};
  const Vector3<T> t1{c.basis(1, 0), c.basis(1, 1), c.basis(1, 2)};
  const Vector3<T> t2{c.basis(2, 0), c.basis(2, 1), c.basis(2, 2)};
  return {dot(n, v) + max_of(c.gap, -h * T(kMaxDepenetrationSpeed)) / h, dot(t1, full),
          dot(t2, full)};
}

// The 2 x 2 tangential block's inverse times a 2-vector.
template <class T>
HS_HD void solve2(const Matrix3<T>& W, T b1, T b2, T& x1, T& x2) {
  const T det = W(1, 1) * W(2, 2) - W(1, 2) * W(2, 1);
  x1 = (W(2, 2) * b1 - W(1, 2) * b2) / det;
  x2 = (W(1, 1) * b2 - W(2, 1) * b1) / det;
}

// A contact's part of the residual (m/s), as the reference's: the normal's complementarity gap
// and how far the friction impulse is from its projection, in velocities.
template <class T>
HS_HD T contact_residual(const PointContact<T>& c, const Vector3<T>& v) {
  T worst = abs_of(min_of(c.impulse.x * c.W(0, 0), v.x));
  if (!(c.friction > T(0))) return worst;
  T s1, s2;
  solve2(c.W, v.y, v.z, s1, s2);
  T t1 = c.impulse.y - s1, t2 = c.impulse.z - s2;
  const T limit = c.friction * max_of(T(0), c.impulse.x), length = std::sqrt(t1 * t1 + t2 * t2);
  if (length > limit) t1 *= limit / length, t2 *= limit / length;
  const T d1 = c.impulse.y - t1, d2 = c.impulse.z - t2;
  const T r1 = c.W(1, 1) * d1 + c.W(1, 2) * d2, r2 = c.W(2, 1) * d1 + c.W(2, 2) * d2;
  return max_of(worst, std::sqrt(r1 * r1 + r2 * r2));
}

// The contacts of the step (docs/models/super-helices.md "Contacts", the kernels' part): the
// quadrature points on the state at the step's start, the clamp at its end, against the posed
// colliders; a pair enters when its gap is below what it could close in two steps at its speed
// (plus 1 % of its element); their impulses added to the rates q̇ + h q̈ (in a.rate).
template <class T>
HS_HD void resolve_contacts(const HelixStrand<T>& st, const StepInput<T>& in, const Clamp<T>& clamp,
                            StepCounts& counts) {
  const HelixBatchArrays<T>& a = st.a;
  if (in.collider_count == 0) return;
  const T h = in.dt;
  PointContact<T> contacts[kMaxContacts];
  int m = 0;
  const Vector3<T> zero{};
  // No contacts closer to the clamp than the first output edge (the output point 1's arc
  // length): the span the other models' clamped vertices, the root and the next, hold.
  const Mat<T, 2, 1> second = st.template get<2, 1>(a.sample, 1);
  T clamped_span = second[1];
  for (int q = 0; q < int(second[0]); ++q) clamped_span += st.scalar(a.length, q);
  T arc = T(0);
  for (int q = 0; q < a.elements; arc += st.scalar(a.length, q), ++q) {
    const T length = st.scalar(a.length, q);
    const Vector3<T> kappa = st.vec(a.curvature, q), r0 = st.vec(a.start_point, q);
    const Matrix3<T> R = st.mat(a.start_frame, q);
    for (int g = 0; g < in.quadrature; ++g) {
      if (arc + in.nodes[g] * length < clamped_span) continue;
      const ElementPoint<T> e = element_point(kappa, zero, in.nodes[g] * length);
      PointContact<T> c;
      c.element = q;
      c.d = R * e.p;
      c.G = R * e.P;
      const Vector3<T> x = r0 + c.d;
      const Vector3<T> rigid = clamp.velocity + cross(clamp.spin, x - clamp.point);
      const Vector3<T> v = point_velocity(st, c, a.rate) + rigid;
      const T reach = T(2) * h * norm(v) + T(0.01) * length;
      const Vector3<T> local = in.head_pose.apply_inverse(x);
      for (int k = 0; k < in.collider_count; ++k) {
        const SignedDistance<T> sd = signed_distance(in.colliders[k], local);
        const T gap = sd.distance - in.contact_thickness;
        if (!(gap < reach)) continue;
        if (m == kMaxContacts) {
          ++counts.dropped;
          continue;
        }
        const Vector3<T> n = in.head_pose.rotate(sd.normal), t1 = orthogonal_unit(n),
                         t2 = cross(n, t1);
        for (int col = 0; col < 3; ++col)
          c.basis(0, col) = n[col], c.basis(1, col) = t1[col], c.basis(2, col) = t2[col];
        c.gap = gap;
        c.friction = in.colliders[k].friction;
        contacts[m++] = c;
      }
    }
  }
  counts.contacts += m;
  if (m == 0) return;
  // Each contact's block of W in its basis: the velocity change J A⁻¹ Jᵀ of a unit force along
  // each basis direction, through the scratch rates.
  T tolerance = T(1);
  for (int i = 0; i < m; ++i) {
    PointContact<T>& c = contacts[i];
    for (int k = 0; k < 3; ++k) {
      for (int q = 0; q < a.elements; ++q) st.set(a.impulse_rate, q, zero);
      const Vector3<T> f{c.basis(k, 0), c.basis(k, 1), c.basis(k, 2)};
      add_response(st, c, f, a.impulse_rate);
      const Vector3<T> dv = point_velocity(st, c, a.impulse_rate);
      for (int j = 0; j < 3; ++j)
        c.W(j, k) = c.basis(j, 0) * dv.x + c.basis(j, 1) * dv.y + c.basis(j, 2) * dv.z;
    }
    c.impulse = zero;
    const Vector3<T> rigid =
        clamp.velocity + cross(clamp.spin, st.vec(a.start_point, c.element) + c.d - clamp.point);
    const Vector3<T> b = contact_velocity(st, c, rigid, h);
    tolerance =
        max_of(tolerance,
               max_of(abs_of(b.x), c.friction > T(0) ? max_of(abs_of(b.y), abs_of(b.z)) : T(0)));
  }
  tolerance *= T(1e-6);
  // Projected Gauss-Seidel, each impulse change applied to the rates at once.
  for (int sweep = 1; sweep <= in.contact_sweeps; ++sweep) {
    for (int i = 0; i < m; ++i) {
      PointContact<T>& c = contacts[i];
      if (!(c.W(0, 0) > T(0))) continue;  // a point the rates cannot move
      const Vector3<T> rigid =
          clamp.velocity + cross(clamp.spin, st.vec(a.start_point, c.element) + c.d - clamp.point);
      Vector3<T> v = contact_velocity(st, c, rigid, h);
      const T normal = max_of(T(0), c.impulse.x - v.x / c.W(0, 0));
      const Vector3<T> n{c.basis(0, 0), c.basis(0, 1), c.basis(0, 2)};
      if (normal != c.impulse.x) add_response(st, c, (normal - c.impulse.x) * n, a.rate);
      c.impulse.x = normal;
      if (!(c.friction > T(0))) continue;
      v = contact_velocity(st, c, rigid, h);
      T s1, s2;
      solve2(c.W, v.y, v.z, s1, s2);
      T p1 = c.impulse.y - s1, p2 = c.impulse.z - s2;
      const T limit = c.friction * normal, length = std::sqrt(p1 * p1 + p2 * p2);
      if (length > limit) p1 *= limit / length, p2 *= limit / length;
      const Vector3<T> t1{c.basis(1, 0), c.basis(1, 1), c.basis(1, 2)};
      const Vector3<T> t2{c.basis(2, 0), c.basis(2, 1), c.basis(2, 2)};
      add_response(st, c, (p1 - c.impulse.y) * t1 + (p2 - c.impulse.z) * t2, a.rate);
      c.impulse.y = p1, c.impulse.z = p2;
    }
    if (sweep % 10 != 0) continue;
    T worst = T(0);
    for (int i = 0; i < m; ++i) {
      const PointContact<T>& c = contacts[i];
      const Vector3<T> rigid =
          clamp.velocity + cross(clamp.spin, st.vec(a.start_point, c.element) + c.d - clamp.point);
      worst = max_of(worst, contact_residual(c, contact_velocity(st, c, rigid, h)));
    }
    if (worst <= tolerance) break;
  }
}

// One semi-implicit step of the strand (the reference's `step` with the recursive method and no
// contacts): the clamp at the step's end, q̈ by the two passes, q̇ += h q̈, q += h q̇.
template <class T>
HS_HD StepCounts step(const HelixStrand<T>& st, const StepInput<T>& in) {
  const HelixBatchArrays<T>& a = st.a;
  const T h = in.dt, nu = in.internal_friction;
  const Clamp<T> clamp = clamp_of(st, in.head);
  forward_kinematics(st, clamp);
  const Mat<T, 4, 1> material = st.template get<4, 1>(a.material, 0);
  const T rho = material[3];
  // Pass 1, tip to root: the cumulated inertia and bias at each element's end (its child's).
  Inertia6<T> inertia_end{Matrix3<T>::zero(), Matrix3<T>::zero(), Matrix3<T>::zero(),
                          Matrix3<T>::zero()};
  Spatial<T> bias_end{};
  for (int q = a.elements - 1; q >= 0; --q) {
    const Vector3<T> kappa = st.vec(a.curvature, q), rate = st.vec(a.rate, q);
    const T length = st.scalar(a.length, q);
    const Matrix3<T> R = st.mat(a.start_frame, q);
    const Vector3<T> v0 = st.vec(a.start_velocity, q), w = st.vec(a.start_spin, q),
                     r0 = st.vec(a.start_point, q);
    Matrix3<T> D = Matrix3<T>::zero(), U_alpha = Matrix3<T>::zero(), U_a = Matrix3<T>::zero();
    Vector3<T> u{};
    Inertia6<T> inertia{Matrix3<T>::zero(), Matrix3<T>::zero(), Matrix3<T>::zero(),
                        Matrix3<T>::zero()};
    Spatial<T> bias{};
    // Its own mass: r̈ = X A + G q̈ + c at each quadrature point (eqs. 3a, 15), X = [−[d]×, I].
    for (int g = 0; g < in.quadrature; ++g) {
      const T at = in.nodes[g] * length, weight = in.weights[g] * length;
      const ElementPoint<T> e = element_point(kappa, rate, at);
      const Vector3<T> d = R * e.p;
      const Matrix3<T> G = R * e.P, Dx = cross_matrix(d);
      const Vector3<T> Gk = G * rate;
      const Vector3<T> c = cross(w, cross(w, d)) + T(2) * cross(w, Gk) + R * e.p2;
      const Vector3<T> velocity = v0 + cross(w, d) + Gk;
      const Vector3<T> tangent = R * Vector3<T>{e.E(0, 0), e.E(1, 0), e.E(2, 0)};
      const Vector3<T> f = applied_force(in, rho, r0 + d, velocity, tangent);
      const T m = weight * rho;
      const Matrix3<T> Gt = transpose(G);
      D += m * (Gt * G);
      U_alpha -= m * (Gt * Dx);
      U_a += m * Gt;
      u += weight * (Gt * (f - rho * c));
      // Xᵀ X = [[−[d]×², [d]×], [−[d]×, I]]; Xᵀ y = (d × y, y).
      inertia.aa -= m * (Dx * Dx);
      inertia.al += m * Dx;
      inertia.la -= m * Dx;
      inertia.ll += m * identity3<T>();
      const Vector3<T> y = weight * (rho * c - f);
      bias.angular += cross(d, y);
      bias.linear += y;
    }
    // Its descendants, through its end (App. A, eq. 14).
    const ElementPoint<T> e = element_point(kappa, rate, length);
    const Vector3<T> d_end = R * e.p;
    const Matrix3<T> H_alpha = R * e.Psi, H_a = R * e.P;
    const Vector3<T> Gk = H_a * rate;
    const Spatial<T> c_end{cross(w, H_alpha * rate) + R * e.psi2,
                           cross(w, cross(w, d_end)) + T(2) * cross(w, Gk) + R * e.p2};
    const Spatial<T> transmitted{inertia_end * c_end};
    const Spatial<T> tr{transmitted.angular + bias_end.angular,
                        transmitted.linear + bias_end.linear};
    // Hᵀ I_end H, Hᵀ I_end Φ, Hᵀ (I_end c_end + b_end), with H = [H_α; H_a].
    const Matrix3<T> IH_a = inertia_end.aa * H_alpha + inertia_end.al * H_a;  // rows α of I H
    const Matrix3<T> IH_l = inertia_end.la * H_alpha + inertia_end.ll * H_a;  // rows a of I H
    D += transpose(H_alpha) * IH_a + transpose(H_a) * IH_l;
    // I Φ = [[aa − al Dx, al], [la − ll Dx, ll]] (Dx = [d_end]×); Hᵀ (I Φ).
    const Matrix3<T> De = cross_matrix(d_end);
    const Matrix3<T> IPhi_aa = inertia_end.aa - inertia_end.al * De,
                     IPhi_la = inertia_end.la - inertia_end.ll * De;
    U_alpha += transpose(H_alpha) * IPhi_aa + transpose(H_a) * IPhi_la;
    U_a += transpose(H_alpha) * inertia_end.al + transpose(H_a) * inertia_end.ll;
    u -= transpose(H_alpha) * tr.angular + transpose(H_a) * tr.linear;
    const Inertia6<T> moved = shift_back(d_end, inertia_end);
    inertia.aa += moved.aa, inertia.al += moved.al, inertia.la += moved.la, inertia.ll += moved.ll;
    const Spatial<T> b = shift_back(d_end, tr);
    bias.angular += b.angular, bias.linear += b.linear;
    // Elasticity and internal friction with the semi-implicit terms: u −= K (κ − κ⁰) + ν K κ̇ +
    // h K κ̇, D += (h ν + h²) K.
    const Vector3<T> rest = st.vec(a.rest, q);
    for (int j = 0; j < 3; ++j) {
      const T stiff = length * material[j];
      u[j] -= stiff * (kappa[j] - rest[j]) + (nu + h) * stiff * rate[j];
      D(j, j) += (h * nu + h * h) * stiff;
    }
    // q̈ = D⁻¹ (u − U A): the cumulated inertia and bias at the start (eq. 16).
    const Matrix3<T> Di = inverse_spd(D);
    const Matrix3<T> DiU_alpha = Di * U_alpha, DiU_a = Di * U_a;
    const Vector3<T> Diu = Di * u;
    inertia.aa -= transpose(U_alpha) * DiU_alpha;
    inertia.al -= transpose(U_alpha) * DiU_a;
    inertia.la -= transpose(U_a) * DiU_alpha;
    inertia.ll -= transpose(U_a) * DiU_a;
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
  Spatial<T> A{clamp.angular_acceleration, clamp.acceleration - in.gravity};
  StepCounts counts;
  for (int q = 0; q < a.elements; ++q) {
    const Vector3<T> rhs = st.vec(a.u_rhs, q) - st.mat(a.u_map, 2 * q) * A.angular -
                           st.mat(a.u_map, 2 * q + 1) * A.linear;
    const Vector3<T> qddot = st.mat(a.d_inverse, q) * rhs;
    const Spatial<T> moved = shift(st.vec(a.chord, q), A);
    A = {moved.angular + st.mat(a.h_map, 2 * q) * qddot + st.vec(a.c_end, 2 * q),
         moved.linear + st.mat(a.h_map, 2 * q + 1) * qddot + st.vec(a.c_end, 2 * q + 1)};
    st.set(a.rate, q, st.vec(a.rate, q) + h * qddot);
  }
  resolve_contacts(st, in, clamp, counts);
  for (int q = 0; q < a.elements; ++q) {
    const Vector3<T> kappa = st.vec(a.curvature, q) + h * st.vec(a.rate, q);
    // x − x is 0 unless x is NaN or infinite.
    if (!(kappa.x - kappa.x == T(0) && kappa.y - kappa.y == T(0) && kappa.z - kappa.z == T(0)))
      counts.failures = 1;
    st.set(a.curvature, q, kappa);
  }
  forward_kinematics(st, clamp);
  sample_points(st);
  return counts;
}

}  // namespace hairsim::kernels::super_helix
