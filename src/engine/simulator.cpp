#include "engine/simulator.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>

#include "core/sdf_view.hpp"
#include "engine/model.hpp"
#include "engine/state_io.hpp"
#include "hairsim/error.hpp"
#include "scene/json_reader.hpp"
#ifdef HAIRSIM_HAVE_CUDA
#include "cuda/cuda_api.hpp"
#endif

namespace hairsim {

std::string to_string(Integrator i) {
  return i == Integrator::implicit ? "implicit" : "symplectic";
}

long StepCounters::operator[](std::string_view name) const {
  for (std::size_t k = 0; k < names.size(); ++k)
    if (names[k] == name) return values[k];
  throw Error("counters", "the model counts no '" + std::string(name) + "'");
}

bool StepCounters::has(std::string_view name) const {
  return std::find(names.begin(), names.end(), name) != names.end();
}

Backend parse_backend(const std::string& name) {
  if (name == "reference") return Backend::reference;
  if (name == "cpu") return Backend::cpu;
  if (name == "cuda") return Backend::cuda;
  if (name == "auto") {
#ifdef HAIRSIM_HAVE_CUDA
    if (cuda::device_count() > 0) return Backend::cuda;
#endif
    return Backend::cpu;
  }
  throw Error("backend", "must be auto, reference, cpu or cuda (got '" + name + "')");
}

Precision parse_precision(const std::string& name) {
  if (name == "float") return Precision::float32;
  if (name == "double") return Precision::float64;
  throw Error("precision", "must be float or double (got '" + name + "')");
}

std::string to_string(Backend b) {
  return b == Backend::reference ? "reference" : b == Backend::cpu ? "cpu" : "cuda";
}
std::string to_string(Precision p) {
  return p == Precision::float32 ? "float" : "double";
}

std::string to_string(HairRest r) {
  return r == HairRest::sag_free ? "sag_free" : "groomed";
}

std::unique_ptr<Simulator> Simulator::create(const HairSetup& setup,
                                             const SimulatorOptions& options) {
  const engine::Model& model =
      engine::find_model(options.model.empty() ? engine::default_model() : options.model);
  if (!engine::runs_on(model, options.backend))
    throw Error("backend", "model '" + model.name +
                               "' simulates hairstyles on: " + engine::backend_names(model) +
                               " (asked: " + to_string(options.backend) + ")");
  const StrandSet& strands = setup.strands;
  if (strands.strand_count() == 0) throw Error("strands", "no strands to simulate");
  const std::size_t vertices = strands.strand_size(0);
  for (std::size_t s = 0; s < strands.strand_count(); ++s)
    if (strands.strand_size(s) != vertices || vertices < 3)
      throw Error("strands", "every strand needs the same vertex count, >= 3 (strand " +
                                 std::to_string(s) + " has " +
                                 std::to_string(strands.strand_size(s)) + "; resample first)");
  if (setup.colliders.size() > std::size_t(kMaxColliders))
    throw Error("colliders", "at most " + std::to_string(kMaxColliders) +
                                 " analytic colliders (got " +
                                 std::to_string(setup.colliders.size()) + ")");
  for (std::size_t c = 0; c < setup.colliders.size(); ++c)
    if (setup.colliders[c].shape == Collider::Shape::mesh && !setup.colliders[c].mesh)
      throw Error("colliders[" + std::to_string(c) + "]", "a mesh collider needs its grid");
  if (!(setup.dt > 0)) throw Error("dt", "must be positive");
  if (!setup.strand_materials.empty() && setup.strand_materials.size() != strands.strand_count())
    throw Error("strand_materials", "needs one material per strand");
  if (const auto edge = engine::coincident_points(strands))
    throw Error("strands", "strand " + std::to_string(edge->first) + ", edge " +
                               std::to_string(edge->second) + ": zero length (coincident points)");
  for (std::size_t s = 0; s < strands.strand_count(); ++s)
    if (!engine::finite_material(setup.material_of(s)))
      throw Error("material", "strand " + std::to_string(s) + ": radius " +
                                  std::to_string(setup.material_of(s).radius) +
                                  " m gives a zero or non-finite stiffness or density");
  if (!engine::steps_with(model, to_string(setup.integrator)))
    throw Error("integrator",
                "model '" + model.name + "' has no " + to_string(setup.integrator) + " step");
  const Interaction& in = setup.interaction;
  if (in.enabled) {
    if (options.backend == Backend::reference)
      throw Error("interaction.enabled", "the hair-hair stage runs on the cpu and cuda backends");
    if (!(std::isfinite(in.cell_size) && in.cell_size > 0))
      throw Error("interaction.cell_size", "must be a positive length (m)");
    if (!(std::isfinite(in.friction) && in.friction >= 0))
      throw Error("interaction.friction", "must be a rate >= 0 (1/s)");
    if (!(std::isfinite(in.volume_stiffness) && in.volume_stiffness >= 0))
      throw Error("interaction.volume_stiffness", "must be a rate >= 0 (1/s)");
    if (in.iterations < 0 || in.iterations > 10000)
      throw Error("interaction.iterations", "must be in 0 .. 10000");
  }
  if (options.backend == Backend::reference && options.precision != Precision::float64)
    throw Error("precision", "the reference backend runs in double only");
  HairSetup head_centred = setup;  // rotations about the head's centre, the origin by default
  if (!head_centred.head.center) head_centred.head.center = Vec3::Zero();
  std::unique_ptr<Simulator> sim =
      model.make_simulator(head_centred, options.backend, options.precision);
  // As a saved state will hold it: JSON text read back (a NaN setting reads back as null).
  sim->setup_signature_ =
      nlohmann::json::parse(engine::setup_signature(model, head_centred, options, *sim).dump());
  return sim;
}

// The state's layout: the steps, the model's bytes, then the setup's signature as JSON text and
// its byte count (a trailer, so that the model's bytes start where they always did).
std::string Simulator::save_state() {
  std::string out;
  engine::StateWriter writer(out);
  writer.value(steps_);
  save_model_state(out);
  const std::string signature = setup_signature_.dump();
  out += signature;
  writer.value(std::uint64_t(signature.size()));
  return out;
}

void Simulator::restore_state(const std::string& state) {
  const std::string_view all(state);
  constexpr std::size_t kCount = sizeof(std::uint64_t);
  std::uint64_t signature_size = 0;
  if (all.size() >= sizeof(long) + kCount)
    std::memcpy(&signature_size, all.data() + all.size() - kCount, kCount);
  nlohmann::json saved;
  if (signature_size > 0 && signature_size <= all.size() - sizeof(long) - kCount)
    saved = nlohmann::json::parse(all.substr(all.size() - kCount - signature_size, signature_size),
                                  nullptr, false);
  if (!saved.is_object())
    throw Error("state", "not a simulator state saved by this build (no setup record)");
  if (const std::string d = engine::signature_difference(saved, setup_signature_); !d.empty())
    throw Error("state", "saved by a simulator of another setup: " + d);
  const std::string_view body = all.substr(0, all.size() - kCount - signature_size);
  engine::StateReader in(body);
  const long steps = in.value<long>();
  if (steps < 0) throw Error("state", "a negative step count");
  restore_model_state(body.substr(sizeof steps));
  steps_ = steps;
}

std::vector<ModelInfo> registered_models() {
  std::vector<ModelInfo> out;
  for (const engine::Model& m : engine::models())
    out.push_back({m.name, m.description, m.integrators, m.backends});
  return out;
}

std::shared_ptr<const ModelSettings> model_settings(const std::string& model,
                                                    const nlohmann::json& solver) {
  if (!solver.is_object()) throw Error("solver", "must be an object");
  return engine::find_model(model).parse_settings(scene::JsonReader(solver, "solver"));
}

}  // namespace hairsim

namespace hairsim::engine {

void throw_settings_mismatch() {
  throw Error("solver", "the setup's model settings are another model's");
}

nlohmann::json setup_signature(const Model& model, const HairSetup& setup,
                               const SimulatorOptions& options, Simulator& sim) {
  nlohmann::json s = {{"model", model.name},
                      {"backend", to_string(options.backend)},
                      {"precision", to_string(options.precision)},
                      {"strands", sim.strands()},
                      {"vertices", sim.vertices()},
                      {"rest", to_string(setup.rest)}};
  // Read before any step, its counters all zero: what is left are the settings (element
  // counts, say), the same for every simulator of the setup.
  if (model.summary) s["solver"] = model.summary(setup, options, sim.counts(), 0.0);
  return s;
}

std::string signature_difference(const nlohmann::json& saved, const nlohmann::json& now) {
  auto text = [](const nlohmann::json& v) { return v.is_null() ? std::string("none") : v.dump(); };
  for (const char* key : {"model", "backend", "precision", "strands", "vertices", "rest"})
    if (saved.value(key, nlohmann::json()) != now.value(key, nlohmann::json()))
      return std::string(key) + " " + text(saved.value(key, nlohmann::json())) + " in the state, " +
             text(now.value(key, nlohmann::json())) + " in this simulator";
  const nlohmann::json a = saved.value("solver", nlohmann::json::object()).flatten();
  const nlohmann::json b = now.value("solver", nlohmann::json::object()).flatten();
  for (const auto& [pointer, value] : b.items())
    if (a.value(pointer, nlohmann::json()) != value)
      return "solver." + pointer.substr(1) + " " + text(a.value(pointer, nlohmann::json())) +
             " in the state, " + text(value) + " in this simulator";
  for (const auto& [pointer, value] : a.items())
    if (!b.contains(pointer))
      return "solver." + pointer.substr(1) + " " + text(value) + " in the state, none here";
  return "";
}

std::string cpu_description(int threads) {
  std::ifstream in("/proc/cpuinfo");
  std::string line, model = "CPU";
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0) {
      model = line.substr(line.find(':') + 2);
      break;
    }
  return model + ", " + std::to_string(threads) + " thread(s)";
}

std::optional<std::pair<std::size_t, std::size_t>> coincident_points(const StrandSet& strands) {
  for (std::size_t s = 0; s < strands.strand_count(); ++s) {
    const auto p = strands.strand(s);
    for (std::size_t i = 1; i < p.size(); ++i)
      if (!((p[i] - p[i - 1]).norm() > 0)) return std::pair{s, i - 1};
  }
  return std::nullopt;
}

bool finite_material(const RodMaterial& m) {
  for (const double value :
       {m.bending_stiffness(), m.twist_stiffness(), m.linear_density(), m.stretching_stiffness()})
    if (!(std::isfinite(value) && value > 0)) return false;
  return true;
}

double shortest_rest_edge(const StrandSet& strands) {
  double h = std::numeric_limits<double>::infinity();
  for (std::size_t s = 0; s < strands.strand_count(); ++s) {
    const auto p = strands.strand(s);
    for (std::size_t i = 1; i < p.size(); ++i) h = std::min(h, (p[i] - p[i - 1]).norm());
  }
  return h;
}

double explicit_step_limit(const StrandSet& strands, const RodMaterial& m) {
  const double h = shortest_rest_edge(strands);
  return 0.1 * h * h * std::sqrt(m.linear_density() / m.bending_stiffness());
}

std::size_t push_out_of_colliders(StrandSet& strands,
                                  const std::vector<Collider>& public_colliders) {
  std::vector<kernels::Collider<double>> colliders;
  for (const Collider& c : public_colliders) colliders.push_back(kernel_collider(c));
  std::size_t moved = 0;
  for (std::size_t s = 0; s < strands.strand_count(); ++s)
    for (std::size_t i = strands.offsets[s] + 2; i < strands.offsets[s + 1]; ++i)
      for (const kernels::Collider<double>& c : colliders) {
        // A mesh's distances are clamped beyond a band: a deeper vertex needs a few moves.
        Vec3& p = strands.points[i];
        bool moved_this = false;
        for (int attempt = 0; attempt < 16; ++attempt) {
          const kernels::Contact<double> k = kernels::contact(c, {p.x(), p.y(), p.z()});
          if (!k.inside) break;
          p = Vec3(k.surface.x, k.surface.y, k.surface.z);
          moved_this = true;
        }
        moved += moved_this;
      }
  return moved;
}

kernels::Collider<double> kernel_collider(const Collider& c) {
  auto v = [](const Vec3& p) { return kernels::Vector3<double>{p.x(), p.y(), p.z()}; };
  kernels::Collider<double> k;
  k.friction = c.friction;
  switch (c.shape) {
    case Collider::Shape::sphere:
      k.shape = kernels::ColliderShape::sphere;
      k.a = v(c.center);
      k.radii = {c.radius, 0, 0};
      break;
    case Collider::Shape::ellipsoid:
      k.shape = kernels::ColliderShape::ellipsoid;
      k.a = v(c.center);
      k.radii = v(c.radii);
      break;
    case Collider::Shape::capsule:
      k.shape = kernels::ColliderShape::capsule;
      k.a = v(c.from);
      k.b = v(c.to);
      k.radii = {c.radius, 0, 0};
      break;
    case Collider::Shape::plane:
      k.shape = kernels::ColliderShape::plane;
      k.a = v(c.center);
      k.b = v(c.direction);
      break;
    case Collider::Shape::cylinder:
      k.shape = kernels::ColliderShape::cylinder;
      k.a = v(c.center);
      k.b = v(c.direction);
      k.radii = {c.radius, 0, 0};
      break;
    case Collider::Shape::mesh:
      k.shape = kernels::ColliderShape::mesh;
      if (c.mesh) k.sdf = sdf_view(*c.mesh);
      break;
  }
  return k;
}

std::vector<kernels::Collider<double>> kernel_colliders(const HairSetup& setup) {
  std::vector<kernels::Collider<double>> out;
  for (const Collider& c : setup.colliders) out.push_back(kernel_collider(c));
  return out;
}

std::vector<std::shared_ptr<const SignedDistanceGrid>> mesh_grids(const HairSetup& setup) {
  std::vector<std::shared_ptr<const SignedDistanceGrid>> out;
  for (const Collider& c : setup.colliders)
    if (c.mesh) out.push_back(c.mesh);
  return out;
}

kernels::WindField<double> kernel_wind(const Wind& w) {
  return kernels::make_gusts({w.mean.x(), w.mean.y(), w.mean.z()}, w.gust_strength,
                             w.gust_frequency, w.gust_size, w.gust_modes, w.gust_seed);
}

template <class T>
kernels::Collider<T> convert_collider(const kernels::Collider<double>& from) {
  kernels::Collider<T> to;
  to.shape = from.shape;
  to.a = {T(from.a.x), T(from.a.y), T(from.a.z)};
  to.b = {T(from.b.x), T(from.b.y), T(from.b.z)};
  to.radii = {T(from.radii.x), T(from.radii.y), T(from.radii.z)};
  to.friction = T(from.friction);
  const kernels::SdfGrid<double>& g = from.sdf;  // mesh colliders: the same float samples
  to.sdf.values = g.values;
  to.sdf.nx = g.nx, to.sdf.ny = g.ny, to.sdf.nz = g.nz;
  to.sdf.origin = {T(g.origin.x), T(g.origin.y), T(g.origin.z)};
  to.sdf.spacing = T(g.spacing);
  to.sdf.outside = T(g.outside);
  return to;
}
template kernels::Collider<float> convert_collider(const kernels::Collider<double>&);
template kernels::Collider<double> convert_collider(const kernels::Collider<double>&);

std::string strand_step_location(long strand, long steps_done, double dt) {
  char time[48];
  std::snprintf(time, sizeof time, " (t = %.6g s)", double(steps_done) * dt);
  return (strand >= 0 ? "strand " + std::to_string(strand) + ", " : std::string()) + "step " +
         std::to_string(steps_done + 1) + time;
}

void check_solves(const StepCounters& counts, long steps_done, double dt, long strand) {
  const long failures = counts["solver_failures"];
  if (!(failures > 0)) return;
  // A model whose iterations may stop unconverged counts those steps as failed unless its
  // settings accept them (Cosserat's solver.accept_unconverged), and says so.
  const long unconverged = counts.has("unconverged_failures") ? counts["unconverged_failures"] : 0;
  if (unconverged > 0)
    throw RunFailure(strand_step_location(strand, steps_done, dt),
                     "Newton did not converge within solver.newton_max_iterations on " +
                         std::to_string(unconverged) +
                         " strand step(s) (motion the step cannot follow; "
                         "solver.accept_unconverged keeps such steps and counts them)");
  throw RunFailure(strand_step_location(strand, steps_done, dt),
                   "the solve failed on " + std::to_string(failures) +
                       " strand step(s) after its retries (a non-finite state?)");
}

}  // namespace hairsim::engine
