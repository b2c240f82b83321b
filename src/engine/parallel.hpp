#pragma once
// A loop over strands on all cores that lets an exception out: one may not leave an OpenMP
// region (the process aborts), so the first one thrown is kept and rethrown after the loop.
#include <exception>

namespace hairsim::engine {

template <class F>
void parallel_for(int count, F&& f) {
  std::exception_ptr error;
#pragma omp parallel for schedule(static)
  for (int i = 0; i < count; ++i) {
    try {
      f(i);
    } catch (...) {
#pragma omp critical(hairsim_parallel_for_error)
      if (!error) error = std::current_exception();
    }
  }
  if (error) std::rethrow_exception(error);
}

}  // namespace hairsim::engine
