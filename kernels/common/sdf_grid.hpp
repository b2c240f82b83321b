#pragma once
// A signed-distance grid (a triangle-mesh collider turned into distances at load time, built by
// make_sdf_grid in include/hairsim/sdf.hpp): float samples on a regular grid, negative inside,
// read by trilinear interpolation, its normal from the interpolated field's gradient. Host and
// device: `values` points to host or device memory, whichever runs the kernel.
#include "common/hd.hpp"
#include "common/vector3.hpp"

namespace hairsim::kernels {

template <class T>
struct SdfGrid {
  const float* values = nullptr;  // nx * ny * nz, x fastest
  int nx = 0, ny = 0, nz = 0;
  Vector3<T> origin;  // m, position of sample (0, 0, 0)
  T spacing = 0;      // m
  T outside = 0;      // m, the value outside the grid (positive)

  HS_HD long count() const { return long(nx) * ny * nz; }
  HS_HD T at(int i, int j, int k) const { return T(values[(long(k) * ny + j) * nx + i]); }
  // Trilinear interpolation; `outside` beyond the grid.
  HS_HD T distance(const Vector3<T>& p) const {
    const Vector3<T> g = (p - origin) / spacing;
    if (!(g.x >= T(0) && g.y >= T(0) && g.z >= T(0) && g.x <= T(nx - 1) && g.y <= T(ny - 1) &&
          g.z <= T(nz - 1)))
      return outside;
    int i = int(g.x), j = int(g.y), k = int(g.z);
    i = i > nx - 2 ? nx - 2 : i, j = j > ny - 2 ? ny - 2 : j, k = k > nz - 2 ? nz - 2 : k;
    const T fx = g.x - T(i), fy = g.y - T(j), fz = g.z - T(k);
    auto lerp = [](T a, T b, T f) { return a + f * (b - a); };
    const T c00 = lerp(at(i, j, k), at(i + 1, j, k), fx);
    const T c10 = lerp(at(i, j + 1, k), at(i + 1, j + 1, k), fx);
    const T c01 = lerp(at(i, j, k + 1), at(i + 1, j, k + 1), fx);
    const T c11 = lerp(at(i, j + 1, k + 1), at(i + 1, j + 1, k + 1), fx);
    return lerp(lerp(c00, c10, fy), lerp(c01, c11, fy), fz);
  }
  // Central differences of the interpolated field over half a cell.
  HS_HD Vector3<T> gradient(const Vector3<T>& p) const {
    const T h = T(0.5) * spacing;
    const Vector3<T> ex{h, T(0), T(0)}, ey{T(0), h, T(0)}, ez{T(0), T(0), h};
    return Vector3<T>{distance(p + ex) - distance(p - ex), distance(p + ey) - distance(p - ey),
                      distance(p + ez) - distance(p - ez)} /
           (T(2) * h);
  }
};

}  // namespace hairsim::kernels
