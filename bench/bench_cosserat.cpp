// Cosserat reference (Zhao et al. 2022): one implicit step of the paper's Table 1 scenes, single
// thread, with each preconditioner:
//   helix:  our Fig. 6 helix (201 vertices, r = 3 cm, E = G = 1 MPa, ρ = 1, Δt = 3 ms, gravity);
//   dragged: the §4.1.3 / Table 1 "Fig. 11" rod (21 vertices, 1 m, r = 3 cm, E = 0.2 MPa,
//            G = 0.1 MPa, ρ = 1, Δt = 30 ms), its top moved by 0.5 sin(2πt) m.
// The paper's tolerances (Newton 1e-5, 5 iterations; PCG 1e-7). Counters: Newton iterations per
// step, PCG iterations per solve; time per 100 steps (items/s = steps/s).
// Run: build/release/bench/bench_cosserat   (results in bench/RESULTS.md)
#include <benchmark/benchmark.h>

#include <cmath>
#include <numbers>

#include "reference/cosserat/cosserat_dynamics.hpp"

namespace {

using namespace hairsim::cosserat;

struct Material {
  double radius, youngs, shear, density;
};

CosseratRod round_rod(const std::vector<Vec3>& x, const Material& m) {
  const double i = std::numbers::pi * std::pow(m.radius, 4) / 4;
  const double area = std::numbers::pi * m.radius * m.radius;
  CosseratRod rod =
      rod_at_rest(x, Vec3(m.youngs * i, m.youngs * i, 2 * m.shear * i),
                  Vec3(m.density * i, m.density * i, 2 * m.density * i), m.density * area);
  rod.gravity = Vec3(0, -9.81, 0);
  return rod;
}

CosseratRod helix_rod() {
  std::vector<Vec3> x;
  for (int i = 0; i <= 200; ++i) {
    const double a = 2 * std::numbers::pi * 4 * i / 200;
    x.emplace_back(0.1 * std::cos(a), -0.2 * i / 200, 0.1 * std::sin(a));
  }
  CosseratRod rod = round_rod(x, {0.03, 1e6, 1e6, 1.0});
  clamp_root(rod);
  return rod;
}

CosseratRod dragged_rod() {
  std::vector<Vec3> x;
  const double h = 1.0 / 19.5;
  for (int i = 0; i <= 20; ++i) x.emplace_back(0, -(i - 0.5) * h, 0);
  CosseratRod rod = round_rod(x, {0.03, 0.2e6, 0.1e6, 1.0});
  hairsim::ClampMotion drag;
  drag.translation_amplitude = Vec3(0.5, 0, 0);
  drag.frequency = 1;
  clamp_root(rod, drag);
  return rod;
}

// Each benchmark iteration runs the first 100 steps from rest (the paper's Fig. 3 protocol), so
// every preconditioner times the same steps; items per second are steps per second.
constexpr int kSteps = 100;

void run(benchmark::State& state, const CosseratRod& start, double dt) {
  SolverSettings settings;
  settings.preconditioner = static_cast<PreconditionerKind>(state.range(0));
  double newton = 0, iterations = 0, solves = 0;
  for (auto _ : state) {
    CosseratRod rod = start;
    for (int s = 0; s < kSteps; ++s) {
      const StepReport r = step(rod, dt, settings);
      newton += r.newton_iterations;
      iterations += r.pcg_iterations;
      solves += r.pcg_solves;
    }
  }
  const double steps = static_cast<double>(state.iterations()) * kSteps;
  state.SetItemsProcessed(static_cast<int64_t>(steps));
  state.SetLabel(to_string(settings.preconditioner));
  state.counters["newton_per_step"] = newton / steps;
  state.counters["pcg_per_solve"] = solves > 0 ? iterations / solves : 0.0;
  state.counters["vertices"] = start.rest.vertex_count();
}

void BM_CosseratHelixStep(benchmark::State& state) {
  run(state, helix_rod(), 3e-3);
}
void BM_CosseratDraggedRodStep(benchmark::State& state) {
  run(state, dragged_rod(), 30e-3);
}
// Argument: PreconditionerKind (0 diagonal, 1 block-diagonal, 2 hybrid).
BENCHMARK(BM_CosseratHelixStep)->DenseRange(0, 2)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_CosseratDraggedRodStep)->DenseRange(0, 2)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
