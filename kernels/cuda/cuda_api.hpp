#pragma once
// Host-side queries of the CUDA backend (only built when CUDA is enabled).
#include <string>

namespace hairsim::cuda {

// Number of usable CUDA devices; 0 when there is no driver or no device (never throws).
int device_count();
std::string device_name(int device = 0);
// Waits for every launched kernel; throws (file and line) if one failed.
void synchronize();

}  // namespace hairsim::cuda
