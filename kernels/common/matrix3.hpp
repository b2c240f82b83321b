#pragma once
// The kernels' 3 x 3 matrix, Mat<T, 3, 3> of the one vocabulary (common/small_matrix.hpp: its
// products, sums and scaling), and the 3 x 3 constructions the models use.
#include <cmath>

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

// The nearest positive semi-definite matrix to a symmetric one, V max(Λ, 0) Vᵀ (Frobenius norm):
// the projected Newton of Teran et al. 2005, for a Hessian block whose geometric part may be
// indefinite. Λ and V by cyclic Jacobi rotations (Golub & Van Loan §8.5, the rotation of
// Rutishauser's stable form), sweeps until the off-diagonal part is below the precision's
// resolution of the diagonal; 3 x 3 converges quadratically in a few sweeps.
template <class T>
HS_HD Matrix3<T> positive_semidefinite_part(Matrix3<T> a) {
  Matrix3<T> v = identity3<T>();
  for (int sweep = 0; sweep < 12; ++sweep) {
    const T off = a(0, 1) * a(0, 1) + a(0, 2) * a(0, 2) + a(1, 2) * a(1, 2);
    const T diag = a(0, 0) * a(0, 0) + a(1, 1) * a(1, 1) + a(2, 2) * a(2, 2);
    const T resolution = sizeof(T) == sizeof(double) ? T(1e-30) : T(1e-14);
    if (!(off > resolution * diag)) break;
    for (int p = 0; p < 2; ++p)
      for (int q = p + 1; q < 3; ++q) {
        if (a(p, q) == T(0)) continue;
        // The rotation that zeroes a(p, q): t = tan φ the smaller root of t² + 2θt - 1 = 0.
        const T theta = (a(q, q) - a(p, p)) / (T(2) * a(p, q));
        const T t = (theta >= T(0) ? T(1) : T(-1)) /
                    ((theta >= T(0) ? theta : -theta) + std::sqrt(theta * theta + T(1)));
        const T c = T(1) / std::sqrt(t * t + T(1)), s = t * c;
        for (int k = 0; k < 3; ++k) {  // a <- Gᵀ a G, columns then rows
          const T akp = a(k, p), akq = a(k, q);
          a(k, p) = c * akp - s * akq, a(k, q) = s * akp + c * akq;
        }
        for (int k = 0; k < 3; ++k) {
          const T apk = a(p, k), aqk = a(q, k);
          a(p, k) = c * apk - s * aqk, a(q, k) = s * apk + c * aqk;
        }
        for (int k = 0; k < 3; ++k) {
          const T vkp = v(k, p), vkq = v(k, q);
          v(k, p) = c * vkp - s * vkq, v(k, q) = s * vkp + c * vkq;
        }
      }
  }
  Matrix3<T> out = Matrix3<T>::zero();
  for (int e = 0; e < 3; ++e) {
    if (!(a(e, e) > T(0))) continue;
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) out(r, c) += a(e, e) * v(r, e) * v(c, e);
  }
  return out;
}

}  // namespace hairsim::kernels
