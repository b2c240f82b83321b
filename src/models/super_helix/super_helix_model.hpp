#pragma once
// Model "super_helix" (Linear-time Super-Helices, Bertails 2009) in the model table: its
// single-rod scenes on the reference (src/reference/super_helix/); hairstyles on the reference (a
// rod per strand) and on the batched kernels (kernels/super_helix/) on cpu and cuda.
#include "engine/model.hpp"

namespace hairsim::models {

engine::Model super_helix_model();

}  // namespace hairsim::models
