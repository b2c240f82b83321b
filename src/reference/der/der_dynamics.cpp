#include "reference/der/der_dynamics.hpp"
#include "common/drag.hpp"
#include "reference/eigen_bridge.hpp"

#include <cmath>

#include <Eigen/Geometry>
#include <Eigen/SparseCholesky>
#include <Eigen/SparseCore>
#include <numbers>

#include "common/thomas.hpp"
#include "hairsim/error.hpp"

namespace hairsim::der {

using bridge::from_kernel;
using bridge::to_kernel;

std::vector<double> lumped_masses(const RestShape& rest, double linear_density) {
  const int n = rest.vertex_count();
  std::vector<double> m(n, 0.0);
  for (int j = 0; j < rest.edge_count(); ++j) {
    m[j] += 0.5 * linear_density * rest.edge_length[j];
    m[j + 1 == n ? 0 : j + 1] += 0.5 * linear_density * rest.edge_length[j];
  }
  return m;
}

DynamicRod rod_at_rest(const std::vector<Vec3>& polyline, double bending, double twisting,
                       double linear_density, bool closed) {
  const int edges = static_cast<int>(polyline.size()) - (closed ? 0 : 1);
  const Vec3 u0 = any_orthogonal((polyline[1] - polyline[0]).normalized());
  DynamicRod rod;
  rod.rest = rest_shape_from_polyline(
      polyline, u0, std::vector<Mat2>(std::max(edges, 0), bending * Mat2::Identity()), twisting,
      closed);
  rod.state = {polyline, std::vector<double>(edges, 0.0), u0, closed};
  rod.velocity.assign(polyline.size(), Vec3::Zero());
  rod.mass = lumped_masses(rod.rest, linear_density);
  rod.fixed.assign(polyline.size(), false);
  rod.twist = {false, false};
  return rod;
}

void assemble_length_system(const std::vector<Vec3>& x, const RestShape& rest,
                            const std::vector<double>& inverse_mass, int welded_edge,
                            LengthSystem& s) {
  const int n_edges = rest.edge_count();
  const auto& w = inverse_mass;
  auto head = [&](int j) { return rest.vertex_after(j); };
  s.e.resize(n_edges);
  s.c.resize(n_edges);
  s.lower.resize(n_edges);
  s.diag.resize(n_edges);
  s.upper.resize(n_edges);
  s.dropped.assign(n_edges, false);
  s.max_length_error = 0;
  for (int j = 0; j < n_edges; ++j) {
    s.e[j] = x[head(j)] - x[j];
    s.c[j] = s.e[j].squaredNorm() - rest.edge_length[j] * rest.edge_length[j];
  }
  for (int j = 0; j < n_edges; ++j) {
    s.diag[j] = 4 * s.e[j].squaredNorm() * (w[j] + w[head(j)]);
    s.upper[j] = j + 1 < n_edges ? -4 * s.e[j].dot(s.e[j + 1]) * w[j + 1] : 0.0;
    s.lower[j] = j > 0 ? -4 * s.e[j - 1].dot(s.e[j]) * w[j] : 0.0;
    s.dropped[j] = s.diag[j] == 0 || j == welded_edge;
    if (!s.dropped[j])  // a dropped edge's length is not the projection's to fix
      s.max_length_error =
          std::max(s.max_length_error, std::abs(s.e[j].norm() - rest.edge_length[j]));
  }
  for (int j = 0; j < n_edges; ++j) {
    if (!s.dropped[j]) continue;
    s.diag[j] = 1;
    s.c[j] = 0;
    s.upper[j] = s.lower[j] = 0;
    if (j > 0) s.upper[j - 1] = 0;
    if (j + 1 < n_edges) s.lower[j + 1] = 0;
  }
  s.corner = rest.closed && !s.dropped.front() && !s.dropped.back()
                 ? -4 * s.e[n_edges - 1].dot(s.e[0]) * w[0]
                 : 0.0;
}

ProjectionReport project_inextensible(std::vector<Vec3>& x, const RestShape& rest,
                                      const std::vector<double>& mass,
                                      const std::vector<bool>& fixed, double tolerance,
                                      int max_iterations) {
  const int n_edges = rest.edge_count();
  std::vector<double> w(x.size());  // inverse masses, 0 for fixed vertices
  for (std::size_t i = 0; i < x.size(); ++i) w[i] = fixed[i] ? 0.0 : 1.0 / mass[i];
  LengthSystem a;
  std::vector<double> dl(n_edges), scratch(4 * n_edges);
  ProjectionReport report;
  for (;; ++report.iterations) {
    assemble_length_system(x, rest, w, -1, a);
    report.max_length_error = a.max_length_error;
    if (report.max_length_error <= tolerance || report.iterations == max_iterations) break;
    const bool solved =
        rest.closed ? kernels::cyclic_thomas_solve(n_edges, a.lower.data(), a.diag.data(),
                                                   a.upper.data(), a.corner, a.corner, a.c.data(),
                                                   dl.data(), scratch.data())
                    : kernels::thomas_solve(n_edges, a.lower.data(), a.diag.data(), a.upper.data(),
                                            a.c.data(), dl.data(), scratch.data());
    if (!solved) throw Error("der projection", "singular constraint system");
    // x <- x - M⁻¹ ∇Cᵀ δλ.
    for (int j = 0; j < n_edges; ++j) {
      x[j] += w[j] * 2 * a.e[j] * dl[j];
      x[rest.vertex_after(j)] -= w[rest.vertex_after(j)] * 2 * a.e[j] * dl[j];
    }
  }
  return report;
}

void clamp_end(DynamicRod& rod, bool tip, const ClampMotion& motion) {
  const int edge = tip ? rod.rest.edge_count() - 1 : 0;
  const int a = edge, b = rod.rest.vertex_after(edge);
  Clamp c;
  c.active = true;
  c.edge = edge;
  c.pivot = 0.5 * (rod.state.x[a] + rod.state.x[b]);
  c.offset = {rod.state.x[a] - c.pivot, rod.state.x[b] - c.pivot};
  c.material_vector = compute_frames(rod.state).m1[edge];
  c.motion = motion;
  rod.fixed[a] = rod.fixed[b] = true;
  (tip ? rod.twist.last_clamped : rod.twist.first_clamped) = true;
  (tip ? rod.tip_clamp : rod.root_clamp) = c;
}

namespace {

Vec3 place_clamp(const Clamp& c, double t, std::vector<Vec3>& x, const RestShape& rest) {
  const Mat3 r = c.motion.rotation(t);
  const Vec3 center = c.motion.center.value_or(c.pivot);
  const Vec3 pivot = center + r * (c.pivot - center) + c.motion.translation(t);
  const int a = c.edge, b = rest.vertex_after(c.edge);
  x[a] = pivot + r * c.offset[0];
  x[b] = pivot + r * c.offset[1];
  // Material vector: the rigid rotation, then the twist about the moved edge.
  const Vec3 tangent = (x[b] - x[a]).normalized();
  return Eigen::AngleAxisd(c.motion.twist(t), tangent) * (r * c.material_vector);
}

}  // namespace

ClampTargets place_clamps(const DynamicRod& rod, double t, std::vector<Vec3>& x) {
  ClampTargets targets;
  if (rod.root_clamp.active) targets.root_m1 = place_clamp(rod.root_clamp, t, x, rod.rest);
  if (rod.tip_clamp.active) targets.tip_m1 = place_clamp(rod.tip_clamp, t, x, rod.rest);
  return targets;
}

void finish_step(DynamicRod& rod, const std::vector<Vec3>& x, const ClampTargets& targets,
                 const Vec3& held_m1, double dt) {
  const RodState previous = rod.state;
  rod.state = moved_to(rod.state, x);
  const int last = rod.rest.edge_count() - 1;
  if (rod.root_clamp.active || rod.tip_clamp.active || rod.twist.last_clamped) {
    const Frames f = compute_frames(rod.state);
    if (rod.root_clamp.active)
      rod.state.theta[0] = angle_to_material_vector(f, 0, targets.root_m1, previous.theta[0]);
    if (rod.tip_clamp.active || rod.twist.last_clamped)
      rod.state.theta[last] = angle_to_material_vector(
          f, last, rod.tip_clamp.active ? targets.tip_m1 : held_m1, previous.theta[last]);
  }
  solve_quasistatic_twist(rod.state, rod.rest, rod.twist, rod.twist_tolerance);
  rod.time += dt;
}

void add_applied_loads(DynamicRod& rod, const Frames& f, std::vector<Vec3>& force) {
  for (std::size_t i = 0; i < rod.point_force.size(); ++i) force[i] += rod.point_force[i];
  const int last = rod.rest.edge_count() - 1;
  const Vec3& t = f.t[last];
  rod.twist.last_torque = rod.tip_moment.dot(t);
  // A couple of forces ±(M × t)/|e| on the edge's ends has moment t × (M × t) = M - (M.t) t.
  const Vec3 couple = rod.tip_moment.cross(t) / f.edge_length[last];
  force[rod.rest.vertex_after(last)] += couple;
  force[last] -= couple;
}

namespace {}  // namespace

bool resolve_contacts(DynamicRod& rod, double t, double dt, std::vector<Vec3>& x,
                      std::vector<bool>& pinned, std::vector<Vec3>* normals,
                      std::vector<double>* offsets, double refresh_depth) {
  const kernels::RigidPose<double> now = bridge::rigid_pose<double>(rod.collider_motion, t + dt),
                                   before = bridge::rigid_pose<double>(rod.collider_motion, t);
  const bool refresh = refresh_depth >= 0;
  bool any = false;
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (rod.fixed[i]) continue;
    for (const kernels::Collider<double>& c : rod.colliders) {
      const kernels::Vector3<double> local = now.apply_inverse(to_kernel(x[i]));
      const kernels::Contact<double> k = kernels::contact(c, local);
      if (!k.inside || (refresh && !(kernels::norm(local - k.surface) > refresh_depth))) continue;
      x[i] = from_kernel(now.apply(k.surface));
      const Vec3 surface_velocity = (x[i] - from_kernel(before.apply(k.surface))) / dt;
      const Vec3 normal = from_kernel(now.rotate(k.normal));
      if (!refresh || !pinned[i])
        rod.velocity[i] = from_kernel(kernels::contact_velocity(to_kernel(rod.velocity[i]),
                                                                to_kernel(surface_velocity),
                                                                to_kernel(normal), c.friction));
      if (normals) (*normals)[i] = normal;
      if (offsets) (*offsets)[i] = normal.dot(x[i]);
      pinned[i] = true;
      any = true;
    }
  }
  return any;
}

Vec3 wind_at(const DynamicRod& rod, int i) {
  const Vec3& x = rod.state.x[i];
  const kernels::Vector3<double> w = rod.wind.at({x.x(), x.y(), x.z()}, rod.time);
  return {w.x, w.y, w.z};
}

bool has_drag(const DynamicRod& rod) {
  return rod.drag_normal != 0 || rod.drag_tangent != 0;
}

Mat3 drag_matrix(const DynamicRod& rod, const Frames& f, int i) {
  const RestShape& r = rod.rest;
  const bool has_before = r.closed || i > 0, has_after = r.closed || i < r.edge_count();
  return from_kernel(kernels::drag_matrix(
      has_before ? to_kernel(f.t[r.edge_before(i)]) : kernels::Vector3<double>{},
      has_after ? to_kernel(f.t[i]) : kernels::Vector3<double>{},
      has_before ? r.edge_length[r.edge_before(i)] : 0.0, has_after ? r.edge_length[i] : 0.0,
      rod.drag_normal, rod.drag_tangent));
}

ProjectionReport project_on_contact_planes(std::vector<Vec3>& x, const RestShape& rest,
                                           const std::vector<double>& mass,
                                           const std::vector<bool>& fixed,
                                           const std::vector<bool>& on_plane,
                                           const std::vector<Vec3>& normals,
                                           const std::vector<double>& offsets, double tolerance,
                                           int max_iterations) {
  const int n = int(x.size());
  std::vector<int> edges, planes;  // the constraints kept
  for (int j = 0; j < rest.edge_count(); ++j)
    if (!(fixed[j] && fixed[rest.vertex_after(j)])) edges.push_back(j);
  for (int i = 0; i < n; ++i)
    if (on_plane[i] && !fixed[i]) planes.push_back(i);
  const int m = int(edges.size() + planes.size());
  auto w = [&](int i) { return fixed[i] ? 0.0 : 1.0 / mass[i]; };
  ProjectionReport report;
  for (;; ++report.iterations) {
    // Constraint values Φ and their gradients J (m x 3n).
    Eigen::VectorXd phi(m);
    std::vector<Eigen::Triplet<double>> jt;
    double worst = 0;
    for (std::size_t r = 0; r < edges.size(); ++r) {
      const int a = edges[r], b = rest.vertex_after(a);
      const Vec3 e = x[b] - x[a];
      phi[int(r)] = e.squaredNorm() - rest.edge_length[a] * rest.edge_length[a];
      worst = std::max(worst, std::abs(e.norm() - rest.edge_length[a]));
      for (int k = 0; k < 3; ++k) {
        jt.emplace_back(int(r), 3 * a + k, -2 * e[k]);
        jt.emplace_back(int(r), 3 * b + k, 2 * e[k]);
      }
    }
    for (std::size_t q = 0; q < planes.size(); ++q) {
      const int i = planes[q], r = int(edges.size() + q);
      phi[r] = normals[i].dot(x[i]) - offsets[i];
      worst = std::max(worst, std::abs(phi[r]));
      for (int k = 0; k < 3; ++k) jt.emplace_back(r, 3 * i + k, normals[i][k]);
    }
    report.max_length_error = worst;
    if (worst <= tolerance || report.iterations == max_iterations) break;
    Eigen::SparseMatrix<double> jac(m, 3 * n);
    jac.setFromTriplets(jt.begin(), jt.end());
    Eigen::VectorXd inverse_mass(3 * n);
    for (int i = 0; i < n; ++i) inverse_mass.segment<3>(3 * i).setConstant(w(i));
    const Eigen::SparseMatrix<double> scaled = jac * inverse_mass.asDiagonal();
    const Eigen::SparseMatrix<double> a = scaled * jac.transpose();
    Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>> solver(a);
    if (solver.info() != Eigen::Success) break;
    const Eigen::VectorXd step = scaled.transpose() * solver.solve(phi);  // M⁻¹ Jᵀ δλ
    for (int i = 0; i < n; ++i) x[i] -= step.segment<3>(3 * i);
  }
  return report;
}

ProjectionReport step_symplectic(DynamicRod& rod, double dt, double length_tolerance) {
  const int n = rod.rest.vertex_count();
  const Frames f = compute_frames(rod.state);
  std::vector<Vec3> force = elastic_forces(rod.state, f, rod.rest, rod.twist);
  add_applied_loads(rod, f, force);
  // A clamped last edge without a Clamp record keeps its material vector in space.
  const Vec3 held_m1 = f.m1.back();

  // Symplectic Euler (§7.2): velocities first, then positions with the new velocities; clamped
  // vertices go where their clamp puts them at t + h.
  std::vector<Vec3> x = rod.state.x;
  for (int i = 0; i < n; ++i) {
    if (rod.fixed[i]) continue;
    if (has_drag(rod)) force[i] -= drag_matrix(rod, f, i) * (rod.velocity[i] - wind_at(rod, i));
    const Vec3 accel = force[i] / rod.mass[i] + rod.gravity - rod.damping * rod.velocity[i];
    rod.velocity[i] += dt * accel;
    x[i] += dt * rod.velocity[i];
  }
  const ClampTargets targets = place_clamps(rod, rod.time + dt, x);
  const ProjectionReport report =
      constrain_positions(rod, x, dt, length_tolerance, LengthConstraint::always);
  finish_step(rod, x, targets, held_m1, dt);
  return report;
}

double worst_length_error(const std::vector<Vec3>& x, const RestShape& rest,
                          const std::vector<bool>& fixed) {
  double worst = 0;
  for (int j = 0; j < rest.edge_count(); ++j) {
    const int a = j, b = rest.vertex_after(j);
    if (fixed[a] && fixed[b]) continue;
    worst = std::max(worst, std::abs((x[b] - x[a]).norm() - rest.edge_length[j]));
  }
  return worst;
}

ProjectionReport constrain_positions(DynamicRod& rod, std::vector<Vec3>& x, double dt,
                                     double length_tolerance, LengthConstraint lengths) {
  const int n = rod.rest.vertex_count();
  auto beyond_limit = [&] {
    return lengths == LengthConstraint::always ||
           (lengths == LengthConstraint::beyond_tolerance &&
            worst_length_error(x, rod.rest, rod.fixed) > length_tolerance);
  };
  ProjectionReport report;
  if (beyond_limit()) {
    report = project_inextensible(x, rod.rest, rod.mass, rod.fixed, length_tolerance);
    for (int i = 0; i < n; ++i) rod.velocity[i] = (x[i] - rod.state.x[i]) / dt;
  }
  std::vector<bool> pinned = rod.fixed;
  std::vector<Vec3> normals(n, Vec3::Zero());
  std::vector<double> offsets(n, 0.0);
  if (resolve_contacts(rod, rod.time, dt, x, pinned, &normals, &offsets) && beyond_limit()) {
    // Contacts slide on their tangent planes while every edge goes back to its length; contacts
    // that slid deeper than the tolerance into a curved collider are moved to its surface and
    // projected again, twice at most (the kernels' constrain_positions says why).
    for (int round = 0; round < 3; ++round) {
      if (round > 0 &&
          !resolve_contacts(rod, rod.time, dt, x, pinned, &normals, &offsets, length_tolerance))
        break;
      std::vector<bool> on_plane(n);
      for (int i = 0; i < n; ++i) on_plane[i] = pinned[i] && !rod.fixed[i];
      report.iterations += project_on_contact_planes(x, rod.rest, rod.mass, rod.fixed, on_plane,
                                                     normals, offsets, length_tolerance)
                               .iterations;
      for (int i = 0; i < n; ++i)
        if (!pinned[i]) rod.velocity[i] = (x[i] - rod.state.x[i]) / dt;
    }
  }
  return report;
}

double kinetic_energy(const DynamicRod& rod) {
  double e = 0;
  for (std::size_t i = 0; i < rod.mass.size(); ++i)
    e += 0.5 * rod.mass[i] * rod.velocity[i].squaredNorm();
  return e;
}

double gravity_energy(const DynamicRod& rod) {
  double e = 0;
  for (std::size_t i = 0; i < rod.mass.size(); ++i)
    e -= rod.mass[i] * rod.gravity.dot(rod.state.x[i]);
  return e;
}

}  // namespace hairsim::der

namespace hairsim::der {

RelaxReport relax(DynamicRod& rod, double damping, double speed_tolerance, int max_steps,
                  const std::function<void(DynamicRod&)>& step) {
  const double own_damping = rod.damping;
  rod.damping = damping;
  RelaxReport report;
  for (; report.steps < max_steps; ++report.steps) {
    step(rod);
    report.max_speed = 0;
    for (const Vec3& v : rod.velocity) report.max_speed = std::max(report.max_speed, v.norm());
    if (report.steps > 10 && report.max_speed <= speed_tolerance) {  // not on a still start
      report.converged = true;
      break;
    }
  }
  rod.damping = own_damping;
  return report;
}

RelaxReport relax_to_equilibrium(DynamicRod& rod, double dt, double damping, double speed_tolerance,
                                 int max_steps) {
  const double tolerance = 1e-12 * rod.rest.edge_length.front();
  return relax(rod, damping, speed_tolerance, max_steps,
               [&](DynamicRod& r) { step_symplectic(r, dt, tolerance); });
}

}  // namespace hairsim::der
