// Quasistatic material frame (§5.1) and the elastic forces of the quasistatic rod (§7.1).
#include <Eigen/Geometry>
#include <cmath>
#include <numbers>

#include "common/thomas.hpp"
#include "der/der_forces.hpp"
#include "der/der_kinematics.hpp"
#include "reference/der/der_rod.hpp"
#include "reference/eigen_bridge.hpp"

namespace hairsim::der {
namespace {

bool is_free(int j, int n_edges, const TwistBoundary& bc) {
  return !((j == 0 && bc.first_clamped) || (j == n_edges - 1 && bc.last_clamped));
}

double free_residual(const std::vector<double>& g, const TwistBoundary& bc) {
  double r = 0;
  const int n = static_cast<int>(g.size());
  for (int j = 0; j < n; ++j)
    if (is_free(j, n, bc)) r = std::max(r, std::abs(g[j]));
  return r;
}

std::vector<double> twist_problem_gradient(const RodState& s, const Frames& f,
                                           const RestShape& rest, const TwistBoundary& bc) {
  std::vector<double> g = theta_gradient(s, f, rest);
  g.back() -= bc.last_torque;
  return g;
}

// Newton step δ with H δ = -g on the free angles (clamped rows: δ = 0). A shift of 1e-12 of
// the largest diagonal entry keeps H invertible along the uniform-rotation mode of rods whose
// energy does not change when every θ turns together (isotropic rods with free ends, rings);
// g has no component along that mode, so the step is unaffected. Rings: cyclic Thomas.
std::vector<double> newton_step(const Tridiagonal& h, const std::vector<double>& g,
                                const TwistBoundary& bc, bool closed) {
  const int n = static_cast<int>(g.size());
  Tridiagonal a = h;
  std::vector<double> rhs(n), step(n), scratch(4 * n);
  double largest = 0;
  for (double d : a.diag) largest = std::max(largest, std::abs(d));
  for (int j = 0; j < n; ++j) {
    a.diag[j] += 1e-12 * largest;
    rhs[j] = -g[j];
    if (is_free(j, n, bc)) continue;
    a.diag[j] = 1;  // decouple a clamped angle: its row becomes δ_j = 0
    rhs[j] = 0;
    a.upper[j] = a.lower[j] = 0;
    if (j > 0) a.upper[j - 1] = 0;
    if (j + 1 < n) a.lower[j + 1] = 0;
  }
  const bool solved =
      closed
          ? kernels::cyclic_thomas_solve(n, a.lower.data(), a.diag.data(), a.upper.data(), a.corner,
                                         a.corner, rhs.data(), step.data(), scratch.data())
          : kernels::thomas_solve(n, a.lower.data(), a.diag.data(), a.upper.data(), rhs.data(),
                                  step.data(), scratch.data());
  if (!solved) step.assign(n, 0.0);
  return step;
}

// Eqs. (5)-(6) apply: no edge's bending energy depends on its material frame, and the rod is
// untwisted at rest.
bool twist_decouples_from_bending(const RestShape& rest) {
  for (double m : rest.twist)
    if (m != 0) return false;
  for (const Mat2& b : rest.bending)
    if (b(0, 1) != 0 || b(1, 0) != 0 || b(0, 0) != b(1, 1)) return false;
  for (const auto& w : rest.curvature)
    if (!w[0].isZero(0) || !w[1].isZero(0)) return false;
  return true;
}

// The uniform twist of eqs. (5)-(6): m_i = c l̄_i at every bending vertex, θ^j = θ^0 + c Σ_{i<=j}
// l̄_i. The rate c follows from the boundary: both ends clamped, c = (θ^{N-1} - θ^0) / Σ l̄_i; a
// ring, c = (Θ - χ) / Σ l̄_i (the closing twist minus the holonomy: the m_i sum to it); a free last
// edge under a torque τ, c = τ / (2β) (∂E/∂θ^{N-1} = 2β m / l̄ = τ); otherwise c = 0. Returns false
// where no equilibrium exists (both ends free under a torque).
bool set_uniform_twist(RodState& s, const Frames& f, const RestShape& rest,
                       const TwistBoundary& bc) {
  const int n = static_cast<int>(s.theta.size());
  double total = 0;
  for (int i = rest.first_bending_vertex(); i < rest.end_bending_vertex(); ++i)
    total += rest.voronoi_length[i];
  double rate = 0;
  if (rest.closed)
    rate = (rest.closing_twist - f.closing_holonomy) / total;
  else if (bc.first_clamped && bc.last_clamped)
    rate = (s.theta.back() - s.theta.front()) / total;
  else if (bc.first_clamped)
    rate = bc.last_torque / (2 * rest.twist_modulus);
  else if (bc.last_torque != 0)
    return false;
  if (!rest.closed && bc.last_clamped && !bc.first_clamped) {  // the clamped end is the last
    for (int j = n - 2; j >= 0; --j) s.theta[j] = s.theta.back();
    return true;
  }
  for (int j = 1; j < n; ++j) s.theta[j] = s.theta[j - 1] + rate * rest.voronoi_length[j];
  return true;
}

}  // namespace

double twist_problem_energy(const RodState& s, const RestShape& rest, const TwistBoundary& bc) {
  return elastic_energy(s, compute_frames(s), rest) - bc.last_torque * s.theta.back();
}

TwistSolveReport solve_quasistatic_twist(RodState& s, const RestShape& rest,
                                         const TwistBoundary& bc, double tolerance,
                                         int max_iterations) {
  TwistSolveReport report;
  const int n = static_cast<int>(s.theta.size());
  if (twist_decouples_from_bending(rest)) {
    RodState uniform = s;
    if (set_uniform_twist(uniform, compute_frames(s), rest, bc)) {
      report.residual =
          free_residual(twist_problem_gradient(uniform, compute_frames(uniform), rest, bc), bc);
      if (report.residual <= tolerance) {
        s.theta = uniform.theta;
        report.converged = report.closed_form = true;
        return report;
      }
    }
  }
  for (; report.iterations <= max_iterations; ++report.iterations) {
    const Frames f = compute_frames(s);
    const std::vector<double> g = twist_problem_gradient(s, f, rest, bc);
    report.residual = free_residual(g, bc);
    if (report.residual <= tolerance) {
      report.converged = true;
      break;
    }
    if (report.iterations == max_iterations) break;
    std::vector<double> step = newton_step(theta_hessian(s, f, rest), g, bc, rest.closed);
    double slope = 0;
    for (int j = 0; j < n; ++j) slope += g[j] * step[j];
    if (!(slope < 0)) {  // Hessian not positive definite here: fall back to steepest descent
      for (int j = 0; j < n; ++j) step[j] = is_free(j, n, bc) ? -g[j] : 0.0;
      slope = 0;
      for (int j = 0; j < n; ++j) slope += g[j] * step[j];
    }
    // Backtracking line search (Armijo) along the Newton direction (§5.1). Near the minimum the
    // energy change drowns in round-off, so the test allows 45 ε |E| (the kernels'
    // energy_round_off, 1.0e-14): full Newton steps are then taken and converge quadratically.
    const double e0 = twist_problem_energy(s, rest, bc);
    const double roundoff = kernels::der::energy_round_off<double>() * std::abs(e0);
    RodState trial = s;
    double alpha = 1;
    for (int k = 0; k < 40; ++k, alpha *= 0.5) {
      for (int j = 0; j < n; ++j) trial.theta[j] = s.theta[j] + alpha * step[j];
      if (twist_problem_energy(trial, rest, bc) <= e0 + 1e-4 * alpha * slope + roundoff) break;
    }
    s.theta = trial.theta;
  }
  return report;
}

std::vector<Vec3> elastic_forces(const RodState& s, const Frames& f, const RestShape& rest,
                                 const TwistBoundary& bc) {
  std::vector<Vec3> force = position_gradient(s, f, rest);
  for (Vec3& v : force) v = -v;
  if (bc.last_clamped) {
    const int last = static_cast<int>(s.theta.size()) - 1;
    const double dE_dtheta = theta_gradient(s, f, rest)[last];
    const std::vector<Vec3> dpsi = holonomy_gradient(f, rest, last);
    for (std::size_t i = 0; i < force.size(); ++i) force[i] += dE_dtheta * dpsi[i];
  }
  return force;
}

double angle_to_material_vector(const Frames& f, int edge, const Vec3& m1, double near) {
  return kernels::der::material_angle(bridge::to_kernel(m1), bridge::to_kernel(f.u[edge]),
                                      bridge::to_kernel(f.v[edge]), near);
}

}  // namespace hairsim::der
