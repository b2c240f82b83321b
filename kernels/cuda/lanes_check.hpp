#pragma once
// The cooperative vocabulary (common/lanes.hpp, common/lane_tridiagonal.hpp) run on the device:
// host-callable checks that upload a batch of problems, solve each on one cooperative-groups tile
// (TileLanes<W>, W = 32: a warp; W = 8: four problems to a warp) inside blocks of 128 threads,
// and download what the tiles computed. tests/gpu/test_lanes_gpu.cpp compares the results with
// the same algorithms on the host's loop of lanes (LoopLanes<W>) and with Eigen.
//
// A batch is `rows.size()` problems; problem p has rows[p] rows (at most `stride`) and its
// per-row arrays start at p * stride rows (a row of a block system: B² coefficients, B values).
// Every function throws RunFailure (cuda/check.hpp) when a CUDA call or launch fails, and
// std::invalid_argument for a width other than 8 or 32 or a problem longer than its stride.
#include <vector>

#include "common/small_matrix.hpp"

namespace hairsim::cuda {

using LaneMat3 = kernels::Mat<double, 3, 3>;

// The tile's exchanges, per lane of each of `tiles` tiles (index tile * width + lane): lane l
// holds x(l) = a 3 x 3 matrix with entries 100 l + k (18 words: the word-by-word shuffle) and
// receives shfl_up(x, 1), shfl_down(x, 2), shfl_xor(x, 1), broadcast(x, width - 1); any/all of
// (lane == width - 1); lane_inclusive_scan of the integers l + 1 under +.
struct LaneExchanges {
  std::vector<LaneMat3> up, down, flip, broadcast;
  std::vector<int> any_last, all_last, scan;
};
LaneExchanges lane_exchanges_check(int width, int tiles);

// reduce_rows over terms (problem p's row i at p * stride + i): the sum (op +, identity 0) and
// the maximum (identity -infinity), one each per problem.
void lane_reduce_rows_check(int width, const std::vector<int>& rows, int stride,
                            const std::vector<double>& terms, std::vector<double>& sums,
                            std::vector<double>& maxima);

// scan_rows and reverse_scan_rows of the product of 3 x 3 matrices (associative, not
// commutative) from each problem's start (identity the unit): forward[p * stride + i] =
// start · term(0) ⋯ term(i), reverse[p * stride + i] = start · term(n - 1) ⋯ term(i); totals[2 p]
// and totals[2 p + 1] the two scans' returned whole folds.
void lane_scan_rows_check(int width, const std::vector<int>& rows, int stride,
                          const std::vector<LaneMat3>& terms, const std::vector<LaneMat3>& starts,
                          std::vector<LaneMat3>& forward, std::vector<LaneMat3>& reverse,
                          std::vector<LaneMat3>& totals);

// The row-dealing collectives, on problem p's rows i (results at p * stride + i):
//   for_each_row   copies = 2 term(i, 0), then neighbours = copies(i + 1) - copies(i - 1)
//                  (cyclically: rows another lane wrote, read after for_each_row's sync);
//   scatter_rows   scatter_k(i + j) += term(i, j) for |j| <= k, reach k = 1 and 2 (a stencil's
//                  scatter, rows in 2 k + 1 passes);
//   carry_rows     carried(i) = rotation(i) ⋯ rotation(0) start, start = (0.3, -0.5, 0.8)
//                  (a vector transported along the rows);
//   on_one_lane    once[p] += 1 (zero before: one lane must add).
// term(i, j) = terms[(p * stride + i) * 5 + j + 2].
struct LaneRowsResults {
  std::vector<double> neighbours, scatter_1, scatter_2;
  std::vector<kernels::Vec<double, 3>> carried;
  std::vector<int> once;
};
LaneRowsResults lane_rows_check(int width, const std::vector<int>& rows, int stride,
                                const std::vector<double>& terms,
                                const std::vector<LaneMat3>& rotations);

// lane_thomas_solve of scalar tridiagonal systems (thomas_solve's arrays: lower[i] below the
// diagonal, upper[i] above), the solution written over the right-hand side as the kernels do
// (x aliases rhs); ok[p] the solve's verdict (0: a singular pivot).
template <class T>
void lane_thomas_check(int width, const std::vector<int>& rows, int stride,
                       const std::vector<T>& lower, const std::vector<T>& diag,
                       const std::vector<T>& upper, const std::vector<T>& rhs, std::vector<T>& x,
                       std::vector<int>& ok);

// lane_block_thomas_solve<double, 6> in DER's implicit step's layout: 6 x 6 blocks row-major at
// 36 i, the sub-diagonal read from the super-diagonal (LowerFromUpper, the upper array itself,
// which the solve overwrites), the solution over the right-hand side; ok[p] the verdict.
void lane_block6_thomas_check(int width, const std::vector<int>& rows, int stride,
                              const std::vector<double>& diag, const std::vector<double>& upper,
                              const std::vector<double>& rhs, std::vector<double>& x,
                              std::vector<int>& ok);

}  // namespace hairsim::cuda
