#pragma once
// DER time stepping, reference backend: symplectic Euler on the centerline (§7.2) with
// inextensibility enforced by fast projection (§8.1), the material frame quasistatic (§5.1).
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <vector>

#include "common/colliders.hpp"
#include "common/wind.hpp"
#include "der/der_parameters.hpp"
#include "hairsim/motion.hpp"
#include "reference/der/der_rod.hpp"
#include "reference/inverse_statics.hpp"

namespace hairsim::der {

using hairsim::ClampMotion;            // include/hairsim/motion.hpp
using kernels::der::LengthConstraint;  // kernels/der/der_parameters.hpp

// A clamped end: its edge's two vertices and material frame follow the motion rigidly.
struct Clamp {
  bool active = false;
  int edge = 0;                         // 0 (root) or the last edge (tip)
  Vec3 pivot = Vec3::Zero();            // the clamp point at t = 0: midpoint of the edge
  std::array<Vec3, 2> offset{};         // the edge's vertices relative to the pivot at t = 0
  Vec3 material_vector = Vec3::Zero();  // m1 of the edge at t = 0
  ClampMotion motion;
};

struct DynamicRod {
  RestShape rest;
  RodState state;
  std::vector<Vec3> velocity;  // m/s per vertex
  std::vector<double> mass;    // kg per vertex (lumped: half of each adjacent rest edge)
  std::vector<bool> fixed;     // vertices held in place (a clamped end fixes two)
  TwistBoundary twist;
  Vec3 gravity = Vec3::Zero();  // m/s²
  double damping = 0;           // viscous damping rate (1/s): force -damping * mass * velocity
  // Air drag per unit length, linear in the velocity relative to the air (drag_matrix).
  double drag_normal = 0;           // N s/m², across the rod
  double drag_tangent = 0;          // N s/m², along it
  kernels::WindField<double> wind;  // the air's velocity (mean and gusts), at the step's start
  // Axial stiffness EA (N), used by the linearly implicit integrator, where stretching is a stiff
  // elastic term instead of a constraint (der_implicit.hpp).
  double stretching_stiffness = 0;
  double time = 0;  // s
  // Quasistatic twist solve after each step: max |∂E/∂θ^j| (N m). The default suits rods of
  // stiffness ~1 N m²; hair (EI ~ 1e-8 N m²) needs a tolerance scaled to EI / h.
  double twist_tolerance = 1e-10;
  Clamp root_clamp, tip_clamp;
  // Applied loads: a force per vertex (N; empty for none) and a moment on the tip edge (N m).
  // The moment's part along the tip tangent twists the rod (TwistBoundary::last_torque, set each
  // step); the rest bends it, applied as a force couple on the last edge.
  std::vector<Vec3> point_force;
  Vec3 tip_moment = Vec3::Zero();
  // Analytic colliders (kernels/common/colliders.hpp), in their own frame, carried by
  // `collider_motion` (a head: rotation about its centre plus translation).
  std::vector<kernels::Collider<double>> colliders;
  ClampMotion collider_motion;
};

// A rod at rest on `polyline` (its own rest shape, paper §4.1.1): isotropic bending stiffness
// (N m²), twist stiffness (N m²), linear density (kg/m) lumped on the vertices; u⁰ = any normal
// to the first edge, θ = 0, no velocity, nothing clamped, no gravity.
DynamicRod rod_at_rest(const std::vector<Vec3>& polyline, double bending, double twisting,
                       double linear_density, bool closed = false);

// Inverse statics (reference/inverse_statics.hpp): sets the rest curvatures ω̄ and twists m̄ so
// that the rod's current shape, its root edge clamped (vertices 0, 1 and θ⁰ held) and its
// material frame where it is, is a static equilibrium under `gravity`: every free vertex's
// elastic force balances its weight, with a tension along each free edge for the length the rod
// keeps (its stretching's; 1e-6 strain for a hair's weight), and ∂E/∂θʲ = 0 on every free edge
// (the quasistatic frame stays put). Rotating the rod beyond vertex i about x_i changes only
// E_i, so vertex i's ω̄ and m̄ carry the moment of the weight beyond it; m̄ carries its part
// about the tangent where the strand is straight (ω = 0: no bending term turns with it). Of the
// rest shapes that do, the nearest to the groomed one. Open rods.
reference::HeldShape hold_shape(DynamicRod& rod, const Vec3& gravity);

// Applied loads on the vertices (point forces and the bending part of the tip moment); sets the
// twisting part as the twist boundary's torque.
void add_applied_loads(DynamicRod& rod, const Frames& f, std::vector<Vec3>& force);

// Air drag on vertex i, f = -D (v - wind) with D = ℓ_i [ζ⊥ (I - t tᵀ) + ζ∥ t tᵀ]: resistive
// force theory of a slender fibre in a viscous fluid (the air resists motion across the fibre
// more than along it; for a cylinder in Stokes flow ζ∥ ≈ ζ⊥ / 2), ℓ_i the vertex's share of the
// rest length (half of each adjacent edge), t the unit mean of its edges' tangents.
Mat3 drag_matrix(const DynamicRod& rod, const Frames& f, int i);
// The wind at vertex i at the rod's time (the start of a step).
Vec3 wind_at(const DynamicRod& rod, int i);
bool has_drag(const DynamicRod& rod);

// Clamps an end of the rod in its current pose (vertices fixed, material frame prescribed),
// with an optional motion.
void clamp_end(DynamicRod& rod, bool tip, const ClampMotion& motion = {});

// Moves the clamped vertices to their pose at time t (positions returned in `x`) and returns, per
// clamp, the prescribed material vector at t.
struct ClampTargets {
  Vec3 root_m1 = Vec3::Zero(), tip_m1 = Vec3::Zero();
};
ClampTargets place_clamps(const DynamicRod& rod, double t, std::vector<Vec3>& x);
// The end of every integrator's step: the centerline moves to `x` (Bishop frame update, §4.2.2),
// clamped edges take the θ of their prescribed material vectors (a clamped last edge without a
// Clamp record keeps `held_m1`), the material frame becomes quasistatic again (§5.1), and the
// clock advances by dt.
void finish_step(DynamicRod& rod, const std::vector<Vec3>& x, const ClampTargets& targets,
                 const Vec3& held_m1, double dt);

struct ProjectionReport {
  int iterations = 0;
  double max_length_error = 0;  // max | |e^j| - |ē^j| | after projection, edges it moves (m)
};

// Lumped masses ρ S (|ē^{i-1}| + |ē^i|) / 2 from a linear density ρS (kg/m).
std::vector<double> lumped_masses(const RestShape& rest, double linear_density);

// The edge-length part of a fast projection: constraints C_j = |e^j|² - |ē^j|², gradients -2e^j
// at the edge's start and +2e^j at its end, and the matrix A = ∇C W ∇Cᵀ (W: inverse masses),
// tridiagonal for a chain (cyclic for a ring, `corner` coupling the last and first edges):
// A_jj = 4|e^j|² (w_start + w_end); edges j, j+1 sharing vertex v couple by -4 (e^j . e^{j+1}) w_v.
// An edge whose length is already enforced is dropped (identity row, C_j = 0): one with both
// vertices fixed (a clamp), and `welded_edge` (-1: none), held rigid by a body's weld. Keeping
// a welded edge would make the bordered system singular: its constraint is a combination of the
// weld's rows.
struct LengthSystem {
  std::vector<Vec3> e;
  std::vector<double> c, lower, diag, upper;
  double corner = 0;
  double max_length_error = 0;  // max | |e^j| - |ē^j| | over the edges not dropped (m)
  std::vector<bool> dropped;
};
void assemble_length_system(const std::vector<Vec3>& x, const RestShape& rest,
                            const std::vector<double>& inverse_mass, int welded_edge,
                            LengthSystem& system);

// Fast projection (Goldenthal et al. 2007, as in DER §8.1): Newton iterations on the
// constraints C_j = |e^j|² - |ē^j|² in the mass metric; each solves the tridiagonal system
// (∇C M⁻¹ ∇Cᵀ) δλ = C by the Thomas algorithm. Fixed vertices have infinite mass.
// Stops when every edge length is within `tolerance` (m) of its rest length.
ProjectionReport project_inextensible(std::vector<Vec3>& x, const RestShape& rest,
                                      const std::vector<double>& mass,
                                      const std::vector<bool>& fixed, double tolerance,
                                      int max_iterations = 50);

// Contacts at the end of a step from t to t + dt: every free vertex of `x` inside a collider is
// put on its surface and marked in `pinned`; its velocity (as it penetrated) becomes the contact
// velocity (inelastic, Coulomb friction, relative to the moving surface). With `normals` and
// `offsets`, each contact's tangent plane n . x = n . s (world) is recorded there. Returns
// whether any vertex touched.
// With `refresh_depth` >= 0 (after a projection on the planes), only vertices deeper than it
// count, and a vertex already pinned keeps its contact velocity (its position and plane move).
bool resolve_contacts(DynamicRod& rod, double t, double dt, std::vector<Vec3>& x,
                      std::vector<bool>& pinned, std::vector<Vec3>* normals = nullptr,
                      std::vector<double>* offsets = nullptr, double refresh_depth = -1);

// Fast projection with contact planes: the edge-length constraints of project_inextensible
// (edges with both ends `fixed` dropped) plus, for each vertex marked in `on_plane`, the plane
// n_i . x_i = offset_i it slides on. Newton steps on all constraints in the mass metric, each
// solving (∇Φ M⁻¹ ∇Φᵀ) δλ = Φ with Eigen's sparse LDLᵀ (the kernels use a 2 x 2 block
// Thomas: an independent solver). Stops when every kept edge length and every plane is within
// `tolerance` (m).
ProjectionReport project_on_contact_planes(std::vector<Vec3>& x, const RestShape& rest,
                                           const std::vector<double>& mass,
                                           const std::vector<bool>& fixed,
                                           const std::vector<bool>& on_plane,
                                           const std::vector<Vec3>& normals,
                                           const std::vector<double>& offsets, double tolerance,
                                           int max_iterations = 50);

// The end of every integrator's position update, `x` holding the unconstrained positions at
// t + dt (clamped vertices placed) and rod.state.x those at t: fast projection onto the rest
// lengths to `length_tolerance` (m) with the velocity update v = (x_projected - x_old) / h
// (§8.1), then contacts (pinned), and with any contact the rest re-projected while contacts
// slide on their tangent planes, as `lengths` says (kernels' LengthConstraint): always (the
// symplectic step), only where an edge is off its rest length by more than the tolerance (the
// implicit step of hair: a strain limit; stiff stretching alone let hair stretch 227 % under a
// 3 rad, 8 Hz shake, issue 27), or never (contacts alone). Returns the projections' iterations.
ProjectionReport constrain_positions(DynamicRod& rod, std::vector<Vec3>& x, double dt,
                                     double length_tolerance, LengthConstraint lengths);
// max | |e^j| - |ē^j| | (m) over the edges not held at both ends.
double worst_length_error(const std::vector<Vec3>& x, const RestShape& rest,
                          const std::vector<bool>& fixed);

// One step of Algorithm 1 (lines 6-11): forces, symplectic Euler, projection with the
// velocity update v = (x_projected - x_old) / h, contacts (pinned, then the rest re-projected),
// Bishop frame update, quasistatic twist.
ProjectionReport step_symplectic(DynamicRod& rod, double dt, double length_tolerance);

// Kinetic energy ½ Σ m |v|² and gravitational potential -Σ m g . x (J).
double kinetic_energy(const DynamicRod& rod);
double gravity_energy(const DynamicRod& rod);

}  // namespace hairsim::der

namespace hairsim::der {

struct RelaxReport {
  int steps = 0;
  double max_speed = 0;  // m/s at the end
  bool converged = false;
};

// Static mode: dynamic relaxation. Damped steps of `step` (the rod's own damping replaced by
// `damping`, best near twice the first natural frequency) until every vertex moves slower than
// `speed_tolerance` (m/s); the remaining position error is about speed_tolerance / damping.
RelaxReport relax(DynamicRod& rod, double damping, double speed_tolerance, int max_steps,
                  const std::function<void(DynamicRod&)>& step);
// relax() with symplectic Euler + projection steps of dt.
RelaxReport relax_to_equilibrium(DynamicRod& rod, double dt, double damping, double speed_tolerance,
                                 int max_steps);

}  // namespace hairsim::der
