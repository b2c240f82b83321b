#pragma once
// The kernels' 3 x 3 matrix, Mat<T, 3, 3> of the one vocabulary (common/small_matrix.hpp: its
// products, sums and scaling), and the 3 x 3 constructions the models use.
#include "common/hd.hpp"
#include "common/small_matrix.hpp"
#include "common/vector3.hpp"

namespace hairsim::kernels {

template <class T>
using Matrix3 = Mat<T, 3, 3>;

template <class T>
HS_HD Matrix3<T> identity3() {
  return Matrix3<T>::identity();
}
// a bᵀ
template <class T>
HS_HD Matrix3<T> outer(const Vector3<T>& a, const Vector3<T>& b) {
  Matrix3<T> m;
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) m(r, c) = a[r] * b[c];
  return m;
}
// [v]×, the matrix of w -> v × w.
template <class T>
HS_HD Matrix3<T> cross_matrix(const Vector3<T>& v) {
  return {{{T(0), -v.z, v.y}, {v.z, T(0), -v.x}, {-v.y, v.x, T(0)}}};
}
template <class T>
HS_HD Matrix3<T> transpose(const Matrix3<T>& a) {
  Matrix3<T> t;
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) t(r, c) = a(c, r);
  return t;
}

}  // namespace hairsim::kernels
