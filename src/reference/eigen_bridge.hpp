#pragma once
// The one bridge between the references' Eigen types and the kernels' small types, for the
// pointwise formulas the references take from kernels/ (written once there, docs/architecture.md):
// copies of at most 16 doubles, inline.
#include <Eigen/Core>
#include <optional>

#include "common/matrix3.hpp"
#include "common/rigid_pose.hpp"
#include "common/small_matrix.hpp"
#include "common/vector3.hpp"
#include "hairsim/motion.hpp"

namespace hairsim::bridge {

inline kernels::Vector3<double> to_kernel(const Eigen::Vector3d& v) {
  return {v.x(), v.y(), v.z()};
}
inline Eigen::Vector3d from_kernel(const kernels::Vector3<double>& v) {
  return {v.x, v.y, v.z};
}
inline Eigen::Matrix3d from_kernel(const kernels::Matrix3<double>& m) {
  Eigen::Matrix3d out;
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) out(r, c) = m(r, c);
  return out;
}

template <int R, int C>
kernels::Mat<double, R, C> to_small(const Eigen::Matrix<double, R, C>& m) {
  kernels::Mat<double, R, C> out;
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) out(r, c) = m(r, c);
  return out;
}
template <int R, int C>
Eigen::Matrix<double, R, C> from_small(const kernels::Mat<double, R, C>& m) {
  Eigen::Matrix<double, R, C> out;
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) out(r, c) = m(r, c);
  return out;
}

// The pose a motion gives at time t, about its centre (the origin when unset), in the kernels'
// form: the one pose of heads, clamps' colliders and obstacles (kernels/common/rigid_pose.hpp).
template <class T>
kernels::RigidPose<T> rigid_pose(const ClampMotion& motion, double t) {
  kernels::RigidPose<T> pose;
  const Eigen::Matrix3d r = motion.rotation(t);
  const Eigen::Vector3d c = motion.center.value_or(Eigen::Vector3d::Zero());
  const Eigen::Vector3d d = motion.translation(t);
  for (int k = 0; k < 3; ++k) pose.row[k] = {T(r(k, 0)), T(r(k, 1)), T(r(k, 2))};
  pose.center = {T(c.x()), T(c.y()), T(c.z())};
  pose.translation = {T(d.x()), T(d.y()), T(d.z())};
  return pose;
}

// The pose of obstacles at time t: carried by `motion` (a head's), or the identity (static in the
// world) without one.
template <class T>
kernels::RigidPose<T> obstacle_pose(const std::optional<ClampMotion>& motion, double t) {
  return motion ? rigid_pose<T>(*motion, t) : kernels::RigidPose<T>{};
}

// [a]×, the matrix of x -> a × x.
inline Eigen::Matrix3d cross_matrix(const Eigen::Vector3d& a) {
  Eigen::Matrix3d m;
  m << 0, -a.z(), a.y(), a.z(), 0, -a.x(), -a.y(), a.x(), 0;
  return m;
}

}  // namespace hairsim::bridge
