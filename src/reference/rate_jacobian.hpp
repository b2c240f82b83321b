#pragma once
// ∂F/∂q̇ of generalized forces F(q̇) by central differences, one column per rate: exact to
// round-off at any step for forces of degree ≤ 2 in q̇ (the reduced models' velocity products,
// the clamp's Coriolis terms and the linear drag), which is how both reduced references take
// their velocity-product forces implicit (`implicit_inertia`).
#include <Eigen/Core>

namespace hairsim::reference {

// `forces_at(rates)`: the forces with the rates set to `rates`; `step`: the difference's step.
template <class ForcesAt>
Eigen::MatrixXd rate_jacobian(const Eigen::VectorXd& rates, double step, ForcesAt&& forces_at) {
  const Eigen::Index n = rates.size();
  Eigen::MatrixXd out(n, n);
  for (Eigen::Index j = 0; j < n; ++j) {
    Eigen::VectorXd plus = rates, minus = rates;
    plus(j) += step, minus(j) -= step;
    const Eigen::VectorXd forward = forces_at(plus);
    out.col(j) = (forward - forces_at(minus)) / (2 * step);
  }
  return out;
}

}  // namespace hairsim::reference
