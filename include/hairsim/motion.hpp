#pragma once
// Keyframed rigid motion (a head's path): translation and rotation given at key times and
// interpolated smoothly (C1: piecewise cubic Hermite with Catmull-Rom tangents, zero velocity at
// the first and last key, held outside them).
#include <Eigen/Core>
#include <limits>
#include <memory>
#include <optional>
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

  // Adds a key after the last (a path driven step by step, e.g. from Python); throws
  // Error(where, ...) unless its time is after the last key's and it is finite. Not while a
  // simulator evaluates the path on another thread.
  void append(const Keyframe& key, const std::string& where);

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

// Prescribed motion of a rod's clamped end (DER, Cosserat) relative to its pose at t = 0: constant
// rates plus one sinusoid, evaluated at τ = min(t, duration) (after `duration` the clamp holds its
// pose); or, when `keyframes` is set, that path's translation and rotation instead (twist stays
// parametric).
//   translation(t) = velocity τ + translation_amplitude sin(2π f τ)
//   rotation(t)    = exp([angular_velocity τ + rotation_amplitude sin(2π f τ)]), about `center`
//                    (default: the clamp's pivot)
//   twist(t)       = twist_rate τ + twist_amplitude sin(2π f τ), about the clamped edge
struct ClampMotion {
  Eigen::Vector3d velocity = Eigen::Vector3d::Zero();               // m/s
  Eigen::Vector3d angular_velocity = Eigen::Vector3d::Zero();       // rad/s (axis times rate)
  double twist_rate = 0;                                            // rad/s
  Eigen::Vector3d translation_amplitude = Eigen::Vector3d::Zero();  // m
  Eigen::Vector3d rotation_amplitude = Eigen::Vector3d::Zero();     // rad (axis times angle)
  double twist_amplitude = 0;                                       // rad
  double frequency = 0;                                             // Hz
  double duration = std::numeric_limits<double>::infinity();        // s
  // Centre of the rotation (m, world); default the clamp's pivot. A head turning about its
  // centre moves every root clamp with the same motion and this centre.
  std::optional<Eigen::Vector3d> center;
  std::shared_ptr<const KeyframePath> keyframes;

  Eigen::Vector3d translation(double t) const;
  Eigen::Matrix3d rotation(double t) const;
  double twist(double t) const;
};

}  // namespace hairsim
