#include "reference/der/der_rigid.hpp"

#include <Eigen/Dense>
#include <cmath>

#include "hairsim/error.hpp"

namespace hairsim::der {
namespace {

Mat3 skew(const Vec3& a) {
  Mat3 m;
  m << 0, -a.z(), a.y(), a.z(), 0, -a.x(), -a.y(), a.x(), 0;
  return m;
}

Eigen::Quaterniond rotation_of(const Vec3& phi) {  // exp of a rotation vector
  const double angle = phi.norm();
  return angle > 0 ? Eigen::Quaterniond(Eigen::AngleAxisd(angle, phi / angle))
                   : Eigen::Quaterniond::Identity();
}

Vec3 rotation_vector(const Eigen::Quaterniond& q) {  // log, the shorter way round
  Eigen::AngleAxisd aa(q.w() < 0 ? Eigen::Quaterniond(-q.coeffs()) : q);
  return aa.angle() * aa.axis();
}

}  // namespace

Mat3 RigidBody::world_inertia() const {
  const Mat3 r = orientation.toRotationMatrix();
  return r * inertia * r.transpose();
}

double RigidBody::kinetic_energy() const {
  return 0.5 * mass * velocity.squaredNorm() +
         0.5 * angular_velocity.dot(world_inertia() * angular_velocity);
}

RodWithBody weld_to_tip(DynamicRod rod, const RigidBody& body) {
  RodWithBody s{std::move(rod), body, {}, {}};
  const int last = s.rod.rest.edge_count() - 1;
  const Mat3 to_body = body.orientation.toRotationMatrix().transpose();
  for (int k = 0; k < 2; ++k) s.anchor[k] = to_body * (s.rod.state.x[last + k] - body.position);
  s.material_vector = to_body * compute_frames(s.rod.state).m1[last];
  s.rod.twist.last_clamped = true;
  return s;
}

namespace {

// Generalized fast projection (§8.1) over y = (δφ, δr, δx): constraints C = (edge lengths, weld),
// metric W⁻¹ = diag(I_world, M_body, rod masses); Newton steps (∇C W ∇Cᵀ) δλ = C, y -= W ∇Cᵀ δλ.
ProjectionReport project_with_body(RodWithBody& s, std::vector<Vec3>& x, double tolerance) {
  DynamicRod& rod = s.rod;
  RigidBody& b = s.body;
  const int n = rod.rest.vertex_count(), edges = rod.rest.edge_count(), last = edges - 1;
  const int dofs = 6 + 3 * n, constraints = edges + 6;
  ProjectionReport report;
  for (;; ++report.iterations) {
    const Mat3 r = b.orientation.toRotationMatrix();
    const Mat3 inv_inertia = b.world_inertia().inverse();
    Eigen::VectorXd c(constraints);
    Eigen::MatrixXd grad = Eigen::MatrixXd::Zero(constraints, dofs);  // ∂C/∂y
    report.max_length_error = 0;
    for (int j = 0; j < edges; ++j) {
      const Vec3 e = x[j + 1] - x[j];
      c[j] = e.squaredNorm() - rod.rest.edge_length[j] * rod.rest.edge_length[j];
      report.max_length_error =
          std::max(report.max_length_error, std::abs(e.norm() - rod.rest.edge_length[j]));
      grad.block<1, 3>(j, 6 + 3 * j) = -2 * e.transpose();
      grad.block<1, 3>(j, 6 + 3 * (j + 1)) = 2 * e.transpose();
    }
    double weld_error = 0;
    for (int k = 0; k < 2; ++k) {  // R a_k + r - x_{last+k} = 0
      const Vec3 arm = r * s.anchor[k];
      const Vec3 ck = arm + b.position - x[last + k];
      weld_error = std::max(weld_error, ck.norm());
      c.segment<3>(edges + 3 * k) = ck;
      grad.block<3, 3>(edges + 3 * k, 0) = -skew(arm);  // d(R a) = δφ × (R a)
      grad.block<3, 3>(edges + 3 * k, 3) = Mat3::Identity();
      grad.block<3, 3>(edges + 3 * k, 6 + 3 * (last + k)) = -Mat3::Identity();
    }
    if ((report.max_length_error <= tolerance && weld_error <= tolerance) ||
        report.iterations == 50)
      break;
    // W ∇Cᵀ with W = diag(I⁻¹, 1/M, 1/m_i; clamped vertices 0).
    Eigen::MatrixXd wg = grad.transpose();
    wg.topRows<3>() = inv_inertia * wg.topRows<3>();
    wg.middleRows<3>(3) /= b.mass;
    for (int i = 0; i < n; ++i)
      wg.middleRows<3>(6 + 3 * i) *= rod.fixed[i] ? 0.0 : 1.0 / rod.mass[i];
    const Eigen::VectorXd dl = (grad * wg).ldlt().solve(c);
    const Eigen::VectorXd dy = -wg * dl;
    b.orientation = (rotation_of(dy.head<3>()) * b.orientation).normalized();
    b.position += dy.segment<3>(3);
    for (int i = 0; i < n; ++i) x[i] += dy.segment<3>(6 + 3 * i);
  }
  return report;
}

}  // namespace

ProjectionReport step_with_body(RodWithBody& s, double dt, double length_tolerance) {
  DynamicRod& rod = s.rod;
  RigidBody& b = s.body;
  const int n = rod.rest.vertex_count(), last = rod.rest.edge_count() - 1;
  const Frames f = compute_frames(rod.state);
  std::vector<Vec3> force = elastic_forces(rod.state, f, rod.rest, rod.twist);
  add_applied_loads(rod, f, force);

  // §8.2: the torque of the rod's material frame on the body, about the tip tangent. The rod's
  // energy changes by (∂E/∂θⁿ) δθ when the body turns the frame by δθ: the body feels -∂E/∂θⁿ.
  const double dE_dtheta = theta_gradient(rod.state, f, rod.rest)[last];
  const Vec3 torque = -dE_dtheta * f.t[last];

  // Unconstrained symplectic Euler for the body and the rod.
  const RigidBody before = b;
  const Mat3 iw = b.world_inertia();
  b.velocity += dt * rod.gravity;
  b.angular_velocity +=
      dt * iw.inverse() * (torque - b.angular_velocity.cross(iw * b.angular_velocity));
  b.position += dt * b.velocity;
  b.orientation = (rotation_of(dt * b.angular_velocity) * b.orientation).normalized();
  std::vector<Vec3> x = rod.state.x;
  for (int i = 0; i < n; ++i) {
    if (rod.fixed[i]) continue;
    rod.velocity[i] += dt * (force[i] / rod.mass[i] + rod.gravity - rod.damping * rod.velocity[i]);
    x[i] += dt * rod.velocity[i];
  }
  const ClampTargets targets = place_clamps(rod, rod.time + dt, x);

  const ProjectionReport report = project_with_body(s, x, length_tolerance);

  // Velocity update (Goldenthal et al.): from the projected positions.
  for (int i = 0; i < n; ++i) rod.velocity[i] = (x[i] - rod.state.x[i]) / dt;
  b.velocity = (b.position - before.position) / dt;
  b.angular_velocity = rotation_vector(b.orientation * before.orientation.inverse()) / dt;

  // The body prescribes the tip edge's material vector.
  const Vec3 body_m1 = b.orientation.toRotationMatrix() * s.material_vector;
  finish_step(rod, x, targets, body_m1, dt);
  return report;
}

double total_energy(const RodWithBody& s) {
  const Frames f = compute_frames(s.rod.state);
  return kinetic_energy(s.rod) + elastic_energy(s.rod.state, f, s.rod.rest) +
         gravity_energy(s.rod) + s.body.kinetic_energy() -
         s.body.mass * s.rod.gravity.dot(s.body.position);
}

}  // namespace hairsim::der
