#pragma once
// Super Space Clothoids in the kernels: one strand's semi-implicit step (§7.2, the reference's
// `step` without obstacles): the elastic terms implicit, the rest explicit,
//   (M + hν K + h² K) q̈ = F − K (q − q⁰) − (ν + h) K q̇,   q̇ += h q̈,   q += h q̇,
// M and F by the series at the step's end (clothoid_dynamics.hpp), the dense n x n system
// (n = 3 (N + 1)) by Cholesky in place: M is symmetric positive definite (a kinetic energy's
// Hessian) and K positive semi-definite, so A is SPD. K is eq. (8)'s tridiagonal
// ∫ (∂κ/∂q)ᵀ K3 (∂κ/∂q) ds of the affine curvature: per element ℓ (1/3, 1/6; 1/6, 1/3) ⊗ K3.
#include <cmath>

#include "common/hd.hpp"
#include "super_clothoid/clothoid_dynamics.hpp"

namespace hairsim::kernels::super_clothoid {

// y = K x for K3 = diag(stiffness) (GJ, EI1, EI2), x and y 3 (N + 1) long.
template <class A>
HS_HD void stiffness_times(int elements, const A* length, const Vector3<A>& stiffness, const A* x,
                           A* y) {
  for (int a = 0; a < 3 * (elements + 1); ++a) y[a] = A(0);
  for (int i = 0; i < elements; ++i) {
    const A third = length[i] / A(3), sixth = length[i] / A(6);
    for (int c = 0; c < 3; ++c) {
      const A k = stiffness[c], xa = x[3 * i + c], xb = x[3 * i + 3 + c];
      y[3 * i + c] += k * (third * xa + sixth * xb);
      y[3 * i + 3 + c] += k * (sixth * xa + third * xb);
    }
  }
}

// Adds s K to the n x n matrix a (row-major, `stride` per row).
template <class A>
HS_HD void add_stiffness(int elements, const A* length, const Vector3<A>& stiffness, A s, A* a,
                         int stride) {
  for (int i = 0; i < elements; ++i) {
    const A third = s * length[i] / A(3), sixth = s * length[i] / A(6);
    for (int c = 0; c < 3; ++c) {
      const int p = 3 * i + c, q = 3 * i + 3 + c;
      a[p * stride + p] += stiffness[c] * third;
      a[q * stride + q] += stiffness[c] * third;
      a[p * stride + q] += stiffness[c] * sixth;
      a[q * stride + p] += stiffness[c] * sixth;
    }
  }
}

// The Cholesky factor L (A = L Lᵀ) of a symmetric positive definite n x n matrix, in place in
// its lower triangle. Returns false when a pivot is not positive (not SPD, or NaN).
template <class A>
HS_HD bool cholesky(A* a, int n, int stride) {
  for (int j = 0; j < n; ++j) {
    A d = a[j * stride + j];
    for (int k = 0; k < j; ++k) d -= a[j * stride + k] * a[j * stride + k];
    if (!(d > A(0))) return false;
    const A l = std::sqrt(d);
    a[j * stride + j] = l;
    for (int i = j + 1; i < n; ++i) {
      A s = a[i * stride + j];
      for (int k = 0; k < j; ++k) s -= a[i * stride + k] * a[j * stride + k];
      a[i * stride + j] = s / l;
    }
  }
  return true;
}

// x ← A⁻¹ x from the Cholesky factor in the lower triangle of l.
template <class A>
HS_HD void cholesky_solve(const A* l, int n, int stride, A* x) {
  for (int i = 0; i < n; ++i) {  // L y = x
    A s = x[i];
    for (int k = 0; k < i; ++k) s -= l[i * stride + k] * x[k];
    x[i] = s / l[i * stride + i];
  }
  for (int i = n - 1; i >= 0; --i) {  // Lᵀ x = y
    A s = x[i];
    for (int k = i + 1; k < n; ++k) s -= l[k * stride + i] * x[k];
    x[i] = s / l[i * stride + i];
  }
}

// What a strand's step needs besides its shape: its rest curvatures, K3, ν, the step, the
// clamp at the step's end and the loads (their clock at the step's end).
template <class A>
struct StepSettings {
  const Vector3<A>* rest = nullptr;  // κ̂⁰, N + 1
  Vector3<A> stiffness;              // K3 diagonal: GJ, EI1, EI2 (N m²)
  A internal_friction = 0;           // ν, s
  A h = 0;                           // s
};

// Per-strand scratch of a step (the caller's; large).
template <class A>
struct StepScratch {
  A mass[kMaxCoordinates * kMaxCoordinates];  // A, then its Cholesky factor
  A rhs[kMaxCoordinates], work[kMaxCoordinates];
  ChainWalk<A> walk;
  PieceTerms<A> piece;
};

struct StepOutcome {
  SeriesReport series;
  bool solved = true;  // the series were summed (no element diverged) and A positive definite
};

// The rates' unconstrained update of one step: q̇ ← q̇ + h q̈ (in `rate`). The caller then adds
// its contacts' impulses (through the factor left in scratch.mass) and moves q += h q̇.
template <class A>
HS_HD StepOutcome free_rates(const StrandShape<A>& shape, Vector3<A>* rate,
                             const StepSettings<A>& set, const ClampMotion<A>& clamp,
                             const Loads<A>& loads, StepScratch<A>& scratch) {
  const int n = 3 * (shape.elements + 1), stride = kMaxCoordinates;
  StepOutcome out;
  out.series = series_dynamics(shape, clamp, loads, scratch.mass, stride, scratch.rhs, scratch.walk,
                               scratch.piece);
  if (out.series.diverged) {  // an element past kMaxPieces: no M to solve with
    out.solved = false;
    return out;
  }
  // rhs = F − K (q − q⁰) − (ν + h) K q̇ = F − K ((q − q⁰) + (ν + h) q̇).
  const A damping = set.internal_friction + set.h;
  for (int i = 0; i <= shape.elements; ++i)
    for (int c = 0; c < 3; ++c)
      scratch.work[3 * i + c] = shape.kappa[i][c] - set.rest[i][c] + damping * shape.rate[i][c];
  A k_work[kMaxCoordinates];
  stiffness_times(shape.elements, shape.length, set.stiffness, scratch.work, k_work);
  for (int a = 0; a < n; ++a) scratch.rhs[a] -= k_work[a];
  add_stiffness(shape.elements, shape.length, set.stiffness,
                set.h * set.internal_friction + set.h * set.h, scratch.mass, stride);
  out.solved = cholesky(scratch.mass, n, stride);
  if (!out.solved) return out;
  cholesky_solve(scratch.mass, n, stride, scratch.rhs);
  for (int i = 0; i <= shape.elements; ++i)
    for (int c = 0; c < 3; ++c) rate[i][c] += set.h * scratch.rhs[3 * i + c];
  return out;
}

// q += h q̇ (after the rates' update and any impulses).
template <class A>
HS_HD void move(int elements, Vector3<A>* kappa, const Vector3<A>* rate, A h) {
  for (int i = 0; i <= elements; ++i) kappa[i] += h * rate[i];
}

}  // namespace hairsim::kernels::super_clothoid
