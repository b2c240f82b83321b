#pragma once
// Static equilibrium of a reduced-coordinate rod (the Super-Helix's, the Super Space
// Clothoid's): Newton on the generalized forces g(q) = 0, the potential's Hessian −∂g/∂q by
// central differences (n² force evaluations' worth: small n), Newton's direction where it is
// positive definite, else a fallback (a stiffness-scaled gradient step); then halving until
// Armijo's condition holds on the potential, or, for loads without one (a couple at an end, the
// wind's drag), on the forces' norm.
#include <Eigen/Cholesky>
#include <Eigen/Core>
#include <cmath>

namespace hairsim::reference {

struct StaticReport {
  bool converged = false;
  int iterations = 0;
  double residual = 0;  // ‖g‖ at the end (N m)
};

// `get()` / `set(q)`: the rod's coordinates; `forces()`: g at the current ones; `potential()`:
// the potential energy there (read only when `conservative`); `fallback(g)`: the step when
// Newton's is not a descent direction.
template <class Get, class Set, class Forces, class Potential, class Fallback>
StaticReport newton_statics(Get&& get, Set&& set, Forces&& forces, Potential&& potential,
                            bool conservative, Fallback&& fallback, double tolerance,
                            int max_iterations) {
  using VecX = Eigen::VectorXd;
  using MatX = Eigen::MatrixXd;
  StaticReport report;
  for (report.iterations = 0; report.iterations < max_iterations; ++report.iterations) {
    const VecX q = get(), g = forces();
    report.residual = g.norm();
    if (!std::isfinite(report.residual)) break;
    if (report.residual <= tolerance) {
      report.converged = true;
      break;
    }
    const Eigen::Index n = q.size();
    MatX hessian(n, n);
    for (Eigen::Index j = 0; j < n; ++j) {
      const double h = 1e-6 * std::max(1.0, std::abs(q(j)));
      VecX qp = q, qm = q;
      qp(j) += h, qm(j) -= h;
      set(qp);
      const VecX gp = forces();
      set(qm);
      const VecX gm = forces();
      hessian.col(j) = -(gp - gm) / (2 * h);
    }
    set(q);
    hessian = 0.5 * (hessian + hessian.transpose()).eval();
    Eigen::LDLT<MatX> ldlt(hessian);
    VecX dq = ldlt.solve(g);
    if (ldlt.info() != Eigen::Success || !(dq.dot(g) > 0) || !dq.allFinite()) dq = fallback(g);
    // Armijo, with the potential's round-off as slack near the solution.
    const double v0 = conservative ? potential() : 0.0;
    double alpha = 1;
    for (int halving = 0; halving < 40; ++halving, alpha /= 2) {
      set(q + alpha * dq);
      const bool better = conservative
                              ? potential() <= v0 - 1e-4 * alpha * g.dot(dq) + 1e-13 * std::abs(v0)
                              : forces().norm() < (1 - 1e-4 * alpha) * report.residual;
      if (better || alpha < 1e-10) break;
    }
  }
  return report;
}

}  // namespace hairsim::reference
