#pragma once
// Unit quaternions as rotations: the parallel transport between two unit tangents (the Bishop
// frame's, DER §4.2.2) as a value that composes, so that a strand's lanes can scan it
// (common/lanes.hpp carry_rows).
#include <cmath>

#include "common/hd.hpp"
#include "common/vector3.hpp"

namespace hairsim::kernels {

template <class T>
struct Quaternion {
  T w = T(1);
  Vector3<T> v;  // the identity by default
};

// The rotation a then b (b a): (a_w b_w - a_v·b_v, a_w b_v + b_w a_v + b_v × a_v).
template <class T>
HS_HD Quaternion<T> then(const Quaternion<T>& a, const Quaternion<T>& b) {
  return {b.w * a.w - dot(b.v, a.v), b.w * a.v + a.w * b.v + cross(b.v, a.v)};
}

// q u q* / |q|²: u + 2 (w (v × u) + v × (v × u)) / |q|², a rotation for any q, so that the
// round-off of a product of many unit quaternions does not scale u.
template <class T>
HS_HD Vector3<T> rotate(const Quaternion<T>& q, const Vector3<T>& u) {
  const Vector3<T> c = cross(q.v, u);
  return u + (T(2) / (q.w * q.w + dot(q.v, q.v))) * (q.w * c + cross(q.v, c));
}

// The rotation about t1 × t2 by their angle (unit t1, t2; not opposite): half-angle form
// ((1 + t1·t2), t1 × t2) / sqrt(2 (1 + t1·t2)); the identity when t1 = t2.
template <class T>
HS_HD Quaternion<T> transport_rotation(const Vector3<T>& t1, const Vector3<T>& t2) {
  const T c = dot(t1, t2), scale = T(1) / std::sqrt(T(2) * (T(1) + c));
  return {(T(1) + c) * scale, scale * cross(t1, t2)};
}

}  // namespace hairsim::kernels
