#pragma once
// The Super Space Clothoid's batch traits for the generic executors
// (kernels/common/batch_layout.hpp): its arrays, what a step takes, its per-strand step
// (clothoid_strand.hpp) and its counters.
#include "common/batch_layout.hpp"
#include "common/colliders.hpp"
#include "super_clothoid/clothoid_strand.hpp"

namespace hairsim::kernels::super_clothoid {

template <class T>
struct ClothoidBatch {
  using Scalar = T;
  using Arrays = ClothoidBatchArrays<T>;
  using Parameters = StepInput<T>;

  static constexpr int kCounters = 3;
  // A series cut at kMaxTerms terms (counted: 0 expected with the APS bounds).
  static constexpr const char* kCounterNames[kCounters] = {"solver_failures", "contacts",
                                                           "truncated_series"};
  static constexpr int kFailureCounter = 0;
  static constexpr int kCudaBlock = 32;
  static constexpr int kClampedVertices = 1;  // the output's first point is the clamp's

  template <class F>
  HS_HD static void for_each_array(Arrays& a, F&& f) {
    super_clothoid::for_each_array(a, f);
  }
  HS_HD static Arrays tile(const Arrays& a, int t) { return tile_view(a, t); }
  // The step's scratch (41 KB in double) lives in the thread's frame: on the host a stack, on a
  // GPU its local memory.
  HS_HD static void step(const Arrays& tile, int lane, const Parameters& p,
                         long (&counts)[kCounters]) {
    StepScratch<Real> scratch;
    const StepCounts c = super_clothoid::step(ClothoidStrand<T>{tile, lane}, p, scratch);
    counts[0] += c.failures;
    counts[2] += c.truncated;
  }
  static VertexVectors<T> positions(const Arrays& a) {
    return interleaved_vectors(a.x, a.vertices);
  }
  static VertexVectors<T> velocities(const Arrays& a) {
    return interleaved_vectors(a.velocity, a.vertices);
  }
  static VertexScalars<T> masses(const Arrays& a) { return {a.mass, a.vertices, 1, 0}; }
  // No colliders yet on these backends.
  static Collider<T>* colliders(Parameters&, int& count) {
    count = 0;
    return nullptr;
  }
};

}  // namespace hairsim::kernels::super_clothoid
