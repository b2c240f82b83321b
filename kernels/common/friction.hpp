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
#include "common/hd.hpp"

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

}  // namespace hairsim::kernels
