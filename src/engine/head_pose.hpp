#pragma once
// The head's pose at time t in the kernels' form (kernels/common/rigid_pose.hpp): rotation about
// head.center (the origin when unset) and translation, the pose carrying roots and colliders.
#include "common/rigid_pose.hpp"
#include "hairsim/motion.hpp"
#include "reference/eigen_bridge.hpp"

namespace hairsim::engine {

template <class T>
kernels::RigidPose<T> head_pose(const ClampMotion& head, double t) {
  return bridge::rigid_pose<T>(head, t);
}

}  // namespace hairsim::engine
