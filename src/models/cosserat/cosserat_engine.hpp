#pragma once
// Cosserat on the generic batched simulator (engine/batched_simulator.hpp) and the pieces its
// simulators share: the reference rods of a setup, the solver settings, the kernels' loads (the
// colliders by an implicit penalty, kernels::cosserat::Loads) and how strands are loaded.
#include <vector>

#include "cosserat/cosserat_batch.hpp"
#include "engine/simulator.hpp"
#include "models/cosserat/cosserat_host_batch.hpp"
#include "models/cosserat/cosserat_model.hpp"
#include "reference/cosserat/cosserat_dynamics.hpp"
#include "reference/eigen_bridge.hpp"

namespace hairsim::models {

// One reference rod per strand of the setup, root clamped to the head: at rest on its polyline
// or, when the setup asks for sag-free rest shapes, with the rest Darboux vectors that hold it
// under gravity (cosserat::hold_shape). `measures`: the sag-free solve's (engine/sag_free.hpp).
std::vector<cosserat::CosseratRod> cosserat_rods(const engine::HairSetup& setup,
                                                 engine::SetupMeasures* measures = nullptr);
// The solver settings of a setup (the paper's, with CosseratSettings' tolerances).
cosserat::SolverSettings solver_settings(const engine::HairSetup& setup);
// `max_halvings`: the kernels' substep retries (CosseratSettings::max_substep_halvings; the
// reference has none, so 0 steps as it does). `accept_unconverged`: CosseratSettings'.
kernels::cosserat::StepSettings kernel_settings(const cosserat::SolverSettings& s,
                                                int max_halvings = 0,
                                                bool accept_unconverged = false);
// The kernels' penalty stiffness κ in units of a vertex's m/Δt²: CosseratSettings::contact_ratio,
// else 1e4 in double, 300 in float.
double contact_ratio(const engine::HairSetup& setup, bool float_precision);
// How far outside the colliders the kernels' penalty starts (m, Loads::contact_thickness):
// CosseratSettings::contact_margin, else 0 in double and, in float, the depth the penalty lets a
// vertex arriving at 1 m/s reach, (1 m/s Δt + |g| Δt²) / κ (3.4e-6 m at 1 ms, κ = 300), so that
// such a vertex stops outside the surface.
double contact_margin(const engine::HairSetup& setup, bool float_precision);
// The kernels' loads of a setup for the step from time t (the head at t + dt).
template <class T>
kernels::cosserat::Loads<T> cosserat_loads(const engine::HairSetup& setup, double t);

template <class T>
class CosseratEngine {
 public:
  using Batch = kernels::cosserat::CosseratBatch<T>;
  // One strand per tile on the host: each strand's arrays contiguous. Measured at 1000 x 32
  // (double, 2 threads): 68.6 ms per step against 303 ms with tiles of 32 (the layout the GPU
  // wants) and 207 ms with 8; the per-strand step walks ~150 values per vertex.
  static constexpr int kHostTileWidth = 1;

  CosseratEngine(const engine::HairSetup& setup, engine::Precision)
      : input_{T(setup.dt), cosserat_loads<T>(setup, 0.0),
               kernel_settings(solver_settings(setup),
                               engine::settings_of<CosseratSettings>(setup).max_substep_halvings,
                               engine::settings_of<CosseratSettings>(setup).accept_unconverged)},
        head_(setup.head),
        dt_(setup.dt),
        measure_(engine::settings_of<CosseratSettings>(setup).bending_strain) {}

  typename Batch::Arrays layout(int strand_count, int vertex_count, int tile_width) const {
    return engine::CosseratHostBatch<T>::layout(strand_count, vertex_count, tile_width, measure_);
  }
  void load(engine::HostBatch<Batch>& batch, const engine::HairSetup& setup) const {
    const std::vector<cosserat::CosseratRod> rods = cosserat_rods(setup, &measures_);
    for (int s = 0; s < batch.strands(); ++s) engine::load_strand(batch, s, rods[std::size_t(s)]);
  }
  // What load() measured making the rods (Simulator::setup_measures).
  engine::SetupMeasures setup_measures() const { return measures_; }
  // The step from t: the head's poses at its start and end, the wind's clock.
  const typename Batch::Parameters& parameters(double t) {
    input_.loads.time = T(t);
    input_.loads.head = bridge::rigid_pose<T>(head_, t + dt_);
    input_.loads.head_start = bridge::rigid_pose<T>(head_, t);
    return input_;
  }

 private:
  typename Batch::Parameters input_;
  ClampMotion head_;
  mutable engine::SetupMeasures measures_;  // set by load()
  double dt_;
  cosserat::BendingStrain measure_;
};

}  // namespace hairsim::models
