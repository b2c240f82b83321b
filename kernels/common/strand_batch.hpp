#pragma once
// A batch of strands with one vertex count, structure of arrays, vertex-major: coordinate
// (v, s) sits at v * strand_count + s, so neighbouring strands are neighbouring addresses and
// a thread-per-strand kernel reads coalesced.
#include <cmath>

#include "common/hd.hpp"

namespace hairsim::kernels {

template <class T>
struct BatchView {
  const T* x;
  const T* y;
  const T* z;
  int strand_count;
  int vertex_count;

  HS_HD int index(int vertex, int strand) const { return vertex * strand_count + strand; }
};

// Arc length of strand `s` (sum of segment lengths).
template <class T>
HS_HD T strand_arc_length(const BatchView<T>& b, int s) {
  T length = 0;
  for (int v = 1; v < b.vertex_count; ++v) {
    const int i = b.index(v, s), j = b.index(v - 1, s);
    const T dx = b.x[i] - b.x[j], dy = b.y[i] - b.y[j], dz = b.z[i] - b.z[j];
    length += std::sqrt(dx * dx + dy * dy + dz * dz);
  }
  return length;
}

}  // namespace hairsim::kernels
