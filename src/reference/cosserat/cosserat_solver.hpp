#pragma once
// The linear algebra of one Newton iteration (§3.2-3.3): products with J, Jᵀ, H and
// A = JᵀHJ in O(n) without assembling A, the paper's three preconditioners (diagonal,
// block-diagonal, and the hybrid one of eq. 22) and the exact one, and preconditioned conjugate
// gradients.
#include <functional>
#include <string>
#include <vector>

#include <Eigen/Cholesky>

#include "reference/cosserat/cosserat_rod.hpp"

namespace hairsim::cosserat {

// J v (eq. 18): vertex displacements as prefix sums p_j = v_c + Σ_{i<j} J^i_{p,s} v_i, and the
// quaternion changes J_{q,s} v (block diagonal, eq. 17).
XVector apply_j(const Kinematics& k, const VecX& v);
// Jᵀ y: suffix sums, (Jᵀy)_c = Σ_j y_p,j and (Jᵀy)_i = J^iᵀ Σ_{j>i} y_p,j + ∂q_iᵀ y_q,i.
VecX apply_jt(const Kinematics& k, const XVector& y);
// H y (eq. 15): h_j y_p,j, and M_q/Δt² + K_q on the quaternion part (band structure).
XVector apply_h(const HessianX& h, const RestShape& rest, const XVector& y);

// The Newton system of one iteration with some blocks of s held fixed (a clamped root: the
// root vertex and segment 0): A restricted to the free blocks, the identity on the fixed ones.
class NewtonSystem {
 public:
  NewtonSystem(const Kinematics& k, const HessianX& h, const RestShape& rest,
               std::vector<bool> fixed_blocks);
  // A v = Jᵀ H J v, O(n).
  VecX apply(const VecX& v) const;
  // Zeroes the fixed blocks of v.
  void mask(VecX& v) const;
  const Kinematics& kin() const { return k_; }
  const HessianX& hess() const { return h_; }
  const RestShape& rest() const { return rest_; }
  const std::vector<bool>& fixed() const { return fixed_; }

 private:
  const Kinematics& k_;
  const HessianX& h_;
  const RestShape& rest_;
  std::vector<bool> fixed_;  // per block: 0 = root vertex, 1 + i = segment i
};

// `exact` is A itself: PCG then stops after one iteration (docs/models/cosserat.md, "The exact
// chain solve"); the kernels factor it along the chain in O(n), the reference assembles A and
// factors it densely (Eigen's LLT), an independent check of that recursion.
enum class PreconditionerKind { diagonal, block_diagonal, hybrid, exact };
// "diagonal", "block_diagonal", "hybrid", "exact"; throws Error(where) otherwise.
PreconditionerKind parse_preconditioner(const std::string& name, const std::string& where);
const char* to_string(PreconditionerKind kind);

// A symmetric block-tridiagonal matrix of 3 x 3 blocks over the blocks of s: diag[b], and
// upper[b] coupling blocks b and b + 1. The diagonal and block-diagonal preconditioners are
// special cases (no upper blocks, and no off-diagonal entries within a block).
struct BlockTridiagonal {
  std::vector<Mat3> diag, upper;
};
// The block-tridiagonal preconditioner of `kind` (not exact) for the system (eqs. 22, 27, 28),
// built in O(n): the
// translational part's diagonal blocks J^iᵀ (Σ_{j>i} h_j) J^i by suffix sums of the lumped
// H_p (eq. 28); the rotational part J_{q,ω}ᵀ H_q J_{q,ω} block by block (eq. 27), intact
// (hybrid) or its diagonal blocks only. Fixed blocks get the identity.
BlockTridiagonal build_preconditioner(const NewtonSystem& system, PreconditionerKind kind);
// P⁻¹ r by the block Thomas algorithm (kernels/common/block_thomas.hpp). Throws RunFailure
// on a singular block (P is positive definite for any state, §3.3, so only NaN input does).
VecX apply_inverse(const BlockTridiagonal& p, const VecX& r);

// The preconditioner of any kind, ready to apply: the block-tridiagonal ones, or the exact one
// (A assembled column by column, O(n²) products, and factored, O(n³)). Throws RunFailure when
// the factorisation fails (A not positive definite: only a non-finite state).
class Preconditioner {
 public:
  Preconditioner(const NewtonSystem& system, PreconditionerKind kind);
  VecX apply_inverse(const VecX& r) const;

 private:
  PreconditionerKind kind_;
  BlockTridiagonal blocks_;
  Eigen::LLT<Eigen::MatrixXd> exact_;
};

// PCG stops at ‖r‖₂ < min(tolerance, relative_tolerance ‖rhs‖₂): the paper's absolute 1e-7
// (§4) alone would return x = 0 for any right-hand side smaller than that (a light rod near
// equilibrium), so the residual is also always cut by 1 / relative_tolerance (the forcing term of
// inexact Newton; the paper's 1e-7 against its Newton tolerance 1e-5 is the same 1e-2). A
// residual at round-off (1e-15 ‖rhs‖) stops it too.
struct PcgSettings {
  double tolerance = 1e-7;  // absolute, in the units of the right-hand side (N, N m; §4)
  double relative_tolerance = 1e-2;
  int max_iterations = 0;  // 0: 2 x the number of unknowns
};
struct PcgResult {
  int iterations = 0;
  double residual = 0;
  bool converged = false;
};
// Solves A x = rhs by preconditioned conjugate gradients from the initial x given.
PcgResult pcg(const std::function<VecX(const VecX&)>& apply_a,
              const std::function<VecX(const VecX&)>& apply_p_inverse, const VecX& rhs, VecX& x,
              const PcgSettings& settings);

}  // namespace hairsim::cosserat
