#pragma once
// A 3 x 3 matrix for per-strand kernel math (the implicit step's Hessian blocks), host and
// device, float or double: three rows of Vector3.
#include "common/hd.hpp"
#include "common/vector3.hpp"

namespace hairsim::kernels {

template <class T>
struct Matrix3 {
  Vector3<T> row[3];

  HS_HD T operator()(int r, int c) const {
    const Vector3<T>& v = row[r];
    return c == 0 ? v.x : c == 1 ? v.y : v.z;
  }
  HS_HD Matrix3& operator+=(const Matrix3& o) {
    for (int r = 0; r < 3; ++r) row[r] += o.row[r];
    return *this;
  }
};

template <class T>
HS_HD Matrix3<T> identity3() {
  return {{{T(1), T(0), T(0)}, {T(0), T(1), T(0)}, {T(0), T(0), T(1)}}};
}
// a bᵀ
template <class T>
HS_HD Matrix3<T> outer(const Vector3<T>& a, const Vector3<T>& b) {
  return {{a.x * b, a.y * b, a.z * b}};
}
// [v]×, the matrix of w -> v × w.
template <class T>
HS_HD Matrix3<T> cross_matrix(const Vector3<T>& v) {
  return {{{T(0), -v.z, v.y}, {v.z, T(0), -v.x}, {-v.y, v.x, T(0)}}};
}
template <class T>
HS_HD Matrix3<T> operator+(Matrix3<T> a, const Matrix3<T>& b) {
  return a += b;
}
template <class T>
HS_HD Matrix3<T> operator-(const Matrix3<T>& a, const Matrix3<T>& b) {
  return {{a.row[0] - b.row[0], a.row[1] - b.row[1], a.row[2] - b.row[2]}};
}
template <class T>
HS_HD Matrix3<T> operator*(T k, const Matrix3<T>& a) {
  return {{k * a.row[0], k * a.row[1], k * a.row[2]}};
}
template <class T>
HS_HD Vector3<T> operator*(const Matrix3<T>& a, const Vector3<T>& v) {
  return {dot(a.row[0], v), dot(a.row[1], v), dot(a.row[2], v)};
}
template <class T>
HS_HD Matrix3<T> transpose(const Matrix3<T>& a) {
  return {{{a.row[0].x, a.row[1].x, a.row[2].x},
           {a.row[0].y, a.row[1].y, a.row[2].y},
           {a.row[0].z, a.row[1].z, a.row[2].z}}};
}
template <class T>
HS_HD Matrix3<T> operator*(const Matrix3<T>& a, const Matrix3<T>& b) {
  const Matrix3<T> bt = transpose(b);
  Matrix3<T> m;
  for (int r = 0; r < 3; ++r) m.row[r] = bt * a.row[r];  // row r of A B = (Bᵀ a_r)ᵀ
  return m;
}

}  // namespace hairsim::kernels
