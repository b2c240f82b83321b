#include "reference/cosserat/cosserat_dynamics.hpp"
#include "common/drag.hpp"
#include "reference/eigen_bridge.hpp"

#include <Eigen/Dense>
#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>
#include <tuple>

#include "common/friction.hpp"
#include "hairsim/error.hpp"

namespace hairsim::cosserat {

using bridge::from_kernel;
using bridge::to_kernel;
namespace {

// --- Roots --------------------------------------------------------------------------------

// The clamp's pose at time t: root vertex and segment 0's frame (the rigid motion about the
// pivot or the motion's centre, then the twist about the segment).
void place_root(const RootClamp& c, double t, VecX& s) {
  const Mat3 r = c.motion.rotation(t);
  const Vec3 center = c.motion.center.value_or(c.pivot);
  const Vec3 pivot = center + r * (c.pivot - center) + c.motion.translation(t);
  s.head<3>() = pivot + r * c.offset;
  const Mat3 twisted = Eigen::AngleAxisd(c.motion.twist(t), c.frame.col(2)) * c.frame;
  s.segment<3>(3) = rotation_vector(r * twisted);
}

// Blocks of s held by the root: the root vertex and segment 0.
std::vector<bool> fixed_blocks(const CosseratRod& rod) {
  std::vector<bool> fixed(rod.rest.vertex_count(), false);
  if (rod.root.active) fixed[0] = fixed[1] = true;
  return fixed;
}
int first_free_vertex(const CosseratRod& rod) {
  return rod.root.active ? 2 : 0;
}

// --- Constraints (eq. 32) -----------------------------------------------------------------

struct Constraint {
  ContactPair pair;
  double value = 0;  // C = φ(p_v) - δ (m)
  Vec3 normal;       // ∂φ/∂p_v
};

// The obstacles' pose at time t (the identity when they do not move).
kernels::RigidPose<double> obstacle_pose(const CosseratRod& rod, double t) {
  return bridge::obstacle_pose<double>(rod.obstacle_motion, t);
}

Constraint evaluate_constraint(const CosseratRod& rod, const kernels::RigidPose<double>& pose,
                               const Vec3& x, ContactPair pair) {
  const kernels::SignedDistance<double> d =
      kernels::signed_distance(rod.obstacles[pair.obstacle], pose.apply_inverse(to_kernel(x)));
  return {pair, d.distance - rod.contact_thickness, from_kernel(pose.rotate(d.normal))};
}

// Every vertex against every obstacle at time t (the obstacles' pose then).
std::vector<Constraint> evaluate_constraints(const CosseratRod& rod, const std::vector<Vec3>& x,
                                             double t) {
  const kernels::RigidPose<double> pose = obstacle_pose(rod, t);
  std::vector<Constraint> out;
  for (int o = 0; o < static_cast<int>(rod.obstacles.size()); ++o)
    for (int v = first_free_vertex(rod); v < static_cast<int>(x.size()); ++v)
      out.push_back(evaluate_constraint(rod, pose, x[v], {v, o}));
  return out;
}

double total_violation(const std::vector<Constraint>& cs) {
  double sum = 0;
  for (const Constraint& c : cs) sum += std::max(0.0, -c.value);
  return sum;
}

// ∇_s C of a vertex constraint: Jᵀ applied to the normal at that vertex (the row of eq. 13).
VecX constraint_gradient(const NewtonSystem& system, const Constraint& c) {
  const int n = system.rest().vertex_count();
  XVector y;
  y.p.assign(n, Vec3::Zero());
  y.q.assign(n - 1, Vec4::Zero());
  y.p[c.pair.vertex] = c.normal;
  VecX g = apply_jt(system.kin(), y);
  system.mask(g);
  return g;
}

// PCG on the Newton system with the chosen preconditioner, counting the work.
class LinearSolver {
 public:
  LinearSolver(const NewtonSystem& system, const SolverSettings& settings, StepReport& report)
      : system_(system),
        p_(system, settings.preconditioner),
        settings_(settings.pcg),
        report_(report) {}
  VecX solve(const VecX& rhs) {
    VecX x = VecX::Zero(rhs.size());
    const PcgResult r = pcg([&](const VecX& v) { return system_.apply(v); },
                            [&](const VecX& v) { return p_.apply_inverse(v); }, rhs, x, settings_);
    ++report_.pcg_solves;
    report_.pcg_iterations += r.iterations;
    return x;
  }

 private:
  const NewtonSystem& system_;
  Preconditioner p_;
  PcgSettings settings_;
  StepReport& report_;
};

// --- The QP of one Newton iteration (eq. 12) by the active-set method (App. B, Alg. 2) ------

struct QpSolution {
  VecX step;
  std::vector<int> active;     // indices into the constraints
  std::vector<double> lambda;  // their multipliers (>= 0: pushing)
};

// Equality-constrained QP on the working set W by the Schur complement (eq. 14):
//   (G A⁻¹ Gᵀ) λ = -(C_W + G y0),  Δs = y0 + A⁻¹ Gᵀ λ,  y0 = -A⁻¹ b.
// A⁻¹ g is one PCG solve per constraint, cached over the rounds of the active set.
class EqualityQp {
 public:
  EqualityQp(const NewtonSystem& system, LinearSolver& solver, const VecX& b,
             const std::vector<Constraint>& constraints)
      : system_(system), solver_(solver), constraints_(constraints), y0_(solver.solve(-b)) {}

  std::pair<VecX, VecX> solve(const std::vector<int>& working) {
    const int m = static_cast<int>(working.size());
    if (m == 0) return {y0_, VecX()};
    Eigen::MatrixXd g(m, y0_.size()), z(y0_.size(), m);
    VecX c(m);
    for (int r = 0; r < m; ++r) {
      g.row(r) = gradient(working[r]).transpose();
      z.col(r) = inverse_gradient(working[r]);
      c(r) = constraints_[working[r]].value;
    }
    const Eigen::MatrixXd schur = g * z;
    const VecX rhs = -(c + g * y0_);
    VecX lambda = schur.ldlt().solve(rhs);
    if (!lambda.allFinite()) lambda = schur.completeOrthogonalDecomposition().solve(rhs);
    return {y0_ + z * lambda, lambda};
  }
  const VecX& gradient(int index) {
    auto [it, added] = gradients_.try_emplace(index);
    if (added) it->second = constraint_gradient(system_, constraints_[index]);
    return it->second;
  }

 private:
  const VecX& inverse_gradient(int index) {
    auto [it, added] = inverse_gradients_.try_emplace(index);
    if (added) it->second = solver_.solve(gradient(index));
    return it->second;
  }
  const NewtonSystem& system_;
  LinearSolver& solver_;
  const std::vector<Constraint>& constraints_;
  VecX y0_;
  std::map<int, VecX> gradients_, inverse_gradients_;
};

// The primal active-set method (Nocedal & Wright Alg. 16.3, the paper's Alg. 2): from Δs = 0,
// solve the QP on the working set; step towards its solution until a constraint outside the
// set blocks (β < 1, that constraint joins the set), else drop the most negative multiplier,
// until all multipliers are >= 0. The working set starts with the violated constraints and
// the last iteration's active ones.
QpSolution solve_qp(const NewtonSystem& system, LinearSolver& solver, const VecX& b,
                    const std::vector<Constraint>& constraints, std::vector<int> working,
                    const SolverSettings& settings, StepReport& report) {
  EqualityQp qp(system, solver, b, constraints);
  VecX d = VecX::Zero(b.size());
  VecX lambda;
  for (int round = 0; round < settings.active_set_max_iterations; ++round) {
    ++report.kkt_systems;
    VecX target;
    std::tie(target, lambda) = qp.solve(working);
    const VecX p = target - d;
    const XVector at = apply_j(system.kin(), d), along = apply_j(system.kin(), p);
    double beta = 1;
    int blocking = -1;
    for (int i = 0; i < static_cast<int>(constraints.size()); ++i) {
      if (std::find(working.begin(), working.end(), i) != working.end()) continue;
      const Constraint& c = constraints[i];
      const double value = c.value + c.normal.dot(at.p[c.pair.vertex]);
      const double slope = c.normal.dot(along.p[c.pair.vertex]);
      if (slope < 0 && value + slope < 0 && std::max(0.0, value) / -slope < beta)
        beta = std::max(0.0, value) / -slope, blocking = i;
    }
    d += beta * p;
    if (blocking >= 0) {
      working.push_back(blocking);
      continue;
    }
    if (lambda.size() == 0) break;
    Eigen::Index most_negative = 0;
    const double lowest = lambda.minCoeff(&most_negative);
    if (!(lowest < -1e-9 * lambda.cwiseAbs().maxCoeff())) break;
    working.erase(working.begin() + most_negative);
  }
  QpSolution out{d, working, std::vector<double>(lambda.data(), lambda.data() + lambda.size())};
  if (out.lambda.size() != out.active.size()) out.lambda.assign(out.active.size(), 0.0);
  return out;
}

// The working set a Newton iteration starts from: violated constraints and the previous
// active ones still within `margin` of their surface.
std::vector<int> initial_working_set(const std::vector<Constraint>& constraints,
                                     const std::vector<ContactPair>& previous, double margin) {
  std::vector<int> w;
  for (int i = 0; i < static_cast<int>(constraints.size()); ++i) {
    const Constraint& c = constraints[i];
    const bool was_active = std::find(previous.begin(), previous.end(), c.pair) != previous.end();
    if (c.value < 0 || (was_active && c.value <= margin)) w.push_back(i);
  }
  return w;
}

// --- Line search on the merit function (11) ------------------------------------------------

struct Merit {
  double value;  // E + ν Σ max(0, -C)
  double scale;  // Σ |energy terms|: round-off of `value` is about 1e-16 of it
};
Merit merit(const CosseratRod& rod, const StepStart& start, const VecX& s, double nu) {
  const Kinematics k = kinematics(s, rod.rest);
  const EnergyTerms e = energy(start, k, rod.rest);
  const double scale = std::abs(e.bending) + std::abs(e.twist) + std::abs(e.translational) +
                       std::abs(e.rotational) + std::abs(e.gravity);
  return {e.total() + nu * total_violation(evaluate_constraints(rod, k.x, rod.time + start.dt)),
          scale};
}

// The energy's slope along p at s: b(s)ᵀ p with b = Jᵀ ∂E/∂x on the free blocks.
double slope_along(const CosseratRod& rod, const StepStart& start, const VecX& s, const VecX& p,
                   const std::vector<bool>& fixed) {
  const Kinematics k = kinematics(s, rod.rest);
  VecX b = apply_jt(k, energy_gradient(start, k, rod.rest));
  for (std::size_t blk = 0; blk < fixed.size(); ++blk)
    if (fixed[blk]) b.segment<3>(3 * static_cast<int>(blk)).setZero();
  return b.dot(p);
}

// Backtracking from α = 1 (halving) on the merit function (11). Armijo's sufficient decrease
// (c = 1e-4) with the ℓ1 merit's directional derivative D = bᵀp - ν ‖C⁻‖₁ (Nocedal & Wright
// eq. 18.29), as long as the decrease it predicts is well above the round-off of E (1e-12 of
// the energy terms' magnitude). Near the solution it is not: E then changes by less than its own
// round-off and a comparison of energies is noise, while the Gauss-Newton step (the dropped
// ∂J/∂s term) can overshoot. There the slope decides: α is taken when bᵀp at s + αp has not
// turned up by more than 0.9 |D| (on a quadratic: α within 1.9 times the minimiser along p, so E
// decreases). Returns 0 when no α qualifies.
double line_search(const CosseratRod& rod, const StepStart& start, const VecX& s, const VecX& p,
                   const VecX& b, double nu, double violation, const std::vector<bool>& fixed,
                   StepReport& report) {
  const Merit m0 = merit(rod, start, s, nu);
  const double slope = b.dot(p) - nu * violation;
  const bool energy_resolves = -slope > 1e-12 * m0.scale;
  double alpha = 1;
  for (int tries = 0; tries < 40; ++tries, alpha *= 0.5) {
    const VecX trial = s + alpha * p;
    const bool accepted =
        energy_resolves ? merit(rod, start, trial, nu).value <= m0.value + 1e-4 * alpha * slope
                        : slope_along(rod, start, trial, p, fixed) <= -0.9 * slope;
    if (accepted) return alpha;
    ++report.line_search_halvings;
  }
  return 0;
}

// --- One step ------------------------------------------------------------------------------

// D_j of vertex j: the drag ℓ_j [ζ⊥ (I - ttᵀ) + ζ∥ ttᵀ], t the mean of the adjacent segments'
// directions (normalised), ℓ_j the vertex's share of the rest length.
Mat3 drag(const CosseratRod& rod, const Kinematics& k, int j) {
  const int n = rod.rest.vertex_count();
  return from_kernel(kernels::drag_matrix(
      j > 0 ? to_kernel(Vec3(k.x[j] - k.x[j - 1]).normalized()) : kernels::Vector3<double>{},
      j + 1 < n ? to_kernel(Vec3(k.x[j + 1] - k.x[j]).normalized()) : kernels::Vector3<double>{},
      j > 0 ? rod.rest.length[j - 1] : 0.0, j + 1 < n ? rod.rest.length[j] : 0.0, rod.drag_normal,
      rod.drag_tangent));
}

// Friction of the last step's active contacts with μ > 0 and a pushing multiplier: the normal
// at the step's start, the touched surface point carried by the obstacle to the step's end.
void add_friction(const CosseratRod& rod, const Kinematics& k, StepStart& start) {
  const kernels::RigidPose<double> now = obstacle_pose(rod, rod.time),
                                   next = obstacle_pose(rod, rod.time + start.dt);
  for (std::size_t a = 0; a < rod.active.size() && a < rod.contact_force.size(); ++a) {
    const ContactPair pair = rod.active[a];
    const double mu = rod.obstacles[pair.obstacle].friction;
    if (!(mu > 0 && rod.contact_force[a] > 0)) continue;
    const Vec3& x = k.x[pair.vertex];
    const Constraint c = evaluate_constraint(rod, now, x, pair);
    const double weight = mu * rod.contact_force[a];
    start.friction.push_back(
        {pair.vertex, c.normal, from_kernel(next.apply(now.apply_inverse(to_kernel(x)))), weight,
         kernels::stick_length(rod.stick_speed, start.dt, weight, rod.rest.mass[pair.vertex])});
  }
}

StepStart step_start(const CosseratRod& rod, const Kinematics& k, double dt) {
  StepStart start;
  start.dt = dt;
  start.gravity = rod.gravity;
  start.q = k.q;
  for (std::size_t j = 0; j < k.x.size(); ++j)
    start.predicted.push_back(k.x[j] + dt * rod.velocity[j]);
  for (const Vec3& w : rod.angular_velocity) start.rotation_dt.push_back(dt * w);
  if (rod.damping != 0 || rod.drag_normal != 0 || rod.drag_tangent != 0) {
    start.start = k.x;
    for (int j = 0; j < rod.rest.vertex_count(); ++j) {
      const Mat3 d = drag(rod, k, j);
      const kernels::Vector3<double> w = rod.wind.at(to_kernel(k.x[j]), rod.time);
      start.resistance.push_back(d + rod.damping * rod.rest.mass[j] * Mat3::Identity());
      start.air_force.push_back(d * Vec3(w.x, w.y, w.z));
    }
  }
  add_friction(rod, k, start);
  return start;
}

double shortest_segment(const RestShape& rest) {
  return *std::min_element(rest.length.begin(), rest.length.end());
}

}  // namespace

CosseratRod rod_at_rest(std::span<const Vec3> polyline, const Vec3& stiffness, const Vec3& inertia,
                        double linear_density, const Vec3& first_d1, BendingStrain measure) {
  CosseratRod rod;
  rod.s = configuration_from_polyline(polyline, first_d1);
  rod.rest = rest_shape(polyline, rod.s, stiffness, inertia, linear_density, measure);
  rod.velocity.assign(polyline.size(), Vec3::Zero());
  rod.angular_velocity.assign(polyline.size() - 1, Vec3::Zero());
  return rod;
}

void clamp_root(CosseratRod& rod, const ClampMotion& motion) {
  const Kinematics k = kinematics(rod.s, rod.rest);
  RootClamp& c = rod.root;
  c.active = true;
  c.pivot = 0.5 * (k.x[0] + k.x[1]);
  c.offset = k.x[0] - c.pivot;
  c.frame = frame(k.q[0]);
  c.motion = motion;
}

// Newton's first iterate: every free segment turned on by its own spin (spin_prediction), as the
// kernels' start_from_prediction (which says why, and what it saves). Where Newton stops within
// its tolerance depends on where it starts: from here the rod resting on three cylinders
// (CosseratContact) stayed 21.5 µm above the middle one at the paper's 1e-5 N (1e-5 N over the
// sag's stiffness of ~1 N/m), on it at 1e-6 N.
void start_from_prediction(const CosseratRod& rod, const StepStart& start,
                           const std::vector<bool>& fixed, VecX& s) {
  for (int i = 0; i < rod.rest.segment_count(); ++i) {
    Vec3 omega;
    if (!fixed[1 + i] && spin_prediction(start.q[i], start.rotation_dt[i], omega))
      s.segment<3>(3 + 3 * i) = omega;
  }
}

StepReport step(CosseratRod& rod, double dt, const SolverSettings& settings) {
  StepReport report;
  const int segments = rod.rest.segment_count();
  for (int i = 0; i < segments; ++i)
    rod.s.segment<3>(3 + 3 * i) = wrapped(rod.s.segment<3>(3 + 3 * i));
  const Kinematics k0 = kinematics(rod.s, rod.rest);
  const StepStart start = step_start(rod, k0, dt);
  VecX s = rod.s;
  if (rod.root.active) place_root(rod.root, rod.time + dt, s);
  const std::vector<bool> fixed = fixed_blocks(rod);
  start_from_prediction(rod, start, fixed, s);
  const double margin = 0.01 * shortest_segment(rod.rest);

  std::vector<ContactPair> active = rod.active;
  std::vector<double> lambda;
  for (int it = 0;; ++it) {  // Alg. 1
    // ω within |ω| <= π at every iterate (the same rotation): B(ω), eq. (4), is singular at
    // |ω| = 2π, which an iterate of a segment turning by more than π in a step can reach.
    for (int i = 0; i < segments; ++i) s.segment<3>(3 + 3 * i) = wrapped(s.segment<3>(3 + 3 * i));
    const Kinematics k = kinematics(s, rod.rest);
    const XVector gradient = energy_gradient(start, k, rod.rest);
    HessianX h = hessian(start, k, rod.rest);
    if (settings.chain_curvature) h.chain = chain_curvature(start, s, k, rod.rest, gradient);
    const NewtonSystem system(k, h, rod.rest, fixed);
    VecX b = apply_jt(k, gradient);
    system.mask(b);
    const std::vector<Constraint> constraints = evaluate_constraints(rod, k.x, rod.time + dt);
    // Stationarity of the Lagrangian with the last multipliers: ‖b - ∇C_Aᵀλ‖.
    VecX stationarity = b;
    for (std::size_t a = 0; a < active.size() && a < lambda.size(); ++a)
      for (const Constraint& c : constraints)
        if (c.pair == active[a]) stationarity -= lambda[a] * constraint_gradient(system, c);
    report.residual = stationarity.norm();
    const double violation = total_violation(constraints);
    if (report.residual < settings.newton_tolerance && violation <= 1e-3 * margin) {
      report.converged = true;
      break;
    }
    if (it == settings.newton_max_iterations) {
      report.stopped_at_cap = true;
      break;
    }

    LinearSolver solver(system, settings, report);
    const QpSolution qp =
        solve_qp(system, solver, b, constraints, initial_working_set(constraints, active, margin),
                 settings, report);
    active.clear();
    for (int i : qp.active) active.push_back(constraints[i].pair);
    lambda = qp.lambda;
    const double nu = lambda.empty() ? 0.0 : *std::max_element(lambda.begin(), lambda.end());
    const double alpha =
        line_search(rod, start, s, qp.step, b, std::max(nu, 0.0), violation, fixed, report);
    if (alpha == 0) break;  // no decrease beyond round-off: as converged as it gets
    s += alpha * qp.step;
    ++report.newton_iterations;
  }
  if (!s.allFinite()) {
    std::ostringstream where;
    where << "cosserat step at t = " << rod.time << " s";
    throw RunFailure(where.str(), "non-finite configuration");
  }

  const Kinematics k = kinematics(s, rod.rest);
  for (std::size_t j = 0; j < k.x.size(); ++j) rod.velocity[j] = (k.x[j] - k0.x[j]) / dt;
  for (int i = 0; i < segments; ++i)
    rod.angular_velocity[i] = relative_rotation(k0.q[i], k.q[i]) / dt;
  rod.s = s;
  rod.time += dt;
  rod.active = active;
  // The next step's normal forces: this step's last multipliers (without a QP this step the
  // active set is the last step's, and so are its forces).
  if (lambda.size() == active.size()) rod.contact_force = lambda;
  report.active_contacts = static_cast<int>(active.size());
  for (const Constraint& c : evaluate_constraints(rod, k.x, rod.time))
    report.max_penetration = std::max(report.max_penetration, -c.value);
  return report;
}

RelaxReport relax(CosseratRod& rod, double dt, const SolverSettings& settings, double tolerance,
                  int max_steps, const std::function<void(const StepReport&)>& after_step) {
  RelaxReport r;
  while (r.steps < max_steps) {
    std::fill(rod.velocity.begin(), rod.velocity.end(), Vec3::Zero());
    std::fill(rod.angular_velocity.begin(), rod.angular_velocity.end(), Vec3::Zero());
    const std::vector<Vec3> before = vertices(rod);
    r.last = step(rod, dt, settings);
    ++r.steps;
    if (after_step) after_step(r.last);
    const std::vector<Vec3> after = vertices(rod);
    r.last_motion = 0;
    for (std::size_t j = 0; j < after.size(); ++j)
      r.last_motion = std::max(r.last_motion, (after[j] - before[j]).norm());
    if (r.last_motion <= tolerance) {
      r.converged = true;
      break;
    }
  }
  std::fill(rod.velocity.begin(), rod.velocity.end(), Vec3::Zero());
  std::fill(rod.angular_velocity.begin(), rod.angular_velocity.end(), Vec3::Zero());
  return r;
}

std::vector<Vec3> vertices(const CosseratRod& rod) {
  return kinematics(rod.s, rod.rest).x;
}

double kinetic_energy(const CosseratRod& rod) {
  double e = 0;
  for (int j = 0; j < rod.rest.vertex_count(); ++j)
    e += 0.5 * rod.rest.mass[j] * rod.velocity[j].squaredNorm();
  for (int i = 0; i < rod.rest.segment_count(); ++i) {
    const Vec3& w = rod.angular_velocity[i];
    e += 0.5 * rod.rest.length[i] * w.dot(rod.rest.inertia.asDiagonal() * w);
  }
  return e;
}

double inextensibility_violation(const Kinematics& k, const RestShape& rest) {
  double current = 0, total = 0;
  for (int i = 0; i < rest.segment_count(); ++i) {
    current += (k.x[i + 1] - k.x[i]).norm();
    total += rest.length[i];
  }
  return current / total - 1;
}

double alignment_violation(const Kinematics& k) {
  double sum = 0;
  for (std::size_t i = 0; i < k.q.size(); ++i)
    sum += ((k.x[i + 1] - k.x[i]).normalized() - frame(k.q[i]).col(2)).norm();
  return sum;
}

}  // namespace hairsim::cosserat
