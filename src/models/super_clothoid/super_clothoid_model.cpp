// Model "super_clothoid" in the model table (engine/model.hpp): single-rod scenes on the
// reference, hairstyles on the reference (a rod per strand) and on the batched kernels (cpu,
// cuda).
#include "models/super_clothoid/super_clothoid_model.hpp"

#include <array>
#include <memory>

#include "engine/batched_simulator.hpp"
#include "engine/rod_reference_simulator.hpp"
#include "models/super_clothoid/super_clothoid_engine.hpp"
#include "models/super_clothoid/super_clothoid_rods.hpp"
#include "reference/super_clothoid/super_clothoid_scene.hpp"

namespace hairsim::models {
namespace {

using engine::HairSetup;

// What the model does not take yet, refused naming the scene's field (exit 2).
void check_supported(const HairSetup& setup) {
  if (setup.head.twist_rate != 0 || setup.head.twist_amplitude != 0)
    throw Error("head.motion", "model 'super_clothoid' takes no twist of the head");
}

// A hairstyle on the reference: one ClothoidRod per strand, the output points at equal arc
// lengths.
struct ClothoidRods {
  using Rod = super_clothoid::ClothoidRod;
  // The kernels' series stop at kMaxTerms terms; the reference's grow until they converge.
  static constexpr std::array<const char*, 1> kNeverOnReference = {"truncated_series"};
  static int step(Rod& rod, double dt) { return super_clothoid::step(rod, dt).contacts; }
  static void save(engine::StateWriter& w, const Rod& rod) {
    w.values(rod.shape.node_curvature), w.values(rod.curvature_rate), w.value(rod.time);
  }
  static void restore(engine::StateReader& in, Rod& rod) {
    in.values(rod.shape.node_curvature), in.values(rod.curvature_rate), in.value(rod.time);
    super_clothoid::place_root(rod);
  }
  static void sample(const Rod& rod, int vertices, bool velocity, std::vector<Vec3>& out) {
    for (const super_clothoid::PointMotion& p :
         super_clothoid::point_motions(rod, sample_arcs(rod, vertices)))
      out.push_back(velocity ? p.v : p.x);
  }
};

std::unique_ptr<engine::Simulator> make_simulator(const HairSetup& setup, engine::Backend backend,
                                                  engine::Precision precision) {
  check_supported(setup);
  if (backend == engine::Backend::reference)
    return engine::make_fitted_reference<ClothoidRods>(setup, clothoid_rods);
  return engine::make_batched_simulator<SuperClothoidEngine>(setup, backend, precision);
}

// solver.*: the reduced models' settings (engine/reduced_rod_settings.hpp).
std::shared_ptr<const engine::ModelSettings> parse_settings(scene::JsonReader s) {
  auto out = std::make_shared<SuperClothoidSettings>();
  engine::parse_reduced_rod_settings(s, *out, super_clothoid::kMaxFitElements, 16);
  return out;
}

nlohmann::json summary(const HairSetup& setup, const engine::SimulatorOptions&,
                       const engine::StepCounters& c, double strand_steps) {
  return engine::reduced_rod_summary(engine::settings_of<SuperClothoidSettings>(setup), c,
                                     strand_steps);
}

}  // namespace

engine::Model super_clothoid_model() {
  using Scene = engine::ReferenceRodScene<super_clothoid::SuperClothoidScene,
                                          super_clothoid::run_super_clothoid_scene,
                                          super_clothoid::rod_strands>;
  engine::Model m = engine::single_rod_model(
      "super_clothoid", "Super Space Clothoids (Casati & Bertails-Descoubes 2013)",
      {engine::Integrator::implicit},  // semi-implicit Euler, the elastic terms implicit (§7.2)
      [](const nlohmann::json& doc, const std::filesystem::path& dir) {
        return std::make_unique<Scene>(super_clothoid::parse_super_clothoid_scene(doc, dir));
      });
  m.backends = {engine::Backend::reference, engine::Backend::cpu, engine::Backend::cuda};
  m.parse_settings = parse_settings;
  m.make_simulator = make_simulator;
  m.check_settings = [](const engine::ModelSettings& s, engine::Backend backend) {
    engine::check_reduced_rod_backend(static_cast<const SuperClothoidSettings&>(s), backend);
    if (backend != engine::Backend::reference)
      check_kernel_settings(static_cast<const SuperClothoidSettings&>(s));
  };
  m.summary = summary;
  // Parity comparisons (the generic tests) with 8 elements a strand: the case the parity bounds
  // were measured on, at half the cost of the hairstyles' 16 (both backends fit the same).
  m.parity_settings = [] {
    auto s = std::make_shared<SuperClothoidSettings>();
    s->elements = 8;
    return std::shared_ptr<const engine::ModelSettings>(s);
  };
  m.held_vertices = 1;           // the output's first point is the clamp's
  m.inextensible_edges = false;  // the points sample the centreline; its chords bend
  m.bench_columns = {"contact"};
  m.bench_values = engine::reduced_rod_bench_values;
  return m;
}

}  // namespace hairsim::models
