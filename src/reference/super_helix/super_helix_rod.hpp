#pragma once
// Super-Helices (Bertails 2009, "Linear Time Super-Helices"; [BAC*06]): a rod made of helical
// elements, each with a constant Darboux vector κ_Q = (κ0 twist, κ1, κ2 curvatures) in its
// material frame, clamped at its root and free at its tips; elements may branch (§5: a tree).
// The reference: double precision, Eigen, clarity first (docs/models/super-helices.md).
//
// Coordinates. Every element's frame R(u) and centreline r(u), u ∈ [0, ℓ_Q] from its start,
// are closed forms of κ_Q (eqs. 2a-2b integrated: R(u) = R_Q exp(u[κ]×), r(u) = r_Q + R_Q p(u),
// p(u) = u V(uκ) e0, kernels/super_helix/helix_series.hpp). The generalized coordinates are
// κ_{1,Q}, κ_{2,Q} with the twist frozen at its rest value (§4.4, the default) or all three.
//
// Mass is the centreline's, ρS per unit length (no rotational inertia, as in the paper), and
// every integral along an element (kinetic energy, generalized forces) is a Gauss-Legendre rule
// with `quadrature` points per element.
#include <Eigen/Core>
#include <optional>
#include <vector>

#include "common/colliders.hpp"
#include "common/wind.hpp"
#include "hairsim/motion.hpp"
#include "reference/gauss_legendre.hpp"
#include "reference/inverse_statics.hpp"
#include "reference/newton_statics.hpp"

namespace hairsim::super_helix {

using Vec3 = Eigen::Vector3d;
using Mat3 = Eigen::Matrix3d;
using VecX = Eigen::VectorXd;
using MatX = Eigen::MatrixXd;

// The twist's coordinate: frozen at its rest value (§4.4: κ1, κ2 per element; the paper's
// recursive method inverts these 2 x 2 mass matrices) or free (all three; with no rotational
// inertia the twist is then massless and only the semi-implicit system, h² K in it, is regular).
enum class Twist { frozen, free };

struct Element {
  int parent = -1;                     // index of the element it continues; -1: the root clamp
  double length = 0;                   // m
  Vec3 rest_curvature = Vec3::Zero();  // κ⁰ (twist, curvature 1, curvature 2), 1/m
};

struct SuperHelix {
  std::vector<Element> elements;  // a parent always comes before its children
  Vec3 stiffness = Vec3::Ones();  // (GJ, EI1, EI2), N m²
  double linear_density = 1;      // ρS, kg/m
  double internal_friction = 0;   // ν, s: the generalized force −ν K κ̇ (§4.5)
  Twist twist = Twist::free;
  // The velocity-product forces (centrifugal, Coriolis, the drag's) implicit at first order in
  // κ̇: B(κ̇ + Δt κ̈) ≈ B(κ̇) + Δt ∂B/∂κ̇ κ̈ in the step (as the Super Space Clothoid's §7.2 option).
  // Explicit, they turn the rates of fast-turning elements by Δt Ω a step and so add energy at
  // the rate Δt Ω² (a brisk head shake: Ω ~ 10⁴ rad/s); implicit, the step takes it. The step's
  // matrix is then neither symmetric nor block-structured: solved dense (LU), whichever method.
  bool implicit_inertia = false;
  int quadrature = 8;  // Gauss-Legendre points per element

  // Loads: gravity (m/s²), the air's viscous drag per unit length against the wind (N s/m²,
  // resistive force theory as the other models: kernels/common/drag.hpp), a force at each
  // element's end (N; on a leaf, the tip force of §4.5) and a couple there (N m).
  // The wind is `wind` plus the travelling gusts `gusts` (kernels/common/wind.hpp; none by
  // default), read at each point and time; `damping` (1/s) a force −damping ρS ṙ per unit length
  // (the hairstyles' "damping", as the other models').
  Vec3 gravity = Vec3::Zero();
  double drag_normal = 0, drag_tangent = 0;
  Vec3 wind = Vec3::Zero();
  kernels::WindField<double> gusts;
  double damping = 0;
  std::vector<Vec3> end_force;   // empty, or one per element
  std::vector<Vec3> end_moment;  // N m, at each element's end; empty, or one per element

  // Static obstacles (the kernels' shapes and signed distances, world frame), each with its
  // Coulomb friction μ. Contacts are velocity-level constraints at the quadrature points, solved
  // after each step's unconstrained solve (docs/models/super-helices.md, "Contacts"): impulses
  // (normal ≥ 0, tangential within μ times the normal) that keep every point at least
  // `contact_thickness` (m) outside at the step's end, to first order in Δt, and stop its slip
  // where friction can hold it; by projected Gauss-Seidel, at most `contact_sweeps` sweeps.
  std::vector<kernels::Collider<double>> colliders;
  double contact_thickness = 0;
  int contact_sweeps = 1000;
  // The colliders' motion (a head's, which carries them: `colliders` then in its frame); none:
  // static in the world. Points closer to the clamp than `contact_start` (m of arc length) take
  // no contacts (a hairstyle's strand: the span the head holds, its first output edge).
  std::optional<ClampMotion> obstacle_motion;
  double contact_start = 0;

  // The root clamp: its point and material frame (columns n0 = tangent, n1, n2) at t = 0, moved
  // by `motion` (rigid motion about its centre, and a twist about the tangent).
  Vec3 root_point = Vec3::Zero();
  Mat3 root_frame = Mat3::Identity();
  ClampMotion motion;

  // State: κ and κ̇ per element (the frozen twist stays at its rest value, its rate 0).
  std::vector<Vec3> curvature, curvature_rate;
  double time = 0;

  int coordinates_per_element() const { return twist == Twist::frozen ? 2 : 3; }
  int coordinate_count() const { return coordinates_per_element() * int(elements.size()); }
  // Component of κ that coordinate j of an element is (frozen twist: 1, 2; free: 0, 1, 2).
  int component(int j) const { return twist == Twist::frozen ? j + 1 : j; }
};

// A chain of `elements` equal elements along `length`, all with the rest Darboux vector `rest`,
// at rest in it, clamped at `root_point` with material frame `root_frame`.
SuperHelix chain(int elements, double length, const Vec3& rest, const Vec3& root_point,
                 const Mat3& root_frame);

// The generalized coordinates q (κ's active components) and rates q̇, element after element.
VecX coordinates(const SuperHelix& rod);
VecX rates(const SuperHelix& rod);
void set_coordinates(SuperHelix& rod, const VecX& q);
void set_rates(SuperHelix& rod, const VecX& qdot);

// The clamp's pose and its motion at time t (velocities and accelerations by central differences
// of the prescribed motion, 4th order, step 1e-3 s; exactly zero for a clamp that does not move).
struct RootState {
  Vec3 point, velocity, acceleration;
  Mat3 frame;
  Vec3 angular_velocity, angular_acceleration;
};
RootState root_state(const SuperHelix& rod, double t);

// One element's kinematics at abscissa u, in the frame of its start (R_Q = I, r_Q = 0), for
// Darboux vector κ and rate κ̇:
//   E = exp(u[κ]×)            the frame;            p = ∫₀ᵘ E e0           the centreline
//   Ψ = ∫₀ᵘ E = u V(uκ)        ω(u) = ω_Q + R_Q Ψ κ̇  (∂ω/∂u = R κ̇: the frame's compatibility)
//   P = ∂p/∂κ                 ṙ(u) = v_Q + ω_Q × R_Q p + R_Q P κ̇
//   p2 = (d/dt P) κ̇ = ∂²p/∂κ² [κ̇, κ̇],   psi2 = (d/dt Ψ) κ̇: the velocity-product terms of r̈, α.
struct ElementPoint {
  Mat3 E, Psi, P;
  Vec3 p, p2, psi2;
};
ElementPoint element_point(const Vec3& kappa, const Vec3& kappa_rate, double u);

// Gauss-Legendre nodes and weights on [0, 1] (src/reference/gauss_legendre.hpp).
using Quadrature = quadrature::Rule;
using quadrature::gauss_legendre;

// Where each element starts and how it moves there (the velocity-level forward kinematics).
struct ElementStart {
  Vec3 point, velocity, angular_velocity;
  Mat3 frame;
};
std::vector<ElementStart> element_starts(const SuperHelix& rod, const RootState& root);

// The centreline: `per_element` + 1 points per element (ends included; an element's first point
// is its parent's last), element after element. And the tip of the last element.
std::vector<Vec3> centerline(const SuperHelix& rod, int per_element, double t);
Vec3 end_point(const SuperHelix& rod, int element, double t);

// Generalized accelerations q̈ solving (M + h ν K + h² K) q̈ = B − K(q − q⁰) − ν K q̇ − h K q̇
// at time t (the clamp's motion at t): h = 0 gives the equations of motion (9) themselves, h = Δt
// the semi-implicit Euler step of [BAC*06].
//  composite: M and B assembled (dense, O(N²) entries) and solved by LDLᵀ: [BAC*06] eq. (9).
//  recursive: the two passes of §4 and App. A (cumulated inertias tip → root, accelerations
//             root → tip), O(N); gravity by Featherstone's trick (§4.6). `paper_first_pass`
//             builds the cumulated inertias with the stiffness explicit, as eq. (16) does,
//             and solves each element's system semi-implicitly in the second pass (§4.3): not
//             the same linear system when h > 0 (§6.3 blames it for a smaller stable Δt).
enum class Method { composite, recursive };
VecX accelerations(const SuperHelix& rod, Method method, double h, double t,
                   bool paper_first_pass = false);

// The composite method's pieces, for tests: M(q) and B(q, q̇, t) of eq. (9) with K's terms
// excluded (M q̈ = B − K(q − q⁰) − νK q̇).
struct CompositeSystem {
  MatX mass;
  VecX forces;
};
CompositeSystem composite_system(const SuperHelix& rod, double t);
// K: ℓ_Q (GJ, EI1, EI2) on the active components (diagonal).
VecX stiffness_diagonal(const SuperHelix& rod);

// ∂B/∂q̇ at time t: how the generalized forces of `composite_system` change with the rates (the
// velocity-product terms and the drag; central differences, exact for their degree ≤ 2 in q̇).
MatX force_rate_jacobian(const SuperHelix& rod, double t);

// One semi-implicit Euler step: q̈ from `accelerations(rod, method, dt, t + dt)`, q̇ += dt q̈, the
// contacts' impulses added to q̇ (through the same method's operator), then q += dt q̇; with
// `implicit_inertia`, (M − dt ∂B/∂q̇ + dt ν K + dt² K) q̈ = B − K(q − q⁰) − (ν + dt) K q̇ instead.
// Throws RunFailure on a non-finite state.
struct StepReport {
  int contacts = 0;         // contact points (point and obstacle pairs) in the contact problem
  int active_contacts = 0;  // of which pushed (a normal impulse > 0)
  int sweeps = 0;           // projected Gauss-Seidel sweeps
  bool converged = true;    // the sweeps met their tolerance before contact_sweeps
  double residual = 0;      // m/s: how far the impulses are from solving the contact problem
};
StepReport step(SuperHelix& rod, double dt, Method method, bool paper_first_pass = false);

// Energies: kinetic ½∫ρS|ṙ|², elastic ½ Σ ℓ (κ − κ⁰)ᵀ diag(GJ, EI, EI) (κ − κ⁰), gravity −∫ρS g·r.
struct Energies {
  double kinetic = 0, elastic = 0, gravity = 0;
  double total() const { return kinetic + elastic + gravity; }
};
Energies energies(const SuperHelix& rod);

// The deepest quadrature point below the colliders' surfaces minus the thickness (m; 0: none).
double max_penetration(const SuperHelix& rod);

// Static equilibrium under gravity and the end forces (velocities set to 0): Newton on the
// potential energy with a Hessian by central differences of the generalized forces and a
// backtracking line search, until the generalized forces' norm is below `tolerance` (N m).
using StaticReport = reference::StaticReport;
StaticReport solve_static(SuperHelix& rod, double tolerance, int max_iterations = 200);

// Inverse statics (reference/inverse_statics.hpp): sets the elements' rest Darboux vectors so
// that the rod's current shape is a static equilibrium under gravity with the clamp at rest at
// `rod.time` (no wind, no end loads): K (κ − κ̄) = Jᵀ f, i.e. κ̄ = κ − K⁻¹ Jᵀ f, K diagonal and
// positive, so the solve is exact. Where that equilibrium is unstable the groomed rest is kept
// (HeldShape::held).
reference::HeldShape hold_shape(SuperHelix& rod);

}  // namespace hairsim::super_helix

namespace hairsim::super_helix {

// A rod of `elements` equal elements fitted to a polyline (root first): the root frame from the
// first edge, then element after element (root to tip) the Darboux vector that brings the
// element's centreline closest, in least squares, to the polyline's points over its span
// (Levenberg-Marquardt on the element's 3 components, started from the previous element's κ),
// then all
// elements together against every point (Levenberg-Marquardt again).
// The rod is at rest on its fit. `max_error` is the largest distance of a polyline point from the
// fitted centreline at the same arc length (m).
struct Fit {
  SuperHelix rod;
  double max_error = 0;
};
Fit fit_polyline(const std::vector<Vec3>& points, int elements);

}  // namespace hairsim::super_helix
