// The model table: one entry per rod model (engine/model.hpp). A new model adds its folders and
// one line here (docs/architecture.md, "Adding a model").
#include "engine/model.hpp"
#include "hairsim/error.hpp"
#include "models/cosserat/cosserat_model.hpp"
#include "models/der/der_model.hpp"
#include "models/super_clothoid/super_clothoid_model.hpp"
#include "models/super_helix/super_helix_model.hpp"

namespace hairsim::engine {

const std::vector<Model>& models() {
  static const std::vector<Model> table = {
      models::der_model(),
      models::cosserat_model(),
      models::super_helix_model(),
      models::super_clothoid_model(),
  };
  return table;
}

Model single_rod_model(const std::string& name, const std::string& description,
                       std::vector<Integrator> integrators,
                       std::function<std::unique_ptr<RodScene>(const nlohmann::json& document,
                                                               const std::filesystem::path& dir)>
                           parse_rod_scene) {
  Model m;
  m.name = name;
  m.description = description;
  m.integrators = std::move(integrators);
  m.backends = {};  // single-rod scenes only, so far
  m.parse_settings = [](scene::JsonReader solver) -> std::shared_ptr<const ModelSettings> {
    solver.finish();
    return std::make_shared<ModelSettings>();
  };
  m.make_simulator = [name](const HairSetup&, Backend, Precision) -> std::unique_ptr<Simulator> {
    throw Error("model", "'" + name + "' simulates single-rod scenes only, so far");
  };
  m.bench_columns = {};
  m.bench_values = [](const HairSetup&, Backend, const StepCounters&, double) {
    return std::vector<BenchColumn>{};
  };
  m.parse_rod_scene = std::move(parse_rod_scene);
  return m;
}

std::string model_names() {
  std::string names;
  for (const Model& m : models()) names += (names.empty() ? "" : ", ") + m.name;
  return names;
}

bool steps_with(const Model& model, const std::string& name) {
  for (const Integrator i : model.integrators)
    if (to_string(i) == name) return true;
  return false;
}

bool runs_on(const Model& model, Backend backend) {
  for (const Backend b : model.backends)
    if (b == backend) return true;
  return false;
}

std::string backend_names(const Model& model) {
  std::string names;
  for (const Backend b : model.backends) names += (names.empty() ? "" : ", ") + to_string(b);
  return names.empty() ? "none (single-rod scenes only, so far)" : names;
}

std::string integrator_names(const Model& model) {
  std::string names;
  for (const Integrator i : model.integrators)
    names += (names.empty() ? "'" : " or '") + to_string(i) + "'";
  return names;
}

std::string default_model() {
  return models().front().name;
}

const Model& find_model(const std::string& name, const std::string& where) {
  for (const Model& m : models())
    if (m.name == name) return m;
  throw Error(where, "unknown model '" + name + "' (available: " + model_names() + ")");
}

std::unique_ptr<RodScene> parse_rod_scene(const nlohmann::json& document,
                                          const std::filesystem::path& dir) {
  const std::string name = scene::JsonReader(document, "").string("model", default_model());
  const Model& model = find_model(name);
  // A scene is a hairstyle (`hair`) or a single rod (`rod`): one with neither (`{}`, a strand
  // file's JSON, a misspelt key) is told what a scene needs, not the first field a rod lacks.
  if (!document.contains("rod"))
    throw Error("scene",
                "needs 'hair' (a hairstyle: a strand file or a generated style) or "
                "'rod' (a single rod); see docs/scenes.md");
  return model.parse_rod_scene(document, dir);
}

}  // namespace hairsim::engine
