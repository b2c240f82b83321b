#pragma once
// The arrays behind GuideInterpolator (include/hairsim/guides.hpp), in the kernels' form
// (kernels/render/guide_interpolation.hpp): what the cpu path runs on and what the cuda launcher
// and its test upload.
#include <vector>

#include "hairsim/guides.hpp"
#include "render/guide_interpolation.hpp"

namespace hairsim {

struct GuideInterpolator::Impl {
  virtual ~Impl() = default;
  virtual void interpolate(std::span<const Vec3> guide_positions) = 0;
  virtual void render_strands(StrandSet& out) const = 0;
  int guides = 0, strands = 0, vertices = 0;
  std::vector<int> reference;  // per guide
  // Per render strand in the internal order (Impl::rank maps a render strand to it).
  std::vector<int> guide;      // kMaxGuideWeights each
  std::vector<double> weight;  // kMaxGuideWeights each (as found, in double)
  std::vector<int> main_guide;
  std::vector<int> rank;  // render strand s is internal strand rank[s]
};

template <class T>
struct GuideArrays final : GuideInterpolator::Impl {
  using V3 = kernels::Vector3<T>;
  std::vector<T> planes;  // guides: positions and frames (kernels::render::GuidePlane)
  std::vector<T> weight_t;
  std::vector<V3> offset, jitter;  // offset: weight times the local offset
  std::vector<int> order;  // internal strand i is render strand order[i] (sorted by main guide)
  std::vector<T> out;      // x, y, z planes of strands * vertices
  T clump = T(0);

  kernels::render::GuideFrames<T> frames() {
    return {planes.data(), reference.data(), guides, vertices};
  }
  kernels::render::RenderStrands<T> render() {
    return {guide.data(),      weight_t.data(), offset.data(), jitter.data(),
            main_guide.data(), out.data(),      strands,       clump};
  }
  void interpolate(std::span<const Vec3> guide_positions) override;
  void render_strands(StrandSet& out) const override;
};

}  // namespace hairsim
