#pragma once
// Model "der" (Discrete Elastic Rods, Bergou et al. 2008) in the model table: its settings, its
// simulators (the reference's DynamicRod per strand; the batched kernels of kernels/der/ on cpu
// and cuda), its single-rod scenes and what it reports.
#include "engine/model.hpp"

namespace hairsim::models {

// The DER step's own settings (a hairstyle scene's "solver" object).
struct DerSettings : engine::ModelSettings {
  // Fast projection tolerance on edge lengths, relative to the shortest rest edge (symplectic);
  // <= 0: the precision's default (1e-12 in double; 3e-5 in float, a few ulps of head-scale
  // coordinates, below which the projection iterates on round-off).
  double relative_length_tolerance = 0;
  // Twist solve tolerance on |∂E/∂θ| relative to EI / h (h the shortest rest edge); <= 0: the
  // precision's default (1e-8 in double, 1e-4 in float).
  double relative_twist_tolerance = 0;
};

engine::Model der_model();

}  // namespace hairsim::models
