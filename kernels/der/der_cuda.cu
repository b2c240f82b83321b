// The cuda backend's DER launchers: the generic one-thread-per-strand step
// (kernels/cuda/batched_step.cuh) for the DER batch, and the frames-and-forces kernel the gpu
// tests compare with the host. The math is der_strand.hpp.
#include "cuda/batched_step.cuh"
#include "der/der_batch.hpp"
#include "der/der_cuda.hpp"

HAIRSIM_INSTANTIATE_CUDA_STEP(hairsim::kernels::der::DerBatch);

namespace hairsim::cuda {
namespace {

template <class T>
__global__ void der_elastic_forces_kernel(kernels::der::DerBatchArrays<T> a) {
  const int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= a.strands) return;
  const kernels::der::Strand<T> strand = kernels::der::strand_of(a, s);
  kernels::der::compute_frames(strand);
  kernels::der::elastic_forces(strand);
}

}  // namespace

template <class T>
void der_elastic_forces(const kernels::der::DerBatchArrays<T>& a) {
  constexpr int block = kernels::der::DerBatch<T>::kCudaBlock;
  der_elastic_forces_kernel<<<(a.strands + block - 1) / block, block>>>(a);
  HS_CUDA_CHECK(cudaGetLastError());
}

template void der_elastic_forces(const kernels::der::DerBatchArrays<float>&);
template void der_elastic_forces(const kernels::der::DerBatchArrays<double>&);

}  // namespace hairsim::cuda
