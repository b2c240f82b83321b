// The cuda launchers of the hair-hair interaction stage (interaction_cuda.hpp). No physics here:
// kernels/interaction/interaction_grid.hpp has it. The splat's sums are atomic adds, so their
// order, and a float grid's last bits, vary from run to run (docs/architecture.md).
#include "cuda/check.hpp"
#include "interaction/interaction_cuda.hpp"

namespace hairsim::cuda {
namespace {

namespace ki = kernels::interaction;

template <class T>
__global__ void bounds_kernel(const ki::Points<T> pts, T* partial) {
  __shared__ T lo[3][kInteractionBlock], hi[3][kInteractionBlock];
  T l[3], h[3];
  for (int c = 0; c < 3; ++c) l[c] = T(1e30), h[c] = T(-1e30);
  for (long p = long(blockIdx.x) * blockDim.x + threadIdx.x; p < pts.count();
       p += long(gridDim.x) * blockDim.x) {
    const kernels::Vector3<T> x = pts.get(pts.position, p);
    for (int c = 0; c < 3; ++c) {
      // A NaN coordinate turns the box into NaN, which the host refuses.
      l[c] = x[c] < l[c] || x[c] != x[c] ? x[c] : l[c];
      h[c] = x[c] > h[c] || x[c] != x[c] ? x[c] : h[c];
    }
  }
  for (int c = 0; c < 3; ++c) lo[c][threadIdx.x] = l[c], hi[c][threadIdx.x] = h[c];
  __syncthreads();
  for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
    if (int(threadIdx.x) < stride)
      for (int c = 0; c < 3; ++c) {
        const T a = lo[c][threadIdx.x + stride], b = hi[c][threadIdx.x + stride];
        lo[c][threadIdx.x] = a < lo[c][threadIdx.x] || a != a ? a : lo[c][threadIdx.x];
        hi[c][threadIdx.x] = b > hi[c][threadIdx.x] || b != b ? b : hi[c][threadIdx.x];
      }
    __syncthreads();
  }
  if (threadIdx.x == 0)
    for (int c = 0; c < 3; ++c)
      partial[6 * blockIdx.x + c] = lo[c][0], partial[6 * blockIdx.x + 3 + c] = hi[c][0];
}

template <class T>
__global__ void splat_kernel(const ki::Points<T> pts, const ki::Grid<T> g, const ki::Nodes<T> nd,
                             unsigned int* cell_flags) {
  const long p = long(blockIdx.x) * blockDim.x + threadIdx.x;
  if (p >= pts.count()) return;
  const kernels::Vector3<T> x = pts.get(pts.position, p), v = pts.get(pts.velocity, p);
  const T m = pts.get_mass(p);
  const ki::Stencil<T> s = ki::stencil(g, x);
  cell_flags[g.cell(s.i, s.j, s.k)] = 1u;
  for (int corner = 0; corner < 8; ++corner) {
    const T w = ki::corner_weight(s, corner) * m;
    const long n = ki::corner_node(g, s, corner);
    atomicAdd(nd.mass + n, w);
    for (int c = 0; c < 3; ++c) atomicAdd(nd.momentum[c] + n, w * v[c]);
  }
}

template <class T>
__global__ void count_cells_kernel(long cells, const unsigned int* cell_flags,
                                   unsigned long long* occupied) {
  const long c = long(blockIdx.x) * blockDim.x + threadIdx.x;
  if (c < cells && cell_flags[c]) atomicAdd(occupied, 1ull);
}

template <class T>
__global__ void velocity_kernel(const ki::Grid<T> g, const ki::Nodes<T> nd) {
  const long n = long(blockIdx.x) * blockDim.x + threadIdx.x;
  if (n < g.nodes()) ki::node_velocity(nd, n);
}

// Node n's lattice indices.
template <class T>
__device__ void node_ijk(const ki::Grid<T>& g, long n, int& i, int& j, int& k) {
  i = int(n % g.nx), j = int(n / g.nx % g.ny), k = int(n / g.nx / g.ny);
}

template <class T>
__global__ void rhs_kernel(const ki::Grid<T> g, const ki::Nodes<T> nd, const ki::Settings<T> s) {
  const long n = long(blockIdx.x) * blockDim.x + threadIdx.x;
  if (n >= g.nodes()) return;
  int i, j, k;
  node_ijk(g, n, i, j, k);
  ki::node_rhs(g, nd, s, i, j, k);
}

template <class T>
__global__ void jacobi_kernel(const ki::Grid<T> g, const ki::Nodes<T> nd, const T* from, T* to) {
  const long n = long(blockIdx.x) * blockDim.x + threadIdx.x;
  if (n >= g.nodes()) return;
  int i, j, k;
  node_ijk(g, n, i, j, k);
  ki::jacobi_node(g, nd, from, to, i, j, k);
}

template <class T>
__global__ void change_kernel(const ki::Grid<T> g, const ki::Nodes<T> nd, T dt) {
  const long n = long(blockIdx.x) * blockDim.x + threadIdx.x;
  if (n >= g.nodes()) return;
  int i, j, k;
  node_ijk(g, n, i, j, k);
  ki::pressure_change(g, nd, dt, i, j, k);
}

template <class T>
__global__ void points_kernel(const ki::Points<T> pts, const ki::Grid<T> g, const ki::Nodes<T> nd,
                              T alpha) {
  const long p = long(blockIdx.x) * blockDim.x + threadIdx.x;
  if (p < pts.count()) ki::update_point(g, nd, pts, p, alpha);
}

unsigned int blocks_of(long count) {
  return static_cast<unsigned int>((count + kInteractionBlock - 1) / kInteractionBlock);
}

}  // namespace

template <class T>
void launch_interaction_bounds(const ki::Points<T>& pts, T* partial, cudaStream_t stream) {
  bounds_kernel<T><<<interaction_bound_blocks(pts), kInteractionBlock, 0, stream>>>(pts, partial);
  HS_CUDA_CHECK(cudaGetLastError());
}

template <class T>
void launch_interaction(const ki::Points<T>& pts, const ki::Grid<T>& g, const ki::Nodes<T>& nd,
                        const ki::Settings<T>& s, unsigned int* cell_flags,
                        unsigned long long* occupied, cudaStream_t stream) {
  const long nodes = g.nodes(), cells = g.cells();
  const std::size_t bytes = std::size_t(nodes) * sizeof(T);
  HS_CUDA_CHECK(cudaMemsetAsync(nd.mass, 0, bytes, stream));
  for (int c = 0; c < 3; ++c) HS_CUDA_CHECK(cudaMemsetAsync(nd.momentum[c], 0, bytes, stream));
  HS_CUDA_CHECK(cudaMemsetAsync(cell_flags, 0, std::size_t(cells) * sizeof(unsigned int), stream));
  HS_CUDA_CHECK(cudaMemsetAsync(occupied, 0, sizeof(unsigned long long), stream));
  const unsigned int point_blocks = blocks_of(pts.count()), node_blocks = blocks_of(nodes);
  splat_kernel<T><<<point_blocks, kInteractionBlock, 0, stream>>>(pts, g, nd, cell_flags);
  count_cells_kernel<T>
      <<<blocks_of(cells), kInteractionBlock, 0, stream>>>(cells, cell_flags, occupied);
  velocity_kernel<T><<<node_blocks, kInteractionBlock, 0, stream>>>(g, nd);
  if (s.target_density > T(0) && s.iterations > 0) {
    rhs_kernel<T><<<node_blocks, kInteractionBlock, 0, stream>>>(g, nd, s);
    T* from = nd.pressure;
    T* to = nd.pressure_next;
    for (int it = 0; it < s.iterations; ++it) {
      jacobi_kernel<T><<<node_blocks, kInteractionBlock, 0, stream>>>(g, nd, from, to);
      T* swap = from;
      from = to, to = swap;
    }
    if (from != nd.pressure)
      HS_CUDA_CHECK(cudaMemcpyAsync(nd.pressure, from, bytes, cudaMemcpyDeviceToDevice, stream));
    change_kernel<T><<<node_blocks, kInteractionBlock, 0, stream>>>(g, nd, s.dt);
  }
  points_kernel<T><<<point_blocks, kInteractionBlock, 0, stream>>>(pts, g, nd, s.blend());
  HS_CUDA_CHECK(cudaGetLastError());
}

#define HAIRSIM_INSTANTIATE_INTERACTION(T)                                                        \
  template void launch_interaction_bounds<T>(const ki::Points<T>&, T*, cudaStream_t);             \
  template void launch_interaction<T>(const ki::Points<T>&, const ki::Grid<T>&,                   \
                                      const ki::Nodes<T>&, const ki::Settings<T>&, unsigned int*, \
                                      unsigned long long*, cudaStream_t)
HAIRSIM_INSTANTIATE_INTERACTION(float);
HAIRSIM_INSTANTIATE_INTERACTION(double);

}  // namespace hairsim::cuda
