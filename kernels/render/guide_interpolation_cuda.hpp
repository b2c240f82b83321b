#pragma once
// The cuda launcher of the render-strand interpolation (kernels/render/guide_interpolation.hpp):
// the guides' frames, one thread per guide, then the render strands, one thread per strand. The
// arrays are device pointers; the launches go to the default stream and are checked.
#include "render/guide_interpolation.hpp"

namespace hairsim::cuda {

template <class T>
void interpolate_render_strands(const kernels::render::GuideFrames<T>& device_frames,
                                const kernels::render::RenderStrands<T>& device_strands);

}  // namespace hairsim::cuda
