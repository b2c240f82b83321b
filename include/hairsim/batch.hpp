#pragma once
// Host storage of a strand batch in the engine's layout (kernels/common/strand_batch.hpp):
// one vertex count for all strands, structure of arrays, vertex-major.
#include <vector>

#include "common/strand_batch.hpp"
#include "hairsim/strands.hpp"

namespace hairsim {

template <class T>
struct StrandBatch {
  int strand_count = 0;
  int vertex_count = 0;
  std::vector<T> x, y, z;  // entry (v, s) at v * strand_count + s

  kernels::BatchView<T> view() const {
    return {x.data(), y.data(), z.data(), strand_count, vertex_count};
  }
};

// Packs strands that all have the same vertex count (resample() first); throws Error otherwise.
template <class T>
StrandBatch<T> pack_batch(const StrandSet& strands);

}  // namespace hairsim
