#include "reference/der/der_implicit.hpp"
#include "der/der_forces.hpp"
#include "reference/eigen_bridge.hpp"

#include <Eigen/SparseCholesky>
#include <Eigen/SparseCore>
#include <algorithm>
#include <cmath>

#include "hairsim/error.hpp"

namespace hairsim::der {
namespace {

using Triplets = std::vector<Eigen::Triplet<double>>;

void add_block(Triplets& t, int row_vertex, int col_vertex, const Mat3& block) {
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c)
      if (block(r, c) != 0) t.emplace_back(3 * row_vertex + r, 3 * col_vertex + c, block(r, c));
}

// Stretching: force on each vertex and the PSD Hessian blocks of every edge.
void add_stretching(const DynamicRod& rod, std::vector<Vec3>& force, Triplets& hessian) {
  const RestShape& r = rod.rest;
  const double ea = rod.stretching_stiffness;
  for (int j = 0; j < r.edge_count(); ++j) {
    const int a = j, b = r.vertex_after(j);
    // E = ½ EA (L - L0)² / L0, its gradient and PSD Hessian block: the kernels' formulas.
    const kernels::Vector3<double> d = bridge::to_kernel(rod.state.x[b] - rod.state.x[a]);
    const Vec3 g = bridge::from_kernel(kernels::der::stretching_gradient(d, r.edge_length[j], ea));
    force[a] += g;
    force[b] -= g;
    const Mat3 k = bridge::from_kernel(kernels::der::stretching_hessian(d, r.edge_length[j], ea));
    add_block(hessian, a, a, k);
    add_block(hessian, b, b, k);
    add_block(hessian, a, b, -k);
    add_block(hessian, b, a, -k);
  }
}

// Gauss-Newton bending Hessian: for each bending vertex, Jᵀ A J over its three vertices, with
// A = (1/l̄) Σ_slots Pᵀ B P, P = [m2ᵀ; -m1ᵀ] (eq. 2 with the frames held).
void add_bending_gauss_newton(const DynamicRod& rod, const Frames& f, Triplets& hessian) {
  const RestShape& r = rod.rest;
  for (int i = r.first_bending_vertex(); i < r.end_bending_vertex(); ++i) {
    const int p = r.vertex_before(i), q = r.vertex_after(i);
    const CurvatureBinormalJacobian jac = curvature_binormal_jacobian(
        rod.state.x[i] - rod.state.x[p], rod.state.x[q] - rod.state.x[i], f.kb[i]);
    Mat3 a = Mat3::Zero();
    for (int edge : {r.edge_before(i), i}) {
      Eigen::Matrix<double, 2, 3> proj;
      proj.row(0) = f.m2[edge].transpose();
      proj.row(1) = -f.m1[edge].transpose();
      a += proj.transpose() * r.bending[edge] * proj / r.voronoi_length[i];
    }
    // ∂κb/∂x for the stencil (p, i, q): (-J_a, J_a - J_b, J_b).
    const std::array<Mat3, 3> d{-jac.d_prev_edge, jac.d_prev_edge - jac.d_next_edge,
                                jac.d_next_edge};
    const std::array<int, 3> v{p, i, q};
    for (int m = 0; m < 3; ++m)
      for (int n = 0; n < 3; ++n) add_block(hessian, v[m], v[n], d[m].transpose() * a * d[n]);
  }
}

}  // namespace

double stretching_energy(const DynamicRod& rod) {
  double e = 0;
  for (int j = 0; j < rod.rest.edge_count(); ++j) {
    const double length = (rod.state.x[rod.rest.vertex_after(j)] - rod.state.x[j]).norm();
    const double rest = rod.rest.edge_length[j];
    e += 0.5 * rod.stretching_stiffness * (length - rest) * (length - rest) / rest;
  }
  return e;
}

ImplicitStepReport step_linearly_implicit(DynamicRod& rod, double dt) {
  return step_linearly_implicit(rod, dt, 0.0, LengthConstraint::never);
}

ImplicitStepReport step_linearly_implicit(DynamicRod& rod, double dt, double length_tolerance,
                                          LengthConstraint lengths) {
  if (!(rod.stretching_stiffness > 0))
    throw Error("der implicit", "the implicit integrator needs a positive stretching stiffness");
  const int n = rod.rest.vertex_count();
  const Frames f = compute_frames(rod.state);
  const Vec3 clamped_m1 = f.m1.back();
  std::vector<Vec3> force = elastic_forces(rod.state, f, rod.rest, rod.twist);
  add_applied_loads(rod, f, force);
  Triplets h;
  add_stretching(rod, force, h);
  add_bending_gauss_newton(rod, f, h);

  // Clamped vertices move to their clamp's pose at t + h: their new velocities are known.
  std::vector<Vec3> target = rod.state.x;
  const ClampTargets targets = place_clamps(rod, rod.time + dt, target);
  Eigen::VectorXd known = Eigen::VectorXd::Zero(3 * n);
  for (int i = 0; i < n; ++i)
    if (rod.fixed[i]) known.segment<3>(3 * i) = (target[i] - rod.state.x[i]) / dt;

  // (M (1 + h c) + h² H) v' = M v + h F on the free vertices; the known velocities of clamped
  // vertices move to the right-hand side.
  Triplets a;
  Eigen::VectorXd rhs(3 * n);
  for (int i = 0; i < n; ++i) {
    const double m = rod.mass[i];
    rhs.segment<3>(3 * i) = rod.fixed[i]
                                ? Vec3(known.segment<3>(3 * i))
                                : Vec3(m * rod.velocity[i] + dt * (force[i] + m * rod.gravity));
    for (int k = 0; k < 3; ++k)
      a.emplace_back(3 * i + k, 3 * i + k, rod.fixed[i] ? 1.0 : m * (1 + dt * rod.damping));
    if (rod.fixed[i] || !has_drag(rod)) continue;
    const Mat3 drag = drag_matrix(rod, f, i);
    rhs.segment<3>(3 * i) += dt * drag * wind_at(rod, i);
    add_block(a, i, i, dt * drag);
  }
  for (const auto& t : h) {
    const bool row_fixed = rod.fixed[t.row() / 3], col_fixed = rod.fixed[t.col() / 3];
    if (row_fixed) continue;
    if (col_fixed)
      rhs[t.row()] -= dt * dt * t.value() * known[t.col()];
    else
      a.emplace_back(t.row(), t.col(), dt * dt * t.value());
  }
  Eigen::SparseMatrix<double> matrix(3 * n, 3 * n);
  matrix.setFromTriplets(a.begin(), a.end());
  Eigen::SimplicialLDLT<Eigen::SparseMatrix<double>> solver(matrix);
  if (solver.info() != Eigen::Success) throw RunFailure("der implicit", "factorisation failed");
  const Eigen::VectorXd v = solver.solve(rhs);

  std::vector<Vec3> x = rod.state.x;
  for (int i = 0; i < n; ++i) {
    rod.velocity[i] = v.segment<3>(3 * i);
    x[i] = rod.fixed[i] ? target[i] : Vec3(x[i] + dt * rod.velocity[i]);
  }
  ImplicitStepReport report;
  report.projection_iterations =
      constrain_positions(rod, x, dt, length_tolerance, lengths).iterations;
  finish_step(rod, x, targets, clamped_m1, dt);

  for (int j = 0; j < rod.rest.edge_count(); ++j)
    report.max_strain = std::max(
        report.max_strain,
        std::abs((x[rod.rest.vertex_after(j)] - x[j]).norm() / rod.rest.edge_length[j] - 1));
  return report;
}

RelaxReport relax_implicit(DynamicRod& rod, double dt, double damping, double speed_tolerance,
                           int max_steps) {
  return relax(rod, damping, speed_tolerance, max_steps,
               [&](DynamicRod& r) { step_linearly_implicit(r, dt); });
}

}  // namespace hairsim::der
