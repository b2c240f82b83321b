#pragma once
// What this machine offers the backends, as `hairsim devices` prints it: the CPU (model, OpenMP
// threads, memory) and each CUDA device with the properties that occupancy and roofline
// estimates start from (docs/gpu.md). Never throws for a missing driver or device: the JSON says
// why there is none.
#include <nlohmann/json.hpp>

namespace hairsim::engine {

nlohmann::json describe_devices();

}  // namespace hairsim::engine
