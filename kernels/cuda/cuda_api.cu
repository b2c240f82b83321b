// The CUDA backend's host-side queries (cuda_api.hpp).
#include <cuda_runtime.h>

#include "cuda/check.hpp"
#include "cuda/cuda_api.hpp"

namespace hairsim::cuda {

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

}  // namespace hairsim::cuda
