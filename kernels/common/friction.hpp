#pragma once
// Smoothed Coulomb friction for implicit steps that minimise an energy (the Cosserat model's):
// the lagged dissipative potential of Incremental Potential Contact (Li et al. 2020, §5). For a
// contact whose normal force λ and normal n are taken from the start of the step ("lagged"),
// the step's energy gains
//   D(u) = μ λ f0(|u|),   u = (I - n nᵀ) (x - a),
// u the step's slip: the vertex's tangential displacement relative to the surface point a it
// touched (carried by the moving collider to the step's end). f0 is |u| beyond the stick length
// s = ε_v Δt, a cubic below it, with f0' = f1 rising from 0 to 1 over [0, s]:
//   f1(y) = 2 y / s - y² / s²  (y < s),   1  (y >= s),
// so the friction force -∇D has magnitude μ λ f1(|u|) <= μ λ (Coulomb's bound), reached once the
// slip speed exceeds ε_v; below it the contact acts as a stiff viscous stick (static friction up
// to a creep slower than ε_v). D is convex in u and C¹: Newton and its line search keep working.
// Host and device, float or double; shared by the reference and the batched kernels (the
// profile, not the rod model).
#include <cmath>

#include "common/hd.hpp"
#include "common/small_matrix.hpp"

namespace hairsim::kernels {

// f0 and the two scalars of ∇f0(|u|) and ∇²f0(|u|) at slip length y = |u| (stick length s > 0):
//   ∇ f0 = (f1/y) u,   ∇² f0 = (f1/y) P + (f1' - f1/y) û ûᵀ,
// P = I - n nᵀ the tangent projector, û = u / y. Both coefficients f1/y and f1' are >= 0, so the
// Hessian is positive semi-definite (eigenvalues f1/y across the slip, f1' along it).
template <class T>
struct FrictionProfile {
  T value;           // f0(y), m
  T force_per_slip;  // f1(y) / y, 1/m (2/s at y = 0)
  T along_slip;      // f1'(y), 1/m
};

// The stick length of a contact of weight μ λ at a vertex of mass m: s = ε_v Δt, or longer where
// the stick's stiffness at zero slip, 2 μ λ / s, would pass kStickStiffnessLimit m / Δt². A large
// λ (an impact; a vertex pushed out of a collider it started in, where λ is the push-out force)
// would otherwise make the stick 1e3-1e6 times the vertex's inertia: measured, PCG iterations per
// solve doubled and float block solves failed on hair started 5 mm inside the scalp. The limit
// sits below the kernels' float penalty (300 m/Δt²), so friction stiffens A no more than contact
// does. Resting hair (λ ≈ m g) is far below it: 2 μ g Δt / ε_v = 6 at Δt = 1 ms, μ = 0.3; at a
// 1 m/s impact (λ ≈ m v / Δt) it lengthens s to 6 µm for that step.
inline constexpr double kStickStiffnessLimit = 100;

template <class T>
HS_HD T stick_length(T stick_speed, T dt, T weight, T mass) {
  const T s = stick_speed * dt;
  const T limited = T(2) * weight * dt * dt / (T(kStickStiffnessLimit) * mass);
  return limited > s ? limited : s;
}

template <class T>
HS_HD FrictionProfile<T> friction_profile(T y, T s) {
  if (y >= s) return {y, T(1) / y, T(0)};
  const T r = y / s;
  return {s * (T(1) / T(3) + r * r - r * r * r / T(3)), (T(2) - r) / s, (T(2) - T(2) * r) / s};
}

// One contact's friction at the vertex position x: weight μ λ, unit normal n, anchor a, stick
// length s; the slip u = (I - n nᵀ)(x - a) and the profile at |u|, with D, ∇D and ∇²D.
template <class T>
struct FrictionTerm {
  T weight = 0;  // μ λ, N (0: no friction)
  Vec<T, 3> normal = Vec<T, 3>::zero(), slip = Vec<T, 3>::zero();
  FrictionProfile<T> profile{T(0), T(0), T(0)};
  HS_HD T energy() const { return weight * profile.value; }
  HS_HD Vec<T, 3> gradient() const { return (weight * profile.force_per_slip) * slip; }
  // μ λ [(f1/y) (I - n nᵀ) + (f1' - f1/y) û ûᵀ], positive semi-definite.
  HS_HD Mat<T, 3, 3> hessian() const {
    const T y2 = dot(slip, slip);
    const T across = weight * profile.force_per_slip;
    const T along = y2 > T(0) ? weight * (profile.along_slip - profile.force_per_slip) / y2 : T(0);
    Mat<T, 3, 3> h;
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c)
        h(r, c) =
            across * ((r == c ? T(1) : T(0)) - normal[r] * normal[c]) + along * slip[r] * slip[c];
    return h;
  }
};

template <class T>
HS_HD FrictionTerm<T> friction_term(T weight, const Vec<T, 3>& normal, const Vec<T, 3>& anchor,
                                    T stick, const Vec<T, 3>& x) {
  FrictionTerm<T> t;
  if (!(weight > T(0))) return t;
  t.weight = weight;
  t.normal = normal;
  const Vec<T, 3> d = x - anchor;
  t.slip = d - dot(normal, d) * normal;
  t.profile = friction_profile(T(std::sqrt(dot(t.slip, t.slip))), stick);
  return t;
}

}  // namespace hairsim::kernels
