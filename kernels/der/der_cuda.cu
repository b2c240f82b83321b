// The cuda backend's DER launchers: the generic step (kernels/cuda/batched_step.cuh: a strand
// per warp, DerBatch::kCudaLanes) for the DER batch, and the frames-and-forces kernel the gpu
// tests compare with the host. The math is der_strand.hpp.
#include "cuda/batched_step.cuh"
#include "der/der_batch.hpp"
#include "der/der_cuda.hpp"

HAIRSIM_INSTANTIATE_CUDA_STEP(hairsim::kernels::der::DerBatch);

namespace hairsim::cuda {
namespace {

constexpr int kLanes = kernels::der::DerBatch<float>::kCudaLanes;

// A strand per tile of lanes, as the step runs.
template <class T>
__global__ void der_elastic_forces_kernel(kernels::der::DerBatchArrays<T> a) {
  namespace cg = cooperative_groups;
  const cg::thread_block_tile<kLanes> tile = cg::tiled_partition<kLanes>(cg::this_thread_block());
  const int s = blockIdx.x * (blockDim.x / kLanes) + int(tile.meta_group_rank());
  if (s >= a.strands) return;  // the whole tile
  const auto strand = kernels::der::strand_of(a, s, kernels::TileLanes<kLanes>{tile});
  kernels::der::compute_frames(strand);
  kernels::der::elastic_forces(strand);
}

}  // namespace

template <class T>
void der_elastic_forces(const kernels::der::DerBatchArrays<T>& a) {
  constexpr int block = kernels::der::DerBatch<T>::kCudaBlock, strands_per_block = block / kLanes;
  der_elastic_forces_kernel<<<(a.strands + strands_per_block - 1) / strands_per_block, block>>>(a);
  HS_CUDA_CHECK(cudaGetLastError());
}

template void der_elastic_forces(const kernels::der::DerBatchArrays<float>&);
template void der_elastic_forces(const kernels::der::DerBatchArrays<double>&);

}  // namespace hairsim::cuda
