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

DeviceProperties device_properties(int device) {
  cudaDeviceProp prop{};
  HS_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  DeviceProperties d;
  d.name = prop.name;
  d.compute_major = prop.major;
  d.compute_minor = prop.minor;
  d.multiprocessors = prop.multiProcessorCount;
  d.max_threads_per_multiprocessor = prop.maxThreadsPerMultiProcessor;
  d.registers_per_multiprocessor = prop.regsPerMultiprocessor;
  d.shared_bytes_per_multiprocessor = prop.sharedMemPerMultiprocessor;
  d.shared_bytes_per_block_optin = prop.sharedMemPerBlockOptin;
  d.l2_bytes = prop.l2CacheSize;
  d.memory_bus_bits = prop.memoryBusWidth;
  d.global_bytes = prop.totalGlobalMem;
  HS_CUDA_CHECK(cudaSetDevice(device));
  HS_CUDA_CHECK(cudaMemGetInfo(&d.free_bytes, &d.global_bytes));
  HS_CUDA_CHECK(cudaDriverGetVersion(&d.driver_version));
  HS_CUDA_CHECK(cudaRuntimeGetVersion(&d.runtime_version));
  return d;
}

}  // namespace hairsim::cuda
