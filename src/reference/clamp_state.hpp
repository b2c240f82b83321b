#pragma once
// A clamped root's pose and motion at time t under a ClampMotion (include/hairsim/motion.hpp),
// for the references whose dynamics start from the clamp (the Super-Helix's recursion, the
// Super Space Clothoid's chain): its point and material frame, and their velocities and
// accelerations by five-point central differences of the prescribed motion (step 1 ms; exactly
// zero for a clamp that does not move).
#include <Eigen/Geometry>

#include "hairsim/motion.hpp"

namespace hairsim::reference {

struct ClampState {
  Eigen::Vector3d point, velocity, acceleration;
  Eigen::Matrix3d frame;
  Eigen::Vector3d angular_velocity, angular_acceleration;
  // The frame's own differenced derivatives Ṙ, R̈ (zero for a clamp that does not move).
  Eigen::Matrix3d frame_velocity = Eigen::Matrix3d::Zero(),
                  frame_acceleration = Eigen::Matrix3d::Zero();
};

// `point0` and `frame0` (columns: tangent, n1, n2) are the clamp at t = 0.
inline ClampState clamp_state(const ClampMotion& motion, const Eigen::Vector3d& point0,
                              const Eigen::Matrix3d& frame0, double t) {
  using Vec3 = Eigen::Vector3d;
  using Mat3 = Eigen::Matrix3d;
  auto pose = [&](double time, Vec3& point, Mat3& frame) {
    const Mat3 r = motion.rotation(time);
    const Vec3 center = motion.center.value_or(point0);
    point = center + r * (point0 - center) + motion.translation(time);
    frame = r * frame0;
    frame = Eigen::AngleAxisd(motion.twist(time), frame.col(0)).toRotationMatrix() * frame;
  };
  ClampState s;
  pose(t, s.point, s.frame);
  s.velocity = s.acceleration = s.angular_velocity = s.angular_acceleration = Vec3::Zero();
  const ClampMotion& m = motion;
  const bool still = !m.keyframes && m.velocity.isZero() && m.angular_velocity.isZero() &&
                     m.twist_rate == 0 && m.translation_amplitude.isZero() &&
                     m.rotation_amplitude.isZero() && m.twist_amplitude == 0;
  if (still) return s;
  // Five-point central differences: f' = (f₋₂ − 8f₋₁ + 8f₁ − f₂)/12h,
  // f'' = (−f₋₂ + 16f₋₁ − 30f₀ + 16f₁ − f₂)/12h².
  const double h = 1e-3;
  Vec3 x[5];
  Mat3 r[5];
  for (int i = 0; i < 5; ++i) pose(t + (i - 2) * h, x[i], r[i]);
  const double w1[5] = {1, -8, 0, 8, -1}, w2[5] = {-1, 16, -30, 16, -1};
  Mat3 dr = Mat3::Zero(), ddr = Mat3::Zero();
  for (int i = 0; i < 5; ++i) {
    s.velocity += w1[i] / (12 * h) * x[i];
    s.acceleration += w2[i] / (12 * h * h) * x[i];
    dr += w1[i] / (12 * h) * r[i];
    ddr += w2[i] / (12 * h * h) * r[i];
  }
  s.frame_velocity = dr, s.frame_acceleration = ddr;
  // Ṙ = [ω]× R and R̈ = ([α]× + [ω]×²) R: the skew parts of Ṙ Rᵀ and R̈ Rᵀ − [ω]×².
  auto vee = [](const Mat3& a) -> Vec3 {
    return {0.5 * (a(2, 1) - a(1, 2)), 0.5 * (a(0, 2) - a(2, 0)), 0.5 * (a(1, 0) - a(0, 1))};
  };
  s.angular_velocity = vee(dr * s.frame.transpose());
  Mat3 w;
  w << 0, -s.angular_velocity.z(), s.angular_velocity.y(), s.angular_velocity.z(), 0,
      -s.angular_velocity.x(), -s.angular_velocity.y(), s.angular_velocity.x(), 0;
  s.angular_acceleration = vee(ddr * s.frame.transpose() - w * w);
  return s;
}

}  // namespace hairsim::reference
