// The batched Super Space Clothoid on the cuda backend against its reference (label gpu): issue
// 21's parity case (tests/super_clothoid_parity_case.hpp) with the head sphere and with the head
// mesh (its distance grid on the device). Skips, saying why, without CUDA or a device. Passed on
// an H200 (2026-11-26: 7.3e-10 / 2.8e-10 L double, 2.3e-6 L float) in 102 s alone; the kernel's
// ~430 KB stack frame a thread makes the driver reserve ~111 GB (docs/models/super-clothoids.md).
#include <gtest/gtest.h>

#include "super_clothoid_parity_case.hpp"
#ifdef HAIRSIM_HAVE_CUDA
#include "cuda/cuda_api.hpp"
#endif

namespace hairsim {
namespace {

using test::ClothoidCollider;

TEST(SuperClothoidGpu, CudaKernelsFollowTheReference) {
#ifndef HAIRSIM_HAVE_CUDA
  GTEST_SKIP() << "hairsim was built without CUDA (HAIRSIM_CUDA=OFF or no nvcc)";
#else
  if (cuda::device_count() == 0)
    GTEST_SKIP() << "no CUDA device present (cudaGetDeviceCount failed or returned 0)";
  test::expect_clothoid_kernels_follow_reference(engine::Backend::cuda, ClothoidCollider::sphere);
  test::expect_clothoid_kernels_follow_reference(engine::Backend::cuda, ClothoidCollider::mesh);
#endif
}

}  // namespace
}  // namespace hairsim
