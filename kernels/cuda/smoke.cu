// Launchers only: the math is kernels/common/strand_batch.hpp, shared with the cpu backend.
#include "cuda/cuda_api.hpp"
#include "cuda/device_buffer.hpp"

namespace hairsim::cuda {
namespace {

template <class T>
__global__ void strand_arc_lengths_kernel(kernels::BatchView<T> batch, T* out) {
  const int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s < batch.strand_count) out[s] = kernels::strand_arc_length(batch, s);
}

}  // namespace

int device_count() {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess) {
    cudaGetLastError();  // clear the sticky "no driver" error
    return 0;
  }
  return n;
}

void synchronize() {
  HS_CUDA_CHECK(cudaDeviceSynchronize());
}

std::string device_name(int device) {
  cudaDeviceProp prop{};
  HS_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  return prop.name;
}

template <class T>
std::vector<T> strand_arc_lengths(const kernels::BatchView<T>& host) {
  const std::size_t n = std::size_t(host.strand_count) * host.vertex_count;
  DeviceBuffer<T> x(n), y(n), z(n), out(host.strand_count);
  x.upload(host.x);
  y.upload(host.y);
  z.upload(host.z);
  const kernels::BatchView<T> dev{x.data(), y.data(), z.data(), host.strand_count,
                                  host.vertex_count};
  constexpr int kBlock = 128;
  const int blocks = (host.strand_count + kBlock - 1) / kBlock;
  strand_arc_lengths_kernel<<<blocks, kBlock>>>(dev, out.data());
  HS_CUDA_CHECK(cudaGetLastError());
  std::vector<T> result(host.strand_count);
  out.download(result.data());  // synchronises
  return result;
}

template std::vector<float> strand_arc_lengths(const kernels::BatchView<float>&);
template std::vector<double> strand_arc_lengths(const kernels::BatchView<double>&);

}  // namespace hairsim::cuda
