// Built with CUDA only: what the cuda backend's simulators share outside the template.
#include "engine/cuda_simulator.hpp"

#include <cstdlib>
#include <string>

#include "hairsim/error.hpp"

namespace hairsim::engine {

int cuda_lanes(int model_lanes) {
  return lanes_from_environment("HAIRSIM_CUDA_LANES", model_lanes, model_lanes);
}

void require_cuda_device() {
  if (cuda::device_count() == 0)
    throw RunFailure("backend 'cuda'", "no CUDA device present (cudaGetDeviceCount returned 0)");
}

}  // namespace hairsim::engine
