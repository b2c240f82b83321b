#pragma once
// The material of a round rod as scenes give it (a hairstyle's `material`, a single rod's).
#include "hairsim/material.hpp"
#include "scene/json_reader.hpp"

namespace hairsim::scene {

// radius, youngs_modulus, shear_modulus and density from `m` (defaults: human hair), each within
// a physical range that keeps every stiffness and density they give (EI, GJ, EA, ρπr²) a normal
// number in float as well as double, about 1e-28 to 1e14 in SI units: radius 1e-7 .. 1 m, moduli
// 1 .. 1e13 Pa (gels to diamond's 1.1e12), density 1e-3 .. 1e5 kg/m³ (osmium: 2.3e4). A value
// outside names its field and the range: without ranges 1e300 Pa passed as "positive" and the
// run failed at its first step. Does not finish() `m`: the caller reads its own fields too.
RodMaterial read_round_rod_material(JsonReader& m);

constexpr double kMinRodRadius = 1e-7, kMaxRodRadius = 1;  // m, the range above

}  // namespace hairsim::scene
