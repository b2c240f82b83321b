#include "reference/super_clothoid/clothoid_dynamics.hpp"

#include <Eigen/Cholesky>
#include <Eigen/LU>
#include <cmath>

#include "common/drag.hpp"
#include "hairsim/error.hpp"
#include "reference/clamp_state.hpp"
#include "reference/contact_impulses.hpp"
#include "reference/eigen_bridge.hpp"
#include "reference/gauss_legendre.hpp"
#include "reference/newton_statics.hpp"

namespace hairsim::super_clothoid {
namespace {

// The motion the chain carries from element to element, with q̈ = 0: the frame's velocity and
// acceleration and the centreline's (the clamp's and the velocity products).
struct ChainMotion {
  Mat3 R_dot = Mat3::Zero(), R_ddot = Mat3::Zero();
  Vec3 r_dot = Vec3::Zero(), r_ddot = Vec3::Zero();
};

// Element i's motion at a point from its start's (R0, the start's motion `s`) and its own (E, p
// and their local motion m): differentiating R = R0 E and r = r0 + R0 p twice in time,
// Ṙ = Ṙ0 E + R0 Ė, R̈ = R̈0 E + 2 Ṙ0 Ė + R0 Ë, ṙ = ṙ0 + Ṙ0 p + R0 ṗ, r̈ = r̈0 + R̈0 p + 2 Ṙ0 ṗ + R0 p̈.
ChainMotion compose_motion(const Mat3& R0, const ChainMotion& s, const Frame& local,
                           const ClothoidElement::Motion& m) {
  return {s.R_dot * local.R + R0 * m.velocity.R,
          s.R_ddot * local.R + 2 * s.R_dot * m.velocity.R + R0 * m.acceleration.R,
          s.r_dot + s.R_dot * local.r + R0 * m.velocity.r,
          s.r_ddot + s.R_ddot * local.r + 2 * s.R_dot * m.velocity.r + R0 * m.acceleration.r};
}

// What a quadrature point gives: its weight (m), position, Jacobian J (3 x n), velocity, unit
// tangent and acceleration with q̈ = 0 (the clamp's and the velocity products, q̇ ∂²r/∂q² q̇).
struct Point {
  double weight;
  Vec3 x;
  const MatX& J;
  Vec3 velocity, tangent, acceleration;
};

// Visits every quadrature point of every element with the clamp at `time`, then gives the tip's
// Jacobian to `tip`.
template <class Visit, class Tip>
void visit_points(const ClothoidRod& rod, double time, Visit&& visit, Tip&& tip) {
  const std::vector<ClothoidElement> elements = chain(rod.shape);
  const std::size_t n = 3 * rod.shape.node_curvature.size();
  const quadrature::Rule& rule = quadrature::gauss_legendre(rod.quadrature);
  // The chain starts at the clamp: R0, r0, Ṙ0 = [ω]× R0, R̈0 = ([α]× + [ω]×²) R0, ṙ0, r̈0.
  const reference::ClampState clamp =
      reference::clamp_state(rod.motion, rod.clamp.r, rod.clamp.R, time);
  FrameJacobian start{{clamp.frame, clamp.point},
                      std::vector<Mat3>(n, Mat3::Zero()),
                      std::vector<Vec3>(n, Vec3::Zero())};
  const Mat3 w = bridge::cross_matrix(clamp.angular_velocity);
  ChainMotion motion{w * clamp.frame,
                     (bridge::cross_matrix(clamp.angular_acceleration) + w * w) * clamp.frame,
                     clamp.velocity, clamp.acceleration};
  MatX J;
  for (int i = 0; i < rod.shape.elements(); ++i) {
    const ClothoidElement& e = elements[std::size_t(i)];
    const Vec3 &rate_a = rod.curvature_rate[std::size_t(i)],
               &rate_b = rod.curvature_rate[std::size_t(i) + 1];
    const Mat3& R0 = start.frame.R;
    auto point = [&](double weight, const ClothoidElement::Tangents& tg,
                     const ClothoidElement::Motion& m) {
      compose_point_jacobian(start, tg, i, J);
      const ChainMotion pm = compose_motion(R0, motion, tg.local, m);
      return Point{weight,   start.frame.r + R0 * tg.local.r, J,
                   pm.r_dot, R0 * tg.local.R.col(0),          pm.r_ddot};
    };
    for (std::size_t g = 0; g < rule.nodes.size(); ++g) {
      const double s = rule.nodes[g] * e.length();
      visit(point(rule.weights[g] * e.length(), e.local_tangents(s),
                  e.local_motion(s, rate_a, rate_b)));
    }
    // The next element's start: this one's end.
    const ClothoidElement::Tangents t = e.local_tangents(e.length());
    const ClothoidElement::Motion m = e.local_motion(e.length(), rate_a, rate_b);
    if (i + 1 == rod.shape.elements()) tip(point(0, t, m).J);
    motion = compose_motion(R0, motion, t.local, m);
    start = compose(start, t, i);
  }
}

VecX gather(const std::vector<Vec3>& nodes) {
  VecX q(3 * Eigen::Index(nodes.size()));
  for (std::size_t i = 0; i < nodes.size(); ++i) q.segment<3>(3 * Eigen::Index(i)) = nodes[i];
  return q;
}
void scatter(const VecX& q, std::vector<Vec3>& nodes) {
  for (std::size_t i = 0; i < nodes.size(); ++i) nodes[i] = q.segment<3>(3 * Eigen::Index(i));
}

}  // namespace

ClothoidRod straight_rod(int elements, double length, const Vec3& rest, const Frame& root) {
  ClothoidRod rod;
  rod.shape.root = root;
  rod.clamp = root;
  rod.shape.length.assign(std::size_t(elements), length / elements);
  rod.shape.node_curvature.assign(std::size_t(elements) + 1, rest);
  rod.rest_curvature = rod.shape.node_curvature;
  rod.curvature_rate.assign(std::size_t(elements) + 1, Vec3::Zero());
  return rod;
}

VecX coordinates(const ClothoidRod& rod) {
  return gather(rod.shape.node_curvature);
}
VecX rates(const ClothoidRod& rod) {
  return gather(rod.curvature_rate);
}
void set_coordinates(ClothoidRod& rod, const VecX& q) {
  scatter(q, rod.shape.node_curvature);
}
void set_rates(ClothoidRod& rod, const VecX& qdot) {
  scatter(qdot, rod.curvature_rate);
}

MatX stiffness_matrix(const ClothoidRod& rod) {
  // Element i (nodes i, i + 1): ∫ ((1 − u) δa + u δb)ᵀ K3 (...) ds = ℓ (1/3, 1/6; 1/6, 1/3) ⊗ K3.
  const int n = 3 * int(rod.shape.node_curvature.size());
  MatX k = MatX::Zero(n, n);
  const Mat3 k3 = rod.stiffness.asDiagonal();
  for (int i = 0; i < rod.shape.elements(); ++i) {
    const double l = rod.shape.length[std::size_t(i)];
    k.block<3, 3>(3 * i, 3 * i) += l / 3 * k3;
    k.block<3, 3>(3 * i + 3, 3 * i + 3) += l / 3 * k3;
    k.block<3, 3>(3 * i, 3 * i + 3) += l / 6 * k3;
    k.block<3, 3>(3 * i + 3, 3 * i) += l / 6 * k3;
  }
  return k;
}

Dynamics dynamics(const ClothoidRod& rod, double t) {
  const int n = 3 * int(rod.shape.node_curvature.size());
  Dynamics d{MatX::Zero(n, n), VecX::Zero(n)};
  const double rho = rod.linear_density;
  visit_points(
      rod, t,
      [&](const Point& p) {
        d.mass.selfadjointView<Eigen::Lower>().rankUpdate(p.J.transpose(), p.weight * rho);
        Vec3 f = rho * (rod.gravity - p.acceleration);
        if (rod.drag_normal > 0 || rod.drag_tangent > 0) {
          const kernels::Vector3<double> k = bridge::to_kernel(p.tangent);
          f -= bridge::from_kernel(
                   kernels::drag_matrix(k, k, 1.0, 1.0, rod.drag_normal, rod.drag_tangent)) *
               (p.velocity - rod.wind);
        }
        d.forces += p.weight * p.J.transpose() * f;
      },
      [&](const MatX& J) { d.forces += J.transpose() * rod.tip_force; });
  d.mass = d.mass.selfadjointView<Eigen::Lower>();
  return d;
}

namespace {

// The step's matrix A = M + h ν K + h² K factored, and q̈.
// ∂A/∂q̇ (n x n) at time t: the inertial forces −G − A are a polynomial of degree 2 in q̇ (the
// velocity products, and the clamp's Coriolis terms), so central differences of them are exact
// to round-off; the drag's dependence on q̇ is included (it is linear).
MatX inertia_jacobian(const ClothoidRod& rod, double t) {
  const VecX qdot = rates(rod);
  const int n = int(qdot.size());
  MatX out(n, n);
  ClothoidRod probe = rod;
  for (int j = 0; j < n; ++j) {
    const double eps = 1e-3 * std::max(1.0, qdot.cwiseAbs().maxCoeff());
    VecX plus = qdot, minus = qdot;
    plus(j) += eps, minus(j) -= eps;
    set_rates(probe, plus);
    const VecX fp = dynamics(probe, t).forces;
    set_rates(probe, minus);
    const VecX fm = dynamics(probe, t).forces;
    out.col(j) = -(fp - fm) / (2 * eps);  // ∂(G + A − drag)/∂q̇
  }
  return out;
}

// The step's matrix A = M + h ν K + h² K (and h ∂A/∂q̇ with `implicit_inertia`) factored, and q̈.
struct StepSolve {
  Eigen::PartialPivLU<MatX> a;
  VecX qddot;
};
StepSolve solve_step(const ClothoidRod& rod, double h) {
  const Dynamics d = dynamics(rod, rod.time + h);
  const MatX k = stiffness_matrix(rod);
  const VecX q = coordinates(rod), qdot = rates(rod), rest = gather(rod.rest_curvature);
  const double nu = rod.internal_friction;
  MatX a = d.mass + (h * nu + h * h) * k;
  // §7.2's option: A at first order in q̇, A(q̇ + h q̈) ≈ A(q̇) + h ∂A/∂q̇ q̈.
  if (rod.implicit_inertia && h > 0) a += h * inertia_jacobian(rod, rod.time + h);
  StepSolve out;
  out.a.compute(a);
  out.qddot = out.a.solve(d.forces - k * (q - rest) - (nu + h) * (k * qdot));
  return out;
}

// The contacts at the quadrature points for the rates `qdot` (the step's free ones), the clamp at
// the step's end; their impulses added to qdot through A⁻¹.
StepReport resolve_contacts(const ClothoidRod& rod, const Eigen::PartialPivLU<MatX>& a, double h,
                            VecX& qdot) {
  ClothoidRod moving = rod;
  set_rates(moving, qdot);
  std::vector<reference::PointContact> contacts;
  const double margin = 0.01 * *std::min_element(rod.shape.length.begin(), rod.shape.length.end());
  visit_points(
      moving, rod.time + h,
      [&](const Point& p) {
        const double reach = 2 * h * p.velocity.norm() + margin;
        for (const kernels::Collider<double>& c : rod.colliders)
          if (auto contact =
                  reference::touching(c, p.x, rod.contact_thickness, reach, p.J, p.velocity))
            contacts.push_back(*contact);
      },
      [](const MatX&) {});
  const reference::ImpulseReport r = reference::apply_contact_impulses(
      contacts, h, rod.contact_sweeps,
      [&](std::size_t i, const MatX& forces) -> MatX {
        return a.solve(contacts[i].jacobian.transpose() * forces);
      },
      qdot);
  return {r.contacts, r.active, r.sweeps, r.converged, r.residual};
}

}  // namespace

VecX accelerations(const ClothoidRod& rod, double h) {
  return solve_step(rod, h).qddot;
}

StepReport step(ClothoidRod& rod, double dt) {
  const StepSolve solve = solve_step(rod, dt);
  VecX qdot = rates(rod) + dt * solve.qddot;
  StepReport report;
  if (!rod.colliders.empty()) report = resolve_contacts(rod, solve.a, dt, qdot);
  const VecX q = coordinates(rod) + dt * qdot;
  if (!qdot.allFinite() || !q.allFinite()) throw RunFailure("step", "non-finite curvature or rate");
  set_rates(rod, qdot);
  set_coordinates(rod, q);
  rod.time += dt;
  const reference::ClampState clamp =
      reference::clamp_state(rod.motion, rod.clamp.r, rod.clamp.R, rod.time);
  rod.shape.root = {clamp.frame, clamp.point};
  return report;
}

double max_penetration(const ClothoidRod& rod) {
  if (rod.colliders.empty()) return 0;
  double deepest = 0;
  visit_points(
      rod, rod.time,
      [&](const Point& p) {
        for (const kernels::Collider<double>& c : rod.colliders)
          deepest =
              std::max(deepest, rod.contact_thickness -
                                    kernels::signed_distance(c, bridge::to_kernel(p.x)).distance);
      },
      [](const MatX&) {});
  return deepest;
}

Energies energies(const ClothoidRod& rod) {
  Energies e;
  const double rho = rod.linear_density;
  visit_points(
      rod, rod.time,
      [&](const Point& p) {
        e.kinetic += 0.5 * p.weight * rho * p.velocity.squaredNorm();
        e.gravity -= p.weight * rho * rod.gravity.dot(p.x);
      },
      [](const MatX&) {});
  const VecX strain = coordinates(rod) - gather(rod.rest_curvature);
  e.elastic = 0.5 * strain.dot(stiffness_matrix(rod) * strain);
  return e;
}

Vec3 tip(const ClothoidRod& rod) {
  return chain(rod.shape).back().end().r;
}

namespace {

VecX static_forces(ClothoidRod rod) {
  std::fill(rod.curvature_rate.begin(), rod.curvature_rate.end(), Vec3::Zero());
  return dynamics(rod, rod.time).forces -
         stiffness_matrix(rod) * (coordinates(rod) - gather(rod.rest_curvature));
}

double potential(const ClothoidRod& rod) {
  const Energies e = energies(rod);
  return e.elastic + e.gravity - rod.tip_force.dot(tip(rod));
}

}  // namespace

StaticReport solve_static(ClothoidRod& rod, double tolerance, int max_iterations) {
  std::fill(rod.curvature_rate.begin(), rod.curvature_rate.end(), Vec3::Zero());
  const Eigen::LDLT<MatX> k(stiffness_matrix(rod));
  // The wind's drag turns with the rod: no potential.
  const bool conservative = rod.wind.isZero() || (rod.drag_normal == 0 && rod.drag_tangent == 0);
  return reference::newton_statics(
      [&] { return coordinates(rod); }, [&](const VecX& q) { set_coordinates(rod, q); },
      [&] { return static_forces(rod); }, [&] { return potential(rod); }, conservative,
      [&](const VecX& g) -> VecX { return k.solve(g); }, tolerance, max_iterations);
}

}  // namespace hairsim::super_clothoid
