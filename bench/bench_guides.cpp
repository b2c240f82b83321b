// Render strands from guides: one frame's interpolation (guide frames + every render strand) of
// 100,000 render strands x 32 vertices from 2,000 guides, float, on the cpu path (OpenMP).
// Run: build/release/bench/bench_guides --benchmark_min_time=2  (results in bench/RESULTS.md)
#include <benchmark/benchmark.h>

#include <cmath>

#include "hairsim/generate.hpp"
#include "hairsim/guides.hpp"

namespace {

using namespace hairsim;

void BM_InterpolateRenderStrands(benchmark::State& state) {
  HairstyleParams p;
  p.style = HairStyle::wavy;
  p.strands = static_cast<int>(state.range(1));
  p.vertices = 32;
  const StrandSet guides = generate_hairstyle(p);
  p.seed = 99;
  p.strands = static_cast<int>(state.range(0));
  const std::vector<Vec3> roots = scatter_render_roots(guides, p.strands, 7);
  RenderStrandOptions o;
  o.interpolation = static_cast<GuideInterpolation>(state.range(2));
  o.clump = 0.3;
  o.jitter = 0.002;
  GuideInterpolator interp(guides, roots, o);
  std::vector<Vec3> x = guides.points;  // a moved state: every guide swung a little
  for (std::size_t i = 0; i < x.size(); ++i) x[i].x() += 0.01 * std::sin(double(i % 32) * 0.2);
  for (auto _ : state) interp.interpolate(x);
  state.counters["vertices/s"] = benchmark::Counter(double(interp.strands()) * interp.vertices(),
                                                    benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_InterpolateRenderStrands)
    ->Args({100000, 2000, 0})
    ->Args({100000, 2000, 1})
    ->Args({50000, 2000, 0})
    ->Args({10000, 2000, 0})
    ->ArgNames({"strands", "guides", "nearest"})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
