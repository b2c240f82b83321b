// DER reference: one symplectic step (forces, projection, Bishop update, quasistatic twist) at
// 60 and 200 vertices, single thread, to compare with the paper's Table 1.
// Run: build/release/bench/bench_der   (results in bench/RESULTS.md)
#include <benchmark/benchmark.h>

#include <cmath>

#include "reference/der/der_dynamics.hpp"
#include "reference/der/der_implicit.hpp"

namespace {

using namespace hairsim::der;

// A curved, twisted hanging rod: clamped root turned by 2 rad, helical rest shape, gravity.
DynamicRod benchmark_rod(int vertices) {
  std::vector<Vec3> x;
  for (int i = 0; i < vertices; ++i)
    x.emplace_back(0.01 * std::cos(0.3 * i), -0.005 * i, 0.01 * std::sin(0.3 * i));
  const int edges = vertices - 1;
  DynamicRod rod;
  const Vec3 u0 = any_orthogonal((x[1] - x[0]).normalized());
  rod.rest =
      rest_shape_from_polyline(x, u0, std::vector<Mat2>(edges, 1e-6 * Mat2::Identity()), 8e-7);
  rod.state = {x, std::vector<double>(edges, 0.0), u0};
  rod.state.theta.front() = 2.0;
  rod.velocity.assign(vertices, Vec3::Zero());
  rod.mass = lumped_masses(rod.rest, 1e-3);
  rod.fixed.assign(vertices, false);
  rod.fixed[0] = rod.fixed[1] = true;
  rod.gravity = Vec3(0, -9.81, 0);
  solve_quasistatic_twist(rod.state, rod.rest, rod.twist);
  return rod;
}

void BM_DerSymplecticStep(benchmark::State& state) {
  DynamicRod rod = benchmark_rod(static_cast<int>(state.range(0)));
  const double dt = 1e-5;
  for (auto _ : state) benchmark::DoNotOptimize(step_symplectic(rod, dt, 1e-12).iterations);
  state.counters["vertices"] = static_cast<double>(state.range(0));
}
BENCHMARK(BM_DerSymplecticStep)->Arg(60)->Arg(200)->Unit(benchmark::kMicrosecond);

// A naturally straight, isotropic rod hanging from a clamp turned by 2 rad: the quasistatic
// twist takes the closed form of eqs. (5)-(6) instead of Newton.
void BM_DerSymplecticStepStraight(benchmark::State& state) {
  const int vertices = static_cast<int>(state.range(0));
  std::vector<Vec3> x;
  for (int i = 0; i < vertices; ++i) x.emplace_back(0.005 * i, 0, 0);  // horizontal: it swings
  DynamicRod rod = rod_at_rest(x, 1e-6, 8e-7, 1e-3);
  clamp_end(rod, false);
  rod.state.theta.front() = 2.0;
  rod.gravity = Vec3(0, -9.81, 0);
  solve_quasistatic_twist(rod.state, rod.rest, rod.twist);
  const double dt = 1e-5;
  for (auto _ : state) benchmark::DoNotOptimize(step_symplectic(rod, dt, 1e-12).iterations);
  state.counters["vertices"] = static_cast<double>(vertices);
}
BENCHMARK(BM_DerSymplecticStepStraight)->Arg(60)->Arg(200)->Unit(benchmark::kMicrosecond);

void BM_DerImplicitStep(benchmark::State& state) {
  DynamicRod rod = benchmark_rod(static_cast<int>(state.range(0)));
  rod.stretching_stiffness = 10.0;  // N
  const double dt = 2e-3;           // hair-scale step, beyond the explicit limit
  for (auto _ : state) benchmark::DoNotOptimize(step_linearly_implicit(rod, dt).max_strain);
  state.counters["vertices"] = static_cast<double>(state.range(0));
}
BENCHMARK(BM_DerImplicitStep)->Arg(60)->Arg(200)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
