// Batched DER kernels on the device (label gpu): frames and forces of 3001 random curly strands
// computed by the CUDA launcher equal those of the same kernel functions run on the host (which
// tests/parity/ compares with the reference). Skips, saying why, without CUDA or a device.
#include <gtest/gtest.h>

#include <random>

#include "der_test_support.hpp"
#include "engine/der_host_batch.hpp"
#ifdef HAIRSIM_HAVE_CUDA
#include "cuda/cuda_api.hpp"
#include "cuda/der_device_batch.hpp"
#endif

namespace hairsim {
namespace {

template <class T>
void expect_device_forces_match_host(double tolerance) {
#ifdef HAIRSIM_HAVE_CUDA
  const int strands = 3001, vertices = 32;  // not a multiple of the block size
  std::mt19937 rng(3);
  engine::DerHostBatch<T> host(strands, vertices), device_result(strands, vertices);
  for (int s = 0; s < strands; ++s) {
    const der::test::ReferenceStrand r = der::test::random_hair_strand(vertices, rng);
    host.set_strand(s, r.rest, r.state, r.mass);
    device_result.set_strand(s, r.rest, r.state, r.mass);
  }
  cuda::DerDeviceBatch<T> device(device_result.arrays());
  cuda::der_elastic_forces(device.arrays());
  device.download_all();
  const auto& h = host.arrays();
  const auto& d = device_result.arrays();
  double worst = 0, scale = 0;
  for (int s = 0; s < strands; ++s) {
    const kernels::der::Strand<T> st{h, s};
    kernels::der::compute_frames(st);
    kernels::der::elastic_forces(st);
    for (int i = 0; i < vertices; ++i)
      for (int k = 0; k < 3; ++k) {
        const std::size_t at = host.index(i, s);
        worst = std::max(worst, double(std::abs(h.force[k][at] - d.force[k][at])));
        scale = std::max(scale, double(std::abs(h.force[k][at])));
      }
  }
  std::cout << "device " << cuda::device_name() << ": largest force difference " << worst << " of "
            << scale << "\n";
  EXPECT_LT(worst, tolerance * scale);
#else
  (void)tolerance;
#endif
}

TEST(DerKernelsGpu, DeviceForcesMatchHostKernels) {
#ifndef HAIRSIM_HAVE_CUDA
  GTEST_SKIP() << "hairsim was built without CUDA (HAIRSIM_CUDA=OFF or no nvcc)";
#else
  if (cuda::device_count() == 0)
    GTEST_SKIP() << "no CUDA device present (cudaGetDeviceCount failed or returned 0)";
  // Same operations on both sides; the device contracts a*b+c into FMAs, so differences are a
  // few ulps amplified by the cancellations the float parity test measures (1e-6).
  expect_device_forces_match_host<double>(1e-12);
  expect_device_forces_match_host<float>(1e-5);
#endif
}

}  // namespace
}  // namespace hairsim
