// The cuda backend's Super Space Clothoid launcher: the generic one-thread-per-strand step
// (kernels/cuda/batched_step.cuh) for the clothoid batch. The math is clothoid_strand.hpp.
#include "cuda/batched_step.cuh"
#include "super_clothoid/clothoid_batch.hpp"

HAIRSIM_INSTANTIATE_CUDA_STEP(hairsim::kernels::super_clothoid::ClothoidBatch);
