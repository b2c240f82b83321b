// Built with CUDA only: what the cuda backend's simulators share outside the template.
#include "engine/cuda_simulator.hpp"

#include <cstdlib>
#include <string>

#include "hairsim/error.hpp"

namespace hairsim::engine {

int cuda_lanes(int model_lanes) {
  const char* value = std::getenv("HAIRSIM_CUDA_LANES");
  if (!value || !*value) return model_lanes;
  const std::string v(value);
  if (v == "1") return 1;
  if (v == std::to_string(model_lanes)) return model_lanes;
  throw Error("HAIRSIM_CUDA_LANES", "is '" + v + "'; it may be 1 (a thread per strand) or " +
                                        std::to_string(model_lanes) +
                                        " (this model's lanes per strand)");
}

void require_cuda_device() {
  if (cuda::device_count() == 0)
    throw RunFailure("backend 'cuda'", "no CUDA device present (cudaGetDeviceCount returned 0)");
}

}  // namespace hairsim::engine
