#pragma once
// The Super-Helix's batch traits for the generic executors (kernels/common/batch_layout.hpp):
// its arrays, what a step takes, its per-strand step (helix_strand.hpp) and its counters.
#include "common/batch_layout.hpp"
#include "common/colliders.hpp"
#include "super_helix/helix_strand.hpp"

namespace hairsim::kernels::super_helix {

template <class T>
struct HelixBatch {
  using Scalar = T;
  using Arrays = HelixBatchArrays<T>;
  using Parameters = StepInput<T>;

  static constexpr int kCounters = 3;
  // Contacts beyond kMaxContacts a strand and step are dropped (counted: 0 expected).
  static constexpr const char* kCounterNames[kCounters] = {"solver_failures", "contacts",
                                                           "dropped_contacts"};
  static constexpr int kFailureCounter = 0;
  static constexpr int kCudaBlock = 64;
  static constexpr int kClampedVertices = 1;  // the output's first point is the clamp's

  template <class F>
  HS_HD static void for_each_array(Arrays& a, F&& f) {
    super_helix::for_each_array(a, f);
  }
  HS_HD static Arrays tile(const Arrays& a, int t) { return tile_view(a, t); }
  HS_HD HS_FORCE_INLINE static void step(const Arrays& tile, int lane, const Parameters& p,
                                         long (&counts)[kCounters]) {
    const StepCounts c = super_helix::step(HelixStrand<T>{tile, lane}, p);
    counts[0] += c.failures;
    counts[1] += c.contacts;
    counts[2] += c.dropped;
  }
  // The output points (hair.vertices along each centreline), resampled after every step.
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

}  // namespace hairsim::kernels::super_helix
