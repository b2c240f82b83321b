#pragma once
// Linearly implicit backward Euler for DER (hairsim's addition; the paper integrates
// explicitly): one Newton step per time step, so hair-scale parameters run at steps of
// milliseconds. Stretching is a stiff elastic energy ½ EA Σ (|e| - |ē|)² / |ē| instead of a
// constraint. With damping c (1/s) and air drag D (drag_matrix, linear in v, taken implicitly):
//   (M (1 + h c) + h D + h² H) v' = M v + h (F(x) + D w),   x' = x + h v',
// F the exact force (elastic forces of the quasistatic rod, §7.1, plus stretching and gravity),
// w the wind, and H an SPD approximation of the energy Hessian: the exact stretching Hessian (its
// positive part) plus a Gauss-Newton bending Hessian Σ_i J_iᵀ A_i J_i (J_i = ∂κb_i/∂x, A_i the
// bending quadratic form in material coordinates, material frames held over the step). The fixed
// point of the step is the exact equilibrium F = 0, whatever the approximation in H. Then
// constrain_positions as a strain limit: where an edge is off its rest length by more than the
// projection's tolerance, the fast projection restores the lengths (v = (x_projected - x_old)/h)
// and contacts slide on their tangent planes; elsewhere the solved velocities stay and contacts
// are resolved alone. Stiff stretching alone let hair stretch 4 % at a 1 rad, 3 Hz shake and
// 227 % at 3 rad, 8 Hz (issue 27).
#include "reference/der/der_dynamics.hpp"

namespace hairsim::der {

struct ImplicitStepReport {
  double max_strain = 0;  // max | |e|/|ē| - 1 | after the step
  int projection_iterations = 0;
};

// Stretching energy and its gradient (exact).
double stretching_energy(const DynamicRod& rod);

// `length_tolerance` (m) and `lengths` as constrain_positions takes them: hair runs pass the
// kernels' tolerance and LengthConstraint::beyond_tolerance.
ImplicitStepReport step_linearly_implicit(DynamicRod& rod, double dt, double length_tolerance,
                                          LengthConstraint lengths);
// ... extensible: no projection, the rod's stretching stiffness alone holds its lengths
// (single-rod scenes, where material.stretching_stiffness is the rod's; contacts still resolved).
ImplicitStepReport step_linearly_implicit(DynamicRod& rod, double dt);

// Static mode with the implicit integrator: damped implicit steps until every vertex moves
// slower than `speed_tolerance`.
RelaxReport relax_implicit(DynamicRod& rod, double dt, double damping, double speed_tolerance,
                           int max_steps);

}  // namespace hairsim::der
