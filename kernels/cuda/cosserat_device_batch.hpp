#pragma once
// Device mirror of a Cosserat strand batch (kernels/cosserat/cosserat_strand.hpp): one
// DeviceBuffer per array of CosseratBatchArrays, allocated and copied through for_each_array,
// and the step launcher (one thread per strand; a warp is a tile of 32 strands).
#include <vector>

#include "cosserat/cosserat_strand.hpp"
#include "cuda/device_buffer.hpp"

namespace hairsim::cuda {

template <class T>
class CosseratDeviceBatch {
 public:
  // Allocates the device arrays and uploads every host array.
  explicit CosseratDeviceBatch(const kernels::cosserat::CosseratBatchArrays<T>& host)
      : host_(host), device_(host) {
    const std::size_t padded = std::size_t(host.tile_count()) * host.tile_width;
    kernels::cosserat::CosseratBatchArrays<T> source = host;
    std::vector<const T*> sources;
    kernels::cosserat::for_each_array(source, [&](T*& array, int) { sources.push_back(array); });
    std::size_t k = 0;
    kernels::cosserat::for_each_array(device_, [&](T*& array, int rows) {
      buffers_.emplace_back(std::size_t(rows) * padded);
      buffers_.back().upload(sources[k++]);
      array = buffers_.back().data();
    });
  }

  const kernels::cosserat::CosseratBatchArrays<T>& arrays() const { return device_; }

  // Copies every device array back into the host arrays it was made from (synchronises).
  void download_all() const {
    kernels::cosserat::CosseratBatchArrays<T> target = host_;
    std::size_t k = 0;
    kernels::cosserat::for_each_array(target,
                                      [&](T*& array, int) { buffers_[k++].download(array); });
  }

 private:
  kernels::cosserat::CosseratBatchArrays<T> host_, device_;
  std::vector<DeviceBuffer<T>> buffers_;  // one allocation per array
};

// The fields of kernels::cosserat::StepCounts, in order, as the device accumulates them.
constexpr int kCosseratCountFields = 5;

// One implicit step of every strand (kernels::cosserat::step), asynchronous on `stream`; with
// `counts` (device memory, kCosseratCountFields values) the strands' counts are added into it.
template <class T>
void cosserat_step(const kernels::cosserat::CosseratBatchArrays<T>& device_arrays, T dt,
                   const kernels::cosserat::Loads<T>& loads,
                   const kernels::cosserat::StepSettings& settings,
                   unsigned long long* counts = nullptr, cudaStream_t stream = nullptr);

}  // namespace hairsim::cuda
