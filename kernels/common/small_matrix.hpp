#pragma once
// Fixed-size dense matrices for per-strand kernel math (the Cosserat model's 3 x 4 and 4 x 3
// Jacobians, 4 x 4 and 3 x 3 blocks), host and device, float or double. Row-major, plain
// arrays, no allocation; Vec<T, N> is an N x 1 matrix.
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

template <class T, int N>
using Vec = Mat<T, N, 1>;

template <class T, int R, int K, int C>
HS_HD Mat<T, R, C> operator*(const Mat<T, R, K>& a, const Mat<T, K, C>& b) {
  Mat<T, R, C> out;
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) {
      T sum = T(0);
      for (int k = 0; k < K; ++k) sum += a.m[r][k] * b.m[k][c];
      out.m[r][c] = sum;
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
      for (int k = 0; k < K; ++k) sum += a.m[k][r] * b.m[k][c];
      out.m[r][c] = sum;
    }
  return out;
}

template <class T, int R, int C>
HS_HD Mat<T, R, C> operator*(T k, Mat<T, R, C> a) {
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) a.m[r][c] *= k;
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
  for (int i = 0; i < N; ++i) sum += a.m[i][0] * b.m[i][0];
  return sum;
}

// diag(d) a: rows scaled.
template <class T, int R, int C>
HS_HD Mat<T, R, C> scale_rows(const Vec<T, R>& d, Mat<T, R, C> a) {
  for (int r = 0; r < R; ++r)
    for (int c = 0; c < C; ++c) a.m[r][c] *= d.m[r][0];
  return a;
}

}  // namespace hairsim::kernels
