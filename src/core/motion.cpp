#include "hairsim/motion.hpp"

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <numbers>
#include <string>

#include "hairsim/error.hpp"

namespace hairsim {

KeyframePath::KeyframePath(std::vector<Keyframe> keys, const std::string& where)
    : keys_(std::move(keys)) {
  if (keys_.empty()) throw Error(where, "needs at least one keyframe");
  for (std::size_t k = 0; k < keys_.size(); ++k) {
    const Keyframe& key = keys_[k];
    if (!std::isfinite(key.time) || !key.translation.allFinite() || !key.rotation.allFinite())
      throw Error(where + "[" + std::to_string(k) + "]", "must be finite");
    if (k > 0 && !(key.time > keys_[k - 1].time))
      throw Error(where + "[" + std::to_string(k) + "].time", "times must increase strictly");
  }
}

void KeyframePath::append(const Keyframe& key, const std::string& where) {
  if (!std::isfinite(key.time) || !key.translation.allFinite() || !key.rotation.allFinite())
    throw Error(where, "must be finite");
  if (!(key.time > keys_.back().time))
    throw Error(where, "time " + std::to_string(key.time) + " s is not after the last key's (" +
                           std::to_string(keys_.back().time) + " s)");
  keys_.push_back(key);
}

template <class Get>
Eigen::Vector3d KeyframePath::interpolate(double t, Get value) const {
  const std::size_t n = keys_.size();
  if (n == 1 || t <= keys_.front().time) return value(keys_.front());
  if (t >= keys_.back().time) return value(keys_.back());
  // The key at or before t (binary search: a path driven step by step has a key per step).
  const std::size_t k = std::size_t(
      std::upper_bound(keys_.begin(), keys_.end(), t,
                       [](double time, const Keyframe& key) { return time < key.time; }) -
      keys_.begin() - 1);
  const double t0 = keys_[k].time, t1 = keys_[k + 1].time, h = t1 - t0;
  // Catmull-Rom tangents for uneven key times: (p_{k+1} - p_{k-1}) / (t_{k+1} - t_{k-1}); zero
  // at the first and last key (the motion starts from and ends at rest).
  auto tangent = [&](std::size_t j) -> Eigen::Vector3d {
    if (j == 0 || j + 1 == n) return Eigen::Vector3d::Zero();
    return (value(keys_[j + 1]) - value(keys_[j - 1])) / (keys_[j + 1].time - keys_[j - 1].time);
  };
  const double s = (t - t0) / h, s2 = s * s, s3 = s2 * s;
  const double h00 = 2 * s3 - 3 * s2 + 1, h10 = s3 - 2 * s2 + s, h01 = -2 * s3 + 3 * s2,
               h11 = s3 - s2;
  return h00 * value(keys_[k]) + h10 * h * tangent(k) + h01 * value(keys_[k + 1]) +
         h11 * h * tangent(k + 1);
}

Eigen::Vector3d KeyframePath::translation(double t) const {
  return interpolate(t, [](const Keyframe& k) { return k.translation; });
}

Eigen::Vector3d KeyframePath::rotation_vector(double t) const {
  return interpolate(t, [](const Keyframe& k) { return k.rotation; });
}

Eigen::Matrix3d KeyframePath::rotation(double t) const {
  const Eigen::Vector3d r = rotation_vector(t);
  const double angle = r.norm();
  return angle > 0 ? Eigen::Matrix3d(Eigen::AngleAxisd(angle, r / angle))
                   : Eigen::Matrix3d::Identity();
}

Eigen::Vector3d ClampMotion::translation(double t) const {
  t = std::min(t, duration);
  if (keyframes) return keyframes->translation(t);
  return velocity * t + translation_amplitude * std::sin(2 * std::numbers::pi * frequency * t);
}

Eigen::Matrix3d ClampMotion::rotation(double t) const {
  t = std::min(t, duration);
  if (keyframes) return keyframes->rotation(t);
  const Eigen::Vector3d r =
      angular_velocity * t + rotation_amplitude * std::sin(2 * std::numbers::pi * frequency * t);
  const double angle = r.norm();
  return angle > 0 ? Eigen::Matrix3d(Eigen::AngleAxisd(angle, r / angle))
                   : Eigen::Matrix3d::Identity();
}

double ClampMotion::twist(double t) const {
  t = std::min(t, duration);
  return twist_rate * t + twist_amplitude * std::sin(2 * std::numbers::pi * frequency * t);
}

}  // namespace hairsim
