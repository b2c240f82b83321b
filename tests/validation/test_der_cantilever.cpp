// DER reference, issue 3 validation: small-amplitude cantilever vibration (case 6) and
// inextensibility after fast projection (case 7).
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>

#include "reference/der/der_dynamics.hpp"

namespace hairsim::der {
namespace {

// Horizontal cantilever along +x, clamped by its first edge (vertices 0 and 1 fixed, material
// frame of edge 0 fixed). Convention (issue 3): the length L is measured from the midpoint of
// the clamped edge, so with `edges` edges of length h, L = (edges - 1/2) h.
DynamicRod cantilever(int edges, double length, double bending_stiffness, double linear_density) {
  const double h = length / (edges - 0.5);
  std::vector<Vec3> x;
  for (int i = 0; i <= edges; ++i) x.emplace_back((i - 0.5) * h, 0, 0);
  DynamicRod rod;
  rod.rest = rest_shape_from_polyline(
      x, Vec3::UnitZ(), std::vector<Mat2>(edges, bending_stiffness * Mat2::Identity()),
      bending_stiffness);
  rod.state = {x, std::vector<double>(edges, 0.0), Vec3::UnitZ()};
  rod.velocity.assign(x.size(), Vec3::Zero());
  rod.mass = lumped_masses(rod.rest, linear_density);
  rod.fixed.assign(x.size(), false);
  rod.fixed[0] = rod.fixed[1] = true;
  rod.twist = {true, false};
  return rod;
}

// First clamped-free mode of an Euler-Bernoulli beam: β1 L = 1.875104 (Timoshenko & Young,
// "Vibration problems in engineering"), w(s) = cosh βs - cos βs - σ (sinh βs - sin βs).
double first_mode(double s, double length) {
  const double b = 1.8751040687 / length, bl = b * length;
  const double sigma = (std::sinh(bl) - std::sin(bl)) / (std::cosh(bl) + std::cos(bl));
  return std::cosh(b * s) - std::cos(b * s) - sigma * (std::sinh(b * s) - std::sin(b * s));
}

TEST(DerCantilever, FirstBendingFrequency) {
  // Issue 3, case 6: ω1 = 3.5160 sqrt(EI / (ρS L⁴)) (same reference) within 0.5 %.
  // Units chosen so that L = EI = ρS = 1: ω1 = 3.5160, period 1.787.
  const double length = 1, stiffness = 1, density = 1;
  DynamicRod rod = cantilever(40, length, stiffness, density);
  const double amplitude = 1e-4 * length;  // small: linear theory
  for (std::size_t i = 2; i < rod.state.x.size(); ++i)
    rod.state.x[i].y() =
        amplitude * first_mode(rod.state.x[i].x(), length) / first_mode(length, length);
  project_inextensible(rod.state.x, rod.rest, rod.mass, rod.fixed, 1e-14);

  const double dt = 1e-4;
  std::vector<double> upward_crossings;
  double previous_tip = rod.state.x.back().y(), worst_length_error = 0;
  for (int step = 0; step < 150000 && upward_crossings.size() < 7; ++step) {
    const ProjectionReport p = step_symplectic(rod, dt, 1e-12 * length);
    worst_length_error = std::max(worst_length_error, p.max_length_error);
    const double tip = rod.state.x.back().y();
    if (previous_tip < 0 && tip >= 0)  // linear interpolation of the crossing time
      upward_crossings.push_back(dt * (step + previous_tip / (previous_tip - tip)));
    previous_tip = tip;
  }
  ASSERT_GE(upward_crossings.size(), 7u);
  const double period = (upward_crossings.back() - upward_crossings.front()) / 6;
  const double omega = 2 * M_PI / period;
  std::cout << "omega1 = " << omega << " (theory 3.5160), max length error " << worst_length_error
            << " m\n";
  EXPECT_NEAR(omega / (3.5160 * std::sqrt(stiffness / (density * std::pow(length, 4)))), 1.0, 0.005)
      << "omega = " << omega;
  // Case 7: inextensibility after projection within 1e-10 L at every step.
  EXPECT_LE(worst_length_error, 1e-10 * length);
}

}  // namespace
}  // namespace hairsim::der
