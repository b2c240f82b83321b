#pragma once
// Every CUDA call and launch is checked; a failure throws hairsim::RunFailure (a failed run, not
// bad input: exit code 1) naming file and line.
#include <cuda_runtime.h>

#include <string>

#include "hairsim/error.hpp"

#define HS_CUDA_CHECK(call)                                                                 \
  do {                                                                                      \
    const cudaError_t hs_err_ = (call);                                                     \
    if (hs_err_ != cudaSuccess)                                                             \
      throw ::hairsim::RunFailure(std::string(__FILE__) + ":" + std::to_string(__LINE__),   \
                                  std::string(#call) + ": " + cudaGetErrorString(hs_err_)); \
  } while (0)
