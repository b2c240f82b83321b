#pragma once
// The kernels' 3-vector, Vec<T, 3> of the one vocabulary (common/small_matrix.hpp), and the
// operations written for it component by component (the reference backend uses Eigen; kernels
// cannot: device code, and one type for both compilers).
#include <cmath>

#include "common/hd.hpp"
#include "common/small_matrix.hpp"

namespace hairsim::kernels {

template <class T>
using Vector3 = Vec<T, 3>;

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

// v / |v| (entry by entry, as Eigen's normalized()); 0 stays 0.
template <class T>
HS_HD Vector3<T> normalized(Vector3<T> v) {
  const T length = norm(v);
  if (length > T(0))
    for (int k = 0; k < 3; ++k) v[k] = v[k] / length;
  return v;
}

}  // namespace hairsim::kernels
