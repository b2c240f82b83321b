#pragma once
// The batched Super-Helix's contacts (issue 19): velocity-level constraints at the quadrature
// points after the step's unconstrained solve, as the reference's (src/reference/
// contact_impulses.hpp: speculative point contacts, no pull, inelastic, Coulomb friction), solved
// by projected Gauss-Seidel without forming the Delassus operator W = J A⁻¹ Jᵀ: each contact's
// impulse change enters the rates at once through A⁻¹ Jᵀ, which the recursion's two passes apply
// to a point force in O(N) (the reference's StepSystem::respond), and each contact reads its
// velocity from the current rates. The reference finishes PGS by an exact active-set solve; these
// kernels stop on the same residual (1e-6 of max(1 m/s, the largest free velocity), checked every
// 10 sweeps) or at `contact_sweeps` sweeps, so the two agree to the residual (the parity test's
// 2e-3 L with a collider).
#include "common/colliders.hpp"
#include "common/hd.hpp"
#include "common/matrix3.hpp"
#include "common/rigid_pose.hpp"
#include "common/vector3.hpp"
#include "super_helix/helix_element.hpp"

namespace hairsim::kernels::super_helix {

constexpr int kMaxContacts = 128;

// max, min and |x| in T on host and device (C's fmax and fabs are double's).
template <class T>
HS_HD T max_of(T a, T b) {
  return a > b ? a : b;
}
template <class T>
HS_HD T min_of(T a, T b) {
  return a < b ? a : b;
}
template <class T>
HS_HD T abs_of(T a) {
  return a < T(0) ? -a : a;
}  // per strand and step; more are dropped and counted

// A point and collider pair: the point's element and offset from its start d, its map
// G = R P(u) on the element's κ̇, the contact basis (rows: normal, tangent 1, tangent 2), the gap,
// μ, the diagonal block of W in that basis and the impulse.
template <class T>
struct PointContact {
  int element = 0;
  Vector3<T> d;
  Matrix3<T> G, basis, W;
  T gap = 0, friction = 0;
  T mass = 0;  // the centreline's mass the point stands for (ρS times its quadrature weight), kg
  Vector3<T> impulse;
};

// A unit vector orthogonal to n (Eigen's unitOrthogonal: from the two largest components).
template <class T>
HS_HD Vector3<T> orthogonal_unit(const Vector3<T>& n) {
  const T ax = abs_of(n.x), ay = abs_of(n.y), az = abs_of(n.z);
  if (ax > az || ay > az) {
    const T s = T(1) / std::sqrt(n.x * n.x + n.y * n.y);
    return {-n.y * s, n.x * s, T(0)};
  }
  const T s = T(1) / std::sqrt(n.y * n.y + n.z * n.z);
  return {T(0), -n.z * s, n.y * s};
}

}  // namespace hairsim::kernels::super_helix
