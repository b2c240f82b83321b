#pragma once
// The cpu backend of the batched DER engine: the per-strand kernels of kernels/der/ run over all
// strands on all host cores (OpenMP), the same functions the cuda backend launches per thread.
#include "der/der_strand.hpp"

namespace hairsim::engine {

template <class T>
void der_symplectic_step_cpu(const kernels::der::DerBatchArrays<T>& a,
                             const kernels::der::DerStepParameters<T>& p) {
#pragma omp parallel for schedule(static)
  for (int s = 0; s < a.strands; ++s)
    kernels::der::symplectic_step(kernels::der::Strand<T>{a, s}, p);
}

}  // namespace hairsim::engine
