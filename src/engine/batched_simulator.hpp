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
#include <omp.h>

#include <memory>

#include "engine/host_batch.hpp"
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

// The kernels on the host: OpenMP over tiles of strands.
template <class Engine>
class HostSimulator final : public Simulator {
 public:
  using Batch = typename Engine::Batch;

  HostSimulator(const HairSetup& setup, Precision precision)
      : Simulator(int(setup.strands.strand_count()), int(setup.strands.strand_size(0)), setup.dt),
        grids_(mesh_grids(setup)),
        engine_(setup, precision),
        batch_(engine_.layout(strands(), vertices(), Engine::kHostTileWidth)) {
    engine_.load(batch_, setup);
  }

  void step() override {
    const int failed = step_on_host<Batch>(batch_.arrays(), engine_.parameters(time()), totals_);
    check_solves(counts(), steps_, dt(), failed);
    ++steps_;
  }
  StepCounters counts() override { return batch_counters<Batch>(totals_); }
  void positions(std::vector<Vec3>& out) override {
    batch_.gather(Batch::positions(batch_.arrays()), out);
  }
  void velocities(std::vector<Vec3>& out) override {
    batch_.gather(Batch::velocities(batch_.arrays()), out);
  }
  std::string device() const override { return cpu_description(omp_get_max_threads()); }

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
  std::vector<std::shared_ptr<const SignedDistanceGrid>> grids_;  // mesh colliders' samples
  Engine engine_;
  HostBatch<Batch> batch_;
  long totals_[Batch::kCounters] = {};
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
