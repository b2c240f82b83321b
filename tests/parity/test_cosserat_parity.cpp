// Cosserat on the batched engine (issue 7): the per-strand kernel (kernels/cosserat/), run on
// the host, against the reference (src/reference/cosserat/) on 16 curly hairs clamped to a head
// that turns and shakes, under gravity, 200 steps of 1 ms.
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <numbers>
#include <random>

#include "engine/cosserat_host_batch.hpp"

namespace hairsim {
namespace {

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
ClampMotion head_motion() {
  ClampMotion m;
  m.rotation_amplitude = Vec3(0.3, 0.5, 0.2);
  m.translation_amplitude = Vec3(0.02, 0.01, 0);
  m.frequency = 2;
  m.center = Vec3(0, 0, 0);
  return m;
}

// 16 curls of random radius, pitch and phase, rooted on a 10 cm sphere, hanging down.
std::vector<cosserat::CosseratRod> reference_rods() {
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
    cosserat::CosseratRod rod =
        cosserat::rod_at_rest(x, hair.stiffness(), hair.inertia(), hair.linear_density());
    cosserat::clamp_root(rod, head_motion());
    rod.gravity = Vec3(0, -9.81, 0);
    rods.push_back(rod);
  }
  return rods;
}

// The head pose the kernels take at time t: x -> R(t) x + c + T(t) - R(t) c.
template <class T>
kernels::cosserat::Pose<T> pose_at(double t) {
  const ClampMotion m = head_motion();
  const Eigen::Matrix3d r = m.rotation(t);
  const Vec3 translation = *m.center + m.translation(t) - r * *m.center;
  kernels::cosserat::Pose<T> pose;
  for (int k = 0; k < 9; ++k) pose.rotation[k] = T(r(k / 3, k % 3));
  for (int k = 0; k < 3; ++k) pose.translation[k] = T(translation(k));
  return pose;
}

struct ParityResult {
  double worst_over_length = 0;
  long reference_pcg = 0, kernel_pcg = 0, reference_newton = 0, kernel_newton = 0;
  int failures = 0;
};

template <class T>
ParityResult run_parity(cosserat::SolverSettings settings) {
  std::vector<cosserat::CosseratRod> rods = reference_rods();
  engine::CosseratHostBatch<T> batch(kStrands, kVertices, 8);  // 2 tiles
  for (int s = 0; s < kStrands; ++s) batch.load(s, rods[s]);
  kernels::cosserat::StepSettings ks;
  ks.preconditioner = static_cast<kernels::cosserat::Preconditioner>(
      settings.preconditioner == cosserat::PreconditionerKind::hybrid ? 2 : 1);
  ks.newton_tolerance = settings.newton_tolerance;
  ks.newton_max_iterations = settings.newton_max_iterations;
  ks.pcg = {settings.pcg.tolerance, settings.pcg.relative_tolerance, settings.pcg.max_iterations};
  ParityResult result;
  for (int step = 1; step <= kSteps; ++step) {
    for (cosserat::CosseratRod& rod : rods) {
      const cosserat::StepReport r = cosserat::step(rod, kDt, settings);
      result.reference_pcg += r.pcg_iterations;
      result.reference_newton += r.newton_iterations;
    }
    const kernels::cosserat::StepCounts c =
        batch.step(T(kDt), Vec3(0, -9.81, 0), pose_at<T>(step * kDt), ks);
    result.kernel_pcg += c.pcg_iterations;
    result.kernel_newton += c.newton;
    result.failures += c.failures;
  }
  for (int s = 0; s < kStrands; ++s) {
    const std::vector<Vec3> ref = cosserat::vertices(rods[s]), ker = batch.positions(s);
    double length = 0;
    for (int i = 1; i < kVertices; ++i) length += rods[s].rest.length[i - 1];
    for (int i = 0; i < kVertices; ++i)
      result.worst_over_length =
          std::max(result.worst_over_length, (ref[i] - ker[i]).norm() / length);
  }
  return result;
}

// Hair-scale tolerances, as a scene's defaults give them (docs/scenes.md): Newton at 4e-4 of
// the strand's weight (6.5e-6 kg/m x 4.6 cm x 9.81 m/s² = 2.9e-6 N), PCG at 1e-2 of that.
cosserat::SolverSettings hair_settings() {
  cosserat::SolverSettings s;
  s.newton_tolerance = 1.2e-9;
  s.pcg.tolerance = 1.2e-11;
  return s;
}

TEST(CosseratParity, KernelsFollowTheReferenceInDouble) {
  // Issue 7: centerline deviation <= 1e-8 L after 200 steps, the same PCG and Newton iterations.
  const ParityResult r = run_parity<double>(hair_settings());
  std::cout << "double: " << r.worst_over_length << " L; PCG iterations " << r.kernel_pcg
            << " (reference " << r.reference_pcg << "), Newton " << r.kernel_newton << " ("
            << r.reference_newton << ")\n";
  EXPECT_LE(r.worst_over_length, 1e-8);
  EXPECT_EQ(r.kernel_pcg, r.reference_pcg);
  EXPECT_EQ(r.kernel_newton, r.reference_newton);
  EXPECT_EQ(r.failures, 0);
  EXPECT_GT(r.reference_newton, kSteps * kStrands / 2);  // the strands did move
}

TEST(CosseratParity, KernelsFollowTheReferenceInFloat) {
  // Issue 7: <= 2e-3 L in float.
  const ParityResult r = run_parity<float>(hair_settings());
  std::cout << "float: " << r.worst_over_length << " L; PCG iterations " << r.kernel_pcg
            << " (reference " << r.reference_pcg << ")\n";
  EXPECT_LE(r.worst_over_length, 2e-3);
  EXPECT_EQ(r.failures, 0);
}

TEST(CosseratParity, BlockDiagonalPreconditionerToo) {
  // With the block-diagonal preconditioner PCG needs ~40 iterations per solve and stops at a
  // residual 1e-2 of the right-hand side. Measured at the default tolerances: the counts differed
  // by 73 of 237,873 (a residual within round-off of the threshold ends a solve one iteration
  // earlier or later) and the inexact solves carried those differences along (6.5e-6 L). Solved
  // to 1e-10 of the right-hand side the two agree to 8e-13 L, the counts within 0.04 %.
  cosserat::SolverSettings s = hair_settings();
  s.preconditioner = cosserat::PreconditionerKind::block_diagonal;
  s.pcg.relative_tolerance = 1e-10;
  const ParityResult r = run_parity<double>(s);
  std::cout << "block-diagonal: " << r.worst_over_length << " L; PCG iterations " << r.kernel_pcg
            << " (reference " << r.reference_pcg << ")\n";
  EXPECT_LE(r.worst_over_length, 1e-8);
  EXPECT_NEAR(double(r.kernel_pcg) / double(r.reference_pcg), 1.0, 1e-3);
}

}  // namespace
}  // namespace hairsim
