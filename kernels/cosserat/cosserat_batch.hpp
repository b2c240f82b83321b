#pragma once
// Cosserat's batch traits for the generic executors (kernels/common/batch_layout.hpp): its
// arrays, what a step takes (Δt, loads, solver settings), its per-strand step and its counters.
#include "common/batch_layout.hpp"
#include "cosserat/cosserat_strand.hpp"

namespace hairsim::kernels::cosserat {

// What one implicit step of every strand takes.
template <class T>
struct StepInput {
  T dt = 0;  // s
  Loads<T> loads;
  StepSettings settings;
};

template <class T>
struct CosseratBatch {
  using Scalar = T;
  using Arrays = CosseratBatchArrays<T>;
  using Parameters = StepInput<T>;

  // unconverged_failures: the unconverged steps among the solver_failures (those not accepted).
  static constexpr int kCounters = 8;
  static constexpr const char* kCounterNames[kCounters] = {
      "newton_iterations", "pcg_iterations", "pcg_solves",        "solver_failures",
      "contacts",          "retried_steps",  "unconverged_steps", "unconverged_failures"};
  static constexpr int kFailureCounter = 3;
  static constexpr int kCudaBlock = 64;
  static constexpr int kClampedVertices = 2;  // the root and segment 0's frame follow the head

  template <class F>
  HS_HD static void for_each_array(Arrays& a, F&& f) {
    cosserat::for_each_array(a, f);
  }
  HS_HD static Arrays tile(const Arrays& a, int t) { return tile_view(a, t); }
  HS_HD HS_FORCE_INLINE static void step(const Arrays& tile, int lane, const Parameters& p,
                                         long (&counts)[kCounters]) {
    const StepCounts c = cosserat::step(Strand<T>{tile, lane}, p.dt, p.loads, p.settings);
    counts[0] += c.newton;
    counts[1] += c.pcg_iterations;
    counts[2] += c.pcg_solves;
    counts[3] += c.failures;
    counts[4] += c.contacts;
    counts[5] += c.retried;
    counts[6] += c.unconverged;
    counts[7] += c.unconverged_failure;
  }
  static VertexVectors<T> positions(const Arrays& a) {
    return interleaved_vectors(a.x, a.vertices);
  }
  static VertexVectors<T> velocities(const Arrays& a) {
    return interleaved_vectors(a.velocity, a.vertices);
  }
  // `velocity` is ṗ of the state, one per vertex (eq. 30's predicted position p + Δt ṗ): a
  // velocity change written there enters the next implicit step as the inertia term's target,
  // whose minimisation over the inextensible configurations projects it (J⁺ in the M-norm). The
  // segments' spins Ω stay: the grid carries no angular momentum.
  static VertexScalars<T> masses(const Arrays& a) { return {a.mass, a.vertices, 1, 0}; }
  static Collider<T>* colliders(Parameters& p, int& count) {
    count = p.loads.collider_count;
    return p.loads.colliders;
  }
};

}  // namespace hairsim::kernels::cosserat
