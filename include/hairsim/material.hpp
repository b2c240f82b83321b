#pragma once
// Material of a round elastic fibre (SI units) and the rod stiffnesses it gives.
#include <numbers>

namespace hairsim {

struct RodMaterial {
  double radius = 40e-6;             // m (human hair: 20-60 µm)
  double youngs_modulus = 3e9;       // Pa
  double shear_modulus = 3e9 / 2.6;  // Pa (Poisson ratio 0.3)
  double density = 1300;             // kg/m³

  double area() const { return std::numbers::pi * radius * radius; }
  // EI with I = πr⁴/4 (N m²), GJ with J = πr⁴/2 (N m²), ρπr² (kg/m), EA (N).
  double bending_stiffness() const { return youngs_modulus * area() * radius * radius / 4; }
  double twist_stiffness() const { return shear_modulus * area() * radius * radius / 2; }
  double linear_density() const { return density * area(); }
  double stretching_stiffness() const { return youngs_modulus * area(); }
};

}  // namespace hairsim
