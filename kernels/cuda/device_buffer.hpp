#pragma once
// RAII device allocation (cudaMalloc / cudaFree), movable, not copyable.
#include <cstddef>
#include <utility>

#include "cuda/check.hpp"

namespace hairsim::cuda {

template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t count) : count_(count) {
    if (count) HS_CUDA_CHECK(cudaMalloc(&data_, count * sizeof(T)));
  }
  ~DeviceBuffer() {
    if (data_) cudaFree(data_);
  }
  DeviceBuffer(DeviceBuffer&& o) noexcept
      : data_(std::exchange(o.data_, nullptr)), count_(std::exchange(o.count_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    std::swap(data_, o.data_);
    std::swap(count_, o.count_);
    return *this;
  }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  T* data() const { return data_; }
  std::size_t size() const { return count_; }
  void upload(const T* host) {
    if (count_) HS_CUDA_CHECK(cudaMemcpy(data_, host, count_ * sizeof(T), cudaMemcpyHostToDevice));
  }
  void download(T* host) const {
    if (count_) HS_CUDA_CHECK(cudaMemcpy(host, data_, count_ * sizeof(T), cudaMemcpyDeviceToHost));
  }
  void download_async(T* host, cudaStream_t stream) const {
    if (count_)
      HS_CUDA_CHECK(
          cudaMemcpyAsync(host, data_, count_ * sizeof(T), cudaMemcpyDeviceToHost, stream));
  }
  void zero_async(cudaStream_t stream) { fill_bytes_async(0, stream); }
  // Every byte set to `byte`.
  void fill_bytes_async(int byte, cudaStream_t stream) {
    if (count_) HS_CUDA_CHECK(cudaMemsetAsync(data_, byte, count_ * sizeof(T), stream));
  }

 private:
  T* data_ = nullptr;
  std::size_t count_ = 0;
};

}  // namespace hairsim::cuda
