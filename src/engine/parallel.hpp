#pragma once
// A loop over strands on all cores that lets an exception out: one may not leave an OpenMP
// region (the process aborts: `terminate called after throwing ...`), so every index's
// exception is caught inside and the lowest index's is rethrown after the loop. The lowest, not
// the first in time: the error a run reports does not depend on the threads' timing. Indices
// above one that threw are skipped (they cannot change which error comes out), so a loop of
// long items (the reduced models' fits, a second each) fails soon after its first failure.
#include <atomic>
#include <climits>
#include <exception>

namespace hairsim::engine {

// Static: items of equal cost (one strand's step); dynamic: items of unequal cost, handed out
// one at a time (fits).
enum class Schedule { static_chunks, dynamic };

template <class F>
void parallel_for(int count, F&& f, Schedule schedule = Schedule::static_chunks) {
  std::exception_ptr error;
  std::atomic<int> failed{INT_MAX};  // the lowest index that threw so far
  auto run = [&](int i) {
    if (i > failed.load(std::memory_order_relaxed)) return;
    try {
      f(i);
    } catch (...) {
#pragma omp critical(hairsim_parallel_for_error)
      if (i < failed.load(std::memory_order_relaxed)) {
        failed.store(i, std::memory_order_relaxed);
        error = std::current_exception();
      }
    }
  };
  if (schedule == Schedule::dynamic) {
#pragma omp parallel for schedule(dynamic)
    for (int i = 0; i < count; ++i) run(i);
  } else {
#pragma omp parallel for schedule(static)
    for (int i = 0; i < count; ++i) run(i);
  }
  if (error) std::rethrow_exception(error);
}

}  // namespace hairsim::engine
