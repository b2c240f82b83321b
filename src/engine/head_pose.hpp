#pragma once
// The head's pose at time t in the kernels' form (kernels/common/rigid_pose.hpp): rotation about
// head.center (the origin when unset) and translation, the pose carrying roots and colliders.
#include "common/rigid_pose.hpp"
#include "hairsim/motion.hpp"

namespace hairsim::engine {

template <class T>
kernels::RigidPose<T> head_pose(const ClampMotion& head, double t) {
  kernels::RigidPose<T> pose;
  const Eigen::Matrix3d r = head.rotation(t);
  const Eigen::Vector3d c = head.center.value_or(Eigen::Vector3d::Zero()), d = head.translation(t);
  for (int k = 0; k < 3; ++k) pose.row[k] = {T(r(k, 0)), T(r(k, 1)), T(r(k, 2))};
  pose.center = {T(c.x()), T(c.y()), T(c.z())};
  pose.translation = {T(d.x()), T(d.y()), T(d.z())};
  return pose;
}

}  // namespace hairsim::engine
