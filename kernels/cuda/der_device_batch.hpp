#pragma once
// Device mirror of a DER strand batch: one DeviceBuffer per array of DerBatchArrays, allocated
// and copied through for_each_array, so the list of fields lives in one place.
#include <type_traits>
#include <vector>

#include "cuda/device_buffer.hpp"
#include "der/der_strand.hpp"

namespace hairsim::cuda {

template <class T>
class DerDeviceBatch {
 public:
  // Allocates the device arrays and uploads every host array.
  explicit DerDeviceBatch(const kernels::der::DerBatchArrays<T>& host) : host_(host) {
    device_.strands = host.strands;
    device_.vertices = host.vertices;
    device_.tile_width = host.tile_width;
    device_.implicit_system = host.implicit_system;
    const std::size_t padded = std::size_t(host.tile_count()) * host.tile_width;
    kernels::der::DerBatchArrays<T> source = host;
    std::vector<const unsigned char*> sources;
    kernels::der::for_each_array(source, [&](auto*& array, int) {
      sources.push_back(reinterpret_cast<const unsigned char*>(array));
    });
    std::size_t k = 0;
    kernels::der::for_each_array(device_, [&](auto*& array, int rows) {
      using S = std::remove_reference_t<decltype(*array)>;  // T, or double for the solver's
      buffers_.emplace_back(std::size_t(rows) * padded * sizeof(S));
      buffers_.back().upload(sources[k++]);
      array = reinterpret_cast<S*>(buffers_.back().data());
    });
  }

  const kernels::der::DerBatchArrays<T>& arrays() const { return device_; }

  // Copies every device array back into the host arrays it was made from (synchronises).
  void download_all() const {
    kernels::der::DerBatchArrays<T> target = host_;
    std::size_t k = 0;
    kernels::der::for_each_array(target, [&](auto*& array, int) {
      buffers_[k++].download(reinterpret_cast<unsigned char*>(array));
    });
  }

 private:
  kernels::der::DerBatchArrays<T> host_, device_;
  std::vector<DeviceBuffer<unsigned char>> buffers_;  // one allocation per array
};

// Frames and elastic forces of every strand (kernels/der/der_strand.hpp), one thread per strand.
template <class T>
void der_elastic_forces(const kernels::der::DerBatchArrays<T>& device_arrays);

// The fields of StepCounts, in order, as the device accumulates them.
constexpr int kStepCountFields = 4;

// One step of every strand with the integrator p.integrator (kernels/der/der_strand.hpp), one
// thread per strand, asynchronous on `stream`. With `counts` (device memory, kStepCountFields
// values), the strands' StepCounts are added into it.
template <class T>
void der_step(const kernels::der::DerBatchArrays<T>& device_arrays,
              const kernels::der::DerStepParameters<T>& p, unsigned long long* counts = nullptr,
              cudaStream_t stream = nullptr);

}  // namespace hairsim::cuda
