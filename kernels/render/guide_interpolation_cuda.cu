// Render strands from guides on the device: strands mapped to threads, no math here (that is
// guide_interpolation.hpp, which the cpu path runs too).
#include "cuda/check.hpp"
#include "render/guide_interpolation_cuda.hpp"

namespace hairsim::cuda {
namespace {

constexpr int kBlock = 128;

template <class T>
__global__ void guide_frames_kernel(kernels::render::GuideFrames<T> f) {
  const int g = blockIdx.x * blockDim.x + threadIdx.x;
  if (g < f.guides) kernels::render::guide_frames(f, g);
}

template <class T>
__global__ void render_strands_kernel(kernels::render::GuideFrames<T> f,
                                      kernels::render::RenderStrands<T> r) {
  const int s = blockIdx.x * blockDim.x + threadIdx.x;
  if (s < r.strands) kernels::render::interpolate_strand(f, r, s);
}

}  // namespace

template <class T>
void interpolate_render_strands(const kernels::render::GuideFrames<T>& f,
                                const kernels::render::RenderStrands<T>& r) {
  if (f.guides > 0) guide_frames_kernel<<<(f.guides + kBlock - 1) / kBlock, kBlock>>>(f);
  HS_CUDA_CHECK(cudaGetLastError());
  if (r.strands > 0) render_strands_kernel<<<(r.strands + kBlock - 1) / kBlock, kBlock>>>(f, r);
  HS_CUDA_CHECK(cudaGetLastError());
}

template void interpolate_render_strands(const kernels::render::GuideFrames<float>&,
                                         const kernels::render::RenderStrands<float>&);
template void interpolate_render_strands(const kernels::render::GuideFrames<double>&,
                                         const kernels::render::RenderStrands<double>&);

}  // namespace hairsim::cuda
