// Model "der" in the model table (engine/model.hpp).
#include "models/der/der_model.hpp"

#include <cmath>
#include <limits>

#include "engine/batched_simulator.hpp"
#include "engine/state_io.hpp"
#include "models/der/der_engine.hpp"
#include "models/der/der_rod_engine.hpp"
#include "reference/der/der_implicit.hpp"
#include "reference/der/der_scene.hpp"

namespace hairsim::models {
namespace {

using engine::HairSetup;

// One DynamicRod per strand, stepped one after the other by the reference integrators, with the
// tolerances the double kernels use (the same convergence on both sides). Counts projection
// iterations only.
class DerReferenceSimulator final : public engine::Simulator {
 public:
  explicit DerReferenceSimulator(const HairSetup& setup)
      : Simulator(int(setup.strands.strand_count()), int(setup.strands.strand_size(0)), setup.dt),
        meshes_(engine::mesh_grids(setup)),
        implicit_(setup.integrator == engine::Integrator::implicit) {
    const kernels::der::DerStepParameters<double> p =
        step_parameters<double>(setup, engine::Precision::float64);
    length_tolerance_ = p.length_tolerance;
    const std::vector<kernels::Collider<double>> colliders = engine::kernel_colliders(setup);
    const kernels::WindField<double> wind = engine::kernel_wind(setup.wind);
    rods_ = der_rods(setup, &measures_);
    for (der::DynamicRod& rod : rods_) {
      der::clamp_end(rod, false, setup.head);
      rod.collider_motion = setup.head;
      rod.colliders = colliders;
      rod.gravity = setup.gravity;
      rod.damping = setup.damping;
      rod.drag_normal = setup.drag_normal;
      rod.drag_tangent = setup.drag_tangent;
      rod.wind = wind;
      rod.twist_tolerance = p.twist_tolerance;
    }
  }

  void step() override {
    for (der::DynamicRod& rod : rods_)
      if (implicit_)
        projection_iterations_ +=
            der::step_linearly_implicit(rod, dt(), length_tolerance_,
                                        der::LengthConstraint::beyond_tolerance)
                .projection_iterations;
      else
        projection_iterations_ += der::step_symplectic(rod, dt(), length_tolerance_).iterations;
    ++steps_;
  }
  engine::StepCounters counts() override {
    const long values[] = {projection_iterations_, 0, 0, 0};
    return engine::batch_counters<kernels::der::DerBatch<double>>(values);
  }
  void positions(std::vector<Vec3>& out) override {
    out.clear();
    for (const der::DynamicRod& rod : rods_)
      out.insert(out.end(), rod.state.x.begin(), rod.state.x.end());
  }
  void velocities(std::vector<Vec3>& out) override {
    out.clear();
    for (const der::DynamicRod& rod : rods_)
      out.insert(out.end(), rod.velocity.begin(), rod.velocity.end());
  }
  std::string device() const override { return engine::cpu_description(1); }
  engine::SetupMeasures setup_measures() const override { return measures_; }

 protected:
  // What a step changes: the centerline, θ, u⁰, velocities, the clock, the twist boundary's
  // torque (set each step); the rest is the setup's.
  void save_model_state(std::string& out) override {
    engine::StateWriter w(out);
    w.value(projection_iterations_);
    for (const der::DynamicRod& rod : rods_) {
      w.values(rod.state.x), w.values(rod.state.theta), w.value(rod.state.u0);
      w.values(rod.velocity), w.value(rod.time), w.value(rod.twist.last_torque);
    }
  }
  void restore_model_state(std::string_view state) override {
    engine::StateReader in(state);
    in.value(projection_iterations_);
    for (der::DynamicRod& rod : rods_) {
      in.values(rod.state.x), in.values(rod.state.theta), in.value(rod.state.u0);
      in.values(rod.velocity), in.value(rod.time), in.value(rod.twist.last_torque);
    }
    if (!in.done()) throw Error("checkpoint", "the saved state does not fit this simulator");
  }

 private:
  std::vector<der::DynamicRod> rods_;
  engine::SetupMeasures measures_;                                 // what making the rods measured
  std::vector<std::shared_ptr<const SignedDistanceGrid>> meshes_;  // the colliders' grids
  bool implicit_;
  double length_tolerance_ = 0;
  long projection_iterations_ = 0;
};

std::unique_ptr<engine::Simulator> make_simulator(const HairSetup& setup, engine::Backend backend,
                                                  engine::Precision precision) {
  if (backend == engine::Backend::reference) return std::make_unique<DerReferenceSimulator>(setup);
  return engine::make_batched_simulator<DerEngine>(setup, backend, precision);
}

std::shared_ptr<const engine::ModelSettings> parse_settings(scene::JsonReader solver) {
  auto s = std::make_shared<DerSettings>();
  s->relative_length_tolerance = solver.number(
      "relative_length_tolerance", 0.0, ">= 0 (0: the precision's default)", scene::non_negative);
  s->relative_twist_tolerance = solver.number(
      "relative_twist_tolerance", 0.0, ">= 0 (0: the precision's default)", scene::non_negative);
  solver.finish();
  return s;
}

// Means per strand and step; NaN where the backend does not count it (printed "-"): the
// twist and contacts not on the reference.
std::vector<engine::BenchColumn> bench_values(const HairSetup&, engine::Backend backend,
                                              const engine::StepCounters& c, double strand_steps) {
  const double none = std::numeric_limits<double>::quiet_NaN();
  const bool batched = backend != engine::Backend::reference;
  return {{"projection_iterations", double(c["projection_iterations"]) / strand_steps},
          {"twist_iterations", batched ? double(c["twist_iterations"]) / strand_steps : none},
          {"contacts", batched ? double(c["contacts"]) / strand_steps : none}};
}

// A single-rod scene on the reference or the batched engine (its "backend").
class DerRodScene final : public engine::RodScene {
 public:
  explicit DerRodScene(const nlohmann::json& doc) : scene_(der::parse_der_scene(doc)) {}
  scene::SceneRun run() override {
    return scene_.backend == "reference" ? der::run_der_scene(scene_)
                                         : run_der_scene_batched(scene_);
  }
  StrandSet final_strands() const override { return der::rod_strands(scene_.rod); }

 private:
  der::DerScene scene_;
};

}  // namespace

engine::Model der_model() {
  engine::Model m;
  m.name = "der";
  m.description = "Discrete Elastic Rods (Bergou et al. 2008)";
  m.integrators = {engine::Integrator::implicit, engine::Integrator::symplectic};
  m.backends = {engine::Backend::reference, engine::Backend::cpu, engine::Backend::cuda};
  m.parse_settings = parse_settings;
  m.make_simulator = make_simulator;
  // Lengths projected to float's default tolerance, 3e-5 of the shortest edge, on every
  // backend: the implicit step projects where its stiff stretching left an edge off by more
  // (a strain limit), so the reference in double must use the same trigger as float's kernels
  // for the two to run one algorithm. With the reference at 1e-12, float's projection stopping
  // at 3e-5 carried 9e-3 L apart over 2,300 sliding contacts (double: round-off either way).
  m.parity_settings = [] {
    auto s = std::make_shared<DerSettings>();
    s->relative_length_tolerance = 3e-5;
    return std::shared_ptr<const engine::ModelSettings>(s);
  };
  m.bench_columns = {"proj", "twist", "contact"};
  m.bench_values = bench_values;
  m.parse_rod_scene = [](const nlohmann::json& doc,
                         const std::filesystem::path&) -> std::unique_ptr<engine::RodScene> {
    return std::make_unique<DerRodScene>(doc);
  };
  return m;
}

}  // namespace hairsim::models
