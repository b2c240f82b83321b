#pragma once
// The kernels' one small-vector and matrix vocabulary, host and device, float or double:
// Mat<T, R, C> (row-major, plain arrays, no allocation), Vec<T, N> = Mat<T, N, 1>, and the
// 3-vector Vector3<T> = Vec<T, 3> (kernels/common/vector3.hpp) with named components x, y, z, so
// that DER's and Cosserat's kernels, colliders, wind and friction speak one type and nothing is
// converted between them.
#include "common/hd.hpp"

namespace hairsim::kernels {

template <class T, int R, int C>
struct Mat {
  T m[R][C];

  HS_HD T& operator()(int r, int c) { return m[r][c]; }
  HS_HD const T& operator()(int r, int c) const { return m[r][c]; }
  HS_HD T& operator[](int i) { return m[i / C][i % C]; }  // vectors: element i
  HS_HD const T& operator[](int i) const { return m[i / C][i % C]; }
  HS_HD static Mat zero() {
    Mat z;
    for (int r = 0; r < R; ++r)
      for (int c = 0; c < C; ++c) z.m[r][c] = T(0);
    return z;
  }
  HS_HD static Mat identity() {
    Mat z = zero();
    for (int r = 0; r < R && r < C; ++r) z.m[r][r] = T(1);
    return z;
  }
  HS_HD Mat& operator+=(const Mat& o) {
    for (int r = 0; r < R; ++r)
      for (int c = 0; c < C; ++c) m[r][c] += o.m[r][c];
    return *this;
  }
  HS_HD Mat& operator-=(const Mat& o) {
    for (int r = 0; r < R; ++r)
      for (int c = 0; c < C; ++c) m[r][c] -= o.m[r][c];
    return *this;
  }
};

// The 3-vector: components by name (v.x) and by index (v[1], v(1, 0)), zero when default-made.
template <class T>
struct Mat<T, 3, 1> {
  T x = 0, y = 0, z = 0;

  HS_HD T& operator[](int i) { return i == 0 ? x : i == 1 ? y : z; }
  HS_HD const T& operator[](int i) const { return i == 0 ? x : i == 1 ? y : z; }
  HS_HD T& operator()(int r, int) { return (*this)[r]; }
  HS_HD const T& operator()(int r, int) const { return (*this)[r]; }
  HS_HD static Mat zero() { return {T(0), T(0), T(0)}; }
  HS_HD Mat& operator+=(const Mat& o) {
    x += o.x, y += o.y, z += o.z;
    return *this;
  }
  HS_HD Mat& operator-=(const Mat& o) {
    x -= o.x, y -= o.y, z -= o.z;
    return *this;
  }
};

template <class T, int N>
using Vec = Mat<T, N, 1>;

template <class T, int R, int K, int C>
HS_HD Mat<T, R, C> operator*(const Mat<T, R, K>& a, const Mat<T, K, C>& b) {
  Mat<T, R, C> out;
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) {
      T sum = T(0);
      for (int k = 0; k < K; ++k) sum += a(r, k) * b(k, c);
      out(r, c) = sum;
    }
  return out;
}

// aᵀ b without forming aᵀ.
template <class T, int K, int R, int C>
HS_HD Mat<T, R, C> transpose_times(const Mat<T, K, R>& a, const Mat<T, K, C>& b) {
  Mat<T, R, C> out;
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) {
      T sum = T(0);
      for (int k = 0; k < K; ++k) sum += a(k, r) * b(k, c);
      out(r, c) = sum;
    }
  return out;
}

template <class T, int R, int C>
HS_HD Mat<T, R, C> operator*(T k, Mat<T, R, C> a) {
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) a(r, c) *= k;
  return a;
}
template <class T, int R, int C>
HS_HD Mat<T, R, C> operator+(Mat<T, R, C> a, const Mat<T, R, C>& b) {
  return a += b;
}
template <class T, int R, int C>
HS_HD Mat<T, R, C> operator-(Mat<T, R, C> a, const Mat<T, R, C>& b) {
  return a -= b;
}

template <class T, int N>
HS_HD T dot(const Vec<T, N>& a, const Vec<T, N>& b) {
  T sum = T(0);
  for (int i = 0; i < N; ++i) sum += a[i] * b[i];
  return sum;
}

// diag(d) a: rows scaled.
template <class T, int R, int C>
HS_HD Mat<T, R, C> scale_rows(const Vec<T, R>& d, Mat<T, R, C> a) {
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) a(r, c) *= d[r];
  return a;
}

}  // namespace hairsim::kernels
