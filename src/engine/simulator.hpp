#pragma once
// The engine's side of the simulator API (include/hairsim/simulator.hpp): its public types under
// hairsim::engine, and what the engine, the model table and the models' bindings share.
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/colliders.hpp"
#include "common/wind.hpp"
#include "hairsim/simulator.hpp"

namespace hairsim::engine {

using hairsim::Backend;
using hairsim::HairRest;
using hairsim::HairSetup;
using hairsim::Integrator;
using hairsim::Interaction;
using hairsim::InteractionStats;
using hairsim::ModelSettings;
using hairsim::parse_backend;
using hairsim::parse_precision;
using hairsim::Precision;
using hairsim::Simulator;
using hairsim::SimulatorOptions;
using hairsim::StepCounters;
using hairsim::to_string;

static_assert(hairsim::kMaxColliders == kernels::kMaxColliders);

// The kernels' form of a collider, of every collider of a setup, and of the wind (its gust modes
// drawn by kernels::make_gusts). A mesh collider points at its grid's samples: keep the grids
// alive (mesh_grids) as long as the kernels' colliders are used.
kernels::Collider<double> kernel_collider(const Collider& c);
std::vector<kernels::Collider<double>> kernel_colliders(const HairSetup& setup);
std::vector<std::shared_ptr<const SignedDistanceGrid>> mesh_grids(const HairSetup& setup);
kernels::WindField<double> kernel_wind(const Wind& wind);

// A collider in precision T (a mesh's grid keeps pointing at the same float samples).
template <class T>
kernels::Collider<T> convert_collider(const kernels::Collider<double>& from);

// Throws RunFailure if the counters show a failed solve, naming the strand (-1: not known), the
// step that failed (steps_done + 1, counted from 1) and the time it started from.
void check_solves(const StepCounters& counts, long steps_done, double dt, long strand);
// "strand 12, step 7 (t = 0.006 s)": where a step of a strand failed.
std::string strand_step_location(long strand, long steps_done, double dt);

std::string cpu_description(int threads);

// The shortest edge of any strand (m), and the symplectic stability limit of a rod there,
// 0.1 h² √(ρS/EI) (docs/models/der.md): the default symplectic step.
double shortest_rest_edge(const StrandSet& strands);
double explicit_step_limit(const StrandSet& strands, const RodMaterial& material);

// The first edge of zero length (coincident points) as {strand, edge}, if any.
std::optional<std::pair<std::size_t, std::size_t>> coincident_points(const StrandSet& strands);
// Whether a material's stiffnesses and density are positive finite numbers (a radius of 1e300 m
// gives infinities).
bool finite_material(const RodMaterial& material);

// Moves every vertex from the third on that lies inside a collider (head frame, t = 0) to the
// collider's surface, so that the groom's rest shape is free of the head: scanned hair often
// dips into a template head mesh. Returns how many vertices moved (a vertex deeper than a mesh
// grid's band where its distances have no gradient stays).
std::size_t push_out_of_colliders(StrandSet& strands, const std::vector<Collider>& colliders);

[[noreturn]] void throw_settings_mismatch();

struct Model;
// What a simulator's saved state belongs to (Simulator::save_state's trailer): model, backend,
// precision, strand and vertex counts and the model's settings as its summary states them.
nlohmann::json setup_signature(const Model& model, const HairSetup& setup,
                               const SimulatorOptions& options, Simulator& sim);
// The first field where a saved state's signature differs from a simulator's, as
// "strands 21 in the state, 20 in this simulator"; "" when none does.
std::string signature_difference(const nlohmann::json& saved, const nlohmann::json& now);

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

// What making the strands measured, by name (Simulator::setup_measures; summary.json "setup"):
// a reduced model's fit error ("fit_max_error_m": the largest distance of a strand point from
// the elements fitted to its strand, m), the sag-free rest shapes' solve (engine/sag_free.hpp).
using SetupMeasures = std::vector<std::pair<std::string, double>>;

// A batched engine's setup measures (Simulator::setup_measures), none when it has no
// setup_measures().
template <class Engine>
std::vector<std::pair<std::string, double>> engine_setup_measures(const Engine& engine) {
  if constexpr (requires { engine.setup_measures(); })
    return engine.setup_measures();
  else
    return {};
}

}  // namespace hairsim::engine
