#pragma once
// What the generic executors (src/engine/host_executor.hpp, kernels/cuda/batched_step.cuh) need
// to know of any model's batch: the tiled layout's index, and where a per-vertex 3-vector field
// (positions, velocities) lives in the model's arrays.
//
// A model's batch traits (kernels/<model>/<model>_batch.hpp) provide, with S its scalar:
//   using Scalar, Arrays, Parameters;
//   static constexpr int kCounters; static constexpr const char* kCounterNames[kCounters];
//   static constexpr int kFailureCounter;  // the counter of failed solves ("solver_failures")
//   static constexpr int kCudaBlock;                    // threads per block
//   static constexpr int kCudaLanes;  // optional: lanes that step one strand on the device (a
//                                     // tile of a warp, common/lanes.hpp); 1 when absent: a
//                                     // thread per strand. With lanes, also
//   HS_HD static void step_on(const G& lanes, const Arrays& tile, int column,
//                             const Parameters&, long (&counts)[kCounters]);
//   HS_HD static void for_each_array(Arrays&, F&&);     // f(U*& array, int rows per strand)
//   HS_HD static Arrays tile(const Arrays&, int t);     // the arrays of tile t
//   HS_HD static void step(const Arrays& tile, int lane, const Parameters&,
//                          long (&counts)[kCounters]);  // one strand's step, counts added
//   static VertexVectors<S> positions(const Arrays&), velocities(const Arrays&);
//   static VertexScalars<S> masses(const Arrays&);      // per-vertex mass, kg
//   static constexpr int kClampedVertices;  // vertices 0 .. k-1 held by the head: the
//                                           // interaction stage leaves their velocities
//   static Collider<S>* colliders(Parameters&, int& count);  // mesh grids to re-point
#include <cstddef>
#include <type_traits>

#include "common/hd.hpp"

namespace hairsim::kernels {

// Batch::kCudaLanes, or 1 for a batch without it (a thread per strand).
template <class Batch, class = void>
inline constexpr int kCudaLanesOf = 1;
template <class Batch>
inline constexpr int kCudaLanesOf<Batch, std::void_t<decltype(Batch::kCudaLanes)>> =
    Batch::kCudaLanes;

// Strands per tile of the device layout for a strand on `lanes` lanes: 32 for a thread per
// strand (a warp's 32 strands read neighbouring values: coalesced), 1 for a strand on lanes (its
// lanes read the strand's consecutive rows).
HS_HD inline constexpr int cuda_tile_width(int lanes) {
  return lanes > 1 ? 1 : 32;
}

// Offset of row `row` of strand s in an array of `rows` rows per strand, tiles of `tile_width`
// strands: vertex-major inside a tile, the tiles one after the other.
HS_HD inline std::size_t tiled_index(int row, int s, int rows, int tile_width) {
  return (std::size_t(s / tile_width) * rows + row) * tile_width + s % tile_width;
}

// A per-vertex 3-vector field: component c of vertex v is row vertex_rows * v + component_row[c]
// of array[c], an array of `rows` rows per strand. Three arrays of one row per vertex (DER's
// position[3]) or one array of three rows per vertex (Cosserat's x) alike.
template <class S>
struct VertexVectors {
  S* array[3] = {};
  int rows = 0;
  int vertex_rows = 1;
  int component_row[3] = {0, 0, 0};
  HS_HD int row(int v, int c) const { return vertex_rows * v + component_row[c]; }
  // Whether all three components live in one array.
  HS_HD bool interleaved() const { return array[0] == array[1] && array[1] == array[2]; }
};

// A vector field stored as three rows per vertex in one array (component c of vertex v at row
// 3 v + c), as Cosserat's and the Super-Helix's batches keep theirs.
template <class S>
HS_HD VertexVectors<S> interleaved_vectors(S* array, int vertices) {
  VertexVectors<S> f;
  for (int c = 0; c < 3; ++c) f.array[c] = array, f.component_row[c] = c;
  f.rows = 3 * vertices;
  f.vertex_rows = 3;
  return f;
}

// A per-vertex scalar field (a mass): vertex v is row vertex_rows * v + first_row of `array`,
// an array of `rows` rows per strand.
template <class S>
struct VertexScalars {
  S* array = nullptr;
  int rows = 0;
  int vertex_rows = 1;
  int first_row = 0;
  HS_HD int row(int v) const { return vertex_rows * v + first_row; }
};

}  // namespace hairsim::kernels
