// Foundation benchmarks: hairstyle generation, strand file I/O, preview rendering.
// Run: build/release/bench/bench_core  (results in bench/RESULTS.md)
#include <benchmark/benchmark.h>

#include <filesystem>

#include "hairsim/generate.hpp"
#include "hairsim/io.hpp"
#include "hairsim/render.hpp"

namespace {

using namespace hairsim;

void BM_GenerateHairstyle(benchmark::State& state) {
  HairstyleParams p;
  p.style = static_cast<HairStyle>(state.range(1));
  p.strands = static_cast<int>(state.range(0));
  p.vertices = 32;
  for (auto _ : state) benchmark::DoNotOptimize(generate_hairstyle(p).points.data());
  state.counters["strands/s"] = benchmark::Counter(static_cast<double>(p.strands),
                                                   benchmark::Counter::kIsIterationInvariantRate);
}
BENCHMARK(BM_GenerateHairstyle)
    ->ArgsProduct({{1000, 10000, 100000}, {0, 1, 2}})
    ->ArgNames({"strands", "style"})
    ->Unit(benchmark::kMillisecond);

void BM_WriteReadHair(benchmark::State& state) {
  HairstyleParams p;
  p.strands = static_cast<int>(state.range(0));
  const StrandSet s = generate_hairstyle(p);
  const auto path = std::filesystem::temp_directory_path() / "hairsim_bench.hair";
  for (auto _ : state) {
    write_strands(path, s);
    benchmark::DoNotOptimize(read_strands(path).points.data());
  }
  std::filesystem::remove(path);
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(s.point_count() * 12 * 2));
}
BENCHMARK(BM_WriteReadHair)->Arg(100000)->Unit(benchmark::kMillisecond);

void BM_RenderPreview(benchmark::State& state) {
  HairstyleParams p;
  p.strands = static_cast<int>(state.range(0));
  const StrandSet s = generate_hairstyle(p);
  const TriangleMesh head = ellipsoid_mesh(p.head_radii);
  RenderOptions o;
  for (auto _ : state) benchmark::DoNotOptimize(render(s, &head, o).rgb.data());
}
BENCHMARK(BM_RenderPreview)->Arg(10000)->Arg(100000)->Unit(benchmark::kMillisecond);

// Issue 23's target: 50,000 wavy strands x 24 vertices with the ellipsoid head, 800 x 800, 3 x 3
// supersampling, the opacity shadow map on (RenderOptions' defaults): ≤ 1 s. Threads: OpenMP's.
void BM_RenderPreviewWavyShadowed(benchmark::State& state) {
  HairstyleParams p;
  p.style = HairStyle::wavy;
  p.strands = static_cast<int>(state.range(0));
  p.vertices = 24;
  const StrandSet s = generate_hairstyle(p);
  const TriangleMesh head = ellipsoid_mesh(p.head_radii);
  RenderOptions o;
  for (auto _ : state) benchmark::DoNotOptimize(render(s, &head, o).rgb.data());
}
BENCHMARK(BM_RenderPreviewWavyShadowed)->Arg(50000)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
