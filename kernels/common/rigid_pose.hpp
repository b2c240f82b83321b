#pragma once
// The head's pose, which carries every root clamp and collider.
#include "common/hd.hpp"
#include "common/matrix3.hpp"
#include "common/vector3.hpp"

namespace hairsim::kernels {

// A rigid motion about a centre: p -> centre + R (p - centre) + translation: the head's pose,
// which carries every root clamp and collider, for every model and the references. The centre
// form keeps float's round-off at the scale of the head, not of its distance from the origin.
template <class T>
struct RigidPose {
  Vector3<T> row[3] = {{T(1), T(0), T(0)}, {T(0), T(1), T(0)}, {T(0), T(0), T(1)}};  // R
  Vector3<T> center, translation;

  HS_HD Vector3<T> rotate(const Vector3<T>& v) const {
    return {dot(row[0], v), dot(row[1], v), dot(row[2], v)};
  }
  HS_HD Vector3<T> apply(const Vector3<T>& p) const {
    return center + rotate(p - center) + translation;
  }
  HS_HD Vector3<T> rotate_back(const Vector3<T>& v) const {  // Rᵀ v
    return v.x * row[0] + v.y * row[1] + v.z * row[2];
  }
  HS_HD Vector3<T> apply_inverse(const Vector3<T>& p) const {
    return center + rotate_back(p - translation - center);
  }
  HS_HD Matrix3<T> rotation() const {
    Matrix3<T> r;
    for (int k = 0; k < 3; ++k) r(k, 0) = row[k].x, r(k, 1) = row[k].y, r(k, 2) = row[k].z;
    return r;
  }
};

}  // namespace hairsim::kernels
