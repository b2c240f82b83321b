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

  static constexpr int kCounters = 4;
  // Contacts beyond kMaxContacts a strand and step are dropped, and a series cut at kMaxTerms
  // terms (both counted: 0 expected).
  static constexpr const char* kCounterNames[kCounters] = {"solver_failures", "contacts",
                                                           "dropped_contacts", "truncated_series"};
  static constexpr int kFailureCounter = 0;
  static constexpr int kCudaBlock = 32;
  static constexpr int kClampedVertices = 1;  // the output's first point is the clamp's

  template <class F>
  HS_HD static void for_each_array(Arrays& a, F&& f) {
    super_clothoid::for_each_array(a, f);
  }
  HS_HD static Arrays tile(const Arrays& a, int t) { return tile_view(a, t); }
  // The step's scratch (41 KB in double) and the contacts' (313 KB) live in the thread's frame:
  // on the host a stack, on a GPU its local memory (docs/models/super-clothoids.md: one thread
  // per strand is not this model's GPU mapping).
  HS_HD static void step(const Arrays& tile, int lane, const Parameters& p,
                         long (&counts)[kCounters]) {
    StepScratch<Real> scratch;
    ContactScratch contacts;
    const StepCounts c = super_clothoid::step(ClothoidStrand<T>{tile, lane}, p, scratch, contacts);
    counts[0] += c.failures;
    counts[1] += c.contacts;
    counts[2] += c.dropped;
    counts[3] += c.truncated;
  }
  static VertexVectors<T> positions(const Arrays& a) {
    return interleaved_vectors(a.x, a.vertices);
  }
  static VertexVectors<T> velocities(const Arrays& a) {
    return interleaved_vectors(a.velocity, a.vertices);
  }
  static VertexScalars<T> masses(const Arrays& a) { return {a.mass, a.vertices, 1, 0}; }
  // The head's colliders (the cuda simulator points their distance grids to device copies).
  static Collider<T>* colliders(Parameters& p, int& count) {
    count = p.collider_count;
    return p.colliders;
  }
};

}  // namespace hairsim::kernels::super_clothoid
