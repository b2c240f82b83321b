// DER reference, rigid bodies welded to a rod end (paper §8; issue 3 validation case 8).
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <numbers>

#include "reference/der/der_rigid.hpp"

namespace hairsim::der {
namespace {

// Upward zero crossings of a sampled signal, linearly interpolated; period = mean spacing.
struct CrossingCounter {
  double previous = 0, time = 0;
  std::vector<double> crossings;
  void add(double value, double dt) {
    if (previous < 0 && value >= 0) crossings.push_back(time - dt * value / (value - previous));
    previous = value;
    time += dt;
  }
  double period() const {
    return (crossings.back() - crossings.front()) / double(crossings.size() - 1);
  }
};

TEST(DerRigid, TorsionalPendulumFrequency) {
  // A straight wire (β = GJ) hanging along -y, clamped at the top, a disc of axial inertia I
  // welded to its lowest edge, no gravity. The material frame is quasistatic (no rotational
  // inertia of the wire), so the disc oscillates at ω = sqrt(β / (L_eff I)), with L_eff the
  // distance between the clamped and the welded edges' midpoints (Σ l̄_i = 2 L_eff).
  const int edges = 20;
  const double h = 0.01, beta = 2e-3, alpha = 3e-3, inertia = 1e-3;
  std::vector<Vec3> x;
  for (int i = 0; i <= edges; ++i) x.emplace_back(0, -h * i, 0);
  DynamicRod rod = rod_at_rest(x, alpha, beta, 1e-3);
  clamp_end(rod, false);
  RigidBody disc;
  disc.mass = 0.1;
  disc.inertia = Eigen::DiagonalMatrix<double, 3>(inertia, inertia, inertia);
  disc.position = 0.5 * (x[edges - 1] + x[edges]);
  disc.angular_velocity = Vec3(0, 0.05, 0);  // small twist about the wire
  RodWithBody s = weld_to_tip(rod, disc);
  const double energy0 = total_energy(s);

  const double l_eff = h * (edges - 1);
  const double expected = std::sqrt(beta / (l_eff * inertia));
  const double dt = 2e-3 * (2 * std::numbers::pi / expected) / 10;
  CrossingCounter counter;
  double worst_energy = 0;
  while (counter.crossings.size() < 6) {
    step_with_body(s, dt, 1e-13);
    counter.add(s.body.angular_velocity.y(), dt);
    worst_energy = std::max(worst_energy, std::abs(total_energy(s) - energy0));
    ASSERT_LT(counter.time, 100.0);
  }
  const double omega = 2 * std::numbers::pi / counter.period();
  std::cout << "torsional pendulum: ω = " << omega << " (theory " << expected << ")\n";
  EXPECT_NEAR(omega / expected, 1.0, 1e-3);
  EXPECT_LT(worst_energy, 1e-3 * energy0);  // symplectic: bounded energy error
  // The weld holds: the body's anchors sit on the rod's last two vertices.
  for (int k = 0; k < 2; ++k) {
    const Vec3 anchor = s.body.position + s.body.orientation * s.anchor[k];
    EXPECT_LT((anchor - s.rod.state.x[edges - 1 + k]).norm(), 1e-12);
  }
}

TEST(DerRigid, HeavyBobOnSoftRodSwingsAsPendulum) {
  // A 1 kg bob (nearly a point: I = 1e-6 kg m²) welded to the end of a light, very soft rod
  // (EI = 1e-6 N m², 1 g) hanging from a clamp under g = 9.81, pushed sideways at 1 cm/s. The rod
  // acts as a string (bending boundary layer sqrt(EI/(Mg)) = 3e-4 m), so the system is a simple
  // pendulum about vertex 1, the last clamped vertex: ω = sqrt(g / L) (small amplitude: 3e-3 rad,
  // period correction ~1e-6; rod mass 1e-3 of the bob). Every step the projection must restore the
  // weld and the edge lengths, which the unconstrained step breaks.
  const int edges = 20;
  const double h = 0.05, g = 9.81;
  std::vector<Vec3> x;
  for (int i = 0; i <= edges; ++i) x.emplace_back(0, -h * i, 0);
  DynamicRod rod = rod_at_rest(x, 1e-6, 1e-6, 1e-3);
  rod.gravity = Vec3(0, -g, 0);
  clamp_end(rod, false);
  RigidBody bob;
  bob.mass = 1;
  bob.inertia = 1e-6 * Mat3::Identity();
  bob.position = x[edges];  // centre of mass on the last vertex
  bob.velocity = Vec3(0.01, 0, 0);
  RodWithBody s = weld_to_tip(rod, bob);
  const double length = h * (edges - 1);  // from vertex 1 to the bob
  const double expected = std::sqrt(g / length);

  CrossingCounter counter;
  double worst_weld = 0, worst_length = 0;
  const double dt = 1e-4;
  while (counter.crossings.size() < 4) {
    worst_length = std::max(worst_length, step_with_body(s, dt, 1e-13).max_length_error);
    counter.add(s.body.velocity.x(), dt);
    for (int k = 0; k < 2; ++k)
      worst_weld = std::max(worst_weld, (s.body.position + s.body.orientation * s.anchor[k] -
                                         s.rod.state.x[edges - 1 + k])
                                            .norm());
    ASSERT_LT(counter.time, 30.0);
  }
  const double omega = 2 * std::numbers::pi / counter.period();
  std::cout << "pendulum: ω = " << omega << " (theory " << expected << "), weld " << worst_weld
            << " m, lengths " << worst_length << " m\n";
  EXPECT_NEAR(omega / expected, 1.0, 2e-3);
  EXPECT_LT(worst_weld, 1e-12);
  EXPECT_LT(worst_length, 1e-12);
}

}  // namespace
}  // namespace hairsim::der
