#pragma once
// The head's pose and motion as the reduced models' kernels take it (Super-Helices, Super Space
// Clothoids: their dynamics start from the clamp's motion), and a strand's clamp carried by it.
// In double for both precisions (the models' arithmetic).
#include "common/hd.hpp"
#include "common/matrix3.hpp"
#include "common/vector3.hpp"

namespace hairsim::kernels {

// The head's pose and motion at a time, as the references' clamp_state computes a clamp's
// (five-point central differences of the prescribed motion): a clamp at rest point x0 and frame
// F0 is at c + R (x0 − c) + τ with frame R F0, velocity Ṙ (x0 − c) + τ̇, acceleration
// R̈ (x0 − c) + τ̈, spin ω and angular acceleration α (the skew parts, as clamp_state).
struct HeadState {
  Matrix3<double> R, R_dot, R_ddot;
  Vector3<double> center, shift, shift_dot, shift_ddot, spin, angular_acceleration;
};

// A clamp carried by the head: its point, frame and their motion.
struct Clamp {
  Vector3<double> point, velocity, acceleration, spin, angular_acceleration;
  Matrix3<double> frame;
};

// The clamp at rest point x0 with rest frame F0 (columns: tangent, n1, n2) where the head puts it.
HS_HD inline Clamp clamp_at(const HeadState& head, const Vector3<double>& x0,
                            const Matrix3<double>& F0) {
  const Vector3<double> offset = x0 - head.center;
  Clamp c;
  c.point = head.center + head.R * offset + head.shift;
  c.velocity = head.R_dot * offset + head.shift_dot;
  c.acceleration = head.R_ddot * offset + head.shift_ddot;
  c.frame = head.R * F0;
  c.spin = head.spin;
  c.angular_acceleration = head.angular_acceleration;
  return c;
}

}  // namespace hairsim::kernels
