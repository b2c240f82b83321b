// The cooperative vocabulary on the device (lanes_check.hpp): each problem of a batch on one
// tile of W lanes (TileLanes<W>), blocks of 128 threads, problem p on the block's tile
// p % (128 / W). Launch code and per-problem views only: the algorithms are common/lanes.hpp's and
// common/lane_tridiagonal.hpp's, the ones the host runs.
#include <cooperative_groups.h>

#include <cmath>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "common/block_thomas.hpp"
#include "common/lane_tridiagonal.hpp"
#include "common/lanes.hpp"
#include "cuda/check.hpp"
#include "cuda/device_buffer.hpp"
#include "cuda/lanes_check.hpp"

namespace hairsim::cuda {
namespace {

namespace cg = cooperative_groups;
using kernels::TileLanes;

constexpr int kBlock = 128;

// This thread's tile and the problem it owns; problem >= problems for the tiles past the batch
// (a whole tile alike, so they leave together and no collective misses a lane).
template <int W>
struct TileProblem {
  TileLanes<W> g;
  int problem;
};
template <int W>
__device__ TileProblem<W> tile_problem() {
  const cg::thread_block_tile<W> tile = cg::tiled_partition<W>(cg::this_thread_block());
  return {TileLanes<W>{tile}, int(blockIdx.x) * (kBlock / W) + int(tile.meta_group_rank())};
}

template <int W>
int blocks_for(int problems) {
  constexpr int per_block = kBlock / W;
  return (problems + per_block - 1) / per_block;
}

void check_batch(int width, const std::vector<int>& rows, int stride) {
  if (width != 8 && width != 32)
    throw std::invalid_argument("lanes check: tile width " + std::to_string(width) + " (8 or 32)");
  for (int n : rows)
    if (n < 0 || n > stride)
      throw std::invalid_argument("lanes check: a problem of " + std::to_string(n) +
                                  " rows in a stride of " + std::to_string(stride));
}

template <class T>
DeviceBuffer<T> uploaded(const std::vector<T>& host) {
  DeviceBuffer<T> device(host.size());
  device.upload(host.data());
  return device;
}

// The outputs start as zero bytes (on the default stream, before the launch): what a check reads
// back is what its kernel wrote or 0, never uninitialised memory (compute-sanitizer's initcheck
// runs these tests, scripts/gpu-check.sh).
template <class... Buffers>
void zero(Buffers&... buffers) {
  (buffers.zero_async(nullptr), ...);
}

template <class T>
std::vector<T> downloaded(const DeviceBuffer<T>& device) {
  HS_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<T> host(device.size());
  device.download(host.data());
  return host;
}

// ---- Exchanges ----------------------------------------------------------------------------------

struct ExchangeOut {
  LaneMat3 *up, *down, *flip, *broadcast;
  int *any_last, *all_last, *scan;
};

template <int W>
__global__ void exchanges_kernel(int tiles, ExchangeOut out) {
  const TileProblem<W> t = tile_problem<W>();
  if (t.problem >= tiles) return;
  const int lane = int(t.g.tile.thread_rank()), at = t.problem * W + lane;
  typename TileLanes<W>::template Value<LaneMat3> x;
  for (int k = 0; k < 9; ++k) x(lane)[k] = 100.0 * lane + k;
  out.up[at] = t.g.shfl_up(x, 1)(lane);
  out.down[at] = t.g.shfl_down(x, 2)(lane);
  out.flip[at] = t.g.shfl_xor(x, 1)(lane);
  out.broadcast[at] = t.g.broadcast(x, W - 1);
  typename TileLanes<W>::template Value<bool> last;
  last(lane) = lane == W - 1;
  out.any_last[at] = t.g.any(last);
  out.all_last[at] = t.g.all(last);
  typename TileLanes<W>::template Value<int> count;
  count(lane) = lane + 1;
  out.scan[at] = kernels::lane_inclusive_scan<TileLanes<W>, int>(
      t.g, count, [](int a, int b) { return a + b; })(lane);
}

// ---- Reductions and scans -----------------------------------------------------------------------

template <int W>
__global__ void reduce_rows_kernel(int problems, const int* rows, int stride, const double* terms,
                                   double* sums, double* maxima) {
  const TileProblem<W> t = tile_problem<W>();
  if (t.problem >= problems) return;
  const int n = rows[t.problem];
  const double* term = terms + std::size_t(t.problem) * stride;
  const double sum = kernels::reduce_rows(
      t.g, n, 0.0, [](double a, double b) { return a + b; }, [&](int i) { return term[i]; });
  const double largest = kernels::reduce_rows(
      t.g, n, -double(INFINITY), [](double a, double b) { return a > b ? a : b; },
      [&](int i) { return term[i]; });
  if (t.g.tile.thread_rank() == 0) sums[t.problem] = sum, maxima[t.problem] = largest;
}

template <int W>
__global__ void scan_rows_kernel(int problems, const int* rows, int stride, const LaneMat3* terms,
                                 const LaneMat3* starts, LaneMat3* forward, LaneMat3* reverse,
                                 LaneMat3* totals) {
  const TileProblem<W> t = tile_problem<W>();
  if (t.problem >= problems) return;
  const int n = rows[t.problem];
  const std::size_t base = std::size_t(t.problem) * stride;
  auto product = [](const LaneMat3& a, const LaneMat3& b) { return a * b; };
  auto term = [&](int i) { return terms[base + i]; };
  const LaneMat3 start = starts[t.problem], one = LaneMat3::identity();
  const LaneMat3 total = kernels::scan_rows(
      t.g, n, start, one, product, term, [&](int i, const LaneMat3& v) { forward[base + i] = v; });
  const LaneMat3 total_reverse = kernels::reverse_scan_rows(
      t.g, n, start, one, product, term, [&](int i, const LaneMat3& v) { reverse[base + i] = v; });
  if (t.g.tile.thread_rank() == 0)
    totals[2 * t.problem] = total, totals[2 * t.problem + 1] = total_reverse;
}

// ---- Rows dealt out: for_each_row, scatter_rows, carry_rows, on_one_lane ----------------------

struct RowsOut {
  double *copies, *neighbours, *scatter_1, *scatter_2;
  kernels::Vec<double, 3>* carried;
  int* once;
};

template <int W>
__global__ void rows_kernel(int problems, const int* rows, int stride, const double* terms,
                            const LaneMat3* rotations, RowsOut out) {
  using Vec3 = kernels::Vec<double, 3>;
  const TileProblem<W> t = tile_problem<W>();
  if (t.problem >= problems) return;
  const int n = rows[t.problem];
  const std::size_t base = std::size_t(t.problem) * stride;
  auto term = [&](int i, int j) { return terms[(base + i) * 5 + j + 2]; };
  kernels::for_each_row(t.g, n, [&](int i) {
    out.copies[base + i] = 2 * term(i, 0);
    out.scatter_1[base + i] = out.scatter_2[base + i] = 0;
  });
  kernels::for_each_row(t.g, n, [&](int i) {
    out.neighbours[base + i] = out.copies[base + (i + 1) % n] - out.copies[base + (i + n - 1) % n];
  });
  for (int reach = 1; reach <= 2; ++reach) {
    double* const scattered = (reach == 1 ? out.scatter_1 : out.scatter_2) + base;
    kernels::scatter_rows(t.g, n, reach, [&](int i) {
      for (int j = -reach; j <= reach; ++j)
        if (i + j >= 0 && i + j < n) scattered[i + j] += term(i, j);
    });
  }
  kernels::carry_rows(
      t.g, n, Vec3{0.3, -0.5, 0.8}, LaneMat3::identity(),
      [&](int i, const Vec3& u) { return rotations[base + i] * u; },
      [&](int i) { return rotations[base + i]; },
      [](const LaneMat3& r, const Vec3& v) { return r * v; },
      [](const LaneMat3& first, const LaneMat3& then) { return then * first; },
      [&](int i, const Vec3& v) { out.carried[base + i] = v; });
  kernels::on_one_lane(t.g, [&] { out.once[t.problem] += 1; });
}

// ---- Tridiagonal solves -------------------------------------------------------------------------

template <class T, int W>
__global__ void thomas_kernel(int problems, const int* rows, int stride, T* lower, const T* diag,
                              T* upper, T* x, int* ok) {
  const TileProblem<W> t = tile_problem<W>();
  if (t.problem >= problems) return;
  const std::size_t base = std::size_t(t.problem) * stride;
  const bool solved = kernels::lane_thomas_solve(t.g, rows[t.problem], lower + base, diag + base,
                                                 upper + base, x + base, x + base);
  if (t.g.tile.thread_rank() == 0) ok[t.problem] = solved;
}

template <int W>
__global__ void block6_thomas_kernel(int problems, const int* rows, int stride, double* diag,
                                     double* upper, double* x, int* ok) {
  constexpr int B = 6;
  const TileProblem<W> t = tile_problem<W>();
  if (t.problem >= problems) return;
  const std::size_t blocks = std::size_t(t.problem) * stride * B * B;
  double* const up = upper + blocks;
  double* const solution = x + std::size_t(t.problem) * stride * B;
  const kernels::LowerFromUpper<B, const double*> lower{up};
  const bool solved = kernels::lane_block_thomas_solve<double, B>(
      t.g, rows[t.problem], lower, diag + blocks, up, solution, solution);
  if (t.g.tile.thread_rank() == 0) ok[t.problem] = solved;
}

// Runs launch(std::integral_constant<int, W>{}) for the width asked (8 or 32).
template <class Launch>
void with_width(int width, Launch&& launch) {
  if (width == 32)
    launch(std::integral_constant<int, 32>{});
  else
    launch(std::integral_constant<int, 8>{});
  HS_CUDA_CHECK(cudaGetLastError());
}

}  // namespace

LaneExchanges lane_exchanges_check(int width, int tiles) {
  check_batch(width, {}, 0);
  const std::size_t lanes = std::size_t(tiles) * width;
  DeviceBuffer<LaneMat3> up(lanes), down(lanes), flip(lanes), broadcast(lanes);
  DeviceBuffer<int> any_last(lanes), all_last(lanes), scan(lanes);
  zero(up, down, flip, broadcast, any_last, all_last, scan);
  const ExchangeOut out{up.data(),       down.data(),     flip.data(), broadcast.data(),
                        any_last.data(), all_last.data(), scan.data()};
  with_width(width, [&](auto w) {
    constexpr int W = decltype(w)::value;
    exchanges_kernel<W><<<blocks_for<W>(tiles), kBlock>>>(tiles, out);
  });
  return {downloaded(up),       downloaded(down),     downloaded(flip), downloaded(broadcast),
          downloaded(any_last), downloaded(all_last), downloaded(scan)};
}

void lane_reduce_rows_check(int width, const std::vector<int>& rows, int stride,
                            const std::vector<double>& terms, std::vector<double>& sums,
                            std::vector<double>& maxima) {
  check_batch(width, rows, stride);
  const int problems = int(rows.size());
  const DeviceBuffer<int> d_rows = uploaded(rows);
  const DeviceBuffer<double> d_terms = uploaded(terms);
  DeviceBuffer<double> d_sums(problems), d_maxima(problems);
  zero(d_sums, d_maxima);
  with_width(width, [&](auto w) {
    constexpr int W = decltype(w)::value;
    reduce_rows_kernel<W><<<blocks_for<W>(problems), kBlock>>>(
        problems, d_rows.data(), stride, d_terms.data(), d_sums.data(), d_maxima.data());
  });
  sums = downloaded(d_sums);
  maxima = downloaded(d_maxima);
}

void lane_scan_rows_check(int width, const std::vector<int>& rows, int stride,
                          const std::vector<LaneMat3>& terms, const std::vector<LaneMat3>& starts,
                          std::vector<LaneMat3>& forward, std::vector<LaneMat3>& reverse,
                          std::vector<LaneMat3>& totals) {
  check_batch(width, rows, stride);
  const int problems = int(rows.size());
  const DeviceBuffer<int> d_rows = uploaded(rows);
  const DeviceBuffer<LaneMat3> d_terms = uploaded(terms), d_starts = uploaded(starts);
  DeviceBuffer<LaneMat3> d_forward(terms.size()), d_reverse(terms.size()),
      d_totals(2 * std::size_t(problems));
  zero(d_forward, d_reverse, d_totals);
  with_width(width, [&](auto w) {
    constexpr int W = decltype(w)::value;
    scan_rows_kernel<W><<<blocks_for<W>(problems), kBlock>>>(
        problems, d_rows.data(), stride, d_terms.data(), d_starts.data(), d_forward.data(),
        d_reverse.data(), d_totals.data());
  });
  forward = downloaded(d_forward);
  reverse = downloaded(d_reverse);
  totals = downloaded(d_totals);
}

LaneRowsResults lane_rows_check(int width, const std::vector<int>& rows, int stride,
                                const std::vector<double>& terms,
                                const std::vector<LaneMat3>& rotations) {
  check_batch(width, rows, stride);
  const int problems = int(rows.size());
  const std::size_t size = std::size_t(problems) * stride;
  const DeviceBuffer<int> d_rows = uploaded(rows);
  const DeviceBuffer<double> d_terms = uploaded(terms);
  const DeviceBuffer<LaneMat3> d_rotations = uploaded(rotations);
  DeviceBuffer<double> copies(size), neighbours(size), scatter_1(size), scatter_2(size);
  DeviceBuffer<kernels::Vec<double, 3>> carried(size);
  DeviceBuffer<int> once(problems);
  zero(copies, neighbours, scatter_1, scatter_2, carried, once);
  const RowsOut out{copies.data(),    neighbours.data(), scatter_1.data(),
                    scatter_2.data(), carried.data(),    once.data()};
  with_width(width, [&](auto w) {
    constexpr int W = decltype(w)::value;
    rows_kernel<W><<<blocks_for<W>(problems), kBlock>>>(problems, d_rows.data(), stride,
                                                        d_terms.data(), d_rotations.data(), out);
  });
  return {downloaded(neighbours), downloaded(scatter_1), downloaded(scatter_2), downloaded(carried),
          downloaded(once)};
}

template <class T>
void lane_thomas_check(int width, const std::vector<int>& rows, int stride,
                       const std::vector<T>& lower, const std::vector<T>& diag,
                       const std::vector<T>& upper, const std::vector<T>& rhs, std::vector<T>& x,
                       std::vector<int>& ok) {
  check_batch(width, rows, stride);
  const int problems = int(rows.size());
  const DeviceBuffer<int> d_rows = uploaded(rows);
  DeviceBuffer<T> d_lower = uploaded(lower), d_upper = uploaded(upper), d_x = uploaded(rhs);
  const DeviceBuffer<T> d_diag = uploaded(diag);
  DeviceBuffer<int> d_ok(problems);
  zero(d_ok);
  with_width(width, [&](auto w) {
    constexpr int W = decltype(w)::value;
    thomas_kernel<T, W><<<blocks_for<W>(problems), kBlock>>>(
        problems, d_rows.data(), stride, d_lower.data(), d_diag.data(), d_upper.data(), d_x.data(),
        d_ok.data());
  });
  x = downloaded(d_x);
  ok = downloaded(d_ok);
}

template void lane_thomas_check(int, const std::vector<int>&, int, const std::vector<float>&,
                                const std::vector<float>&, const std::vector<float>&,
                                const std::vector<float>&, std::vector<float>&, std::vector<int>&);
template void lane_thomas_check(int, const std::vector<int>&, int, const std::vector<double>&,
                                const std::vector<double>&, const std::vector<double>&,
                                const std::vector<double>&, std::vector<double>&,
                                std::vector<int>&);

void lane_block6_thomas_check(int width, const std::vector<int>& rows, int stride,
                              const std::vector<double>& diag, const std::vector<double>& upper,
                              const std::vector<double>& rhs, std::vector<double>& x,
                              std::vector<int>& ok) {
  check_batch(width, rows, stride);
  const int problems = int(rows.size());
  const DeviceBuffer<int> d_rows = uploaded(rows);
  DeviceBuffer<double> d_diag = uploaded(diag), d_upper = uploaded(upper), d_x = uploaded(rhs);
  DeviceBuffer<int> d_ok(problems);
  zero(d_ok);
  with_width(width, [&](auto w) {
    constexpr int W = decltype(w)::value;
    block6_thomas_kernel<W><<<blocks_for<W>(problems), kBlock>>>(
        problems, d_rows.data(), stride, d_diag.data(), d_upper.data(), d_x.data(), d_ok.data());
  });
  x = downloaded(d_x);
  ok = downloaded(d_ok);
}

}  // namespace hairsim::cuda
