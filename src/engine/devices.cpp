#include "engine/devices.hpp"

#include <omp.h>

#include "core/memory.hpp"
#include "engine/simulator.hpp"
#include "hairsim/error.hpp"
#ifdef HAIRSIM_HAVE_CUDA
#include "cuda/cuda_api.hpp"
#endif

namespace hairsim::engine {
namespace {

nlohmann::json describe_cuda() {
#ifndef HAIRSIM_HAVE_CUDA
  return {{"built", false},
          {"devices", nlohmann::json::array()},
          {"note", "hairsim was built without CUDA (HAIRSIM_CUDA=OFF or no nvcc)"}};
#else
  nlohmann::json devices = nlohmann::json::array();
  const int count = cuda::device_count();
  try {
    for (int d = 0; d < count; ++d) {
      const cuda::DeviceProperties p = cuda::device_properties(d);
      devices.push_back({{"index", d},
                         {"name", p.name},
                         {"compute_capability",
                          std::to_string(p.compute_major) + "." + std::to_string(p.compute_minor)},
                         {"multiprocessors", p.multiprocessors},
                         {"max_threads_per_multiprocessor", p.max_threads_per_multiprocessor},
                         {"registers_per_multiprocessor", p.registers_per_multiprocessor},
                         {"shared_bytes_per_multiprocessor", p.shared_bytes_per_multiprocessor},
                         {"shared_bytes_per_block_optin", p.shared_bytes_per_block_optin},
                         {"l2_bytes", p.l2_bytes},
                         {"memory_bus_bits", p.memory_bus_bits},
                         {"global_bytes", p.global_bytes},
                         {"free_bytes", p.free_bytes},
                         {"driver_version", p.driver_version},
                         {"runtime_version", p.runtime_version}});
    }
  } catch (const RunFailure& e) {
    return {{"built", true}, {"devices", devices}, {"note", e.what()}};
  }
  nlohmann::json j = {{"built", true}, {"devices", devices}};
  if (count == 0) j["note"] = "no CUDA device present (cudaGetDeviceCount failed or returned 0)";
  return j;
#endif
}

}  // namespace

nlohmann::json describe_devices() {
  return {{"cpu",
           {{"description", cpu_description(omp_get_max_threads())},
            {"threads", omp_get_max_threads()},
            {"available_memory_bytes", available_memory_bytes()}}},
          {"cuda", describe_cuda()}};
}

std::string cuda_unavailable_reason() {
#ifndef HAIRSIM_HAVE_CUDA
  return "hairsim was built without CUDA (HAIRSIM_CUDA=OFF or no nvcc); use cpu or auto";
#else
  if (cuda::device_count() == 0)
    return "no CUDA device present (hairsim devices says why); use cpu or auto";
  return "";
#endif
}

}  // namespace hairsim::engine
