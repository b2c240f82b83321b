#pragma once
// The Cosserat parity case (issue 7), shared by tests/parity/ (cpu kernels) and tests/gpu/ (cuda):
// 16 curly hairs clamped to a head that turns and shakes, under gravity, damping, air drag and a
// gusty wind, 200 steps of 1 ms.
#include <cmath>
#include <numbers>
#include <random>
#include <vector>

#include "common/wind.hpp"
#include "cosserat/cosserat_strand.hpp"
#include "models/cosserat/cosserat_engine.hpp"
#include "reference/cosserat/cosserat_dynamics.hpp"
#include "reference/eigen_bridge.hpp"

namespace hairsim::cosserat_case {

using cosserat::Vec3;

constexpr int kStrands = 16, kVertices = 32, kSteps = 200;
constexpr double kDt = 1e-3;

// Hair: r = 40 µm, E = 3 GPa, G = E / 2.6, ρ = 1300 kg/m³.
struct Hair {
  double r = 40e-6, youngs = 3e9, shear = 3e9 / 2.6, density = 1300;
  Vec3 stiffness() const {
    const double i = std::numbers::pi * std::pow(r, 4) / 4;
    return {youngs * i, youngs * i, 2 * shear * i};
  }
  Vec3 inertia() const {
    const double i = std::numbers::pi * std::pow(r, 4) / 4;
    return {density * i, density * i, 2 * density * i};
  }
  double linear_density() const { return density * std::numbers::pi * r * r; }
};

// The head's motion: turning and nodding about its centre, shaking sideways.
// Damping, air drag (Stokes drag of a hair, resistive-force anisotropy) and a gusty wind (4
// modes, 0.3 m/s RMS at 2 Hz over 0.2 m).
constexpr double kDamping = 0.5, kDragNormal = 1e-4, kDragTangent = 5e-5;
inline kernels::WindField<double> wind() {
  return kernels::make_gusts({0.5, 0, 0.2}, 0.3, 2, 0.2, 4, 11);
}

inline ClampMotion head_motion() {
  ClampMotion m;
  m.rotation_amplitude = Vec3(0.3, 0.5, 0.2);
  m.translation_amplitude = Vec3(0.02, 0.01, 0);
  m.frequency = 2;
  m.center = Vec3(0, 0, 0);
  return m;
}

// 16 curls of random radius, pitch and phase, rooted on a 10 cm sphere, hanging down.
inline std::vector<cosserat::CosseratRod> reference_rods(
    cosserat::BendingStrain measure = cosserat::BendingStrain::tangent) {
  std::mt19937 rng(42);
  std::uniform_real_distribution<double> u(0, 1);
  const Hair hair;
  std::vector<cosserat::CosseratRod> rods;
  for (int s = 0; s < kStrands; ++s) {
    const double phi = 2 * std::numbers::pi * s / kStrands, radius = 0.003 + 0.004 * u(rng);
    const double per_vertex = 0.15 + 0.2 * u(rng), phase = 2 * std::numbers::pi * u(rng);
    const Vec3 root(0.1 * std::cos(phi), 0.05, 0.1 * std::sin(phi));
    std::vector<Vec3> x;
    for (int i = 0; i < kVertices; ++i) {
      const double a = phase + per_vertex * i;
      x.push_back(root + Vec3(radius * (std::cos(a) - std::cos(phase)), -0.0015 * i,
                              radius * (std::sin(a) - std::sin(phase))));
    }
    cosserat::CosseratRod rod = cosserat::rod_at_rest(x, hair.stiffness(), hair.inertia(),
                                                      hair.linear_density(), Vec3::Zero(), measure);
    cosserat::clamp_root(rod, head_motion());
    rod.gravity = Vec3(0, -9.81, 0);
    rod.damping = kDamping;
    rod.drag_normal = kDragNormal;
    rod.drag_tangent = kDragTangent;
    rod.wind = wind();
    rods.push_back(rod);
  }
  return rods;
}

// The head pose the kernels take at time t.
template <class T>
kernels::RigidPose<T> pose_at(double t) {
  return bridge::rigid_pose<T>(head_motion(), t);
}

// The kernels' loads for the step from time t (the head at t + Δt).
template <class T>
kernels::cosserat::Loads<T> loads_at(double t) {
  kernels::cosserat::Loads<T> l;
  l.gravity[1] = T(-9.81);
  l.damping = T(kDamping);
  l.drag_normal = T(kDragNormal);
  l.drag_tangent = T(kDragTangent);
  l.wind = kernels::convert<T>(wind());
  l.time = T(t);
  l.head = pose_at<T>(t + kDt);
  l.head_start = pose_at<T>(t);
  return l;
}

// Hair-scale tolerances, as a scene's defaults give them (docs/scenes.md): Newton at 4e-4 of
// the strand's weight (6.5e-6 kg/m x 4.6 cm x 9.81 m/s² = 2.9e-6 N), PCG at 1e-2 of that.
inline cosserat::SolverSettings hair_settings() {
  cosserat::SolverSettings s;
  s.newton_tolerance = 1.2e-9;
  s.pcg.tolerance = 1.2e-11;
  s.chain_curvature = true;  // the engine's default (models::CosseratSettings)
  return s;
}

// The kernels' settings matching the reference's: the engine's own translation.
using models::kernel_settings;

}  // namespace hairsim::cosserat_case
