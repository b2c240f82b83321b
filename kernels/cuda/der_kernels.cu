// Launchers only: the per-strand DER math is kernels/der/der_strand.hpp, shared with the cpu
// backend. One thread per strand: neighbouring threads read neighbouring addresses of the
// vertex-major batch.
#include "cuda/check.hpp"
#include "cuda/der_device_batch.hpp"

namespace hairsim::cuda {
namespace {

template <class T>
__global__ void der_elastic_forces_kernel(kernels::der::DerBatchArrays<T> a) {
  const int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= a.strands) return;
  const kernels::der::Strand<T> strand{a, s};
  kernels::der::compute_frames(strand);
  kernels::der::elastic_forces(strand);
}

}  // namespace

template <class T>
void der_elastic_forces(const kernels::der::DerBatchArrays<T>& a) {
  constexpr int kBlock = 128;
  der_elastic_forces_kernel<<<(a.strands + kBlock - 1) / kBlock, kBlock>>>(a);
  HS_CUDA_CHECK(cudaGetLastError());
}

template void der_elastic_forces(const kernels::der::DerBatchArrays<float>&);
template void der_elastic_forces(const kernels::der::DerBatchArrays<double>&);

}  // namespace hairsim::cuda
