#pragma once
// DER's own launcher beside the generic step (cuda/batched_step.hpp): frames and elastic forces
// of every strand, a strand per warp as the step (the gpu tests compare them with the host
// kernels).
#include "der/der_strand.hpp"

namespace hairsim::cuda {

template <class T>
void der_elastic_forces(const kernels::der::DerBatchArrays<T>& device_arrays);

}  // namespace hairsim::cuda
