#pragma once
// Device mirror of a DER strand batch: one DeviceBuffer per array of DerBatchArrays, allocated
// and copied through for_each_array, so the list of fields lives in one place.
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
    const std::size_t padded = std::size_t(host.tile_count()) * host.tile_width;
    kernels::der::DerBatchArrays<T> source = host;
    std::vector<T*> sources;
    kernels::der::for_each_array(source, [&](T*& array, int) { sources.push_back(array); });
    std::size_t k = 0;
    kernels::der::for_each_array(device_, [&](T*& array, int rows) {
      buffers_.emplace_back(std::size_t(rows) * padded);
      buffers_.back().upload(sources[k++]);
      array = buffers_.back().data();
    });
  }

  const kernels::der::DerBatchArrays<T>& arrays() const { return device_; }

  // Copies every device array back into the host arrays it was made from (synchronises).
  void download_all() const {
    kernels::der::DerBatchArrays<T> target = host_;
    std::size_t k = 0;
    kernels::der::for_each_array(target, [&](T*& array, int) { buffers_[k++].download(array); });
  }

 private:
  kernels::der::DerBatchArrays<T> host_, device_;
  std::vector<DeviceBuffer<T>> buffers_;
};

// Frames and elastic forces of every strand (kernels/der/der_strand.hpp), one thread per strand.
template <class T>
void der_elastic_forces(const kernels::der::DerBatchArrays<T>& device_arrays);

// One symplectic step of every strand (kernels/der/der_strand.hpp), one thread per strand,
// asynchronous on the default stream.
template <class T>
void der_symplectic_step(const kernels::der::DerBatchArrays<T>& device_arrays,
                         const kernels::der::DerStepParameters<T>& p);

}  // namespace hairsim::cuda
