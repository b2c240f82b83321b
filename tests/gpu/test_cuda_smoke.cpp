// CUDA backend smoke test (label gpu): the device computes the same strand arc lengths as the
// host with the one shared kernel function. Skips, saying why, without a device or without CUDA.
#include <gtest/gtest.h>

#include "hairsim/batch.hpp"
#include "hairsim/generate.hpp"
#ifdef HAIRSIM_HAVE_CUDA
#include "cuda/cuda_api.hpp"
#endif

namespace hairsim {
namespace {

TEST(CudaSmoke, ArcLengthsMatchHost) {
#ifndef HAIRSIM_HAVE_CUDA
  GTEST_SKIP() << "hairsim was built without CUDA (HAIRSIM_CUDA=OFF or no nvcc)";
#else
  if (cuda::device_count() == 0)
    GTEST_SKIP() << "no CUDA device present (cudaGetDeviceCount failed or returned 0)";
  HairstyleParams p;
  p.style = HairStyle::wavy;
  p.strands = 3001;  // not a multiple of the block size
  const StrandSet s = generate_hairstyle(p);
  const auto batch_d = pack_batch<double>(s);
  const auto batch_f = pack_batch<float>(s);
  const auto dev_d = cuda::strand_arc_lengths(batch_d.view());
  const auto dev_f = cuda::strand_arc_lengths(batch_f.view());
  ASSERT_EQ(dev_d.size(), s.strand_count());
  for (int i = 0; i < batch_d.strand_count; ++i) {
    const double host = kernels::strand_arc_length(batch_d.view(), i);
    EXPECT_NEAR(dev_d[i], host, 1e-14 * host) << "strand " << i;  // same operations, FMA aside
    EXPECT_NEAR(dev_f[i], host, 1e-5 * host) << "strand " << i;   // float: 31 segments
  }
  std::cout << "device: " << cuda::device_name() << "\n";
#endif
}

}  // namespace
}  // namespace hairsim
