#pragma once
// DER's batch traits for the generic executors (kernels/common/batch_layout.hpp): its arrays,
// its step parameters, its per-strand step and its work counters.
#include "common/batch_layout.hpp"
#include "der/der_strand.hpp"

namespace hairsim::kernels::der {

template <class T>
struct DerBatch {
  using Scalar = T;
  using Arrays = DerBatchArrays<T>;
  using Parameters = DerStepParameters<T>;

  static constexpr int kCounters = 4;
  static constexpr const char* kCounterNames[kCounters] = {
      "projection_iterations", "twist_iterations", "contacts", "solver_failures"};
  static constexpr int kFailureCounter = 3;
  static constexpr int kCudaBlock = 128;
  static constexpr int kCudaLanes = 32;       // a strand per warp on the device, a vertex per lane
  static constexpr int kClampedVertices = 2;  // vertices 0, 1 and θ⁰ follow the head

  template <class F>
  HS_HD static void for_each_array(Arrays& a, F&& f) {
    der::for_each_array(a, f);
  }
  HS_HD static Arrays tile(const Arrays& a, int t) { return tile_view(a, t); }
  // The host's step: the strand's rows on one lane (a loop).
  HS_HD HS_FORCE_INLINE static void step(const Arrays& tile, int column, const Parameters& p,
                                         long (&counts)[kCounters]) {
    step_on(LoopLanes<1>{}, tile, column, p, counts);
  }
  template <class G>
  HS_HD HS_FORCE_INLINE static void step_on(const G& lanes, const Arrays& tile, int column,
                                            const Parameters& p, long (&counts)[kCounters]) {
    const StepCounts c = der::step(Strand<T, G>{tile, column, lanes}, p);
    counts[0] += c.projection_iterations;
    counts[1] += c.twist_iterations;
    counts[2] += c.contacts;
    counts[3] += c.solver_failures;
  }
  static VertexVectors<T> positions(const Arrays& a) { return vectors(a.position, a.vertices); }
  static VertexVectors<T> velocities(const Arrays& a) { return vectors(a.velocity, a.vertices); }
  // The velocity is the state's (the interaction stage changes it between steps; the next step's
  // length projection keeps the edges' lengths).
  static VertexScalars<T> masses(const Arrays& a) { return {a.mass, a.vertices, 1, 0}; }
  static Collider<T>* colliders(Parameters& p, int& count) {
    count = p.collider_count;
    return p.colliders;
  }

 private:
  static VertexVectors<T> vectors(T* const (&array)[3], int vertices) {
    VertexVectors<T> f;
    for (int c = 0; c < 3; ++c) f.array[c] = array[c];
    f.rows = vertices;
    return f;
  }
};

}  // namespace hairsim::kernels::der
