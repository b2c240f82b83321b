#include "engine/bench.hpp"

#include <chrono>
#include <cmath>
#include <new>

#include "engine/simulator.hpp"
#include "hairsim/error.hpp"
#include "hairsim/generate.hpp"
#ifdef HAIRSIM_COUNT_ACCESSES
#include "common/strided.hpp"
#endif

namespace hairsim::engine {
namespace {

constexpr int kWarmUpSteps = 3;

// The bench's hairstyle on a still head. Step: the explicit limit 0.1 h² sqrt(ρS/EI) of the
// shortest edges (symplectic; 0.04 ms at 32 vertices), 1 ms (implicit: a common hair step).
HairSetup bench_setup(const BenchCase& c) {
  HairstyleParams style;
  style.style = HairStyle::wavy;
  const bool repeated = c.distinct_strands > 0 && c.distinct_strands < c.strands;
  style.strands = repeated ? c.distinct_strands : c.strands;
  style.vertices = c.vertices;
  HairSetup setup;
  setup.strands = generate_hairstyle(style);
  if (repeated) {
    StrandSet all;
    for (int s = 0; s < c.strands; ++s)
      all.add_strand(setup.strands.strand(std::size_t(s % c.distinct_strands)));
    setup.strands = std::move(all);
  }
  setup.damping = 1;
  const double h = 0.9 * style.length / (c.vertices - 1);
  const RodMaterial& m = setup.material;
  setup.integrator = c.integrator == "implicit" ? Integrator::implicit : Integrator::symplectic;
  setup.dt = setup.integrator == Integrator::implicit
                 ? 1e-3
                 : 0.1 * h * h * std::sqrt(m.linear_density() / m.bending_stiffness());
  if (c.collisions) {
    // The generator's scalp ellipsoid grown by 5 mm: the hair, generated 3-12 mm off the scalp,
    // partly starts inside and then lies on it under gravity, so contacts are resolved every
    // step, not only tested (an ellipsoid costs a little more per test than a sphere).
    Collider head;
    head.shape = Collider::Shape::ellipsoid;
    head.radii = style.head_radii + Vec3::Constant(0.005);
    head.friction = 0.3;
    setup.colliders = {head};
  }
  return setup;
}

}  // namespace

BenchResult run_bench(const BenchCase& asked) {
  const Model& model = find_model(asked.model, "--model");
  BenchCase c = asked;
  if (c.integrator.empty()) c.integrator = to_string(model.integrators.front());
  const Backend backend = [&] {
    if (c.backend != "reference" && c.backend != "cpu" && c.backend != "cuda")
      throw Error("--backend", "must be reference, cpu or cuda (got '" + c.backend + "')");
    return parse_backend(c.backend);
  }();
  if (c.precision != "float" && c.precision != "double")
    throw Error("--precision", "must be float or double (got '" + c.precision + "')");
  if (c.integrator != "symplectic" && c.integrator != "implicit")
    throw Error("--integrator", "must be symplectic or implicit (got '" + c.integrator + "')");
  if (!steps_with(model, c.integrator))
    throw Error("--integrator", "model " + model.name + " has no " + c.integrator +
                                    " step (it has " + to_string(model.integrators.front()) + ")");
  if (backend == Backend::reference && c.precision != "double")
    throw Error("--precision", "the reference backend runs in double only");
  // The generator's ranges (a case outside them is the user's input, not a case this machine
  // cannot run: it was a skipped row and exit 0).
  if (c.strands < 1 || c.strands > 10'000'000)
    throw Error("--strands",
                "must be between 1 and 10000000 (got " + std::to_string(c.strands) + ")");
  if (c.vertices < 3 || c.vertices > 100'000)
    throw Error("--vertices",
                "must be between 3 and 100000 (got " + std::to_string(c.vertices) + ")");
  if (c.steps < 1) throw Error("--steps", "must be >= 1 (got " + std::to_string(c.steps) + ")");
  BenchResult r;
  r.config = c;
  const auto case_start = std::chrono::steady_clock::now();
  const auto seconds_since = [](std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
  };
  std::unique_ptr<Simulator> sim;
  HairSetup setup;
  try {
    setup = bench_setup(c);
    r.dt = setup.dt;
    sim = Simulator::create(setup, {c.model, backend, parse_precision(c.precision)});
  } catch (const Error& e) {  // cuda: no device or not built; a memory estimate over what is free
    r.note = e.what();
    r.seconds = seconds_since(case_start);
    return r;
  } catch (const std::bad_alloc&) {
    r.note = "out of host memory";
    r.seconds = seconds_since(case_start);
    return r;
  }
  r.device = sim->device();
  try {
    for (int k = 0; k < kWarmUpSteps; ++k) sim->step();
    sim->counts();  // waits for the warm-up steps
#ifdef HAIRSIM_COUNT_ACCESSES
    kernels::AccessCounts& access = kernels::access_counts();
    const long long loads = access.load_bytes, stores = access.store_bytes;
#endif
    const auto start = std::chrono::steady_clock::now();
    for (int k = 0; k < c.steps; ++k) sim->step();
    const StepCounters counts = sim->counts();  // waits for the last step
#ifdef HAIRSIM_COUNT_ACCESSES
    const double updates = double(c.strands) * c.vertices * c.steps;
    r.load_bytes_per_svu = double(access.load_bytes - loads) / updates;
    r.store_bytes_per_svu = double(access.store_bytes - stores) / updates;
#endif
    r.ms_per_step = 1e3 * seconds_since(start) / c.steps;
    r.svu_per_second = double(c.strands) * c.vertices / (r.ms_per_step * 1e-3);
    const double strand_steps = double(c.strands) * (c.steps + kWarmUpSteps);
    r.columns = model.bench_values(setup, backend, counts, strand_steps);
    r.ran = true;
  } catch (const RunFailure& e) {  // a kernel or a solve failed: the row says so, the sweep goes on
    r.failed = true;
    r.note = std::string("failed: ") + e.what();
  }
  r.seconds = seconds_since(case_start);
  return r;
}

double predict_seconds(const BenchResult& smaller, int strands) {
  return smaller.seconds * double(strands) / double(smaller.config.strands);
}

nlohmann::json to_json(const BenchResult& r) {
  nlohmann::json j = {{"model", r.config.model},
                      {"integrator", r.config.integrator},
                      {"collisions", r.config.collisions},
                      {"backend", r.config.backend},
                      {"precision", r.config.precision},
                      {"strands", r.config.strands},
                      {"distinct_strands", r.config.distinct_strands},
                      {"vertices", r.config.vertices},
                      {"steps", r.config.steps},
                      {"dt", r.dt},
                      {"ran", r.ran},
                      {"failed", r.failed},
                      {"seconds", r.seconds},
                      {"note", r.note},
                      {"device", r.device},
                      {"ms_per_step", r.ms_per_step},
                      {"svu_per_second", r.svu_per_second}};
  if (std::isfinite(r.load_bytes_per_svu)) {
    j["load_bytes_per_svu"] = r.load_bytes_per_svu;
    j["store_bytes_per_svu"] = r.store_bytes_per_svu;
  }
  for (const BenchColumn& c : r.columns)  // null where not counted
    j[c.key] = std::isfinite(c.value) ? nlohmann::json(c.value) : nlohmann::json();
  return j;
}

}  // namespace hairsim::engine
