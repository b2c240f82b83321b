#pragma once
// Model "super_clothoid" (Super Space Clothoids, Casati & Bertails-Descoubes 2013) in the model
// table: its single-rod scenes on the reference (src/reference/super_clothoid/), hairstyles on
// the reference (a rod per strand, src/models/super_clothoid/super_clothoid_rods.hpp) and on the
// batched kernels of the cpu and cuda backends (kernels/super_clothoid/).
#include "engine/model.hpp"

namespace hairsim::models {

engine::Model super_clothoid_model();

}  // namespace hairsim::models
