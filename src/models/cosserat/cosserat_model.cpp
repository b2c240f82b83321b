// Model "cosserat" in the model table (engine/model.hpp).
#include "models/cosserat/cosserat_model.hpp"

#include "engine/batched_simulator.hpp"
#include "engine/state_io.hpp"
#include "models/cosserat/cosserat_engine.hpp"
#include "reference/cosserat/cosserat_scene.hpp"

namespace hairsim::models {
namespace {

using engine::HairSetup;

// One reference CosseratRod per strand, stepped one after the other (colliders by its active
// set, App. B).
class CosseratReferenceSimulator final : public engine::Simulator {
 public:
  explicit CosseratReferenceSimulator(const HairSetup& setup)
      : Simulator(int(setup.strands.strand_count()), int(setup.strands.strand_size(0)), setup.dt),
        rods_(cosserat_rods(setup, &measures_)),
        settings_(solver_settings(setup)),
        accept_unconverged_(engine::settings_of<CosseratSettings>(setup).accept_unconverged),
        meshes_(engine::mesh_grids(setup)) {}

  void step() override {
    for (std::size_t k = 0; k < rods_.size(); ++k) {
      const cosserat::StepReport r = cosserat::step(rods_[k], dt(), settings_);
      counts_[0] += r.newton_iterations;
      counts_[1] += r.pcg_iterations;
      counts_[2] += r.pcg_solves;
      counts_[4] += r.active_contacts;
      counts_[6] += r.stopped_at_cap ? 1 : 0;
      if (r.stopped_at_cap && !accept_unconverged_) {  // as the kernels: the run stops naming it
        counts_[3] += 1, counts_[7] += 1;
        engine::check_solves(counts(), steps_, dt(), long(k));
      }
    }
    ++steps_;
  }
  engine::StepCounters counts() override {
    return engine::batch_counters<kernels::cosserat::CosseratBatch<double>>(counts_);
  }
  void positions(std::vector<Vec3>& out) override {
    out.clear();
    for (const cosserat::CosseratRod& rod : rods_) {
      const std::vector<cosserat::Vec3> x = cosserat::vertices(rod);
      out.insert(out.end(), x.begin(), x.end());
    }
  }
  void velocities(std::vector<Vec3>& out) override {
    out.clear();
    for (const cosserat::CosseratRod& rod : rods_)
      out.insert(out.end(), rod.velocity.begin(), rod.velocity.end());
  }
  std::string device() const override { return engine::cpu_description(1); }
  engine::SetupMeasures setup_measures() const override { return measures_; }

 protected:
  // What a step changes: the configuration, velocities, the clock, the active set and its
  // multipliers (the next step's warm start and normal forces); the rest is the setup's.
  void save_model_state(std::string& out) override {
    engine::StateWriter w(out);
    w.value(counts_);
    for (const cosserat::CosseratRod& rod : rods_) {
      w.bytes(rod.s.data(), std::size_t(rod.s.size()) * sizeof(double));
      w.values(rod.velocity), w.values(rod.angular_velocity), w.value(rod.time);
      w.values(rod.active), w.values(rod.contact_force);
    }
  }
  void restore_model_state(std::string_view state) override {
    engine::StateReader in(state);
    in.value(counts_);
    for (cosserat::CosseratRod& rod : rods_) {
      in.bytes(rod.s.data(), std::size_t(rod.s.size()) * sizeof(double));
      in.values(rod.velocity), in.values(rod.angular_velocity), in.value(rod.time);
      in.resized_values(rod.active), in.resized_values(rod.contact_force);
    }
    if (!in.done()) throw Error("checkpoint", "the saved state does not fit this simulator");
  }

 private:
  engine::SetupMeasures measures_;  // what making the rods measured (before rods_)
  std::vector<cosserat::CosseratRod> rods_;
  cosserat::SolverSettings settings_;
  bool accept_unconverged_;
  std::vector<std::shared_ptr<const SignedDistanceGrid>> meshes_;  // the colliders' grids
  long counts_[kernels::cosserat::CosseratBatch<double>::kCounters] = {};
};

std::unique_ptr<engine::Simulator> make_simulator(const HairSetup& setup, engine::Backend backend,
                                                  engine::Precision precision) {
  if (backend == engine::Backend::reference)
    return std::make_unique<CosseratReferenceSimulator>(setup);
  return engine::make_batched_simulator<CosseratEngine>(setup, backend, precision);
}

// solver.*: the inexact Newton and PCG of docs/models/cosserat.md, the kernels' penalty and
// friction's smoothing. Defaults: CosseratSettings'.
std::shared_ptr<const engine::ModelSettings> parse_settings(scene::JsonReader s) {
  auto out = std::make_shared<CosseratSettings>();
  out->newton_tolerance =
      s.number("newton_tolerance", 0.0, ">= 0 (0: the default)", scene::non_negative);
  out->newton_max_iterations =
      s.integer("newton_max_iterations", out->newton_max_iterations, 1, 1000);
  out->pcg_relative_tolerance =
      s.number("pcg_relative_tolerance", out->pcg_relative_tolerance, "> 0", scene::positive);
  out->contact_ratio =
      s.number("contact_ratio", 0.0, ">= 0 (0: the precision's default)", scene::non_negative);
  out->bending_strain = cosserat::parse_bending_strain(s.string("bending_strain", "tangent"),
                                                       s.path_of("bending_strain"));
  out->stick_speed = s.number("stick_speed", out->stick_speed, "> 0", scene::positive);
  const std::string hessian = s.string("hessian", "projected_newton");
  if (hessian != "projected_newton" && hessian != "gauss_newton")
    throw Error(s.path_of("hessian"),
                "must be 'projected_newton' or 'gauss_newton' (got '" + hessian + "')");
  out->chain_curvature = hessian == "projected_newton";
  out->preconditioner = cosserat::parse_preconditioner(s.string("preconditioner", "exact"),
                                                       s.path_of("preconditioner"));
  out->max_substep_halvings = s.integer("max_substep_halvings", out->max_substep_halvings, 0, 6);
  out->accept_unconverged = s.boolean("accept_unconverged", out->accept_unconverged);
  if (s.has("contact_margin"))
    out->contact_margin = s.number("contact_margin", 0.0, ">= 0", scene::non_negative);
  s.finish();
  return out;
}

// summary.json's "solver": Newton and PCG work, the settings that shape contacts.
nlohmann::json summary(const HairSetup& setup, const engine::SimulatorOptions& options,
                       const engine::StepCounters& c, double strand_steps) {
  const CosseratSettings& settings = engine::settings_of<CosseratSettings>(setup);
  const double solves = double(c["pcg_solves"]);
  return {
      {"newton_iterations_per_strand_step",
       strand_steps > 0 ? double(c["newton_iterations"]) / strand_steps : 0.0},
      {"pcg_iterations_per_solve", solves > 0 ? double(c["pcg_iterations"]) / solves : 0.0},
      {"failures", c["solver_failures"]},
      // Strand steps Newton did not converge in and the kernels redid in substeps.
      {"retried_step_fraction", strand_steps > 0 ? double(c["retried_steps"]) / strand_steps : 0.0},
      // Strand steps whose Newton stopped at newton_max_iterations without meeting its
      // tolerance: 0 unless solver.accept_unconverged kept them (else the first stops the run).
      {"unconverged_steps", c["unconverged_steps"]},
      {"accept_unconverged", settings.accept_unconverged},
      {"bending_strain", cosserat::to_string(settings.bending_strain)},
      {"hessian", settings.chain_curvature ? "projected_newton" : "gauss_newton"},
      {"preconditioner", cosserat::to_string(settings.preconditioner)},
      {"stick_speed_m_per_s", settings.stick_speed},
      // The kernels' penalty starts this far outside the colliders (0 on the reference).
      {"contact_margin_m",
       options.backend == engine::Backend::reference
           ? 0.0
           : contact_margin(setup, options.precision == engine::Precision::float32)}};
}

// Newton iterations per strand and step, PCG iterations per solve, contacts per strand and step
// (the reference's active set or the kernels' penalty contacts).
std::vector<engine::BenchColumn> bench_values(const HairSetup&, engine::Backend,
                                              const engine::StepCounters& c, double strand_steps) {
  const double solves = double(c["pcg_solves"]);
  return {{"newton_iterations", double(c["newton_iterations"]) / strand_steps},
          {"pcg_iterations_per_solve", solves > 0 ? double(c["pcg_iterations"]) / solves : 0.0},
          {"contacts", double(c["contacts"]) / strand_steps}};
}

// A single rod on the reference backend.
class CosseratRodScene final : public engine::RodScene {
 public:
  CosseratRodScene(const nlohmann::json& doc, const std::filesystem::path& dir)
      : scene_(cosserat::parse_cosserat_scene(doc, dir)) {}
  scene::SceneRun run() override { return cosserat::run_cosserat_scene(scene_); }
  StrandSet final_strands() const override { return cosserat::rod_strands(scene_.rod); }

 private:
  cosserat::CosseratScene scene_;
};

}  // namespace

engine::Model cosserat_model() {
  engine::Model m;
  m.name = "cosserat";
  m.description = "compact inextensible Cosserat rods (Zhao et al. 2022)";
  m.integrators = {engine::Integrator::implicit};
  m.backends = {engine::Backend::reference, engine::Backend::cpu, engine::Backend::cuda};
  m.parse_settings = parse_settings;
  m.make_simulator = make_simulator;
  m.summary = summary;
  // PCG to 1e-10 of its starting residual: with the default 1e-2 the inexact solves of these
  // condition-1e7 systems carry round-off differences between the two implementations on
  // (2.4e-5 L after 200 steps; docs/models/cosserat.md).
  m.parity_settings = [] {
    auto s = std::make_shared<CosseratSettings>();
    s->pcg_relative_tolerance = 1e-10;
    return std::shared_ptr<const engine::ModelSettings>(s);
  };
  m.bench_columns = {"newton", "pcg", "contact"};
  m.bench_values = bench_values;
  m.parse_rod_scene = [](const nlohmann::json& doc,
                         const std::filesystem::path& dir) -> std::unique_ptr<engine::RodScene> {
    return std::make_unique<CosseratRodScene>(doc, dir);
  };
  return m;
}

}  // namespace hairsim::models
