#pragma once
// What this machine offers the backends, as `hairsim devices` prints it: the CPU (model, OpenMP
// threads, memory) and each CUDA device with the properties that occupancy and roofline
// estimates start from (docs/gpu.md). Never throws for a missing driver or device: the JSON says
// why there is none.
#include <nlohmann/json.hpp>
#include <string>

namespace hairsim::engine {

nlohmann::json describe_devices();

// Why the cuda backend cannot run on this machine, "" when it can: a build without CUDA, or no
// device. Asking for cuda where it cannot run is a request that cannot be met (bad input, exit
// 2), told before any work rather than found when the simulator is made.
std::string cuda_unavailable_reason();

}  // namespace hairsim::engine
