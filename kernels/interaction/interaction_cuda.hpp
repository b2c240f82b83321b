#pragma once
// The cuda backend's launchers of the hair-hair interaction stage (interaction_grid.hpp has the
// math): a thread per point for the bounds, the splat (atomic adds into the nodes) and the
// blend back, a thread per node for the grid's velocity, divergence, Jacobi sweeps and pressure
// gradient. Launch code only (interaction_cuda.cu); the engine's side is
// src/engine/cuda_interaction.hpp.
#include <cuda_runtime.h>

#include "interaction/interaction_grid.hpp"

namespace hairsim::cuda {

// Blocks of the bounds' reduction: each writes the min and max of its points' coordinates, 6
// values (min x, y, z, max x, y, z), into `partial` (device memory, 6 per block).
inline constexpr int kInteractionBlock = 256;
template <class T>
int interaction_bound_blocks(const kernels::interaction::Points<T>& points) {
  const long blocks = (points.count() + kInteractionBlock - 1) / kInteractionBlock;
  return int(blocks < 1024 ? (blocks < 1 ? 1 : blocks) : 1024);
}
template <class T>
void launch_interaction_bounds(const kernels::interaction::Points<T>& points, T* partial,
                               cudaStream_t stream);

// The stage on grid `g` (fitted to the bounds): the node fields (device memory, g.nodes() values
// each) zeroed and splatted, the pressure solved, every free point's velocity changed.
// `cell_flags` (g.cells() values) marks the cells holding a point; their number is added into
// `occupied` (one value). Asynchronous on `stream`.
template <class T>
void launch_interaction(const kernels::interaction::Points<T>& points,
                        const kernels::interaction::Grid<T>& g,
                        const kernels::interaction::Nodes<T>& nodes,
                        const kernels::interaction::Settings<T>& settings, unsigned int* cell_flags,
                        unsigned long long* occupied, cudaStream_t stream);

}  // namespace hairsim::cuda
