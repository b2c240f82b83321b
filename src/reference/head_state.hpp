#pragma once
// A prescribed head motion in the reduced models' kernels' form (kernels/common/head_clamp.hpp):
// the references' clamp_state (five-point central differences of the motion) of the head's
// rotation and translation, so that every clamp the kernels place is the references' to
// round-off.
#include "common/head_clamp.hpp"
#include "reference/clamp_state.hpp"
#include "reference/eigen_bridge.hpp"

namespace hairsim::reference {

// The head at time t: the clamp_state of a clamp at the head's centre with the identity frame
// (its point is c + τ(t), its frame R(t), with the differenced Ṙ, R̈ that carry the offsets).
inline kernels::HeadState head_state(const ClampMotion& head, double t) {
  const Eigen::Vector3d center = head.center.value_or(Eigen::Vector3d::Zero());
  const ClampState c = clamp_state(head, center, Eigen::Matrix3d::Identity(), t);
  kernels::HeadState s;
  s.R = bridge::to_small(Eigen::Matrix3d(c.frame));
  s.R_dot = bridge::to_small(Eigen::Matrix3d(c.frame_velocity));
  s.R_ddot = bridge::to_small(Eigen::Matrix3d(c.frame_acceleration));
  s.center = bridge::to_kernel(center);
  s.shift = bridge::to_kernel(Eigen::Vector3d(c.point - center));
  s.shift_dot = bridge::to_kernel(c.velocity);
  s.shift_ddot = bridge::to_kernel(c.acceleration);
  s.spin = bridge::to_kernel(c.angular_velocity);
  s.angular_acceleration = bridge::to_kernel(c.angular_acceleration);
  return s;
}

}  // namespace hairsim::reference
