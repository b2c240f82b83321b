#pragma once
// Definition of cuda::launch_step (batched_step.hpp), included by each model's .cu file only.
#include <cooperative_groups.h>

#include "common/batch_layout.hpp"
#include "common/lanes.hpp"
#include "cuda/batched_step.hpp"
#include "cuda/check.hpp"

namespace hairsim::cuda {

template <class Batch>
__global__ void batched_step_kernel(const __grid_constant__ typename Batch::Arrays a,
                                    const __grid_constant__ typename Batch::Parameters p,
                                    unsigned long long* counts, unsigned long long* first_failure,
                                    long step) {
  const int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= a.strands) return;
  long c[Batch::kCounters] = {};
  Batch::step(Batch::tile(a, s / a.tile_width), s % a.tile_width, p, c);
  if (first_failure && c[Batch::kFailureCounter]) atomicMin(first_failure, failure_key(step, s));
  if (!counts) return;
  for (int k = 0; k < Batch::kCounters; ++k)
    if (c[k]) atomicAdd(counts + k, static_cast<unsigned long long>(c[k]));
}

// A strand per tile of W lanes (common/lanes.hpp): the block's threads in tiles, each tile one
// strand; the step's counters are the same in every lane of a tile (its loops are the group's),
// so its first lane adds them.
template <class Batch, int W>
__global__ void batched_lanes_step_kernel(const __grid_constant__ typename Batch::Arrays a,
                                          const __grid_constant__ typename Batch::Parameters p,
                                          unsigned long long* counts,
                                          unsigned long long* first_failure, long step) {
  namespace cg = cooperative_groups;
  const cg::thread_block_tile<W> tile = cg::tiled_partition<W>(cg::this_thread_block());
  const int s = blockIdx.x * (blockDim.x / W) + int(tile.meta_group_rank());
  if (s >= a.strands) return;  // the whole tile
  long c[Batch::kCounters] = {};
  Batch::step_on(kernels::TileLanes<W>{tile}, Batch::tile(a, s / a.tile_width), s % a.tile_width, p,
                 c);
  if (tile.thread_rank() != 0) return;
  if (first_failure && c[Batch::kFailureCounter]) atomicMin(first_failure, failure_key(step, s));
  if (!counts) return;
  for (int k = 0; k < Batch::kCounters; ++k)
    if (c[k]) atomicAdd(counts + k, static_cast<unsigned long long>(c[k]));
}

template <class Batch>
void launch_step(const typename Batch::Arrays& a, const typename Batch::Parameters& p,
                 unsigned long long* counts, cudaStream_t stream, unsigned long long* first_failure,
                 long step, int lanes) {
  constexpr int block = Batch::kCudaBlock, batch_lanes = kernels::kCudaLanesOf<Batch>;
  if constexpr (batch_lanes > 1) {
    if (lanes != 1) {
      constexpr int strands_per_block = block / batch_lanes;
      const int blocks = (a.strands + strands_per_block - 1) / strands_per_block;
      batched_lanes_step_kernel<Batch, batch_lanes>
          <<<blocks, block, 0, stream>>>(a, p, counts, first_failure, step);
      HS_CUDA_CHECK(cudaGetLastError());
      return;
    }
  }
  const int blocks = (a.strands + block - 1) / block;
  batched_step_kernel<Batch><<<blocks, block, 0, stream>>>(a, p, counts, first_failure, step);
  HS_CUDA_CHECK(cudaGetLastError());
}

}  // namespace hairsim::cuda

// In a model's .cu file: the launcher for its batch traits, float and double.
#define HAIRSIM_INSTANTIATE_CUDA_STEP(BatchTemplate)                                  \
  template void hairsim::cuda::launch_step<BatchTemplate<float>>(                     \
      const BatchTemplate<float>::Arrays&, const BatchTemplate<float>::Parameters&,   \
      unsigned long long*, cudaStream_t, unsigned long long*, long, int);             \
  template void hairsim::cuda::launch_step<BatchTemplate<double>>(                    \
      const BatchTemplate<double>::Arrays&, const BatchTemplate<double>::Parameters&, \
      unsigned long long*, cudaStream_t, unsigned long long*, long, int)
