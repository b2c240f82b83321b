#pragma once
// The simulator API: one hairstyle on a moving head, stepped by any registered model on any
// backend. The same setup runs on `reference` (one strand at a time, Eigen, double: the
// yardstick), `cpu` (the model's batched kernels on all host cores) or `cuda` (the same kernels
// on the GPU), so a scene switches model and backend freely and the tests compare them step for
// step (docs/architecture.md). Models come from the model table (engine/model.hpp).
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/colliders.hpp"
#include "common/wind.hpp"
#include "hairsim/material.hpp"
#include "hairsim/motion.hpp"
#include "hairsim/sdf.hpp"
#include "hairsim/strands.hpp"

namespace hairsim::engine {

// Symplectic Euler with a projection, or an implicit step; each model says which it has.
enum class Integrator { symplectic, implicit };
std::string to_string(Integrator i);

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

// A model's own settings (solver tolerances, contact parameters): each model derives its own,
// parsed from a scene's "solver" object by the model table. Absent: the model's defaults.
struct ModelSettings {
  virtual ~ModelSettings() = default;
};

// What to simulate, whatever the model and backend. Every strand starts at rest on its own
// polyline (a groomed style is at rest), its root clamped to the head; all strands share the
// vertex count (resample first).
struct HairSetup {
  StrandSet strands;
  RodMaterial material;  // every strand's, unless strand_materials gives its own
  std::vector<RodMaterial> strand_materials;  // empty, or one per strand
  const RodMaterial& material_of(std::size_t s) const {
    return strand_materials.empty() ? material : strand_materials[s];
  }
  // The head's motion from its pose at t = 0: carries the root clamps and the colliders. Its
  // rotation is about head.center (the origin when unset).
  ClampMotion head;
  std::vector<kernels::Collider<double>> colliders;  // head frame, at most kMaxColliders
  // The distance grids that mesh colliders point into (kept alive with the setup).
  std::vector<std::shared_ptr<const SignedDistanceGrid>> meshes;
  Vec3 gravity{0, -9.81, 0};                 // m/s²
  double damping = 0;                        // 1/s, viscous: force -damping m v
  double drag_normal = 0, drag_tangent = 0;  // N s/m², air drag per unit length
  kernels::WindField<double> wind;           // mean and gusts
  Integrator integrator = Integrator::symplectic;
  double dt = 1e-4;  // s
  // The model's own settings (null: its defaults); of the model simulated, else create() throws.
  std::shared_ptr<const ModelSettings> model_settings;
};

enum class Backend { reference, cpu, cuda };
enum class Precision { float32, float64 };

struct SimulatorOptions {
  std::string model;  // a name in the model table (engine/model.hpp); empty: its first
  Backend backend = Backend::cpu;
  Precision precision = Precision::float64;
};

Backend parse_backend(const std::string& name);      // reference, cpu, cuda, auto (cuda if present)
Precision parse_precision(const std::string& name);  // float, double
std::string to_string(Backend b);
std::string to_string(Precision p);

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
  // Every vertex, strand after strand (strand s, vertex i at s * vertices + i), in metres. On
  // cuda this and counts() are the only copies back from the device.
  virtual void positions(std::vector<Vec3>& out) = 0;
  // Every vertex's velocity (m/s), in the same order.
  virtual void velocities(std::vector<Vec3>& out) = 0;
  virtual std::string device() const = 0;  // "CPU model, N threads" or the GPU's name

  int strands() const { return strands_; }
  int vertices() const { return vertices_; }
  double dt() const { return dt_; }
  double time() const { return double(steps_) * dt_; }
  long steps() const { return steps_; }

 protected:
  Simulator(int strands, int vertices, double dt)
      : strands_(strands), vertices_(vertices), dt_(dt) {}
  long steps_ = 0;

 private:
  int strands_, vertices_;
  double dt_;
};

// A collider in precision T (a mesh's grid keeps pointing at the same float samples).
template <class T>
kernels::Collider<T> convert_collider(const kernels::Collider<double>& from);

// Throws RunFailure naming the step if the counters show a failed solve.
void check_solves(const StepCounters& counts, long step);

std::string cpu_description(int threads);

// The shortest edge of any strand (m), and the symplectic stability limit of a rod there,
// 0.1 h² √(ρS/EI) (docs/models/der.md): the default symplectic step.
double shortest_rest_edge(const StrandSet& strands);
double explicit_step_limit(const StrandSet& strands, const RodMaterial& material);

// Moves every vertex from the third on that lies inside a collider (head frame, t = 0) to the
// collider's surface, so that the groom's rest shape is free of the head: scanned hair often
// dips into a template head mesh. Returns how many vertices moved (a vertex deeper than a mesh
// grid's band where its distances have no gradient stays).
std::size_t push_out_of_colliders(StrandSet& strands,
                                  const std::vector<kernels::Collider<double>>& colliders);

[[noreturn]] void throw_settings_mismatch();

// A model's settings from a setup: setup.model_settings as Settings, or Settings' defaults when
// there are none; throws Error when they are another model's.
template <class Settings>
const Settings& settings_of(const HairSetup& setup) {
  static const Settings defaults;
  if (!setup.model_settings) return defaults;
  const auto* s = dynamic_cast<const Settings*>(setup.model_settings.get());
  if (!s) throw_settings_mismatch();
  return *s;
}

}  // namespace hairsim::engine
