// The cuda backend of the simulator API: the batch lives on the device, every step is one launch
// on the simulator's own stream (kernels/cuda/der_kernels.cu: one thread per strand), and
// nothing comes back unless asked: positions through pinned memory, counts from a device
// accumulator. Built only with CUDA.
#include <array>
#include <vector>

#include "cuda/cosserat_device_batch.hpp"
#include "cuda/cuda_api.hpp"
#include "cuda/der_device_batch.hpp"
#include "cuda/stream.hpp"
#include "engine/cosserat_host_batch.hpp"
#include "engine/cosserat_simulator.hpp"
#include "engine/der_host_batch.hpp"
#include "engine/simulator.hpp"
#include "hairsim/error.hpp"

namespace hairsim::engine {
namespace {

template <class T>
class CudaSimulator final : public Simulator {
 public:
  CudaSimulator(const HairSetup& setup, int vertices, Precision precision)
      : Simulator(int(setup.strands.strand_count()), vertices, setup.dt),
        host_(int(setup.strands.strand_count()), vertices, 32, setup.integrator),
        parameters_(step_parameters<T>(setup, precision)),
        head_(setup.head),
        device_((
            load_strands(host_, setup.strands,
                         [&](std::size_t s) -> const RodMaterial& { return setup.material_of(s); }),
            host_.arrays())),
        counts_(cuda::kStepCountFields),
        readback_(3 * std::size_t(vertices) * host_.arrays().tile_count() *
                  host_.arrays().tile_width) {
    counts_.zero_async(stream_.get());
    // Mesh colliders: their distance grids go to the device once; the step reads them there.
    for (int c = 0; c < parameters_.collider_count; ++c) {
      kernels::SdfGrid<T>& grid = parameters_.colliders[c].sdf;
      if (!grid.values) continue;
      grids_.emplace_back(std::size_t(grid.count()));
      grids_.back().upload(grid.values);
      grid.values = grids_.back().data();
    }
  }

  void step() override {
    set_head_poses(parameters_, head_, time());
    cuda::der_step(device_.arrays(), parameters_, counts_.data(), stream_.get());
    ++steps_;
  }

  StepCounts counts() override {
    std::array<unsigned long long, cuda::kStepCountFields> c{};
    counts_.download_async(c.data(), stream_.get());
    stream_.synchronize();
    StepCounts total;
    total += kernels::der::StepCounts{long(c[0]), long(c[1]), long(c[2]), long(c[3])};
    check_solves(total, steps_);
    return total;
  }

  void positions(std::vector<der::Vec3>& out) override { gather(device_.arrays().position, out); }
  void velocities(std::vector<der::Vec3>& out) override { gather(device_.arrays().velocity, out); }

  std::string device() const override { return cuda::device_name(); }

 private:
  // A per-vertex vector array of the device batch, through the pinned buffer, strand after
  // strand (waits for the steps launched before).
  void gather(T* const (&device_array)[3], std::vector<der::Vec3>& out) {
    const std::size_t array = readback_.size() / 3;
    for (int k = 0; k < 3; ++k)
      HS_CUDA_CHECK(cudaMemcpyAsync(readback_.data() + k * array, device_array[k],
                                    array * sizeof(T), cudaMemcpyDeviceToHost, stream_.get()));
    stream_.synchronize();
    out.resize(std::size_t(strands()) * vertices());
    for (int s = 0; s < strands(); ++s)
      for (int i = 0; i < vertices(); ++i) {
        const std::size_t at = host_.vertex_index(i, s);
        out[std::size_t(s) * vertices() + i] = {double(readback_.data()[at]),
                                                double(readback_.data()[array + at]),
                                                double(readback_.data()[2 * array + at])};
      }
  }

  DerHostBatch<T> host_;  // the initial state, uploaded once; the index map of the layout
  kernels::der::DerStepParameters<T> parameters_;
  der::ClampMotion head_;
  cuda::DerDeviceBatch<T> device_;
  cuda::Stream stream_;
  cuda::DeviceBuffer<unsigned long long> counts_;
  cuda::PinnedBuffer<T> readback_;
  std::vector<cuda::DeviceBuffer<float>>
      grids_;  // mesh colliders' distance samples  // one per-vertex vector array, tiled
};

// Model "cosserat": the batch on the device, one launch per step on the simulator's stream.
template <class T>
class CosseratCudaSimulator final : public Simulator {
 public:
  CosseratCudaSimulator(const HairSetup& setup, int vertices)
      : Simulator(int(setup.strands.strand_count()), vertices, setup.dt),
        host_(int(setup.strands.strand_count()), vertices),
        settings_(kernel_settings(cosserat_settings(setup))),
        head_(setup.head),
        setup_(setup),
        device_((load(setup), host_.arrays())),
        counts_(cuda::kCosseratCountFields) {
    counts_.zero_async(stream_.get());
  }

  void step() override {
    cuda::cosserat_step(device_.arrays(), T(dt()), cosserat_loads<T>(setup_, time()), settings_,
                        counts_.data(), stream_.get());
    ++steps_;
  }
  StepCounts counts() override {
    std::array<unsigned long long, cuda::kCosseratCountFields> c{};
    counts_.download_async(c.data(), stream_.get());
    stream_.synchronize();
    StepCounts total;
    total.newton_iterations = long(c[0]);
    total.pcg_iterations = long(c[1]);
    total.pcg_solves = long(c[2]);
    total.solver_failures = long(c[3]);
    total.contacts = long(c[4]);
    check_solves(total, steps_);
    return total;
  }
  // Every array back (positions and velocities are two of them): simple, and only on request.
  void positions(std::vector<der::Vec3>& out) override { gather(true, out); }
  void velocities(std::vector<der::Vec3>& out) override { gather(false, out); }
  std::string device() const override { return cuda::device_name(); }

 private:
  void load(const HairSetup& setup) {
    const std::vector<cosserat::CosseratRod> rods = cosserat_rods(setup);
    for (int s = 0; s < strands(); ++s) host_.load(s, rods[std::size_t(s)]);
  }
  void gather(bool positions, std::vector<der::Vec3>& out) {
    stream_.synchronize();
    device_.download_all();
    out.resize(std::size_t(strands()) * vertices());
    for (int s = 0; s < strands(); ++s) {
      const std::vector<cosserat::Vec3> v = positions ? host_.positions(s) : host_.velocities(s);
      std::copy(v.begin(), v.end(), out.begin() + std::ptrdiff_t(s) * vertices());
    }
  }
  CosseratHostBatch<T> host_;  // the initial state, uploaded once; the readback's target
  kernels::cosserat::StepSettings settings_;
  ClampMotion head_;
  HairSetup setup_;  // the loads' source
  cuda::CosseratDeviceBatch<T> device_;
  cuda::Stream stream_;
  cuda::DeviceBuffer<unsigned long long> counts_;
};

}  // namespace

std::unique_ptr<Simulator> make_cuda_simulator(const HairSetup& setup, Precision precision) {
  if (cuda::device_count() == 0)
    throw RunFailure("backend 'cuda'", "no CUDA device present (cudaGetDeviceCount returned 0)");
  const int vertices = int(setup.strands.strand_size(0));
  if (precision == Precision::float32)
    return std::make_unique<CudaSimulator<float>>(setup, vertices, precision);
  return std::make_unique<CudaSimulator<double>>(setup, vertices, precision);
}

}  // namespace hairsim::engine

namespace hairsim::engine {

std::unique_ptr<Simulator> make_cosserat_cuda_simulator(const HairSetup& setup,
                                                        Precision precision) {
  if (cuda::device_count() == 0)
    throw RunFailure("backend 'cuda'", "no CUDA device present (cudaGetDeviceCount returned 0)");
  const int vertices = int(setup.strands.strand_size(0));
  if (precision == Precision::float32)
    return std::make_unique<CosseratCudaSimulator<float>>(setup, vertices);
  return std::make_unique<CosseratCudaSimulator<double>>(setup, vertices);
}

}  // namespace hairsim::engine
