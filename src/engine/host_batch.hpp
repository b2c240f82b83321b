#pragma once
// The generic batched engine's host side, for any model's batch traits
// (kernels/common/batch_layout.hpp): storage of every array in the tiled layout, the index of a
// strand's row, vector fields read back strand after strand, and the cpu backend's executor: the
// model's per-strand step over all tiles on as many cores as the step's work is worth (OpenMP).
#include <omp.h>

#include <algorithm>
#include <type_traits>
#include <vector>

#include "common/batch_layout.hpp"
#include "common/lanes.hpp"
#include "core/memory.hpp"
#include "engine/state_io.hpp"
#include "engine/threads.hpp"
#include "hairsim/error.hpp"
#include "hairsim/strands.hpp"

namespace hairsim::engine {

template <class Batch>
class HostBatch {
 public:
  using Arrays = typename Batch::Arrays;
  using Scalar = typename Batch::Scalar;

  // `layout`: the arrays' sizes and flags (strands, vertices, tile_width, the model's own), its
  // pointers unset. Every array is allocated zeroed (0.0 as IEEE).
  explicit HostBatch(const Arrays& layout) : arrays_(layout) {
    if (layout.strands < 1 || layout.vertices < 3 || layout.tile_width < 1)
      throw Error("batch", "needs >= 1 strand of >= 3 vertices, tiles of >= 1 strand");
    const std::size_t padded = std::size_t(arrays_.tile_count()) * arrays_.tile_width;
    std::uint64_t bytes = 0;  // checked first: 2,000,000 strands died in bad_alloc
    Arrays sizes = layout;
    Batch::for_each_array(sizes, [&](auto*& array, int rows) {
      bytes += std::uint64_t(rows) * padded * sizeof(*array);
    });
    require_memory(bytes, "strands",
                   "the batch of " + std::to_string(layout.strands) + " strands of " +
                       std::to_string(layout.vertices) + " vertices");
    Batch::for_each_array(arrays_, [&](auto*& array, int rows) {
      using S = std::remove_reference_t<decltype(*array)>;  // the model's scalar, or another
      storage_.emplace_back(std::size_t(rows) * padded * sizeof(S));
      array = reinterpret_cast<S*>(storage_.back().data());
    });
  }
  HostBatch(const HostBatch&) = delete;  // arrays_ points into storage_
  HostBatch& operator=(const HostBatch&) = delete;

  int strands() const { return arrays_.strands; }
  int vertices() const { return arrays_.vertices; }
  const Arrays& arrays() const { return arrays_; }
  // Offset of row `row` of strand s in an array of `rows` rows per strand.
  std::size_t index(int row, int s, int rows) const {
    return kernels::tiled_index(row, s, rows, arrays_.tile_width);
  }
  // Every array's bytes, padding included, for checkpoints (Simulator::save_state).
  void save(StateWriter& out) const {
    for (const std::vector<unsigned char>& array : storage_) out.values(array);
  }
  void restore(StateReader& in) {
    for (std::vector<unsigned char>& array : storage_) in.values(array);
  }
  // Vertex i of strand s of a vector field of these arrays (Batch::positions(arrays()), ...).
  Vec3 vector(const kernels::VertexVectors<Scalar>& f, int s, int i) const {
    return {double(f.array[0][index(f.row(i, 0), s, f.rows)]),
            double(f.array[1][index(f.row(i, 1), s, f.rows)]),
            double(f.array[2][index(f.row(i, 2), s, f.rows)])};
  }
  // Every vertex of a field, strand after strand (strand s, vertex i at s * vertices + i).
  void gather(const kernels::VertexVectors<Scalar>& f, std::vector<Vec3>& out) const {
    out.resize(std::size_t(strands()) * vertices());
#pragma omp parallel for schedule(static) num_threads(items_team_size(long(strands()) * vertices()))
    for (int s = 0; s < strands(); ++s)
      for (int i = 0; i < vertices(); ++i) out[std::size_t(s) * vertices() + i] = vector(f, s, i);
  }

 private:
  Arrays arrays_;
  std::vector<std::vector<unsigned char>> storage_;  // one allocation per array
};

// One strand's step on the host on `Lanes` lanes: its rows on one lane (Batch::step), or, for a
// batch whose strands step on a group of lanes on the device (kernels::kCudaLanesOf), on that
// many lanes run as a loop: the device's cooperative algorithms, on the host (the tests'
// HostSimulator<Engine, 32>; slower than one lane a strand on a CPU, so the cpu backend uses 1).
template <class Batch, int Lanes>
struct HostStrandStep {
  static void run(const typename Batch::Arrays& tile, int lane, const typename Batch::Parameters& p,
                  long (&counts)[Batch::kCounters]) {
    if constexpr (Lanes == 1)
      Batch::step(tile, lane, p, counts);
    else
      Batch::step_on(kernels::LoopLanes<Lanes>{}, tile, lane, p, counts);
  }
};

// One step of every strand on the host: threads take whole tiles (a tile's strands share cache
// lines), dynamically, since a strand's work varies with its iterations. `threads` threads at
// most (engine/threads.hpp), never more than tiles; with `work_seconds`, the step's work (the
// threads' CPU seconds in the loop, summed) is written there. The counters are added into
// `totals` (integers: the sum does not depend on the order). Returns the lowest strand whose
// solve failed (its Batch::kFailureCounter grew), -1 when none did.
template <class Batch, class Step = HostStrandStep<Batch, 1>>
int step_on_host(const typename Batch::Arrays& a, const typename Batch::Parameters& p,
                 long (&totals)[Batch::kCounters], int threads = omp_get_max_threads(),
                 double* work_seconds = nullptr) {
  const int tiles = a.tile_count();
  int first_failed = a.strands;
  double work = 0;
#pragma omp parallel num_threads(std::clamp(threads, 1, std::max(1, tiles)))
  {
    long local[Batch::kCounters] = {};
    int failed = a.strands;
    const double start = work_seconds ? thread_cpu_seconds() : 0;
#pragma omp for schedule(dynamic) nowait
    for (int t = 0; t < tiles; ++t) {
      const typename Batch::Arrays tile = Batch::tile(a, t);
      const int lanes = std::min(a.tile_width, a.strands - t * a.tile_width);
      for (int lane = 0; lane < lanes; ++lane) {
        const long failures = local[Batch::kFailureCounter];
        Step::run(tile, lane, p, local);
        if (local[Batch::kFailureCounter] != failures)
          failed = std::min(failed, t * a.tile_width + lane);
      }
    }
    const double worked = work_seconds ? thread_cpu_seconds() - start : 0;
#pragma omp critical(hairsim_step_counters)
    {
      for (int k = 0; k < Batch::kCounters; ++k) totals[k] += local[k];
      first_failed = std::min(first_failed, failed);
      work += worked;
    }
  }
  if (work_seconds) *work_seconds = work;
  return first_failed < a.strands ? first_failed : -1;
}

// A step on the host with its team sized by the work `team` measured in earlier steps.
template <class Batch, class Step = HostStrandStep<Batch, 1>>
int step_on_host(const typename Batch::Arrays& a, const typename Batch::Parameters& p,
                 long (&totals)[Batch::kCounters], HostTeam& team) {
  double work = 0;
  const int failed = step_on_host<Batch, Step>(a, p, totals, team.threads(a.tile_count()),
                                               team.measuring() ? &work : nullptr);
  team.stepped(work);
  return failed;
}

}  // namespace hairsim::engine
