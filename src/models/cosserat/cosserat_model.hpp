#pragma once
// Model "cosserat" (compact inextensible Cosserat rods, Zhao et al. 2022) in the model table: its
// settings, its simulators (the reference's CosseratRod per strand; the batched kernels of
// kernels/cosserat/ on cpu and cuda), its single-rod scenes and what it reports.
#include <optional>

#include "engine/model.hpp"
#include "reference/cosserat/cosserat_rod.hpp"
#include "reference/cosserat/cosserat_solver.hpp"

namespace hairsim::models {

// The Cosserat step's own settings (a hairstyle scene's "solver" object).
struct CosseratSettings : engine::ModelSettings {
  // Newton's tolerance on the gradient (N, N m); <= 0: 4e-4 of the lightest strand's weight
  // (docs/models/cosserat.md). PCG stops at 1e-2 of it, or once its residual fell by
  // pcg_relative_tolerance.
  double newton_tolerance = 0;
  double pcg_relative_tolerance = 1e-2;
  // Newton iterations per step at most (see accept_unconverged). The paper stops at 5; on hair
  // sliding over the head the kernels' penalty contacts need more on some steps (measured: with 5
  // the trajectory changed erratically with Δt, with 50 it converged to the reference's, 3.4
  // iterations per step on average), so hair runs allow more. Under a violent shake
  // (scenes/stress/violent_shake.json, 3 rad at 8 Hz) whipped tips reach a cap of 20 on most steps
  // and the unconverged steps leave the penalty contacts 7-15 mm into the scalp (6.7 mm on the
  // soak's 4 strands); with 100 they converge (0.06 mm there; 41 iterations a step on the
  // 200-strand scene), while calm runs take the same 2-4: the cap bounds a runaway, it is not a
  // budget.
  int newton_max_iterations = 100;
  // Kernels: the colliders' penalty stiffness κ, in units of a vertex's m/Δt²; <= 0: the
  // precision's default, 1e4 in double, 300 in float, where the gap's round-off (an ulp of the
  // coordinates) times 1e4 m/Δt² would be ~10 vertex weights of noise that Newton cannot reduce
  // (docs/models/cosserat.md has the measurements).
  double contact_ratio = 0;
  // Kernels: the penalty acts from this far outside the colliders (m); unset: 0 in double, and in
  // float the depth the penalty lets a vertex arriving at 1 m/s reach (3.4e-6 m at Δt = 1 ms),
  // which float's κ = 300 cannot make smaller (contact_margin): hair then rests that far above
  // the surface instead of that deep in it.
  std::optional<double> contact_margin;
  // The colliders' Coulomb friction (their μ) is smoothed below this slip speed, ε_v
  // (kernels/common/friction.hpp): slower contacts stick, creeping at most this fast (m/s).
  double stick_speed = 1e-3;
  // Newton's matrix: with the chain's curvature, projected (true: "projected_newton"), or the
  // paper's Gauss-Newton Jᵀ H J ("gauss_newton"): docs/models/cosserat.md, "Newton's Hessian".
  bool chain_curvature = true;
  // PCG's preconditioner: `exact`, Newton's matrix itself factored along the chain in O(n), with
  // which PCG takes one iteration (about 5 in float) where the paper's hybrid one (eq. 22) took
  // 37-54 on hair against a head (docs/models/cosserat.md, "The exact chain solve"), or any of
  // the paper's.
  cosserat::PreconditionerKind preconditioner = cosserat::PreconditionerKind::exact;
  // The discrete Darboux vector's measure (docs/models/cosserat.md): tangent, or the paper's
  // printed eq. (29), sine, which lets a segment fold onto its neighbour.
  cosserat::BendingStrain bending_strain = cosserat::BendingStrain::tangent;
  // Kernels: a strand step whose solve failed (a singular preconditioner) is redone from its
  // start in 2, 4, ... substeps, at most 2^this, before the run stops as failed (issue 27). The
  // reference does not retry.
  int max_substep_halvings = 3;
  // A strand step whose Newton reached newton_max_iterations without meeting its tolerance stops
  // the run as failed, naming the strand and step; with this set the run goes on and the summary
  // counts such steps (solver.unconverged_steps). Reference and kernels.
  bool accept_unconverged = false;
};

engine::Model cosserat_model();

}  // namespace hairsim::models
