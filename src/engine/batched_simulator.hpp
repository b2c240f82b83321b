#pragma once
// The generic batched simulator: any model's per-strand kernels behind the simulator API, on the
// cpu backend (host_batch.hpp's executor) or the cuda backend (cuda_simulator.hpp). A model
// supplies an engine type, Engine<T> for T = float, double (src/models/<model>/):
//
//   using Batch = ...;                      // its batch traits (kernels/common/batch_layout.hpp)
//   static constexpr int kHostTileWidth;    // strands per tile on the host (by measurement)
//   Engine(const HairSetup&, Precision);    // what its steps need, kept by value
//   typename Batch::Arrays layout(int strands, int vertices, int tile_width) const;
//   void load(HostBatch<Batch>&, const HairSetup&) const;  // every strand at rest
//   typename Batch::Parameters parameters(double t);       // the step from time t
//   // optional: what load() measured (Simulator::setup_measures)
//   std::vector<std::pair<std::string, double>> setup_measures() const;
#include <omp.h>

#include <chrono>
#include <memory>

#include "engine/host_batch.hpp"
#include "engine/interaction_stage.hpp"
#include "engine/simulator.hpp"
#ifdef HAIRSIM_HAVE_CUDA
#include "engine/cuda_simulator.hpp"
#endif

namespace hairsim::engine {

// The counters of a batch as the API reports them.
template <class Batch>
StepCounters batch_counters(const long (&values)[Batch::kCounters]) {
  StepCounters c;
  for (int k = 0; k < Batch::kCounters; ++k) {
    c.names.emplace_back(Batch::kCounterNames[k]);
    c.values.push_back(values[k]);
  }
  return c;
}

// The kernels on the host: OpenMP over tiles of strands, as many threads as a step's work is
// worth (engine/threads.hpp). A strand's rows on one lane (the cpu backend), or, for a model on
// lanes, on `Lanes` run as a loop (HostStrandStep): the cuda backend's warp algorithms through
// the whole simulator on a machine without a GPU, as the parity tests run them.
template <class Engine, int Lanes = 1>
class HostSimulator final : public Simulator {
 public:
  using Batch = typename Engine::Batch;

  HostSimulator(const HairSetup& setup, Precision precision)
      : Simulator(int(setup.strands.strand_count()), int(setup.strands.strand_size(0)), setup.dt),
        grids_(mesh_grids(setup)),
        engine_(setup, precision),
        batch_(engine_.layout(strands(), vertices(), Engine::kHostTileWidth)),
        interaction_(setup.interaction) {
    engine_.load(batch_, setup);
    if (interaction_.enabled) {
      stats_.target_density = double(stage_.mean_density(points(), cell()));
      settings_ = interaction_settings<Scalar>(interaction_, setup.dt, stats_.target_density);
    }
  }

  // The strands' steps, then (when on) the interaction stage between them and the next.
  void step() override {
    using Clock = std::chrono::steady_clock;
    const Clock::time_point start = Clock::now();
    const int failed = step_on_host<Batch, HostStrandStep<Batch, Lanes>>(
        batch_.arrays(), engine_.parameters(time()), totals_, team_);
    check_solves(counts(), steps_, dt(), failed);
    if (interaction_.enabled) {
      const Clock::time_point strands_done = Clock::now();
      stage_.run(points(), settings_, cell());
      const Clock::time_point stage_done = Clock::now();
      stats_.strand_seconds += std::chrono::duration<double>(strands_done - start).count();
      stats_.stage_seconds += std::chrono::duration<double>(stage_done - strands_done).count();
      stats_.occupied_cells = stage_.occupied_cells();
      stats_.mean_occupied_cells +=
          (double(stats_.occupied_cells) - stats_.mean_occupied_cells) / double(++stats_.steps);
    }
    ++steps_;
  }
  InteractionStats interaction_stats() const override { return stats_; }
  std::vector<std::pair<std::string, double>> setup_measures() const override {
    return engine_setup_measures(engine_);
  }
  // The stage's grid of the last step (tests, the density slice).
  const HostInteraction<typename Batch::Scalar>& interaction_stage() const { return stage_; }
  StepCounters counts() override { return batch_counters<Batch>(totals_); }
  void positions(std::vector<Vec3>& out) override {
    batch_.gather(Batch::positions(batch_.arrays()), out);
  }
  void velocities(std::vector<Vec3>& out) override {
    batch_.gather(Batch::velocities(batch_.arrays()), out);
  }
  std::string device() const override {
    const std::string cpu = cpu_description(omp_get_max_threads());
    return Lanes > 1 ? cpu + ", " + std::to_string(Lanes) + " lanes a strand" : cpu;
  }

 protected:
  void save_model_state(std::string& out) override {
    StateWriter w(out);
    w.value(totals_);
    batch_.save(w);
  }
  void restore_model_state(std::string_view state) override {
    StateReader in(state);
    in.value(totals_);
    batch_.restore(in);
    if (!in.done()) throw Error("checkpoint", "the saved state does not fit this simulator");
  }

 private:
  using Scalar = typename Batch::Scalar;
  kernels::interaction::Points<Scalar> points() const {
    return interaction_points<Batch>(batch_.arrays());
  }
  Scalar cell() const { return Scalar(interaction_.cell_size); }

  std::vector<std::shared_ptr<const SignedDistanceGrid>> grids_;  // mesh colliders' samples
  Engine engine_;
  HostBatch<Batch> batch_;
  long totals_[Batch::kCounters] = {};
  HostTeam team_;  // the steps' threads, by their measured work
  Interaction interaction_;
  HostInteraction<Scalar> stage_;
  kernels::interaction::Settings<Scalar> settings_;
  InteractionStats stats_;
};

// A model's cpu or cuda simulator in float or double.
template <template <class> class Engine>
std::unique_ptr<Simulator> make_batched_simulator(const HairSetup& setup, Backend backend,
                                                  Precision precision) {
  const bool single = precision == Precision::float32;
  switch (backend) {
    case Backend::cpu:
      if (single) return std::make_unique<HostSimulator<Engine<float>>>(setup, precision);
      return std::make_unique<HostSimulator<Engine<double>>>(setup, precision);
    case Backend::cuda:
#ifdef HAIRSIM_HAVE_CUDA
      require_cuda_device();
      if (single) return std::make_unique<CudaSimulator<Engine<float>>>(setup, precision);
      return std::make_unique<CudaSimulator<Engine<double>>>(setup, precision);
#else
      throw RunFailure("backend 'cuda'", "hairsim was built without CUDA");
#endif
    case Backend::reference:
      break;
  }
  throw Error("backend", "the batched engine runs the cpu and cuda backends");
}

}  // namespace hairsim::engine
