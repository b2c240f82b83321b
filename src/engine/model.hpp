#pragma once
// The model table: everything the CLI, hairstyle scenes, single-rod scenes and `hairsim bench`
// need to know of a rod model, so that none of them names one. A model registers one entry in
// src/engine/models.cpp; its code lives in its own folders (docs/architecture.md, "Adding a
// model").
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/simulator.hpp"
#include "scene/json_reader.hpp"
#include "scene/rod_scene.hpp"

namespace hairsim::engine {

// A single-rod scene of a model, parsed and checked, ready to run (`hairsim run` on a scene
// without "hair").
class RodScene {
 public:
  virtual ~RodScene() = default;
  // Runs it; throws RunFailure naming the step on a non-finite state.
  virtual scene::SceneRun run() = 0;
  // The rod's centerline now, as a one-strand set (for --final).
  virtual StrandSet final_strands() const = 0;
};

// One of a model's columns of `hairsim bench`: its key in the JSON rows and its value.
struct BenchColumn {
  std::string key;
  double value = 0;
};

struct Model {
  std::string name;                     // as scenes, --model and SimulatorOptions spell it
  std::string description;              // one line: the paper
  std::vector<Integrator> integrators;  // those it steps with; the first is the default
  // The backends its hairstyle simulator runs on (empty: single-rod scenes only, so far).
  std::vector<Backend> backends;
  // A hairstyle scene's "solver" object (an empty one when absent) as the model's settings.
  std::function<std::shared_ptr<const ModelSettings>(scene::JsonReader solver)> parse_settings;
  // What a backend cannot do of the settings (a kernel's fixed storage): Error naming the
  // solver field, when a scene is parsed (so the message names the scene file) rather than when
  // the simulator is made. Null: every backend of the model takes any settings parse_settings
  // accepts.
  std::function<void(const ModelSettings&, Backend)> check_settings;
  // A simulator of a checked setup (Simulator::create checks what is common to every model).
  std::function<std::unique_ptr<Simulator>(const HairSetup&, Backend, Precision)> make_simulator;
  // The model's own fields of a hairstyle run's summary.json (null: none).
  std::function<nlohmann::json(const HairSetup&, const SimulatorOptions&, const StepCounters&,
                               double strand_steps)>
      summary;
  // Its columns of `hairsim bench`: short headers for the table, in the order of bench_values'
  // keys (means of its work counters per strand and step, NaN where a backend does not count).
  std::vector<std::string> bench_columns;
  std::function<std::vector<BenchColumn>(const HairSetup&, Backend, const StepCounters&,
                                         double strand_steps)>
      bench_values;
  // What a hairstyle run may check of its output points (hair.vertices per strand): how many
  // from the root the head holds (root drift is measured on them, penetration past them), and
  // whether their edges keep their length (the stretch measure and the guard's max_strain; a
  // reduced model's points sample an inextensible centreline, whose chords shorten as it bends).
  int held_vertices = 2;
  bool inextensible_edges = true;
  // Settings under which the batched backends converge to round-off of the reference, for the
  // parity tests (null: the defaults do).
  std::function<std::shared_ptr<const ModelSettings>()> parity_settings;
  // A single-rod scene document with this "model" (Error naming the field when bad).
  std::function<std::unique_ptr<RodScene>(const nlohmann::json& document,
                                          const std::filesystem::path& dir)>
      parse_rod_scene;
};

// A model whose scenes run on its reference alone (single-rod scenes; no hairstyle simulator
// yet): its table entry around `parse_rod_scene`. Hairstyle scenes naming it exit 2 (`model`).
Model single_rod_model(const std::string& name, const std::string& description,
                       std::vector<Integrator> integrators,
                       std::function<std::unique_ptr<RodScene>(const nlohmann::json& document,
                                                               const std::filesystem::path& dir)>
                           parse_rod_scene);

// A reference's single-rod scene as a RodScene: its parsed Scene, run by `run`, drawn by
// `strands`.
template <class Scene, scene::SceneRun (*Run)(Scene&), StrandSet (*Strands)(const Scene&)>
class ReferenceRodScene final : public RodScene {
 public:
  explicit ReferenceRodScene(Scene parsed) : scene_(std::move(parsed)) {}
  scene::SceneRun run() override { return Run(scene_); }
  StrandSet final_strands() const override { return Strands(scene_); }

 private:
  Scene scene_;
};

// Whether `model` steps with the integrator named `name` ("implicit", "symplectic"), and its
// integrators' names for messages ("'implicit' or 'symplectic'").
bool steps_with(const Model& model, const std::string& name);
// Whether `model` simulates hairstyles on `backend`; its backends' names for messages.
bool runs_on(const Model& model, Backend backend);
std::string backend_names(const Model& model);
std::string integrator_names(const Model& model);

// Every registered model, in the order of the table.
const std::vector<Model>& models();
// The model called `name`; throws Error(where, ...) listing the models otherwise.
const Model& find_model(const std::string& name, const std::string& where = "model");
// The table's names, comma-separated, for help texts and errors.
std::string model_names();
// The first model of the table: what a scene without "model" runs.
std::string default_model();
// A single-rod scene document (`hairsim run` on a scene without "hair") parsed by the model its
// "model" names (default: the table's first); Error naming the field when bad.
std::unique_ptr<RodScene> parse_rod_scene(const nlohmann::json& document,
                                          const std::filesystem::path& dir);

}  // namespace hairsim::engine
