// Every registered model on the cuda backend against its reference (label gpu), with the head
// sphere as a triangle mesh: the distance grid must reach the device (the generic cuda simulator
// uploads it; a host pointer handed to a kernel fails there). Bounds as on the cpu with a
// collider (tests/parity/test_every_model.cpp). Skips, saying why, without CUDA or a device.
#include <gtest/gtest.h>

#include "every_model_case.hpp"
#ifdef HAIRSIM_HAVE_CUDA
#include "cuda/cuda_api.hpp"
#endif

namespace hairsim {
namespace {

class EveryModelGpu : public testing::TestWithParam<std::string> {};

TEST_P(EveryModelGpu, CudaFollowsItsReferenceWithAMeshHead) {
#ifndef HAIRSIM_HAVE_CUDA
  GTEST_SKIP() << "hairsim was built without CUDA (HAIRSIM_CUDA=OFF or no nvcc)";
#else
  if (cuda::device_count() == 0)
    GTEST_SKIP() << "no CUDA device present (cudaGetDeviceCount failed or returned 0)";
  const engine::Model& model = engine::find_model(GetParam());
  const engine::HairSetup setup = test::with_mesh_head(test::every_model_setup(model, true));
  for (const engine::Precision precision :
       {engine::Precision::float64, engine::Precision::float32}) {
    const bool single = precision == engine::Precision::float32;
    const test::SimulatorParityResult r =
        test::run_every_model_case(model, setup, engine::Backend::cuda, precision);
    EXPECT_TRUE(r.finite);
    EXPECT_LE(r.max_deviation_over_length, 2e-3);
    EXPECT_LE(r.max_velocity_deviation, 2e-3);
    EXPECT_LE(r.max_root_error, single ? 1e-6 : 1e-12);
    EXPECT_EQ(r.counts["solver_failures"], 0);
    EXPECT_GT(r.contacts, 0);
  }
#endif
}

INSTANTIATE_TEST_SUITE_P(Table, EveryModelGpu, testing::ValuesIn(test::registered_model_names()),
                         [](const testing::TestParamInfo<std::string>& p) { return p.param; });

}  // namespace
}  // namespace hairsim
