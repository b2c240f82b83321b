// Model "super_helix" in the model table (engine/model.hpp): single-rod scenes on the reference,
// hairstyles on the reference (a rod per strand) and on the batched kernels (cpu, cuda).
#include "models/super_helix/super_helix_model.hpp"

#include <Eigen/Geometry>

#include "engine/batched_simulator.hpp"
#include "engine/rod_reference_simulator.hpp"
#include "models/super_helix/super_helix_engine.hpp"
#include "reference/super_helix/super_helix_scene.hpp"

namespace hairsim::models {
namespace {

using engine::HairSetup;

// What the kernels do not take yet, refused naming the scene's field (exit 2).
void check_supported(const HairSetup& setup) {
  if (setup.head.twist_rate != 0 || setup.head.twist_amplitude != 0)
    throw Error("head.motion", "model 'super_helix' takes no twist of the head");
}

// A hairstyle on the reference: one SuperHelix per strand (the recursive method), the output
// points at the kernels' arc lengths (sample_places).
struct HelixRods {
  using Rod = super_helix::SuperHelix;
  static int step(Rod& rod, double dt) {
    return super_helix::step(rod, dt, super_helix::Method::recursive).contacts;
  }
  static void save(engine::StateWriter& w, const Rod& rod) {
    w.values(rod.curvature), w.values(rod.curvature_rate), w.value(rod.time);
  }
  static void restore(engine::StateReader& in, Rod& rod) {
    in.values(rod.curvature), in.values(rod.curvature_rate), in.value(rod.time);
  }
  static void sample(const Rod& rod, int vertices, bool velocity, std::vector<Vec3>& out) {
    const super_helix::RootState root = super_helix::root_state(rod, rod.time);
    const std::vector<super_helix::ElementStart> starts = super_helix::element_starts(rod, root);
    for (const SamplePlace& at : sample_places(rod, vertices)) {
      const std::size_t q = std::size_t(at.element);
      const super_helix::ElementPoint e =
          super_helix::element_point(rod.curvature[q], rod.curvature_rate[q], at.u);
      const super_helix::ElementStart& s = starts[q];
      const Vec3 d = s.frame * e.p;
      out.push_back(velocity ? Vec3(s.velocity + s.angular_velocity.cross(d) +
                                    s.frame * (e.P * rod.curvature_rate[q]))
                             : Vec3(s.point + d));
    }
  }
};

std::unique_ptr<engine::Simulator> make_simulator(const HairSetup& setup, engine::Backend backend,
                                                  engine::Precision precision) {
  check_supported(setup);
  if (backend == engine::Backend::reference)
    return engine::make_fitted_reference<HelixRods>(setup, helix_rods);
  return engine::make_batched_simulator<SuperHelixEngine>(setup, backend, precision);
}

// solver.*: the reduced models' settings (engine/reduced_rod_settings.hpp).
std::shared_ptr<const engine::ModelSettings> parse_settings(scene::JsonReader s) {
  auto out = std::make_shared<SuperHelixSettings>();
  engine::parse_reduced_rod_settings(s, *out, super_helix::kMaxFitElements,
                                     kernels::super_helix::kMaxQuadrature);
  return out;
}

nlohmann::json summary(const HairSetup& setup, const engine::SimulatorOptions&,
                       const engine::StepCounters& c, double strand_steps) {
  return engine::reduced_rod_summary(engine::settings_of<SuperHelixSettings>(setup), c,
                                     strand_steps);
}

}  // namespace

engine::Model super_helix_model() {
  using Scene =
      engine::ReferenceRodScene<super_helix::SuperHelixScene, super_helix::run_super_helix_scene,
                                super_helix::rod_strands>;
  engine::Model m = engine::single_rod_model(
      "super_helix", "linear-time Super-Helices (Bertails 2009)",
      {engine::Integrator::implicit},  // semi-implicit Euler ([BAC*06])
      [](const nlohmann::json& doc, const std::filesystem::path& dir) {
        return std::make_unique<Scene>(super_helix::parse_super_helix_scene(doc, dir));
      });
  m.backends = {engine::Backend::reference, engine::Backend::cpu, engine::Backend::cuda};
  m.parse_settings = parse_settings;
  m.make_simulator = make_simulator;
  m.check_settings = [](const engine::ModelSettings& s, engine::Backend backend) {
    engine::check_reduced_rod_backend(static_cast<const SuperHelixSettings&>(s), backend);
  };
  m.summary = summary;
  m.held_vertices = 1;           // the output's first point is the clamp's
  m.inextensible_edges = false;  // the points sample the centreline; its chords bend
  m.bench_columns = {"contact"};
  m.bench_values = engine::reduced_rod_bench_values;
  return m;
}

}  // namespace hairsim::models
