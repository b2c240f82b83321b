#pragma once
// One strand's slice of a vertex-major batch array: element i at base[i * stride], with stride
// the batch's strand count, so the per-strand solvers read the batch layout in place.
#include "common/hd.hpp"
#include "common/vector3.hpp"

namespace hairsim::kernels {

template <class T>
struct Strided {
  T* base;
  int stride;
  HS_HD T& operator[](int i) const { return base[i * stride]; }
};

// Three strided coordinate arrays read and written as one vector array.
template <class T>
struct StridedVector3 {
  T* x;
  T* y;
  T* z;
  int stride;
  HS_HD Vector3<T> get(int i) const { return {x[i * stride], y[i * stride], z[i * stride]}; }
  HS_HD void set(int i, const Vector3<T>& v) const {
    x[i * stride] = v.x, y[i * stride] = v.y, z[i * stride] = v.z;
  }
};

}  // namespace hairsim::kernels
