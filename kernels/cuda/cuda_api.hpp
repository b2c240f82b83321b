#pragma once
// Host-side queries of the CUDA backend (only built when CUDA is enabled).
#include <cstddef>
#include <string>

namespace hairsim::cuda {

// Number of usable CUDA devices; 0 when there is no driver or no device (never throws).
int device_count();
std::string device_name(int device = 0);

// What `hairsim devices` and scripts/gpu-check.sh report of a device: the numbers the
// occupancy and roofline estimates of docs/gpu.md start from.
struct DeviceProperties {
  std::string name;
  int compute_major = 0, compute_minor = 0;
  int multiprocessors = 0;
  int max_threads_per_multiprocessor = 0;
  int registers_per_multiprocessor = 0;
  std::size_t shared_bytes_per_multiprocessor = 0;
  std::size_t shared_bytes_per_block_optin = 0;
  int l2_bytes = 0;
  int memory_bus_bits = 0;
  std::size_t global_bytes = 0, free_bytes = 0;
  int driver_version = 0, runtime_version = 0;  // 13000 = 13.0
};
DeviceProperties device_properties(int device = 0);
// Waits for every launched kernel; throws (file and line) if one failed.
void synchronize();

}  // namespace hairsim::cuda
