#pragma once
// How many threads a parallel region on the host gets (docs/architecture.md, "Threads on the
// host"). A team's start and its closing barrier cost microseconds on an idle machine, but on a
// busy one (a user's workstation) a thread of the team can sit descheduled behind another
// process for a scheduler time slice (milliseconds) while the others wait for it at the barrier:
// a step of 100 strands (~0.1 ms of work) took 5x longer in two threads than in one on a 2-core
// machine with one other busy process (bench/RESULTS.md, 2026-11-28). So a region gets one
// thread per kSecondsPerThread of its work, and a loop too small for that runs in the calling
// thread (num_threads(1): no team is started, nothing waits).
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <ctime>

namespace hairsim::engine {

// One core's work (s) that a region needs per thread (by measurement, bench/RESULTS.md
// 2026-11-28: on the busy 2-core machine two threads beat one from ~2 ms of work per step).
inline constexpr double kSecondsPerThread = 1e-3;

// Threads for a region of `work_seconds` of one core's work over `items` independent items
// (tiles, strands), at most `max_threads`: one per kSecondsPerThread, at least 1, at most one
// per item. An unknown work (0, NaN) gets one thread.
inline int team_size(double work_seconds, long items, int max_threads) {
  const double by_work = work_seconds > 0 ? std::floor(work_seconds / kSecondsPerThread) : 1;
  const double most = double(std::max(1l, std::min(items, long(std::max(1, max_threads)))));
  return int(std::clamp(by_work, 1.0, most));
}

// Loops of cheap items (copies, a point's splat, a gather): fewer than this many run in one
// thread (measured 2026-11-25 on a loaded 2-core machine: a 300-strand groom's interaction stage
// took 2.8 ms per step in one thread and 22 ms in two, its ~8 regions waiting on descheduled
// threads).
inline constexpr long kParallelItems = 1l << 15;

// Threads for a loop of `items` cheap items: one per kParallelItems, at most the OpenMP maximum.
inline int items_team_size(long items, long items_per_thread = kParallelItems) {
  const long per = std::max(1l, items_per_thread);
  return int(std::clamp(items / per, 1l, long(std::max(1, omp_get_max_threads()))));
}

// The OpenMP wait policy hairsim runs with unless the user chose one: passive, a thread that
// waits (at a barrier, for the next region) sleeps at once instead of spinning. Measured on the
// busy 2-core machine (bench/RESULTS.md 2026-11-28): libgomp's default spin kept a waiting
// thread on its core while the thread it waited for queued behind the other process, so bangs'
// 2-thread run took 2x the 1-thread time; passive, 2 threads beat 1. A sleeping thread's
// wake-up (tens of us) is small beside a region of >= kSecondsPerThread per thread. Sets
// OMP_WAIT_POLICY=passive when neither it nor GOMP_SPINCOUNT is set; true when it did. libgomp
// reads the environment once, when it is loaded (before main, before static constructors; an
// .preinit_array function runs before libc's start resets the environment, so it cannot either):
// the CLI then runs itself again (src/cli/main.cpp), Python sets it before importing the
// extension (python/hairsim/__init__.py).
inline bool default_wait_policy() {
  if (std::getenv("OMP_WAIT_POLICY") || std::getenv("GOMP_SPINCOUNT")) return false;
  return setenv("OMP_WAIT_POLICY", "passive", 0) == 0;
}

// The calling thread's CPU time (s): what it worked, without the time it waited descheduled
// (the wall clock counts that too, and on a busy machine it would read as more work).
inline double thread_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return double(t.tv_sec) + 1e-9 * double(t.tv_nsec);
}

// The host executor's team across steps: the work of a step (CPU seconds summed over the
// threads) measured every kMeasureEvery steps, the next steps' team sized by it. A strand's
// step does not depend on which thread takes it, so neither do the results.
class HostTeam {
 public:
  static constexpr long kMeasureEvery = 16;  // two clock reads per thread: ~1 us a step

  // The threads of the next step over `tiles` tiles (one until a step was measured).
  int threads(long tiles) const { return team_size(work_, tiles, omp_get_max_threads()); }
  // Whether the next step is measured.
  bool measuring() const { return steps_ % kMeasureEvery == 0; }
  // A step's end: `work_seconds` its measured work when it was measured.
  void stepped(double work_seconds) {
    if (measuring())  // smoothed: a step's contacts and iterations vary
      work_ = work_ > 0 ? 0.75 * work_ + 0.25 * work_seconds : work_seconds;
    ++steps_;
  }
  double work_seconds() const { return work_; }

 private:
  double work_ = 0;
  long steps_ = 0;
};

}  // namespace hairsim::engine
