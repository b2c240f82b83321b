#pragma once
// Device mirror of any model's strand batch: one DeviceBuffer per array that the model's
// Batch::for_each_array lists, allocated and uploaded from the host arrays, so the list of fields
// lives in one place (the model's arrays).
#include <type_traits>
#include <vector>

#include "cuda/device_buffer.hpp"

namespace hairsim::cuda {

template <class Batch>
class DeviceBatch {
 public:
  using Arrays = typename Batch::Arrays;

  // Allocates the device arrays and uploads every host array.
  explicit DeviceBatch(const Arrays& host) : host_(host), device_(host) {
    const std::size_t padded = std::size_t(host.tile_count()) * host.tile_width;
    Arrays source = host;
    std::vector<const unsigned char*> sources;
    Batch::for_each_array(source, [&](auto*& array, int) {
      sources.push_back(reinterpret_cast<const unsigned char*>(array));
    });
    std::size_t k = 0;
    Batch::for_each_array(device_, [&](auto*& array, int rows) {
      using S = std::remove_reference_t<decltype(*array)>;  // the model's scalar, or another
      buffers_.emplace_back(std::size_t(rows) * padded * sizeof(S));
      buffers_.back().upload(sources[k++]);
      array = reinterpret_cast<S*>(buffers_.back().data());
    });
  }

  const Arrays& arrays() const { return device_; }

  // Copies every host array it was made from onto the device (synchronises).
  void upload_all() {
    Arrays source = host_;
    std::size_t k = 0;
    Batch::for_each_array(source, [&](auto*& array, int) {
      buffers_[k++].upload(reinterpret_cast<const unsigned char*>(array));
    });
  }

  // Copies every device array back into the host arrays it was made from (synchronises).
  void download_all() const {
    Arrays target = host_;
    std::size_t k = 0;
    Batch::for_each_array(target, [&](auto*& array, int) {
      buffers_[k++].download(reinterpret_cast<unsigned char*>(array));
    });
  }

 private:
  Arrays host_, device_;
  std::vector<DeviceBuffer<unsigned char>> buffers_;  // one allocation per array
};

}  // namespace hairsim::cuda
