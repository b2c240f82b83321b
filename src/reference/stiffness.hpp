#pragma once
// The stiffness of an equilibrium: the potential's Hessian H = −∂g/∂q by central differences of
// the generalized forces g (2n force evaluations: small n), and whether the equilibrium is
// stable (H positive semi-definite). Used by the reduced models' static solve
// (newton_statics.hpp) and by every model's sag-free rest shape (inverse_statics.hpp), which
// keeps a groom it holds only where holding it is stable.
#include <Eigen/Core>
#include <Eigen/Eigenvalues>
#include <algorithm>
#include <cmath>

namespace hairsim::reference {

// H at q, symmetrised: `set(q)` moves the model there, `forces()` reads g (the model is left at
// q). Each coordinate's step is 1e-6 of its size (at least 1e-6 of `unit`). `asymmetry`, when
// given: the largest |H_ij − H_ji| of the differences, their round-off and truncation (H is
// symmetric), the scale below which an eigenvalue is noise.
template <class Set, class Forces>
Eigen::MatrixXd potential_hessian(const Eigen::VectorXd& q, Set&& set, Forces&& forces,
                                  double unit = 1.0, double* asymmetry = nullptr) {
  const Eigen::Index n = q.size();
  Eigen::MatrixXd hessian(n, n);
  for (Eigen::Index j = 0; j < n; ++j) {
    const double h = 1e-6 * std::max(unit, std::abs(q(j)));
    Eigen::VectorXd qp = q, qm = q;
    qp(j) += h, qm(j) -= h;
    set(qp);
    const Eigen::VectorXd gp = forces();
    set(qm);
    const Eigen::VectorXd gm = forces();
    hessian.col(j) = -(gp - gm) / (2 * h);
  }
  set(q);
  if (asymmetry) *asymmetry = (hessian - hessian.transpose()).cwiseAbs().maxCoeff();
  return 0.5 * (hessian + hessian.transpose());
}

// H's extreme eigenvalues and the size of its noise (the differences' asymmetry). Stable: no
// direction lowers the energy beyond that noise, 100 times over (a zero eigenvalue, as the turn
// of a buckled column about its axis, is neutral). Not a fraction of the largest eigenvalue: a
// DER strand's stiffest modes (its short edges' bending) are 1e8 times its softest, which is the
// one that buckles.
struct StiffnessRange {
  double min = 0, max = 0;
  double noise = 0;
  bool stable() const { return min > -100 * noise; }
};
inline StiffnessRange stiffness_range(const Eigen::MatrixXd& hessian, double noise) {
  if (hessian.size() == 0) return {};
  const Eigen::VectorXd lambda =
      Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(hessian, Eigen::EigenvaluesOnly)
          .eigenvalues();  // ascending
  return {lambda(0), lambda(lambda.size() - 1), noise};
}

}  // namespace hairsim::reference
