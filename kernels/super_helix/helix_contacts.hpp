#pragma once
// The batched Super-Helix's contacts (issue 19): velocity-level constraints at the quadrature
// points after the step's unconstrained solve, as the reference's (src/reference/
// contact_impulses.hpp: speculative point contacts, no pull, inelastic, Coulomb friction), solved
// by the reduced models' projected Gauss-Seidel (kernels/common/point_contacts.hpp) without
// forming the Delassus operator W = J A⁻¹ Jᵀ: each contact's impulse change enters the rates at
// once through A⁻¹ Jᵀ, which the recursion's two passes apply to a point force in O(N) (the
// reference's StepSystem::respond), and each contact reads its velocity from the current rates.
// The reference finishes PGS by an exact active-set solve; these kernels stop on the same
// residual, so the two agree to it.
#include "common/hd.hpp"
#include "common/matrix3.hpp"
#include "common/point_contacts.hpp"
#include "common/vector3.hpp"

namespace hairsim::kernels::super_helix {

constexpr int kMaxContacts = 128;  // per strand and step; more are dropped and counted

// A point and collider pair: the point's element, its arc length u in it and offset from its
// start d, its map G = R P(u) on the element's κ̇, where its linearised motion at the step's
// start rates takes it (x + h J q̇₀, the drift's), and the generic contact's basis, gap, drift, μ,
// mass, W and impulse.
template <class T>
struct PointContact : ContactBlock {
  int element = 0;
  T u = 0;
  Vector3<T> d;
  Matrix3<T> G;
  Vector3<T> linear_end;
};

}  // namespace hairsim::kernels::super_helix
