#pragma once
// Cosserat time stepping, reference backend (§3, Alg. 1-2): implicit Euler as the minimisation
// of eq. (10), inexact Newton with A = JᵀHJ and a line search on the merit function (11),
// PCG for every linear solve, clamped or moving roots, and obstacles through the active-set
// method of App. B with the Schur-complement KKT solve of eqs. (13)-(14).
#include <functional>
#include <optional>
#include <span>
#include <vector>

#include "common/colliders.hpp"
#include "common/wind.hpp"
#include "hairsim/motion.hpp"
#include "reference/cosserat/cosserat_solver.hpp"
#include "reference/inverse_statics.hpp"

namespace hairsim::cosserat {

// A clamped root (a Dirichlet condition, §3): the root vertex and segment 0's material frame
// follow `motion` rigidly, with DER's clamp convention (pivot at the midpoint of segment 0).
struct RootClamp {
  bool active = false;
  Vec3 pivot = Vec3::Zero();      // midpoint of segment 0 at t = 0 (m)
  Vec3 offset = Vec3::Zero();     // p_0 - pivot at t = 0 (m)
  Mat3 frame = Mat3::Identity();  // segment 0's material frame at t = 0
  ClampMotion motion;
};

struct SolverSettings {
  PreconditionerKind preconditioner = PreconditionerKind::hybrid;
  double newton_tolerance = 1e-5;  // stop at ‖b - ∇C_Aᵀλ‖₂ below this (§4; N and N m)
  int newton_max_iterations = 5;   // §4
  PcgSettings pcg;
  int active_set_max_iterations = 200;  // equality-constrained QPs per Newton iteration
  // Newton's matrix: the paper's Gauss-Newton Jᵀ H J (§3.1), or with the chain's curvature
  // added (HessianX::chain; the hair engine's default, docs/models/cosserat.md).
  bool chain_curvature = false;
};

// Vertex `vertex` against obstacle `obstacle`: C = φ(p_v) - δ >= 0 (eq. 32 for a vertex and a
// static analytic obstacle, φ its signed distance).
struct ContactPair {
  int vertex = 0, obstacle = 0;
  bool operator==(const ContactPair&) const = default;
};

struct CosseratRod {
  RestShape rest;
  VecX s;                              // the configuration [p_c, ω_0, ..., ω_{n-2}]
  std::vector<Vec3> velocity;          // ṗ per vertex (m/s)
  std::vector<Vec3> angular_velocity;  // Ω per segment, body frame (rad/s)
  Vec3 gravity = Vec3::Zero();         // m/s²
  // Linear resistance, taken implicitly (StepStart::resistance): viscous damping, force
  // -damping m ṗ, and air drag per unit length as DER's (kernels/der/der_strand.hpp,
  // drag_matrix): -ℓ [ζ⊥ (I - ttᵀ) + ζ∥ ttᵀ] (ṗ - wind), t the vertex's tangent at the step's
  // start, the wind evaluated there.
  double damping = 0;                        // 1/s
  double drag_normal = 0, drag_tangent = 0;  // N s/m²
  kernels::WindField<double> wind;
  RootClamp root;
  // Obstacles: static in the world frame, or, with obstacle_motion, in a head frame carried by
  // that motion (x_world = R(t) (x_head - c) + c + T(t), c its centre, the origin by default).
  std::vector<kernels::Collider<double>> obstacles;
  std::optional<ClampMotion> obstacle_motion;
  double contact_thickness = 0;  // δ: how far the centerline stays from obstacles (m)
  // Coulomb friction of the obstacles (their `friction` μ; the paper has none): the lagged,
  // smoothed potential of kernels/common/friction.hpp, with the last step's multipliers as the
  // normal forces; slips slower than stick_speed (ε_v) count as sticking.
  double stick_speed = 1e-3;          // m/s
  double time = 0;                    // s
  std::vector<ContactPair> active;    // the last step's active set (warm start of the next)
  std::vector<double> contact_force;  // their multipliers λ (N), the next step's normal forces
};

struct StepReport {
  int newton_iterations = 0;  // Newton updates taken
  int pcg_solves = 0;
  int pcg_iterations = 0;  // summed over the solves
  int kkt_systems = 0;     // equality-constrained QPs solved (Alg. 2 rounds)
  int line_search_halvings = 0;
  int active_contacts = 0;      // at the end of the step
  double residual = 0;          // ‖b - ∇C_Aᵀλ‖₂ at the last check
  bool converged = false;       // residual below newton_tolerance within the iterations
  bool stopped_at_cap = false;  // Newton stopped at newton_max_iterations, not converged
  double max_penetration = 0;   // max(0, δ - φ) over vertices and obstacles at the end (m)
};

// A free rod at rest in the shape of `polyline` (frames as configuration_from_polyline).
CosseratRod rod_at_rest(std::span<const Vec3> polyline, const Vec3& stiffness, const Vec3& inertia,
                        double linear_density, const Vec3& first_d1 = Vec3::Zero(),
                        BendingStrain measure = BendingStrain::tangent);
// Clamps the root (root vertex and segment 0) where it is now; it then follows `motion`.
void clamp_root(CosseratRod& rod, const ClampMotion& motion = {});

// Inverse statics (reference/inverse_statics.hpp): sets the rest Darboux vectors ε̄ so that the
// rod's current configuration, its root clamped (the root vertex and segment 0 held), is a
// static equilibrium under `gravity`: ∂(V + G)/∂ω_i = 0 for every free segment i (eq. 29's
// bending and twisting against the weight beyond). The chain of eq. (7) keeps every length, so
// the 3 (n − 2) equations in the 3 (n − 2) unknowns ε̄ are square: each interior vertex's
// moment carries the weight beyond it.
reference::HeldShape hold_shape(CosseratRod& rod, const Vec3& gravity);

// One implicit Euler step of `dt` seconds (Alg. 1). Throws RunFailure on a non-finite state.
StepReport step(CosseratRod& rod, double dt, const SolverSettings& settings);

// Equilibrium by proximal steps: implicit Euler steps from rest (velocities zeroed before each),
// i.e. minimising V + G + ½‖x - x_t‖²_{M/Δt²} + rotational term, until no vertex moves more than
// `tolerance` (m) in a step. At the fixed point the proximal terms vanish: a static equilibrium.
struct RelaxReport {
  int steps = 0;
  double last_motion = 0;  // largest vertex displacement of the last step (m)
  bool converged = false;
  StepReport last;
};
// `after_step` (optional) sees every step's report.
RelaxReport relax(CosseratRod& rod, double dt, const SolverSettings& settings, double tolerance,
                  int max_steps, const std::function<void(const StepReport&)>& after_step = {});

// Vertices of the current configuration (eq. 7).
std::vector<Vec3> vertices(const CosseratRod& rod);
// ½ Σ m_j |ṗ_j|² + ½ Σ l_i Ω_iᵀ J Ω_i (J).
double kinetic_energy(const CosseratRod& rod);
// The paper's metrics (§4.1): Σ|p_{i+1} - p_i| / Σ l_i - 1 and Σ ‖(p_{i+1} - p_i)/|.| - d(q_i)‖.
double inextensibility_violation(const Kinematics& k, const RestShape& rest);
double alignment_violation(const Kinematics& k);

}  // namespace hairsim::cosserat
