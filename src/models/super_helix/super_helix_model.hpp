#pragma once
// Model "super_helix" (Linear-time Super-Helices, Bertails 2009) in the model table: its
// single-rod scenes on the reference (src/reference/super_helix/). Hairstyles (a simulator per
// strand on the reference, the batched kernels on cpu and cuda) are issue 19's.
#include "engine/model.hpp"

namespace hairsim::models {

engine::Model super_helix_model();

}  // namespace hairsim::models
