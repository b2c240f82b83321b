#include "reference/der/der_rigid.hpp"
#include "reference/eigen_bridge.hpp"

#include <Eigen/Dense>
#include <cmath>

#include "common/thomas.hpp"
#include "hairsim/error.hpp"

namespace hairsim::der {

namespace {

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

// Generalized fast projection (§8.1) over y = (δφ, δr, δx): constraints C = (edge lengths C_e,
// weld C_w), inverse metric W = diag(I_world⁻¹, 1/M, 1/m_i; clamped vertices 0); Newton steps
// (∇C W ∇Cᵀ) λ = C, y -= W ∇Cᵀ λ. The system is the chain's tridiagonal T bordered by the six
// weld rows: [T B; Bᵀ D]; the welded edge's own length constraint is left out, since the weld
// implies it (keeping it makes the system singular, which corrupted the dynamics). It is solved in
// O(n): Thomas for T⁻¹c_e and T⁻¹B, then the 6 x 6 Schur complement S = D - Bᵀ T⁻¹ B.
ProjectionReport project_with_body(RodWithBody& s, std::vector<Vec3>& x, double tolerance) {
  DynamicRod& rod = s.rod;
  RigidBody& b = s.body;
  const int n = rod.rest.vertex_count(), edges = rod.rest.edge_count(), last = edges - 1;
  std::vector<double> w(n);
  for (int i = 0; i < n; ++i) w[i] = rod.fixed[i] ? 0.0 : 1.0 / rod.mass[i];
  LengthSystem a;
  std::vector<double> scratch(edges);
  ProjectionReport report;
  for (;; ++report.iterations) {
    const Mat3 inv_inertia = b.world_inertia().inverse();
    std::array<Vec3, 2> arm, cw;
    double weld_error = 0;
    for (int k = 0; k < 2; ++k) {  // C_w,k = R a_k + r - x_{last+k}
      arm[k] = b.orientation * s.anchor[k];
      cw[k] = arm[k] + b.position - x[last + k];
      weld_error = std::max(weld_error, cw[k].norm());
    }
    // T: the chain's length constraints, the welded edge's dropped (the weld holds its length).
    assemble_length_system(x, rod.rest, w, last, a);
    report.max_length_error = a.max_length_error;
    if ((report.max_length_error <= tolerance && weld_error <= tolerance) ||
        report.iterations == 50)
      break;
    // B: edges touching the welded vertices v = last + k, where ∇_v C_w = -I:
    //   edge v-1 (∇_v C = +2e) gives -2 w_v eᵀ, edge v (∇_v C = -2e) gives +2 w_v eᵀ.
    //   The welded edge `last` is dropped, so only edge last - 1 touches them.
    Eigen::MatrixXd bmat = Eigen::MatrixXd::Zero(edges, 6);
    if (last >= 1 && !a.dropped[last - 1])
      bmat.block<1, 3>(last - 1, 0) = -2 * w[last] * a.e[last - 1].transpose();
    // D: the body's rotation and translation plus the welded vertices' own mass.
    Eigen::Matrix<double, 6, 6> d;
    for (int k = 0; k < 2; ++k)
      for (int l = 0; l < 2; ++l)
        d.block<3, 3>(3 * k, 3 * l) =
            bridge::cross_matrix(arm[k]) * inv_inertia * bridge::cross_matrix(arm[l]).transpose() +
            Mat3::Identity() / b.mass + (k == l ? w[last + k] : 0.0) * Mat3::Identity();
    // Schur complement on the weld rows. B has nonzeros in the first vertex's three columns only.
    std::vector<double> y0(edges), column(edges), solution(edges);
    if (!kernels::thomas_solve(edges, a.lower.data(), a.diag.data(), a.upper.data(), a.c.data(),
                               y0.data(), scratch.data()))
      throw Error("der projection", "singular constraint system");
    Eigen::MatrixXd y = Eigen::MatrixXd::Zero(edges, 6);
    for (int c = 0; c < 3; ++c) {
      for (int j = 0; j < edges; ++j) column[j] = bmat(j, c);
      kernels::thomas_solve(edges, a.lower.data(), a.diag.data(), a.upper.data(), column.data(),
                            solution.data(), scratch.data());
      for (int j = 0; j < edges; ++j) y(j, c) = solution[j];
    }
    Eigen::Matrix<double, 6, 1> rhs_w;
    rhs_w << cw[0], cw[1];
    const Eigen::VectorXd y0v = Eigen::Map<const Eigen::VectorXd>(y0.data(), edges);
    const Eigen::Matrix<double, 6, 6> schur = d - bmat.transpose() * y;
    const Eigen::Matrix<double, 6, 1> lw = schur.ldlt().solve(rhs_w - bmat.transpose() * y0v);
    const Eigen::VectorXd le = y0v - y * lw;
    // y -= W ∇Cᵀ λ.
    for (int j = 0; j < edges; ++j) {
      x[j] += w[j] * 2 * a.e[j] * le[j];
      x[j + 1] -= w[j + 1] * 2 * a.e[j] * le[j];
    }
    Vec3 dphi = Vec3::Zero(), dr = Vec3::Zero();
    for (int k = 0; k < 2; ++k) {
      const Vec3 lk = lw.segment<3>(3 * k);
      dphi -= inv_inertia * arm[k].cross(lk);  // -I⁻¹ (∇_φ C_w)ᵀ λ with ∇_φ C_w = -[R a]
      dr -= lk / b.mass;
      x[last + k] += w[last + k] * lk;  // ∇_x C_w = -I
    }
    b.orientation = (rotation_of(dphi) * b.orientation).normalized();
    b.position += dr;
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
