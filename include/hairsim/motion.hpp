#pragma once
// Keyframed rigid motion (a head's path): translation and rotation given at key times and
// interpolated smoothly (C1: piecewise cubic Hermite with Catmull-Rom tangents, zero velocity at
// the first and last key, held outside them).
#include <Eigen/Core>
#include <string>
#include <vector>

namespace hairsim {

struct Keyframe {
  double time = 0;                                        // s
  Eigen::Vector3d translation = Eigen::Vector3d::Zero();  // m, from the pose at t = 0
  Eigen::Vector3d rotation = Eigen::Vector3d::Zero();     // rad, rotation vector (axis times angle)
};

// Rotations are interpolated as rotation vectors, component by component, then exponentiated:
// smooth and exact at the keys, and natural for head motions (angles well below π; consecutive
// keys should not jump across ±π).
class KeyframePath {
 public:
  // Throws Error(where, ...) unless there is at least one key and times strictly increase.
  KeyframePath(std::vector<Keyframe> keys, const std::string& where);

  Eigen::Vector3d translation(double t) const;
  Eigen::Vector3d rotation_vector(double t) const;
  Eigen::Matrix3d rotation(double t) const;
  double end_time() const { return keys_.back().time; }

 private:
  // Hermite interpolation of the member `value` of the keys.
  template <class Get>
  Eigen::Vector3d interpolate(double t, Get value) const;
  std::vector<Keyframe> keys_;
};

}  // namespace hairsim
