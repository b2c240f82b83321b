// Render strands from guides on the device (label gpu): the cuda launcher
// (kernels/render/guide_interpolation_cuda.cu) on the arrays the cpu path built gives the cpu
// path's render strands. Skips, saying why, without CUDA or a device.
#include <gtest/gtest.h>

#include <cmath>

#include "hairsim/generate.hpp"
#include "hairsim/guides.hpp"
#include "render/guide_arrays.hpp"
#ifdef HAIRSIM_HAVE_CUDA
#include "cuda/cuda_api.hpp"
#include "cuda/device_buffer.hpp"
#include "render/guide_interpolation_cuda.hpp"
#endif

namespace hairsim {
namespace {

#ifdef HAIRSIM_HAVE_CUDA
template <class T>
cuda::DeviceBuffer<T> upload(const std::vector<T>& host) {
  cuda::DeviceBuffer<T> d(host.size());
  d.upload(host.data());
  return d;
}
#endif

TEST(GuidesGpu, DeviceInterpolationMatchesTheCpuPath) {
#ifndef HAIRSIM_HAVE_CUDA
  GTEST_SKIP() << "hairsim was built without CUDA (HAIRSIM_CUDA=OFF or no nvcc)";
#else
  if (cuda::device_count() == 0) GTEST_SKIP() << "no CUDA device";
  HairstyleParams p;
  p.style = HairStyle::curly;
  p.strands = 500;
  p.vertices = 32;
  const StrandSet guides = generate_hairstyle(p);
  RenderStrandOptions o;
  o.clump = 0.4;
  o.jitter = 0.003;
  GuideInterpolator interp(guides, scatter_render_roots(guides, 20001, 2), o);
  std::vector<Vec3> x = guides.points;  // a moved state
  for (std::size_t i = 0; i < x.size(); ++i) x[i].z() += 0.02 * std::sin(0.3 * double(i % 32));
  interp.interpolate(x);
  auto& a = dynamic_cast<GuideArrays<float>&>(interp.arrays());
  auto planes = upload(a.planes);  // positions (the frames are recomputed on the device)
  auto reference = upload(a.reference), guide = upload(a.guide), main = upload(a.main_guide);
  auto weight = upload(a.weight_t);
  auto offset = upload(a.offset), jitter = upload(a.jitter);
  cuda::DeviceBuffer<float> out(a.out.size());
  cuda::interpolate_render_strands<float>(
      {planes.data(), reference.data(), a.guides, a.vertices},
      {guide.data(), weight.data(), offset.data(), jitter.data(), main.data(), out.data(),
       a.strands, a.clump});
  std::vector<float> device(a.out.size());
  out.download(device.data());
  double worst = 0;
  for (std::size_t i = 0; i < device.size(); ++i)
    worst = std::max(worst, double(std::abs(device[i] - a.out[i])));
  std::cout << "device " << cuda::device_name() << ": largest difference " << worst << " m\n";
  // Float round-off of positions of 0.3 m (ε 6e-8) through ~20 operations, with the device's
  // fused multiply-adds rounding differently from the host's separate ones: 1e-6 m.
  EXPECT_LT(worst, 1e-6);
#endif
}

}  // namespace
}  // namespace hairsim
