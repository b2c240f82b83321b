#pragma once
// The cuda backend of the generic batched simulator (batched_simulator.hpp), for any model: the
// batch lives on the device, every step is one launch on the simulator's own stream
// (kernels/cuda/batched_step.cuh: a strand per thread, or per tile of lanes), mesh colliders'
// distance grids are uploaded once, and nothing comes back unless asked: positions or velocities
// through pinned memory (only the arrays holding them), counters from a device accumulator. Built
// with CUDA only.
#include <array>
#include <chrono>
#include <map>
#include <vector>

#include "cuda/batched_step.hpp"
#include "cuda/cuda_api.hpp"
#include "cuda/device_batch.hpp"
#include "cuda/stream.hpp"
#include "engine/cuda_interaction.hpp"
#include "engine/host_batch.hpp"
#include "engine/simulator.hpp"

namespace hairsim::engine {

// Throws RunFailure without a device.
void require_cuda_device();

// The lanes a strand steps on, for a model whose batch steps one on `model_lanes` lanes: those,
// or 1 (a thread per strand, the same source) when the environment says HAIRSIM_CUDA_LANES=1,
// to compare the two on a device (docs/gpu.md). Any other value is bad input (hairsim::Error
// naming the variable).
int cuda_lanes(int model_lanes);

template <class Batch>
StepCounters batch_counters(const long (&values)[Batch::kCounters]);

template <class Engine>
class CudaSimulator final : public Simulator {
 public:
  using Batch = typename Engine::Batch;
  using Scalar = typename Batch::Scalar;

  CudaSimulator(const HairSetup& setup, Precision precision)
      : Simulator(int(setup.strands.strand_count()), int(setup.strands.strand_size(0)), setup.dt),
        lanes_(cuda_lanes(kernels::kCudaLanesOf<Batch>)),
        tile_width_(kernels::cuda_tile_width(lanes_)),
        engine_(setup, precision),
        host_(engine_.layout(strands(), vertices(), tile_width_)),
        device_((engine_.load(host_, setup), host_.arrays())),
        counts_(Batch::kCounters),
        first_failure_(1),
        readback_(field_size(Batch::positions(host_.arrays()))),
        interaction_(setup.interaction) {
    if (interaction_.enabled) {  // ρ₀ of the groom at rest, on the host
      HostInteraction<Scalar> rest;
      stats_.target_density = double(rest.mean_density(interaction_points<Batch>(host_.arrays()),
                                                       Scalar(interaction_.cell_size)));
      settings_ = interaction_settings<Scalar>(interaction_, setup.dt, stats_.target_density);
    }
    counts_.zero_async(stream_.get());
    first_failure_.fill_bytes_async(0xff, stream_.get());  // cuda::kNoFailure
    // Mesh colliders: their distance samples go to the device once; each step's parameters
    // are pointed at them there.
    for (const kernels::Collider<double>& c : kernel_colliders(setup)) {
      const float* samples = c.sdf.values;
      if (!samples || grids_.count(samples)) continue;
      cuda::DeviceBuffer<float>& grid = grids_[samples];
      grid = cuda::DeviceBuffer<float>(std::size_t(c.sdf.count()));
      grid.upload(samples);
    }
  }

  void step() override {
    typename Batch::Parameters p = engine_.parameters(time());
    int count = 0;
    kernels::Collider<Scalar>* colliders = Batch::colliders(p, count);
    for (int c = 0; c < count; ++c)
      if (colliders[c].sdf.values)
        colliders[c].sdf.values = grids_.at(colliders[c].sdf.values).data();
    using Clock = std::chrono::steady_clock;
    const Clock::time_point start = Clock::now();
    cuda::launch_step<Batch>(device_.arrays(), p, counts_.data(), stream_.get(),
                             first_failure_.data(), steps_, lanes_);
    if (interaction_.enabled) {  // synchronises each step (the stage's times and its grid's size)
      stream_.synchronize();
      const Clock::time_point strands_done = Clock::now();
      stats_.occupied_cells = stage_.run(interaction_points<Batch>(device_.arrays()), settings_,
                                         Scalar(interaction_.cell_size), stream_.get(), true);
      const Clock::time_point stage_done = Clock::now();
      stats_.strand_seconds += std::chrono::duration<double>(strands_done - start).count();
      stats_.stage_seconds += std::chrono::duration<double>(stage_done - strands_done).count();
      stats_.mean_occupied_cells +=
          (double(stats_.occupied_cells) - stats_.mean_occupied_cells) / double(++stats_.steps);
    }
    ++steps_;
  }
  InteractionStats interaction_stats() const override { return stats_; }
  std::vector<std::pair<std::string, double>> setup_measures() const override {
    return engine_setup_measures(engine_);
  }

  // Synchronises. A failed solve since the last call is thrown here, naming the earliest step
  // and its lowest strand that failed (the steps run ahead of the host).
  StepCounters counts() override {
    unsigned long long failure = cuda::kNoFailure;
    const StepCounters total = download_counts(failure);
    if (failure != cuda::kNoFailure)
      check_solves(total, long(failure >> 32), dt(), long(failure & 0xffffffffull));
    return total;
  }
  StepCounters counts_so_far() override {
    unsigned long long failure = cuda::kNoFailure;
    return download_counts(failure);
  }

  void positions(std::vector<Vec3>& out) override {
    gather(Batch::positions(device_.arrays()), out);
  }
  void velocities(std::vector<Vec3>& out) override {
    gather(Batch::velocities(device_.arrays()), out);
  }
  // The device and how a strand runs on it (bench rows tell the two executions apart).
  std::string device() const override {
    return cuda::device_name() + (lanes_ > 1 ? ", a strand per " + std::to_string(lanes_) + " lanes"
                                             : std::string(", a thread per strand"));
  }

 protected:
  // Through the host batch the device batch was uploaded from; the lanes first (they set the
  // arrays' layout).
  void save_model_state(std::string& out) override {
    StateWriter w(out);
    w.value(lanes_);
    w.value(counts().values.size());  // synchronises; throws on a failed solve
    std::array<unsigned long long, Batch::kCounters> c{};
    counts_.download(c.data());
    w.value(c);
    device_.download_all();
    host_.save(w);
  }
  void restore_model_state(std::string_view state) override {
    StateReader in(state);
    if (const int saved = in.value<int>(); saved != lanes_)
      throw Error("checkpoint", "saved with a strand on " + std::to_string(saved) +
                                    " lane(s) (HAIRSIM_CUDA_LANES), this simulator steps one on " +
                                    std::to_string(lanes_));
    if (in.value<std::size_t>() != std::size_t(Batch::kCounters))
      throw Error("checkpoint", "the saved state does not fit this simulator");
    std::array<unsigned long long, Batch::kCounters> c{};
    in.value(c);
    host_.restore(in);
    if (!in.done()) throw Error("checkpoint", "the saved state does not fit this simulator");
    stream_.synchronize();
    counts_.upload(c.data());
    first_failure_.fill_bytes_async(0xff, stream_.get());
    device_.upload_all();
    stream_.synchronize();
  }

 private:
  // The counters and the first failure (step << 32 | strand, or kNoFailure); synchronises.
  StepCounters download_counts(unsigned long long& failure) {
    std::array<unsigned long long, Batch::kCounters> c{};
    counts_.download_async(c.data(), stream_.get());
    first_failure_.download_async(&failure, stream_.get());
    stream_.synchronize();
    long values[Batch::kCounters];
    for (int k = 0; k < Batch::kCounters; ++k) values[k] = long(c[k]);
    return batch_counters<Batch>(values);
  }
  std::size_t padded() const { return std::size_t(host_.arrays().tile_count()) * tile_width_; }
  // Values of the arrays holding a field: one array, or three.
  std::size_t field_size(const kernels::VertexVectors<Scalar>& f) const {
    return (f.interleaved() ? 1 : 3) * std::size_t(f.rows) * padded();
  }

  // A vector field of the device batch through the pinned buffer, strand after strand (waits
  // for the steps launched before).
  void gather(const kernels::VertexVectors<Scalar>& f, std::vector<Vec3>& out) {
    const std::size_t array = std::size_t(f.rows) * padded();
    const int arrays = f.interleaved() ? 1 : 3;
    for (int k = 0; k < arrays; ++k)
      HS_CUDA_CHECK(cudaMemcpyAsync(readback_.data() + k * array, f.array[k],
                                    array * sizeof(Scalar), cudaMemcpyDeviceToHost, stream_.get()));
    stream_.synchronize();
    out.resize(std::size_t(strands()) * vertices());
    const Scalar* values = readback_.data();
    for (int s = 0; s < strands(); ++s)
      for (int i = 0; i < vertices(); ++i) {
        Vec3& v = out[std::size_t(s) * vertices() + i];
        for (int c = 0; c < 3; ++c)
          v[c] = double(values[(arrays == 1 ? 0 : c * array) +
                               kernels::tiled_index(f.row(i, c), s, f.rows, tile_width_)]);
      }
  }

  // Lanes a strand steps on (the batch's kCudaLanes, or 1: HAIRSIM_CUDA_LANES) and the layout's
  // tile width for them: a warp's loads coalesce either way (kernels/common/batch_layout.hpp).
  const int lanes_, tile_width_;
  Engine engine_;
  HostBatch<Batch> host_;  // the initial state, uploaded once
  cuda::DeviceBatch<Batch> device_;
  cuda::Stream stream_;
  cuda::DeviceBuffer<unsigned long long> counts_;
  cuda::DeviceBuffer<unsigned long long> first_failure_;  // cuda::failure_key of the earliest
  cuda::PinnedBuffer<Scalar> readback_;
  std::map<const float*, cuda::DeviceBuffer<float>> grids_;  // host samples -> device copy
  Interaction interaction_;
  CudaInteraction<Scalar> stage_;
  kernels::interaction::Settings<Scalar> settings_;
  InteractionStats stats_;
};

}  // namespace hairsim::engine
