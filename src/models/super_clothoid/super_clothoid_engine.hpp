#pragma once
// Super Space Clothoids on the generic batched simulator (engine/batched_simulator.hpp): the
// kernels' engine (kernels/super_clothoid/), its strands the reference rods of the setup
// (super_clothoid_rods.hpp: each strand fitted by clothoid elements).
#include "engine/host_batch.hpp"
#include "engine/simulator.hpp"
#include "super_clothoid/clothoid_batch.hpp"

namespace hairsim::models {

struct SuperClothoidSettings;
// What the kernels' fixed storage takes of the settings (solver.elements, solver.quadrature):
// Error naming the field otherwise. The engine checks it when made; the model table's
// check_settings, when a scene for the cpu or cuda backend is parsed.
void check_kernel_settings(const SuperClothoidSettings& settings);

template <class T>
class SuperClothoidEngine {
 public:
  using Batch = kernels::super_clothoid::ClothoidBatch<T>;
  // One strand per tile on the host: each strand's arrays contiguous.
  static constexpr int kHostTileWidth = 1;

  SuperClothoidEngine(const engine::HairSetup& setup, engine::Precision);
  typename Batch::Arrays layout(int strand_count, int vertex_count, int tile_width) const;
  void load(engine::HostBatch<Batch>& batch, const engine::HairSetup& setup) const;
  // What load() measured making the rods (Simulator::setup_measures).
  engine::SetupMeasures setup_measures() const { return measures_; }
  // The step from t: the head at t + dt.
  const typename Batch::Parameters& parameters(double t);

 private:
  typename Batch::Parameters input_;
  ClampMotion head_;
  double dt_;
  int elements_;
  mutable engine::SetupMeasures measures_;  // set by load(), which fits the strands
};

}  // namespace hairsim::models
