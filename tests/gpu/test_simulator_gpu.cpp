// The simulator API on the cuda backend against the reference backend (issue 4, label gpu): the
// parity case of tests/simulator_parity_case.hpp, both integrators, double and float, the
// issue's bounds (1e-9 L, 2e-3 L; the implicit float one is the cpu test's,
// test::kImplicitFloatBound). Skips, saying why, without CUDA in the build or a device.
#include <gtest/gtest.h>

#include <iostream>

#include "simulator_parity_case.hpp"
#ifdef HAIRSIM_HAVE_CUDA
#include "cuda/cuda_api.hpp"
#endif

namespace hairsim {
namespace {

using engine::Integrator;
using engine::Precision;

[[maybe_unused]] void expect_cuda_follows_reference(Integrator integrator, Precision precision,
                                                    double bound, bool mesh_head = false) {
  engine::HairSetup setup = test::simulator_parity_setup(integrator);
  if (mesh_head) setup = test::with_mesh_head(setup);
  const test::SimulatorParityResult r =
      test::compare_with_reference(setup, engine::Backend::cuda, precision, 200);
  std::cout << "cuda " << (mesh_head ? "mesh head, " : "")
            << (integrator == Integrator::implicit ? "implicit " : "symplectic ")
            << engine::to_string(precision) << ": max deviation " << r.max_deviation_over_length
            << " L, " << r.contacts << " vertex contacts\n";
  EXPECT_GT(r.contacts, 0);
  EXPECT_LE(r.max_deviation_over_length, bound);
}

TEST(SimulatorGpu, CudaFollowsTheReference) {
#ifndef HAIRSIM_HAVE_CUDA
  GTEST_SKIP() << "hairsim was built without CUDA (HAIRSIM_CUDA=OFF or no nvcc)";
#else
  if (cuda::device_count() == 0)
    GTEST_SKIP() << "no CUDA device present (cudaGetDeviceCount failed or returned 0)";
  std::cout << "device: " << cuda::device_name() << "\n";
  expect_cuda_follows_reference(Integrator::symplectic, Precision::float64, 1e-9);
  expect_cuda_follows_reference(Integrator::symplectic, Precision::float32, 2e-3);
  expect_cuda_follows_reference(Integrator::implicit, Precision::float64, 1e-9);
  // First device run (H200, 2026-11-26): 2.60e-3 L, the cpu backend's 2.61e-3 L.
  expect_cuda_follows_reference(Integrator::implicit, Precision::float32,
                                test::kImplicitFloatBound);
  // The mesh collider's distance grid read from device memory.
  expect_cuda_follows_reference(Integrator::implicit, Precision::float64, 1e-9, true);
  expect_cuda_follows_reference(Integrator::implicit, Precision::float32, test::kImplicitFloatBound,
                                true);
#endif
}

}  // namespace
}  // namespace hairsim
