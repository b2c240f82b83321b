#pragma once
// hairsim's simulator API: a hairstyle on a moving head, stepped by any registered rod model on
// any backend. The same setup runs on `reference` (one strand at a time, Eigen, double: the
// yardstick), `cpu` (the model's batched kernels on all host cores) or `cuda` (the same kernels
// on the GPU), so a program switches model and backend freely and can compare them step by step.
// Link the `hairsim_engine` library (docs/architecture.md). Public types only: nothing from the
// kernels or the reference models comes through this header.
//
//   hairsim::HairSetup setup;
//   setup.strands = hairsim::resample(hairsim::read_strands("hair.ply"), 24);
//   setup.colliders.push_back({.shape = hairsim::Collider::Shape::sphere, .radius = 0.09});
//   setup.integrator = hairsim::Integrator::implicit;
//   setup.dt = 1e-3;
//   auto sim = hairsim::Simulator::create(setup, {"der", hairsim::Backend::cpu,
//                                                 hairsim::Precision::float32});
//   std::vector<hairsim::Vec3> x;
//   for (int k = 0; k < 100; ++k) sim->step();
//   sim->positions(x);
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "hairsim/material.hpp"
#include "hairsim/motion.hpp"
#include "hairsim/sdf.hpp"
#include "hairsim/strands.hpp"

namespace hairsim {

// Symplectic Euler with a projection, or an implicit step; each model says which it has.
enum class Integrator { symplectic, implicit };
std::string to_string(Integrator i);

// A collider, in the head's frame (m): the head's motion carries it.
struct Collider {
  enum class Shape { sphere, ellipsoid, capsule, plane, cylinder, mesh };
  Shape shape = Shape::sphere;
  // sphere, ellipsoid: the centre; plane: a point on it; cylinder: a point on its axis
  Vec3 center = Vec3::Zero();
  double radius = 0;               // sphere, capsule, cylinder
  Vec3 radii = Vec3::Zero();       // ellipsoid: semi-axes
  Vec3 from = Vec3::Zero();        // capsule: the axis' first end
  Vec3 to = Vec3::Zero();          // capsule: the axis' second end
  Vec3 direction = Vec3::UnitY();  // plane: unit normal towards the free side; cylinder: unit axis
  std::shared_ptr<const SignedDistanceGrid> mesh;  // mesh: its distances (make_sdf_grid)
  double friction = 0;                             // Coulomb coefficient μ
};

// Colliders per setup at most.
inline constexpr int kMaxColliders = 8;

// The air's velocity: a mean wind plus gusts, travelling sinusoidal modes whose amplitudes share
// the gust strength (docs/architecture.md, "Air drag").
struct Wind {
  Vec3 mean = Vec3::Zero();     // m/s
  double gust_strength = 0;     // m/s, RMS of the fluctuation (0: no gusts)
  double gust_frequency = 0.5;  // Hz
  double gust_size = 0.3;       // m
  int gust_modes = 6;           // 1-8
  std::uint64_t gust_seed = 1;
};

// A model's own settings (solver tolerances, contact parameters), opaque here: make them with
// model_settings() from the fields a hairstyle scene's "solver" object takes (docs/scenes.md).
struct ModelSettings {
  virtual ~ModelSettings() = default;
};

// Hair-hair interaction (docs/architecture.md "Hair-hair interaction", docs/scenes.md
// `interaction`): a stage after each step of every strand that exchanges momentum between the
// strands through a grid: a volume term (a pressure against compression beyond the groom's
// mean density at rest) and friction (each vertex's velocity relaxes towards the hair's around
// it). cpu and cuda backends.
struct Interaction {
  bool enabled = false;
  double cell_size = 0.01;       // m, the grid's spacing
  double friction = 20;          // 1/s, the rate of the blend towards the grid's velocity
  double volume_stiffness = 50;  // 1/s, the rate at which an excess density relaxes (0: none)
  int iterations = 20;           // Jacobi iterations of the pressure (0: no volume term)
};

// The interaction stage's work so far (all zero when it is off).
struct InteractionStats {
  long steps = 0;             // steps it ran
  double stage_seconds = 0;   // wall time in the stage (s)
  double strand_seconds = 0;  // wall time in the per-strand steps of those steps (s)
  long occupied_cells = 0;    // cells holding a vertex, the last step
  double mean_occupied_cells = 0;
  double target_density = 0;  // ρ₀, kg/m³: the groom's mean density at rest
};

// What a strand's rest shape is (docs/architecture.md, "Sag-free rest shapes"):
// `groomed`, its polyline (it sags under gravity from the first step); `sag_free`, the model's
// rest parameters solved so that the polyline, under gravity with the head at rest, is a static
// equilibrium (each model's hold_shape: inverse statics).
enum class HairRest { groomed, sag_free };

// What to simulate, whatever the model and backend. Every strand starts at rest on its own
// polyline, its root clamped to the head; all strands share the vertex count (resample first).
struct HairSetup {
  StrandSet strands;
  HairRest rest = HairRest::groomed;  // hairstyle scenes: sag_free unless "hair.rest" says
  RodMaterial material;               // every strand's, unless strand_materials gives its own
  std::vector<RodMaterial> strand_materials;  // empty, or one per strand
  const RodMaterial& material_of(std::size_t s) const {
    return strand_materials.empty() ? material : strand_materials[s];
  }
  // The head's motion from its pose at t = 0: carries the root clamps and the colliders. Its
  // rotation is about head.center (the origin when unset).
  ClampMotion head;
  std::vector<Collider> colliders;           // head frame, at most kMaxColliders
  Vec3 gravity{0, -9.81, 0};                 // m/s²
  double damping = 0;                        // 1/s, viscous: force -damping m v
  double drag_normal = 0, drag_tangent = 0;  // N s/m², air drag per unit length
  Wind wind;
  Integrator integrator = Integrator::symplectic;
  double dt = 1e-4;         // s
  Interaction interaction;  // off by default
  // The model's own settings (null: its defaults); of the model simulated, else create() throws.
  std::shared_ptr<const ModelSettings> model_settings;
};

// Work counters of a model's step summed over strands and steps, by name: each model has its own
// (Newton and PCG iterations, projection iterations, ...); every model counts "contacts" and
// "solver_failures" (solves that failed: a bug or a non-finite state).
struct StepCounters {
  std::vector<std::string> names;
  std::vector<long> values;
  // The counter `name`; throws Error when the model has none of that name.
  long operator[](std::string_view name) const;
  bool has(std::string_view name) const;
};

enum class Backend { reference, cpu, cuda };
enum class Precision { float32, float64 };

struct SimulatorOptions {
  std::string model;  // a registered model's name (registered_models()); empty: the first
  Backend backend = Backend::cpu;
  Precision precision = Precision::float64;
};

Backend parse_backend(const std::string& name);      // reference, cpu, cuda, auto (cuda if present)
Precision parse_precision(const std::string& name);  // float, double
std::string to_string(Backend b);
std::string to_string(Precision p);
std::string to_string(HairRest r);  // "groomed", "sag_free"

// A registered rod model.
struct ModelInfo {
  std::string name;                     // as SimulatorOptions::model and scenes spell it
  std::string description;              // the paper
  std::vector<Integrator> integrators;  // its steps; the first is its default
  std::vector<Backend> backends;        // where it simulates hairstyles (empty: none yet)
};
std::vector<ModelInfo> registered_models();

// A model's settings from the fields of a hairstyle scene's "solver" object (docs/scenes.md);
// throws Error naming the field ("solver.<field>") on an unknown or bad one.
std::shared_ptr<const ModelSettings> model_settings(const std::string& model,
                                                    const nlohmann::json& solver);

class Simulator {
 public:
  // Throws Error on a setup or option it cannot run (unknown model, float on the reference,
  // strands of different sizes, too many colliders, an integrator the model lacks), RunFailure
  // where the backend is missing (cuda without a device or without CUDA in the build).
  static std::unique_ptr<Simulator> create(const HairSetup& setup, const SimulatorOptions& options);
  virtual ~Simulator() = default;

  // One step of dt (asynchronous on cuda).
  virtual void step() = 0;
  // Counters summed over all strands and steps so far. Throws RunFailure if a solve failed
  // (cpu: at once, from step()).
  virtual StepCounters counts() = 0;
  // The same counters without the throw (what a failed run's summary reports).
  virtual StepCounters counts_so_far() { return counts(); }
  // Every vertex, strand after strand (strand s, vertex i at s * vertices + i), in metres. On
  // cuda this and counts() are the only copies back from the device.
  virtual void positions(std::vector<Vec3>& out) = 0;
  // Every vertex's velocity (m/s), in the same order.
  virtual void velocities(std::vector<Vec3>& out) = 0;
  virtual std::string device() const = 0;  // "CPU model, N threads" or the GPU's name
  // The hair-hair interaction stage's work (zeros when setup.interaction is off).
  virtual InteractionStats interaction_stats() const { return {}; }
  // What setting the strands up measured, by name (none for most models): the reduced models fit
  // elements to each strand, "fit_max_error_m" the largest distance of a strand point from its
  // fit (m).
  virtual std::vector<std::pair<std::string, double>> setup_measures() const { return {}; }

  // Checkpoints: the complete state, bit for bit (every model variable, the step count and the
  // counters), as bytes for this build on this kind of machine. restore_state() on a simulator
  // created from the same setup and options continues exactly as the saved one would have
  // (cpu and reference: the same bits). The state carries the setup it belongs to (model,
  // backend, precision, strand and vertex counts, the model's settings as its summary states
  // them, element counts among them): restore_state() throws Error("state", ...) naming what
  // differs on a state of another setup, and on bytes that are no state of this build.
  std::string save_state();
  void restore_state(const std::string& state);

  int strands() const { return strands_; }
  int vertices() const { return vertices_; }
  double dt() const { return dt_; }
  double time() const { return double(steps_) * dt_; }
  long steps() const { return steps_; }

 protected:
  Simulator(int strands, int vertices, double dt)
      : strands_(strands), vertices_(vertices), dt_(dt) {}
  // The model's and backend's part of save_state / restore_state (the base keeps the steps).
  virtual void save_model_state(std::string& out) = 0;
  virtual void restore_model_state(std::string_view in) = 0;
  long steps_ = 0;

 private:
  int strands_, vertices_;
  double dt_;
  nlohmann::json setup_signature_;  // what a saved state must match (set by create())
};

}  // namespace hairsim
