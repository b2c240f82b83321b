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
__global__ void der_step_kernel(kernels::der::DerBatchArrays<T> a,
                                kernels::der::DerStepParameters<T> p, unsigned long long* counts) {
  const int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= a.strands) return;
  const kernels::der::StepCounts c = kernels::der::step(kernels::der::strand_of(a, s), p);
  if (!counts) return;
  const long values[kStepCountFields] = {c.projection_iterations, c.twist_iterations, c.contacts,
                                         c.solver_failures};
  for (int k = 0; k < kStepCountFields; ++k)
    if (values[k]) atomicAdd(counts + k, static_cast<unsigned long long>(values[k]));
}

constexpr int kBlock = 128;
int blocks_for(int strands) {
  return (strands + kBlock - 1) / kBlock;
}

}  // namespace

template <class T>
void der_step(const kernels::der::DerBatchArrays<T>& a, const kernels::der::DerStepParameters<T>& p,
              unsigned long long* counts, cudaStream_t stream) {
  der_step_kernel<<<blocks_for(a.strands), kBlock, 0, stream>>>(a, p, counts);
  HS_CUDA_CHECK(cudaGetLastError());
}

template void der_step(const kernels::der::DerBatchArrays<float>&,
                       const kernels::der::DerStepParameters<float>&, unsigned long long*,
                       cudaStream_t);
template void der_step(const kernels::der::DerBatchArrays<double>&,
                       const kernels::der::DerStepParameters<double>&, unsigned long long*,
                       cudaStream_t);

template <class T>
void der_elastic_forces(const kernels::der::DerBatchArrays<T>& a) {
  der_elastic_forces_kernel<<<blocks_for(a.strands), kBlock>>>(a);
  HS_CUDA_CHECK(cudaGetLastError());
}

template void der_elastic_forces(const kernels::der::DerBatchArrays<float>&);
template void der_elastic_forces(const kernels::der::DerBatchArrays<double>&);

}  // namespace hairsim::cuda
