// Launchers only: the per-strand DER math is kernels/der/der_strand.hpp, shared with the cpu
// backend. One thread per strand: a warp is a tile of 32 strands, and its threads read
// neighbouring addresses.
#include "cuda/check.hpp"
#include "cuda/der_device_batch.hpp"

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

template <class T>
__global__ void der_symplectic_step_kernel(kernels::der::DerBatchArrays<T> a,
                                           kernels::der::DerStepParameters<T> p) {
  const int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s < a.strands) kernels::der::symplectic_step(kernels::der::strand_of(a, s), p);
}

constexpr int kBlock = 128;
int blocks_for(int strands) {
  return (strands + kBlock - 1) / kBlock;
}

}  // namespace

template <class T>
void der_symplectic_step(const kernels::der::DerBatchArrays<T>& a,
                         const kernels::der::DerStepParameters<T>& p) {
  der_symplectic_step_kernel<<<blocks_for(a.strands), kBlock>>>(a, p);
  HS_CUDA_CHECK(cudaGetLastError());
}

template void der_symplectic_step(const kernels::der::DerBatchArrays<float>&,
                                  const kernels::der::DerStepParameters<float>&);
template void der_symplectic_step(const kernels::der::DerBatchArrays<double>&,
                                  const kernels::der::DerStepParameters<double>&);

template <class T>
void der_elastic_forces(const kernels::der::DerBatchArrays<T>& a) {
  der_elastic_forces_kernel<<<blocks_for(a.strands), kBlock>>>(a);
  HS_CUDA_CHECK(cudaGetLastError());
}

template void der_elastic_forces(const kernels::der::DerBatchArrays<float>&);
template void der_elastic_forces(const kernels::der::DerBatchArrays<double>&);

}  // namespace hairsim::cuda
