#pragma once
// max, min and |x| of one scalar type on host and device, inline: C's fmax and fabs are double's
// and, on the host, library calls (fmax took 7 % of a clothoid series' time). NaN-blind: a NaN
// compares false, and the states it reaches are checked by the steps.
#include "common/hd.hpp"

namespace hairsim::kernels {

template <class T>
HS_HD T max_of(T a, T b) {
  return a > b ? a : b;
}
template <class T>
HS_HD T min_of(T a, T b) {
  return a < b ? a : b;
}
template <class T>
HS_HD T abs_of(T a) {
  return a < T(0) ? -a : a;
}

}  // namespace hairsim::kernels
