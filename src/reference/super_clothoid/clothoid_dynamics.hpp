#pragma once
// Super Space Clothoids: the dynamics of the CPU reference (eqs. 6-8, §7.2;
// docs/models/super-clothoids.md). Generalized coordinates q: the node curvatures κ̂i, 3(N + 1);
// M(q) q̈ + K (q − q⁰) + G(q) + A(q, q̇) = 0 with
//   M = ρS ∫ Jᵀ J ds,  G = −ρS ∫ Jᵀ g ds,  A = ρS ∫ Jᵀ (q̇ ∂²r/∂q² q̇) ds  (J = ∂r/∂q),
//   K the tridiagonal ∫ (∂κ/∂q)ᵀ K3 (∂κ/∂q) ds of the affine curvature (eq. 8).
// J and the velocity-product term come from the series of clothoid_kinematics.hpp (eq. 15 and
// its time derivatives), composed along the chain; the integrals along each element are those of
// the series themselves (§7.1: Cauchy products of the terms, integrated term by term, summed over
// the APS pieces), or, for comparison, a Gauss-Legendre rule.
#include <Eigen/Core>
#include <optional>
#include <vector>

#include "common/colliders.hpp"
#include "common/wind.hpp"
#include "hairsim/motion.hpp"
#include "reference/inverse_statics.hpp"
#include "reference/newton_statics.hpp"
#include "reference/super_clothoid/clothoid_kinematics.hpp"

namespace hairsim::super_clothoid {

using VecX = Eigen::VectorXd;
using MatX = Eigen::MatrixXd;

// How M, G and A are integrated along the elements.
enum class Integration { series, quadrature };

struct ClothoidRod {
  SuperClothoid shape;  // node curvatures (q), lengths, summation; root: the clamp at `time`
  Frame clamp;          // the clamp at t = 0, moved by `motion`
  ClampMotion motion;
  std::vector<Vec3> rest_curvature;  // κ̂⁰ per node
  std::vector<Vec3> curvature_rate;  // q̇ per node
  Vec3 stiffness = Vec3::Ones();     // K3 = diag(GJ, EI1, EI2), N m²
  double linear_density = 1;         // ρS, kg/m
  Vec3 gravity = Vec3::Zero();       // m/s²
  double internal_friction = 0;      // ν, s: the generalized force −ν K q̇
  // The air's viscous drag per unit length against the wind (N s/m², resistive force theory as
  // the other models: kernels/common/drag.hpp), and a force on the tip (N).
  // The wind is `wind` plus the travelling gusts `gusts` (kernels/common/wind.hpp; none by
  // default), read at each point and time: `wind` enters the series, the gusts (not a polynomial
  // along the rod) a Gauss-Legendre rule on each APS piece. `damping` (1/s): a force −damping ρS ṙ
  // per unit length (the hairstyles' "damping", as the other models').
  double drag_normal = 0, drag_tangent = 0;
  Vec3 wind = Vec3::Zero();
  kernels::WindField<double> gusts;
  double damping = 0;
  Vec3 tip_force = Vec3::Zero();
  // Obstacles with their Coulomb μ: velocity-level contacts at the quadrature points after each
  // step's unconstrained solve, as the Super-Helix's (src/reference/contact_impulses.hpp),
  // keeping the centreline `contact_thickness` outside. They are static in the world, or carried
  // by `obstacle_motion` (a head's: `colliders` then in its frame). Points closer to the clamp
  // than `contact_start` (m of arc length) take no contacts (a hairstyle's strand: the span the
  // head holds).
  std::vector<kernels::Collider<double>> colliders;
  double contact_thickness = 0;
  int contact_sweeps = 1000;
  std::optional<ClampMotion> obstacle_motion;
  double contact_start = 0;
  Integration integration = Integration::series;
  // Gauss-Legendre points per element: the contacts' and energies' sample points, and M, G, A
  // with Integration::quadrature.
  int quadrature = 8;
  // §7.2's option for fast, nervous motions: the inertial term A implicit at first order in q̇
  // (its Jacobian by differences, n evaluations of the forces a step: for tests and studies).
  bool implicit_inertia = false;
  double time = 0;
};

// A rod of `elements` equal elements along `length`, at rest in the rest curvature `rest`
// (every node), clamped at `root`.
ClothoidRod straight_rod(int elements, double length, const Vec3& rest, const Frame& root);

VecX coordinates(const ClothoidRod& rod);
VecX rates(const ClothoidRod& rod);
void set_coordinates(ClothoidRod& rod, const VecX& q);
void set_rates(ClothoidRod& rod, const VecX& qdot);

// K of eq. (8).
MatX stiffness_matrix(const ClothoidRod& rod);

// M(q) and the generalized forces −G − A (gravity and the velocity-product inertia, the clamp's
// motion at time t included), the air's drag and the tip force.
struct Dynamics {
  MatX mass;
  VecX forces;
};
Dynamics dynamics(const ClothoidRod& rod, double t);
// The forces alone (dynamics(rod, t).forces, the same values): the statics' and ∂A/∂q̇'s, which
// need no M (with the series, M's Gram products of 21 series were most of a static force's cost).
VecX generalized_forces(const ClothoidRod& rod, double t);

// q̈ of the semi-implicit step (§7.2: the linear elastic terms implicit, the rest explicit):
// (M + h ν K + h² K) q̈ = −G − A − K (q − q⁰) − (ν + h) K q̇ with the clamp at t + h; h = 0:
// the equations of motion at t.
VecX accelerations(const ClothoidRod& rod, double h);
// q̇ += h q̈, the contacts' impulses added to q̇, q += h q̇, t += h (the root then at the clamp's
// new pose). Throws RunFailure on a non-finite state.
struct StepReport {
  int contacts = 0, active_contacts = 0, sweeps = 0;
  bool converged = true;  // the contact problem met its tolerance
  double residual = 0;    // m/s
};
StepReport step(ClothoidRod& rod, double dt);
// The root (shape.root) at the clamp's pose at the rod's time (a step does it; a restored state
// needs it).
void place_root(ClothoidRod& rod);

// The deepest quadrature point below the obstacles' surfaces minus the thickness (m; 0: none).
double max_penetration(const ClothoidRod& rod);

struct Energies {
  double kinetic = 0, elastic = 0, gravity = 0;
  double total() const { return kinetic + elastic + gravity; }
};
Energies energies(const ClothoidRod& rod);

// Static equilibrium under gravity: Newton on −G − K(q − q⁰) = 0 (Hessian by central differences
// of the forces, a line search on the potential), until the forces' norm is below `tolerance`.
using StaticReport = reference::StaticReport;
StaticReport solve_static(ClothoidRod& rod, double tolerance, int max_iterations = 100);

// Inverse statics (reference/inverse_statics.hpp): sets the nodes' rest curvatures so that the
// rod's current shape is a static equilibrium under gravity with the clamp at rest where it is
// (no wind, no tip force): K (q − q⁰) = −G(q), exact (K of eq. (8) is positive definite). Where
// that equilibrium is unstable the groomed rest is kept (HeldShape::held).
reference::HeldShape hold_shape(ClothoidRod& rod);

// The tip (the last element's end).
Vec3 tip(const ClothoidRod& rod);

// The centreline's points and their velocities at arc lengths `s` (ascending, in [0, L]), the
// rod's state and clamp at its time.
struct PointMotion {
  Vec3 x, v;
};
std::vector<PointMotion> point_motions(const ClothoidRod& rod, const std::vector<double>& s);

}  // namespace hairsim::super_clothoid
