#pragma once
// A 3-vector for per-strand kernel math, host and device, float or double. Kept minimal: the
// reference backend uses Eigen; kernels cannot (device code, and one type for both compilers).
#include <cmath>

#include "common/hd.hpp"

namespace hairsim::kernels {

template <class T>
struct Vector3 {
  T x = 0, y = 0, z = 0;

  HS_HD Vector3& operator+=(const Vector3& o) {
    x += o.x, y += o.y, z += o.z;
    return *this;
  }
  HS_HD Vector3& operator-=(const Vector3& o) {
    x -= o.x, y -= o.y, z -= o.z;
    return *this;
  }
};

template <class T>
HS_HD Vector3<T> operator+(const Vector3<T>& a, const Vector3<T>& b) {
  return {a.x + b.x, a.y + b.y, a.z + b.z};
}
template <class T>
HS_HD Vector3<T> operator-(const Vector3<T>& a, const Vector3<T>& b) {
  return {a.x - b.x, a.y - b.y, a.z - b.z};
}
template <class T>
HS_HD Vector3<T> operator-(const Vector3<T>& a) {
  return {-a.x, -a.y, -a.z};
}
template <class T>
HS_HD Vector3<T> operator*(T k, const Vector3<T>& a) {
  return {k * a.x, k * a.y, k * a.z};
}
template <class T>
HS_HD Vector3<T> operator/(const Vector3<T>& a, T k) {
  return {a.x / k, a.y / k, a.z / k};
}
template <class T>
HS_HD T dot(const Vector3<T>& a, const Vector3<T>& b) {
  return a.x * b.x + a.y * b.y + a.z * b.z;
}
template <class T>
HS_HD Vector3<T> cross(const Vector3<T>& a, const Vector3<T>& b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
template <class T>
HS_HD T norm(const Vector3<T>& a) {
  return std::sqrt(dot(a, a));
}

}  // namespace hairsim::kernels
