#pragma once
// Static equilibrium of a reduced-coordinate rod (the Super-Helix's, the Super Space
// Clothoid's): Newton on the generalized forces g(q) = 0, the potential's Hessian H = −∂g/∂q by
// central differences (n² force evaluations' worth: small n). Globalised so that it finds a
// stable equilibrium past a buckling load, where the start (a straight column) is a saddle:
//
// - the step is the saddle-free Newton direction |H|⁻¹ g (H's eigenvectors, each eigenvalue
//   by its magnitude, floored at 1e-10 of the largest): Newton's own where H is positive
//   definite, a descent direction everywhere, and along a direction of negative curvature it
//   moves away from the saddle (its component there doubles a step on a quadratic) instead of
//   toward it, as Newton's does (Dauphin et al. 2014, "saddle-free Newton");
// - then halving until Armijo's condition holds on the potential, or, for loads without one (a
//   couple at an end, the wind's drag), on the forces' norm.
//
// An equilibrium that is a saddle of the potential (a perfectly straight column above its
// buckling load: its forces have no component along the buckling mode) is left along H's most
// negative direction and the descent goes on. At the end, H's smallest eigenvalue is reported:
// > 0 a stable equilibrium (a minimum of the potential), < 0 an unstable one.
#include <Eigen/Core>
#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>

#include "reference/stiffness.hpp"

namespace hairsim::reference {

struct StaticReport {
  bool converged = false;
  int iterations = 0;
  double residual = 0;       // ‖g‖ at the end (N m)
  double min_stiffness = 0;  // H's smallest eigenvalue at the end (N m per unit of q)
  double max_stiffness = 0;  // and its largest
  // No direction lowers the energy beyond round-off (a zero one, as the turn of a buckled
  // column about its axis, is neutral).
  bool stable() const { return min_stiffness > -1e-8 * max_stiffness; }
};

// `get()` / `set(q)`: the rod's coordinates; `forces()`: g at the current ones; `potential()`:
// the potential energy there (read only when `conservative`).
template <class Get, class Set, class Forces, class Potential>
StaticReport newton_statics(Get&& get, Set&& set, Forces&& forces, Potential&& potential,
                            bool conservative, double tolerance, int max_iterations) {
  using VecX = Eigen::VectorXd;
  using MatX = Eigen::MatrixXd;
  StaticReport report;
  constexpr int kEscapes = 3;
  int escapes = 0;
  auto hessian_at = [&](const VecX& q) { return potential_hessian(q, set, forces); };
  for (report.iterations = 0;; ++report.iterations) {
    const VecX q = get(), g = forces();
    report.residual = g.norm();
    if (!std::isfinite(report.residual)) break;
    const Eigen::SelfAdjointEigenSolver<MatX> eigen(hessian_at(q));
    const VecX& lambda = eigen.eigenvalues();  // ascending
    report.min_stiffness = lambda(0);
    report.max_stiffness = lambda(lambda.size() - 1);
    if (report.residual <= tolerance) {
      // A saddle (a straight column above its buckling load: g = 0, no component along the
      // mode) is left along its most negative direction, by 1e-4 of the coordinates' size,
      // the start of the descent to the buckled equilibrium; at most kEscapes times.
      if (!conservative || report.stable() || escapes == kEscapes) {
        report.converged = true;
        break;
      }
      ++escapes;
      set(q + 1e-4 * std::max(1.0, q.norm()) * eigen.eigenvectors().col(0));
      continue;
    }
    if (report.iterations == max_iterations) break;
    const double floor = 1e-10 * lambda.cwiseAbs().maxCoeff();
    const VecX along = eigen.eigenvectors().transpose() * g;
    const VecX scaled = along.array() / lambda.array().abs().max(floor);
    const VecX dq = eigen.eigenvectors() * scaled;
    if (!dq.allFinite()) break;
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
