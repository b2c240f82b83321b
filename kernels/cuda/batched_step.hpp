#pragma once
// The cuda backend's one launcher for every model: a step of every strand of a device batch,
// one thread per strand (a warp is a tile of 32 strands, its loads coalesce). Defined in
// batched_step.cuh; each model's .cu file instantiates it for its batch traits
// (HAIRSIM_INSTANTIATE_CUDA_STEP), so the .cu files hold launch code only.
#include <cuda_runtime.h>

namespace hairsim::cuda {

// Asynchronous on `stream`. With `counts` (device memory, Batch::kCounters values) the strands'
// work counters are added into it.
template <class Batch>
void launch_step(const typename Batch::Arrays& device_arrays,
                 const typename Batch::Parameters& parameters, unsigned long long* counts = nullptr,
                 cudaStream_t stream = nullptr);

}  // namespace hairsim::cuda
