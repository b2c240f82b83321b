#pragma once
// The hair-hair interaction stage on the cuda backend (CudaSimulator): the bounds reduced on the
// device and read back (6 values per block: the grid's size is the host's to choose), the node
// fields grown as the grid grows, the stage's launches (kernels/interaction/interaction_cuda.hpp)
// on the simulator's stream. Built with CUDA only.
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "cuda/check.hpp"
#include "cuda/device_buffer.hpp"
#include "cuda/stream.hpp"
#include "engine/interaction_stage.hpp"
#include "interaction/interaction_cuda.hpp"

namespace hairsim::engine {

template <class T>
class CudaInteraction {
 public:
  // Runs the stage on `points` (device arrays); synchronises `stream` for the bounds. Returns the
  // number of occupied cells (synchronising again; only when `count_cells`).
  long run(const kernels::interaction::Points<T>& points,
           const kernels::interaction::Settings<T>& s, T h, cudaStream_t stream, bool count_cells) {
    const int blocks = cuda::interaction_bound_blocks(points);
    if (partial_.size() < std::size_t(6 * blocks)) {
      partial_ = cuda::DeviceBuffer<T>(std::size_t(6 * blocks));
      host_partial_.resize(std::size_t(6 * blocks));
    }
    cuda::launch_interaction_bounds(points, partial_.data(), stream);
    HS_CUDA_CHECK(cudaMemcpyAsync(host_partial_.data(), partial_.data(),
                                  std::size_t(6 * blocks) * sizeof(T), cudaMemcpyDeviceToHost,
                                  stream));
    HS_CUDA_CHECK(cudaStreamSynchronize(stream));
    kernels::Vector3<T> lo, hi;
    for (int c = 0; c < 3; ++c)
      lo[c] = std::numeric_limits<T>::infinity(), hi[c] = -std::numeric_limits<T>::infinity();
    bool finite = true;
    for (int b = 0; b < blocks; ++b)
      for (int c = 0; c < 3; ++c) {
        const T l = host_partial_[std::size_t(6 * b + c)],
                u = host_partial_[std::size_t(6 * b + 3 + c)];
        finite = finite && std::isfinite(l) && std::isfinite(u);
        lo[c] = std::min(lo[c], l), hi[c] = std::max(hi[c], u);
      }
    if (!finite) throw RunFailure("interaction", "a vertex position is not finite");
    const kernels::interaction::Grid<T> g = kernels::interaction::fit_grid(lo, hi, h);
    if (double(g.nx) * g.ny * g.nz > double(kMaxInteractionNodes))
      throw RunFailure("interaction",
                       "the hair spans too large a grid (interaction.cell_size "
                       "too small, or a strand thrown far away)");
    reserve(g.nodes(), g.cells());
    cuda::launch_interaction(points, g, nodes_, s, flags_.data(), occupied_.data(), stream);
    if (!count_cells) return -1;
    unsigned long long occupied = 0;
    occupied_.download_async(&occupied, stream);
    HS_CUDA_CHECK(cudaStreamSynchronize(stream));
    return long(occupied);
  }

 private:
  void reserve(long nodes, long cells) {
    if (buffers_.empty() || buffers_[0].size() < std::size_t(nodes)) {
      const std::size_t n = std::size_t(nodes) + std::size_t(nodes) / 2;  // room to grow
      buffers_.clear();
      for (int k = 0; k < kernels::interaction::kNodePlanes; ++k) buffers_.emplace_back(n);
      nodes_ = kernels::interaction::nodes_over<T>(
          [&](int k) { return buffers_[std::size_t(k)].data(); });
    }
    if (flags_.size() < std::size_t(cells))
      flags_ = cuda::DeviceBuffer<unsigned int>(std::size_t(cells) + std::size_t(cells) / 2);
  }

  std::vector<cuda::DeviceBuffer<T>> buffers_;
  kernels::interaction::Nodes<T> nodes_;
  cuda::DeviceBuffer<unsigned int> flags_;
  cuda::DeviceBuffer<unsigned long long> occupied_{1};
  cuda::DeviceBuffer<T> partial_;
  std::vector<T> host_partial_;
};

}  // namespace hairsim::engine
