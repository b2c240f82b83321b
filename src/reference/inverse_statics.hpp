#pragma once
// Inverse statics: the rest parameters that make a given shape a static equilibrium (a groom
// that hangs as it was groomed, docs/architecture.md "Sag-free rest shapes").
//
// Every model's elastic energy is quadratic in its strains minus their rest values,
// E = ½ Σ (ε(x) − ε̄)ᵀ K (ε(x) − ε̄), so at a fixed shape x its generalized forces are affine in
// the rest strains ε̄ (and in any force unknowns a model adds, such as the tensions that hold an
// inextensible edge's length): r(p) = A p + r(0). The shape is an equilibrium when r(p) = 0 on
// the free coordinates. Of the parameters that make it one, we take the nearest to the groomed
// rest shape p₀ in the metric of `scale` (each parameter's natural size):
//
//   min ‖D⁻¹ (p − p₀)‖  subject to  A p + r(0) = 0,   D = diag(scale),
//
// solved as p = p₀ + D (A D)⁺ (−r(p₀)) with a complete orthogonal decomposition (the
// minimum-norm least-squares solution: where no rest shape holds the strand exactly, the one
// that leaves the smallest residual force). This is the statically determinate structure of a
// clamped open rod (the internal moment at each point is the external load's moment beyond it;
// Derouet-Jourdan, Bertails-Descoubes, Daviet, Thollot 2013, "Inverse dynamic hair modeling
// with frictional contact", §4, for Super-Helices) written once for every model: A's columns
// come from the model's own force code, one evaluation per parameter (exact for an affine
// residual, whatever the step).
#include <Eigen/Core>
#include <Eigen/QR>
#include <cmath>

#include "reference/stiffness.hpp"

namespace hairsim::reference {

// What holding one strand found.
struct HeldShape {
  Eigen::VectorXd rest;          // the parameters p
  double initial_residual = 0;   // ‖r(p₀)‖: the groom's unbalanced load (the model's units)
  double residual = 0;           // ‖r(p)‖ after the solve
  double relative_residual = 0;  // residual / initial_residual (0 when nothing was unbalanced)
  double max_change = 0;         // max |p − p₀| / scale over the parameters
  // Whether the model kept p: an equilibrium that is unstable (a strand held out sideways by a
  // tight rest curl that its weight then buckles; its stiffness, the potential's Hessian at the
  // groom, has a negative eigenvalue) cannot stay where it was groomed, so the model keeps the
  // groomed rest p₀ there and the strand sags as it would without the solve.
  bool held = true;
  StiffnessRange stiffness;  // at the groom with p
};

// `residual(p)`: the free generalized forces at the shape with parameters p (affine in p).
template <class Residual>
HeldShape hold_shape(const Eigen::VectorXd& p0, const Eigen::VectorXd& scale, Residual&& residual) {
  HeldShape out;
  const Eigen::VectorXd r0 = residual(p0);
  out.initial_residual = r0.norm();
  Eigen::MatrixXd a(r0.size(), p0.size());  // A D: each column one parameter's step of its scale
  for (Eigen::Index j = 0; j < p0.size(); ++j) {
    Eigen::VectorXd p = p0;
    p(j) += scale(j);
    a.col(j) = residual(p) - r0;
  }
  const Eigen::VectorXd y = Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd>(a).solve(-r0);
  out.rest = p0 + scale.cwiseProduct(y);
  out.residual = residual(out.rest).norm();
  out.relative_residual = out.initial_residual > 0 ? out.residual / out.initial_residual : 0.0;
  out.max_change = y.size() > 0 ? y.cwiseAbs().maxCoeff() : 0.0;
  return out;
}

}  // namespace hairsim::reference
