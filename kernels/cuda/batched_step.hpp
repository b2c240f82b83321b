#pragma once
// The cuda backend's one launcher for every model: a step of every strand of a device batch,
// one thread per strand (a warp is a tile of 32 strands, its loads coalesce), or one tile of
// lanes per strand for a batch that steps a strand on lanes (Batch::kCudaLanes). Defined in
// batched_step.cuh; each model's .cu file instantiates it for its batch traits
// (HAIRSIM_INSTANTIATE_CUDA_STEP), so the .cu files hold launch code only.
#include <cuda_runtime.h>

namespace hairsim::cuda {

// Asynchronous on `stream`. With `counts` (device memory, Batch::kCounters values) the strands'
// work counters are added into it. With `first_failure` (device memory, one value) a strand
// whose solve fails lowers it to failure_key(step, strand): the earliest failed step's lowest
// strand survives. `lanes`: for a batch that steps a strand on lanes, 1 runs it a thread per
// strand instead (the same source; the arrays' layout must match: kernels::cuda_tile_width);
// 0 is the batch's own kCudaLanes.
template <class Batch>
void launch_step(const typename Batch::Arrays& device_arrays,
                 const typename Batch::Parameters& parameters, unsigned long long* counts = nullptr,
                 cudaStream_t stream = nullptr, unsigned long long* first_failure = nullptr,
                 long step = 0, int lanes = 0);

// The step (from 0) in the high 32 bits, the strand in the low ones; no failure: ~0.
inline constexpr unsigned long long kNoFailure = ~0ull;
__host__ __device__ inline unsigned long long failure_key(long step, int strand) {
  return (static_cast<unsigned long long>(step) << 32) | static_cast<unsigned int>(strand);
}

}  // namespace hairsim::cuda
