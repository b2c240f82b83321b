#include "models/der/der_rod_engine.hpp"

#include <chrono>
#include <cmath>

#include "engine/simulator.hpp"
#include "hairsim/error.hpp"
#include "models/der/der_host_batch.hpp"
#include "reference/eigen_bridge.hpp"
#ifdef HAIRSIM_HAVE_CUDA
#include "cuda/batched_step.hpp"
#include "cuda/cuda_api.hpp"
#include "cuda/device_batch.hpp"
#endif

namespace hairsim::models {

using engine::DerHostBatch;
using Batch = kernels::der::DerBatch<double>;
namespace {

// What the batched engine runs so far: an open rod, clamped root (optionally moving rigidly,
// no twist motion), free tip, dynamics with either integrator, gravity and damping.
void check_supported(const der::DerScene& sc) {
  const der::DynamicRod& r = sc.rod;
  const std::string b = "'" + sc.backend + "' ";
  auto unsupported = [&](const std::string& what) {
    throw Error("backend", b + "does not run " + what + " yet (use backend 'reference')");
  };
  if (r.rest.closed) unsupported("rings");
  if (!r.root_clamp.active) unsupported("a free root");
  if (r.tip_clamp.active) unsupported("a clamped tip");
  if (sc.body) unsupported("bodies");
  if (sc.static_mode) unsupported("static mode");
  if (!r.point_force.empty() || r.tip_moment != der::Vec3::Zero()) unsupported("loads");
  if (sc.trace_every > 0) unsupported("output.trace_every");
  if (r.root_clamp.motion.twist_rate != 0 || r.root_clamp.motion.twist_amplitude != 0)
    unsupported("twisting root motion");
}

// The root clamp's pose at t: its motion about its own centre, the pivot when unset.
kernels::RigidPose<double> root_pose(const der::Clamp& clamp, double t) {
  ClampMotion motion = clamp.motion;
  if (!motion.center) motion.center = clamp.pivot;
  return bridge::rigid_pose<double>(motion, t);
}

// The batch's state back into the scene's rod (for the summary and --final).
void copy_back(const DerHostBatch<double>& batch, der::DynamicRod& rod) {
  const auto& a = batch.arrays();
  for (int i = 0; i < batch.vertices(); ++i) {
    rod.state.x[i] = batch.position(0, i);
    const std::size_t at = batch.vertex_index(i, 0);
    rod.velocity[i] = {a.velocity[0][at], a.velocity[1][at], a.velocity[2][at]};
  }
  for (int j = 0; j + 1 < batch.vertices(); ++j)
    rod.state.theta[j] = a.theta[batch.edge_index(j, 0)];
  rod.state.u0 = {a.u0[0][0], a.u0[1][0], a.u0[2][0]};
}

}  // namespace

der::SceneRun run_der_scene_batched(der::DerScene& sc) {
  if (sc.backend == "auto") sc.backend = engine::to_string(engine::parse_backend(sc.backend));
  check_supported(sc);
  const auto start = std::chrono::steady_clock::now();
  der::DynamicRod& rod = sc.rod;
  const auto integrator =
      sc.implicit ? kernels::der::Integrator::implicit : kernels::der::Integrator::symplectic;
  DerHostBatch<double> batch(1, rod.rest.vertex_count(), 32, integrator);
  batch.set_strand(0, rod.rest, rod.state, rod.mass, rod.stretching_stiffness);
  for (int i = 0; i < batch.vertices(); ++i)
    for (int k = 0; k < 3; ++k)
      batch.arrays().velocity[k][batch.vertex_index(i, 0)] = rod.velocity[i][k];
  kernels::der::DerStepParameters<double> p;
  p.integrator = integrator;
  p.dt = sc.dt;
  p.gravity = {rod.gravity.x(), rod.gravity.y(), rod.gravity.z()};
  p.damping = rod.damping;
  p.drag_normal = rod.drag_normal;
  p.drag_tangent = rod.drag_tangent;
  p.wind = rod.wind;
  p.length_tolerance = 1e-12 * sc.length;                      // as the reference scene run
  p.implicit_lengths = kernels::der::LengthConstraint::never;  // extensible, as the reference
  p.twist_tolerance = rod.twist_tolerance;
  auto step_parameters = [&](int step) {
    p.time = rod.time + step * sc.dt;
    p.head_previous = root_pose(rod.root_clamp, p.time);
    p.head = root_pose(rod.root_clamp, rod.time + (step + 1) * sc.dt);
  };
  if (sc.backend == "cpu") {
    long counts[Batch::kCounters] = {};
    for (int step = 0; step < sc.steps; ++step) {
      step_parameters(step);
      engine::step_on_host<Batch>(batch.arrays(), p, counts);
    }
  } else {
#ifdef HAIRSIM_HAVE_CUDA
    if (cuda::device_count() == 0) throw RunFailure("backend 'cuda'", "no CUDA device present");
    cuda::DeviceBatch<Batch> device(batch.arrays());
    for (int step = 0; step < sc.steps; ++step) {
      step_parameters(step);
      cuda::launch_step<Batch>(device.arrays(), p);
    }
    device.download_all();
#else
    throw RunFailure("backend 'cuda'", "this build has no CUDA backend");
#endif
  }
  copy_back(batch, rod);
  rod.time += sc.steps * sc.dt;
  for (int i = 0; i < batch.vertices(); ++i)
    if (!rod.state.x[i].allFinite() || !rod.velocity[i].allFinite())
      throw RunFailure("strand 0, step " + std::to_string(sc.steps),
                       "non-finite position or velocity at vertex " + std::to_string(i));
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return {der::scene_summary(sc, sc.steps, wall), std::string()};
}

}  // namespace hairsim::models
