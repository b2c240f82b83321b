#pragma once
// Host-side entry points of the CUDA backend (only built when CUDA is enabled).
#include <string>
#include <vector>

#include "common/strand_batch.hpp"

namespace hairsim::cuda {

// Number of usable CUDA devices; 0 when there is no driver or no device (never throws).
int device_count();
std::string device_name(int device = 0);
// Waits for every launched kernel; throws (file and line) if one failed.
void synchronize();

// Smoke kernel: arc length of every strand of a host batch, computed on the device with the
// same strand_arc_length() the cpu backend uses.
template <class T>
std::vector<T> strand_arc_lengths(const kernels::BatchView<T>& host_batch);

}  // namespace hairsim::cuda
