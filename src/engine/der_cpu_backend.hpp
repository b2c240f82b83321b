#pragma once
// The cpu backend of the batched DER engine: the per-strand kernels of kernels/der/ run over all
// strands on all host cores (OpenMP), the same functions the cuda backend launches per thread.
#include "der/der_strand.hpp"

namespace hairsim::engine {

// One step of every strand with the integrator p.integrator. One thread per tile (the tiles'
// strands in turn): a thread's strands share cache lines. Returns the counts summed over the
// strands.
template <class T>
kernels::der::StepCounts der_step_cpu(const kernels::der::DerBatchArrays<T>& a,
                                      const kernels::der::DerStepParameters<T>& p) {
  long projection = 0, twist = 0, contacts = 0, failures = 0;
#pragma omp parallel for schedule(static) reduction(+ : projection, twist, contacts, failures)
  for (int t = 0; t < a.tile_count(); ++t) {
    const kernels::der::DerBatchArrays<T> tile = kernels::der::tile_view(a, t);
    for (int lane = 0; lane < tile.strands; ++lane) {
      const kernels::der::StepCounts c = kernels::der::step(kernels::der::Strand<T>{tile, lane}, p);
      projection += c.projection_iterations;
      twist += c.twist_iterations;
      contacts += c.contacts;
      failures += c.solver_failures;
    }
  }
  return {projection, twist, contacts, failures};
}

}  // namespace hairsim::engine
