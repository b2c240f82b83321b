#pragma once
// Rigid bodies welded to a rod end (DER §8): a body carries the tip edge (its two vertices and
// its material frame) rigidly. Each step: the body's unconstrained update (gravity, and the
// torque of the rod's material frame, §8.2), the rod's, then one fast projection (§8.1) over the
// body and the rod together in the metric of the kinetic energy, then the velocity update.
//
// The paper projects over (q, r, x) with the unit-quaternion constraint and the metric 4I on
// q⁻¹q̇. Here the orientation change is a rotation vector δφ (q ← exp(δφ) q) with metric I
// (world inertia): the same kinetic energy, ½ ω·Iω with ω = 2 q⁻¹q̇ = δφ/h, without the
// normalisation constraint.
#include <Eigen/Geometry>

#include "reference/der/der_dynamics.hpp"

namespace hairsim::der {

struct RigidBody {
  double mass = 1;                  // kg
  Mat3 inertia = Mat3::Identity();  // kg m², about the centre of mass, body axes
  Vec3 position = Vec3::Zero();     // centre of mass (m)
  Eigen::Quaterniond orientation = Eigen::Quaterniond::Identity();
  Vec3 velocity = Vec3::Zero();          // m/s
  Vec3 angular_velocity = Vec3::Zero();  // rad/s, world axes

  Mat3 world_inertia() const;
  double kinetic_energy() const;
};

// A body welded to the rod's last edge.
struct RodWithBody {
  DynamicRod rod;
  RigidBody body;
  std::array<Vec3, 2> anchor{};  // the last edge's two vertices in body coordinates
  Vec3 material_vector{};        // the last edge's m1 in body coordinates
};

// Welds `body` (placed where it is) to the rod's last edge as it is now. The tip edge's
// material frame becomes clamped to the body (TwistBoundary::last_clamped).
RodWithBody weld_to_tip(DynamicRod rod, const RigidBody& body);

// One step of Algorithm 1 with the body: lines 4-11.
ProjectionReport step_with_body(RodWithBody& system, double dt, double length_tolerance);

// Total energy: rod kinetic + elastic + gravity, body kinetic + gravity (J).
double total_energy(const RodWithBody& system);

}  // namespace hairsim::der
