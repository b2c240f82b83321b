// Model "super_helix" in the model table (engine/model.hpp).
#include "models/super_helix/super_helix_model.hpp"

#include "hairsim/error.hpp"
#include "reference/super_helix/super_helix_scene.hpp"

namespace hairsim::models {
namespace {

// A single rod (or tree) on the reference backend.
class SuperHelixRodScene final : public engine::RodScene {
 public:
  SuperHelixRodScene(const nlohmann::json& doc, const std::filesystem::path& dir)
      : scene_(super_helix::parse_super_helix_scene(doc, dir)) {}
  scene::SceneRun run() override { return super_helix::run_super_helix_scene(scene_); }
  StrandSet final_strands() const override { return super_helix::rod_strands(scene_); }

 private:
  super_helix::SuperHelixScene scene_;
};

}  // namespace

engine::Model super_helix_model() {
  engine::Model m;
  m.name = "super_helix";
  m.description = "linear-time Super-Helices (Bertails 2009)";
  m.integrators = {engine::Integrator::implicit};  // semi-implicit Euler ([BAC*06])
  m.backends = {};                                 // single-rod scenes only, so far
  m.parse_settings = [](scene::JsonReader solver) -> std::shared_ptr<const engine::ModelSettings> {
    solver.finish();
    return std::make_shared<engine::ModelSettings>();
  };
  m.make_simulator = [](const engine::HairSetup&, engine::Backend,
                        engine::Precision) -> std::unique_ptr<engine::Simulator> {
    throw Error("model", "'super_helix' simulates single-rod scenes only, so far");
  };
  m.bench_columns = {};
  m.bench_values = [](const engine::HairSetup&, engine::Backend, const engine::StepCounters&,
                      double) { return std::vector<engine::BenchColumn>{}; };
  m.parse_rod_scene = [](const nlohmann::json& doc,
                         const std::filesystem::path& dir) -> std::unique_ptr<engine::RodScene> {
    return std::make_unique<SuperHelixRodScene>(doc, dir);
  };
  return m;
}

}  // namespace hairsim::models
