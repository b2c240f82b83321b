// The cuda backend's Cosserat launcher: the generic one-thread-per-strand step
// (kernels/cuda/batched_step.cuh) for the Cosserat batch. The math is cosserat_strand.hpp.
#include "cosserat/cosserat_batch.hpp"
#include "cuda/batched_step.cuh"

HAIRSIM_INSTANTIATE_CUDA_STEP(hairsim::kernels::cosserat::CosseratBatch);
