// Launchers only: the per-strand Cosserat math is kernels/cosserat/cosserat_strand.hpp, shared
// with the cpu backend. One thread per strand.
#include "cuda/check.hpp"
#include "cuda/cosserat_device_batch.hpp"

namespace hairsim::cuda {
namespace {

template <class T>
__global__ void cosserat_step_kernel(kernels::cosserat::CosseratBatchArrays<T> a, T dt,
                                     kernels::cosserat::Loads<T> loads,
                                     kernels::cosserat::StepSettings settings,
                                     unsigned long long* counts) {
  const int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s >= a.strands) return;
  const kernels::cosserat::StepCounts c =
      kernels::cosserat::step(kernels::cosserat::strand_of(a, s), dt, loads, settings);
  if (!counts) return;
  const int values[kCosseratCountFields] = {c.newton, c.pcg_iterations, c.pcg_solves, c.failures,
                                            c.contacts};
  for (int k = 0; k < kCosseratCountFields; ++k)
    if (values[k]) atomicAdd(counts + k, static_cast<unsigned long long>(values[k]));
}

constexpr int kBlock = 64;

}  // namespace

template <class T>
void cosserat_step(const kernels::cosserat::CosseratBatchArrays<T>& a, T dt,
                   const kernels::cosserat::Loads<T>& loads,
                   const kernels::cosserat::StepSettings& settings, unsigned long long* counts,
                   cudaStream_t stream) {
  const int blocks = (a.strands + kBlock - 1) / kBlock;
  cosserat_step_kernel<<<blocks, kBlock, 0, stream>>>(a, dt, loads, settings, counts);
  HS_CUDA_CHECK(cudaGetLastError());
}

template void cosserat_step(const kernels::cosserat::CosseratBatchArrays<float>&, float,
                            const kernels::cosserat::Loads<float>&,
                            const kernels::cosserat::StepSettings&, unsigned long long*,
                            cudaStream_t);
template void cosserat_step(const kernels::cosserat::CosseratBatchArrays<double>&, double,
                            const kernels::cosserat::Loads<double>&,
                            const kernels::cosserat::StepSettings&, unsigned long long*,
                            cudaStream_t);

}  // namespace hairsim::cuda
