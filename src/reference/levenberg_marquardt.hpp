#pragma once
// Levenberg-Marquardt for the references' least-squares fits (rest polylines fitted by helical or
// clothoid elements): minimises ‖r(k)‖² from `get()`, with the damping λ diag(JᵀJ) quartered
// after a step that lowers ‖r‖ and multiplied by 8 after one that does not; stops when a step
// gains less than `min_gain` of ‖r‖ (by default 1e-13: round-off), after 200 steps, or when λ
// passes 1e12. `residual(r, J)` fills r and its Jacobian at the current parameters; `set(k)` sets
// them. Returns the final r.
#include <Eigen/Cholesky>
#include <Eigen/Core>
#include <algorithm>

namespace hairsim::reference {

template <class Get, class Set, class Residual>
Eigen::VectorXd levenberg_marquardt(Get&& get, Set&& set, Residual&& residual,
                                    double min_gain = 1e-13) {
  using VecX = Eigen::VectorXd;
  using MatX = Eigen::MatrixXd;
  VecX r, r_next;
  MatX jac, jac_next;
  residual(r, jac);
  double lambda = 1e-3;
  for (int it = 0; it < 200; ++it) {
    // lazyProduct: a small product, kept out of Eigen's OpenMP-parallel GEMM (which, on two
    // busy cores, spent 95 % of a fit's time spinning).
    const MatX jtj = jac.transpose().lazyProduct(jac);
    MatX a = jtj;
    a.diagonal() += lambda * (jtj.diagonal().array() + 1e-12).matrix();
    const VecX k = get();
    set(VecX(k - a.ldlt().solve(jac.transpose() * r)));
    residual(r_next, jac_next);
    if (r_next.norm() < r.norm()) {
      const bool small_gain = r.norm() - r_next.norm() < min_gain * r.norm();
      r = r_next, jac = jac_next, lambda = std::max(lambda / 4, 1e-12);
      if (small_gain) break;
    } else {
      set(k);
      lambda *= 8;
      if (lambda > 1e12) break;
    }
  }
  return r;
}

}  // namespace hairsim::reference
