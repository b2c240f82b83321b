#include "engine/der_bench.hpp"

#include <omp.h>

#include <chrono>
#include <cmath>
#include <fstream>

#include "engine/der_cpu_backend.hpp"
#include "engine/der_host_batch.hpp"
#include "hairsim/error.hpp"
#include "hairsim/generate.hpp"
#ifdef HAIRSIM_HAVE_CUDA
#include "cuda/cuda_api.hpp"
#include "cuda/der_device_batch.hpp"
#endif

namespace hairsim::engine {
namespace {

constexpr int kWarmUpSteps = 3;

StrandSet bench_hair(const DerBenchCase& c) {
  HairstyleParams style;
  style.style = HairStyle::wavy;
  style.strands = c.strands;
  style.vertices = c.vertices;
  return generate_hairstyle(style);
}

// Hair-scale step parameters: the explicit limit 0.1 h² sqrt(ρS/EI) of the shortest strands.
template <class T>
kernels::der::DerStepParameters<T> bench_parameters(const DerBenchCase& c, const RodMaterial& m) {
  const double h = 0.9 * HairstyleParams{}.length / (c.vertices - 1);
  kernels::der::DerStepParameters<T> p;
  p.dt = T(0.1 * h * h * std::sqrt(m.linear_density() / m.bending_stiffness()));
  p.gravity = {T(0), T(-9.81), T(0)};
  p.damping = T(1);
  // float: a few ulps of head-scale coordinates (0.3 m: ulp 3e-8 m), else the projection
  // iterates on round-off.
  p.length_tolerance = sizeof(T) == 8 ? T(1e-12) : T(3e-5 * h);
  p.twist_tolerance = T((sizeof(T) == 8 ? 1e-8 : 1e-4) * m.bending_stiffness() / h);
  return p;
}

std::string cpu_name() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  return "CPU";
}

template <class F>
double milliseconds_per_step(int steps, F&& step) {
  for (int k = 0; k < kWarmUpSteps; ++k) step();
  const auto start = std::chrono::steady_clock::now();
  for (int k = 0; k < steps; ++k) step();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
             .count() /
         steps;
}

double bench_reference(const DerBenchCase& c, const RodMaterial& m) {
  const StrandSet hair = bench_hair(c);
  std::vector<der::DynamicRod> rods;
  for (std::size_t s = 0; s < hair.strand_count(); ++s) {
    const auto pts = hair.strand(s);
    der::DynamicRod rod = der::rod_at_rest({pts.begin(), pts.end()}, m.bending_stiffness(),
                                           m.twist_stiffness(), m.linear_density());
    der::clamp_end(rod, false);
    rod.gravity = der::Vec3(0, -9.81, 0);
    rod.damping = 1;
    rods.push_back(std::move(rod));
  }
  const double dt = bench_parameters<double>(c, m).dt;
  return milliseconds_per_step(c.steps, [&] {
    for (der::DynamicRod& rod : rods) der::step_symplectic(rod, dt, 1e-12);
  });
}

template <class T>
double bench_batched(const DerBenchCase& c, const RodMaterial& m, bool on_device,
                     DerBenchResult& r) {
  DerHostBatch<T> batch(c.strands, c.vertices);
  load_strands(batch, bench_hair(c), m);
  const auto p = bench_parameters<T>(c, m);
  if (!on_device) {
    kernels::der::StepCounts total;
    const double ms = milliseconds_per_step(c.steps, [&] {
      const kernels::der::StepCounts k = der_step_cpu(batch.arrays(), p);
      total.projection_iterations += k.projection_iterations;
      total.twist_iterations += k.twist_iterations;
    });
    const double strand_steps = double(c.strands) * (c.steps + kWarmUpSteps);
    r.projection_iterations = double(total.projection_iterations) / strand_steps;
    r.twist_iterations = double(total.twist_iterations) / strand_steps;
    return ms;
  }
#ifdef HAIRSIM_HAVE_CUDA
  cuda::DerDeviceBatch<T> device(batch.arrays());
  for (int k = 0; k < kWarmUpSteps; ++k) cuda::der_step(device.arrays(), p);
  cuda::synchronize();
  const auto start = std::chrono::steady_clock::now();
  for (int k = 0; k < c.steps; ++k) cuda::der_step(device.arrays(), p);
  cuda::synchronize();
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
             .count() /
         c.steps;
#else
  return 0;
#endif
}

}  // namespace

DerBenchResult run_der_bench(const DerBenchCase& c) {
  if (c.backend != "reference" && c.backend != "cpu" && c.backend != "cuda")
    throw Error("--backend", "must be reference, cpu or cuda (got '" + c.backend + "')");
  if (c.precision != "float" && c.precision != "double")
    throw Error("--precision", "must be float or double (got '" + c.precision + "')");
  if (c.backend == "reference" && c.precision != "double")
    throw Error("--precision", "the reference backend runs in double only");
  if (c.strands < 1 || c.vertices < 3 || c.steps < 1)
    throw Error("bench", "needs >= 1 strand, >= 3 vertices and >= 1 step");
  DerBenchResult r;
  r.config = c;
  const RodMaterial material;
  if (c.backend == "cuda") {
#ifdef HAIRSIM_HAVE_CUDA
    if (cuda::device_count() == 0) {
      r.note = "no CUDA device present";
      return r;
    }
    r.device = cuda::device_name();
#else
    r.note = "built without CUDA";
    return r;
#endif
  } else {
    r.device = cpu_name() + ", " + std::to_string(c.backend == "cpu" ? omp_get_max_threads() : 1) +
               " thread(s)";
  }
  const bool device = c.backend == "cuda";
  r.ms_per_step = c.backend == "reference" ? bench_reference(c, material)
                  : c.precision == "float" ? bench_batched<float>(c, material, device, r)
                                           : bench_batched<double>(c, material, device, r);
  r.svu_per_second = double(c.strands) * c.vertices / (r.ms_per_step * 1e-3);
  r.ran = true;
  return r;
}

nlohmann::json to_json(const DerBenchResult& r) {
  return {{"model", "der"},
          {"integrator", "symplectic"},
          {"collisions", false},
          {"backend", r.config.backend},
          {"precision", r.config.precision},
          {"strands", r.config.strands},
          {"vertices", r.config.vertices},
          {"steps", r.config.steps},
          {"ran", r.ran},
          {"note", r.note},
          {"device", r.device},
          {"ms_per_step", r.ms_per_step},
          {"svu_per_second", r.svu_per_second},
          {"projection_iterations", r.projection_iterations},
          {"twist_iterations", r.twist_iterations}};
}

}  // namespace hairsim::engine
