#pragma once
// Super-Helices on the generic batched simulator (engine/batched_simulator.hpp) and the pieces
// its simulators share: the model's settings, the reference rods of a setup (each strand fitted
// by helical elements), the head's state the kernels take, and how strands are loaded.
#include <vector>

#include "engine/host_batch.hpp"
#include "engine/reduced_rod_settings.hpp"
#include "engine/simulator.hpp"
#include "reference/super_helix/super_helix_rod.hpp"
#include "super_helix/helix_batch.hpp"

namespace hairsim::models {

// solver.* of a hairstyle scene with "model": "super_helix" (docs/scenes.md): the reduced models'
// settings, 16 helical elements a strand by default.
struct SuperHelixSettings : engine::ReducedRodSettings {
  SuperHelixSettings() { elements = 16; }
};

// One reference rod per strand of the setup: the strand fitted by `elements` equal helical
// elements (super_helix::fit_polyline: element after element, then all together, least squares
// on the strand's points), its clamp carried by the head; the twist free. At rest on its fit,
// or, when the setup asks for sag-free rest shapes, with the rest curvatures that hold the fit
// under gravity (super_helix::hold_shape). `measures`: the fit's largest point distance
// (fit_max_error_m, m) and the sag-free solve's (engine/sag_free.hpp).
std::vector<super_helix::SuperHelix> helix_rods(const engine::HairSetup& setup,
                                                engine::SetupMeasures* measures = nullptr);

// Where the `vertices` output points of a rod sit: at equal arc lengths from its root, each as
// its element and the abscissa in it (the kernels' samples and the reference simulator's).
struct SamplePlace {
  int element = 0;
  double u = 0;  // m
};
std::vector<SamplePlace> sample_places(const super_helix::SuperHelix& rod, int vertices);

// Strand s of a batch from its reference rod; `vertices` output points at equal arc lengths.
template <class T>
void load_strand(const engine::HostBatch<kernels::super_helix::HelixBatch<T>>& batch, int s,
                 const super_helix::SuperHelix& rod);

template <class T>
class SuperHelixEngine {
 public:
  using Batch = kernels::super_helix::HelixBatch<T>;
  // One strand per tile on the host: each strand's arrays contiguous (as Cosserat's, whose step
  // also walks ~100 values per element or vertex).
  static constexpr int kHostTileWidth = 1;

  SuperHelixEngine(const engine::HairSetup& setup, engine::Precision);
  typename Batch::Arrays layout(int strand_count, int vertex_count, int tile_width) const;
  void load(engine::HostBatch<Batch>& batch, const engine::HairSetup& setup) const;
  // What load() measured making the rods (Simulator::setup_measures).
  engine::SetupMeasures setup_measures() const { return measures_; }
  // The step from t: the head at t + dt, the wind's clock.
  const typename Batch::Parameters& parameters(double t);

 private:
  typename Batch::Parameters input_;
  ClampMotion head_;
  double dt_;
  int elements_;
  mutable engine::SetupMeasures measures_;  // set by load(), which fits the strands
};

}  // namespace hairsim::models
