#pragma once
// The three entire functions of y = θ² that a helical element's closed-form kinematics need
// (Bertails 2009 §3.1, [BAC*06]: the frame and centreline of an element with a constant Darboux
// vector), with their first two derivatives in y:
//   f1(y) = sin θ / θ,   f2(y) = (1 − cos θ) / θ²,   f3(y) = (θ − sin θ) / θ³,
//   f_n(y) = Σ_k (−y)^k / (2k + n)!  (so each is smooth at θ = 0, where a straight element sits).
// exp([w]×) = I + f1 [w]× + f2 [w]×²  (Rodrigues) and ∫₀¹ exp(s[w]×) ds = I + f2 [w]× + f3 [w]×²,
// with y = |w|². Below y = 4 the series (alternating, terms below 4^k/(2k)!) is summed; above it
// the closed forms and the recurrences 2y f_n' = f_{n−1} − n f_n, f_n'' = (f_{n−1}' − (n+2) f_n') /
// (2y) (f_0 = cos θ, f_0' = −f_1 / 2), whose divisions by y lose nothing there.
#include <cmath>

#include "common/hd.hpp"

namespace hairsim::kernels::super_helix {

template <class T>
struct HelixSeries {
  T f[4];    // f[n] = f_n(y), n = 1, 2, 3 (f[0] unused)
  T df[4];   // d f_n / dy
  T ddf[4];  // d² f_n / dy²
};

template <class T>
HS_HD HelixSeries<T> helix_series(T y) {
  HelixSeries<T> s{};
  if (y < T(4)) {
    for (int n = 1; n <= 3; ++n) {
      // c_k = (−1)^k / (2k + n)!; 24 terms: the last, 4^23 / 49!, is below 1e-48.
      T c = 1;
      for (int i = 2; i <= n; ++i) c /= T(i);
      T y_k = 1, y_k1 = 0, y_k2 = 0;  // y^k, y^(k−1), y^(k−2)
      T f = 0, df = 0, ddf = 0;
      for (int k = 0; k < 24; ++k) {
        f += c * y_k;
        df += T(k) * c * y_k1;
        ddf += T(k) * T(k - 1) * c * y_k2;
        y_k2 = (k == 0) ? T(1) : y_k1;
        y_k1 = y_k;
        y_k *= y;
        c /= -T(2 * k + n + 1) * T(2 * k + n + 2);
      }
      s.f[n] = f, s.df[n] = df, s.ddf[n] = ddf;
    }
    return s;
  }
  using std::cos;
  using std::sin;
  using std::sqrt;
  const T theta = sqrt(y);
  const T f0 = cos(theta), df0 = -sin(theta) / (T(2) * theta);
  s.f[1] = sin(theta) / theta;
  s.f[2] = (T(1) - f0) / y;
  s.f[3] = (T(1) - s.f[1]) / y;
  T previous = f0, dprevious = df0;
  for (int n = 1; n <= 3; ++n) {
    s.df[n] = (previous - T(n) * s.f[n]) / (T(2) * y);
    s.ddf[n] = (dprevious - T(n + 2) * s.df[n]) / (T(2) * y);
    previous = s.f[n], dprevious = s.df[n];
  }
  return s;
}

}  // namespace hairsim::kernels::super_helix
