#pragma once
// Constants of the kernels' arithmetic, once, host and device (nvcc compiles C++17 here, so no
// std::numbers; std::numeric_limits is not usable in device code without relaxed constexpr).
#include "common/hd.hpp"

namespace hairsim::kernels {

template <class T>
HS_HD constexpr T pi() {
  return T(3.14159265358979323846);
}

// Machine epsilon of T: 2^-52 in double, 2^-23 in float.
template <class T>
HS_HD constexpr T epsilon() {
  return sizeof(T) == sizeof(float) ? T(1.1920929e-7) : T(2.220446049250313e-16);
}

}  // namespace hairsim::kernels
