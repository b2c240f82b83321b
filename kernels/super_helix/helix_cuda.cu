// The cuda backend's Super-Helix launcher: the generic one-thread-per-strand step
// (kernels/cuda/batched_step.cuh) for the Super-Helix batch. The math is helix_strand.hpp.
#include "cuda/batched_step.cuh"
#include "super_helix/helix_batch.hpp"

HAIRSIM_INSTANTIATE_CUDA_STEP(hairsim::kernels::super_helix::HelixBatch);
