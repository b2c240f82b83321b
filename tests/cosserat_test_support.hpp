#pragma once
// Shared fixtures of the Cosserat tests: curly polylines and random states around them.
#include <cmath>
#include <random>
#include <vector>

#include "reference/cosserat/cosserat_rod.hpp"

namespace hairsim::cosserat::testing {

// A curl with `vertices` vertices: helix radius 2 cm, 3 cm per turn, 1 cm segments, plus a
// small wobble so that no two segments repeat.
inline std::vector<Vec3> curly_polyline(int vertices) {
  std::vector<Vec3> x;
  for (int i = 0; i < vertices; ++i) {
    const double a = 0.5 * i + 0.05 * std::sin(1.7 * i);
    x.emplace_back(0.02 * std::cos(a), -0.0048 * i, 0.02 * std::sin(a));
  }
  return x;
}

// A rest shape of the polyline with stiffness EI = GJ = `stiffness`, hair-like density, and a
// configuration s away from it: every rotation vector moved at random by up to `spread` rad.
struct RandomRod {
  RestShape rest;
  VecX s;
  StepStart start;
};
inline RandomRod random_rod(int vertices, double stiffness, double spread, unsigned seed,
                            double dt = 1e-3, BendingStrain measure = BendingStrain::tangent) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  const std::vector<Vec3> x = curly_polyline(vertices);
  RandomRod r;
  const VecX rest_s = configuration_from_polyline(x, Vec3::UnitX());
  const double linear_density = 6.5e-6, rho_i = 2.6e-15;  // hair: ρA, ρI (kg/m, kg m)
  r.rest = rest_shape(x, rest_s, Vec3(stiffness, stiffness, 0.8 * stiffness),
                      Vec3(rho_i, rho_i, 2 * rho_i), linear_density, measure);
  r.s = rest_s;
  for (int k = 0; k < r.s.size(); ++k) r.s(k) += spread * u(rng);
  // The last step: positions and frames near this one, random velocities.
  const Kinematics k = kinematics(rest_s, r.rest);
  r.start.dt = dt;
  r.start.gravity = Vec3(0, -9.81, 0);
  for (const Vec3& p : k.x) r.start.predicted.push_back(p + 0.01 * Vec3(u(rng), u(rng), u(rng)));
  for (const Vec4& q : k.q) r.start.q.push_back(q);
  for (std::size_t i = 0; i < k.q.size(); ++i)
    r.start.rotation_dt.push_back(0.05 * Vec3(u(rng), u(rng), u(rng)));
  // Damping and air drag: a random symmetric positive semi-definite C_j per vertex (an
  // anisotropic drag of hair-like size, 1e-4 N s/m² x 1 cm), a random wind.
  for (const Vec3& p : k.x) {
    const Vec3 t = Vec3(u(rng), u(rng), u(rng)).normalized();
    r.start.start.push_back(p);
    r.start.resistance.push_back(1e-6 * (Mat3::Identity() - 0.5 * t * t.transpose()));
    r.start.air_force.push_back(1e-6 * Vec3(u(rng), u(rng), u(rng)));
  }
  return r;
}

}  // namespace hairsim::cosserat::testing
