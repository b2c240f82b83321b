#pragma once
// DER on the generic batched simulator (engine/batched_simulator.hpp): the step parameters of a
// setup and how strands are loaded into the batch.
#include "der/der_batch.hpp"
#include "engine/sag_free.hpp"
#include "engine/simulator.hpp"
#include "models/der/der_host_batch.hpp"
#include "models/der/der_model.hpp"
#include "reference/eigen_bridge.hpp"

namespace hairsim::models {

// The kernels' integrator of the engine's.
inline kernels::der::Integrator der_integrator(engine::Integrator i) {
  return i == engine::Integrator::implicit ? kernels::der::Integrator::implicit
                                           : kernels::der::Integrator::symplectic;
}

// The kernels' step parameters of a setup, all but the head poses (set_head_poses). Tolerances
// relative to the shortest rest edge h: lengths to DerSettings::relative_length_tolerance h, the
// twist gradient to relative_twist_tolerance EI/h, with per-precision defaults.
template <class T>
kernels::der::DerStepParameters<T> step_parameters(const engine::HairSetup& setup,
                                                   engine::Precision precision) {
  const DerSettings& settings = engine::settings_of<DerSettings>(setup);
  const bool single = precision == engine::Precision::float32;
  const double h = engine::shortest_rest_edge(setup.strands);
  const double length = settings.relative_length_tolerance > 0 ? settings.relative_length_tolerance
                        : single                               ? 3e-5
                                                               : 1e-12;
  const double twist = settings.relative_twist_tolerance > 0 ? settings.relative_twist_tolerance
                       : single                              ? 1e-4
                                                             : 1e-8;
  kernels::der::DerStepParameters<T> p;
  p.integrator = der_integrator(setup.integrator);
  p.dt = T(setup.dt);
  p.gravity = {T(setup.gravity.x()), T(setup.gravity.y()), T(setup.gravity.z())};
  p.damping = T(setup.damping);
  p.drag_normal = T(setup.drag_normal);
  p.drag_tangent = T(setup.drag_tangent);
  p.wind = kernels::convert<T>(engine::kernel_wind(setup.wind));
  p.length_tolerance = T(length * h);
  p.twist_tolerance = T(twist * setup.material.bending_stiffness() / h);
  const std::vector<kernels::Collider<double>> colliders = engine::kernel_colliders(setup);
  p.collider_count = int(colliders.size());
  for (int c = 0; c < p.collider_count; ++c)
    p.colliders[c] = engine::convert_collider<T>(colliders[std::size_t(c)]);
  return p;
}

// The head's pose at t and t + dt into p (p.dt): the step from t.
// One rod per strand of a hairstyle at rest on its polyline or, when the setup asks for sag-free
// rest shapes, with the rest curvatures that hold it under gravity (der::hold_shape);
// `measures`: the sag-free solve's (engine/sag_free.hpp). The reference and the kernels start
// from these.
inline std::vector<der::DynamicRod> der_rods(const engine::HairSetup& setup,
                                             engine::SetupMeasures* measures) {
  std::vector<der::DynamicRod> rods = engine::rods_at_rest(
      setup.strands, [&](std::size_t s) -> const RodMaterial& { return setup.material_of(s); });
  engine::hold_groom(
      setup, rods, [&](der::DynamicRod& rod) { return der::hold_shape(rod, setup.gravity); },
      measures);
  return rods;
}

template <class T>
void set_head_poses(kernels::der::DerStepParameters<T>& p, const ClampMotion& head, double t) {
  p.time = T(t);
  p.head_previous = bridge::rigid_pose<T>(head, t);
  p.head = bridge::rigid_pose<T>(head, t + double(p.dt));
}

template <class T>
class DerEngine {
 public:
  using Batch = kernels::der::DerBatch<T>;
  // Tiles of 32 on the host too: a thread's strands share cache lines (docs/architecture.md).
  static constexpr int kHostTileWidth = 32;

  DerEngine(const engine::HairSetup& setup, engine::Precision precision)
      : parameters_(step_parameters<T>(setup, precision)), head_(setup.head) {}

  typename Batch::Arrays layout(int strand_count, int vertex_count, int tile_width) const {
    return engine::DerHostBatch<T>::layout(strand_count, vertex_count, tile_width,
                                           parameters_.integrator);
  }
  void load(engine::HostBatch<Batch>& batch, const engine::HairSetup& setup) const {
    engine::load_strands(batch, der_rods(setup, &measures_));
  }
  // What load() measured making the rods (Simulator::setup_measures).
  engine::SetupMeasures setup_measures() const { return measures_; }
  const typename Batch::Parameters& parameters(double t) {
    set_head_poses(parameters_, head_, t);
    return parameters_;
  }

 private:
  typename Batch::Parameters parameters_;
  ClampMotion head_;
  mutable engine::SetupMeasures measures_;  // set by load()
};

}  // namespace hairsim::models
