// Cosserat on the batched engine (issue 7): the per-strand kernel (kernels/cosserat/), run on
// the host, against the reference (src/reference/cosserat/) on 16 curly hairs clamped to a head
// that turns and shakes, under gravity, 200 steps of 1 ms.
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <numbers>
#include <random>

#include "cosserat_parity_case.hpp"
#include "engine/cosserat_host_batch.hpp"

namespace hairsim {
namespace {

using namespace cosserat_case;
using cosserat::Vec3;

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
  const kernels::cosserat::StepSettings ks = kernel_settings(settings);
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
