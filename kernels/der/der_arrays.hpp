#pragma once
// DER's batch arrays (kernels/der/): every per-vertex, per-edge and per-strand array of a batch in
// the tiled layout, the one list of them (for_each_array), and a strand's view.
#include "common/hd.hpp"
#include "common/lanes.hpp"
#include "common/strided.hpp"
#include "common/vector3.hpp"

namespace hairsim::kernels::der {

// Pointers into the batch arrays, tiled: strands are grouped in tiles of `tile_width`; inside a
// tile the layout is vertex-major (entry (i, lane) at i * tile_width + lane), and the tiles of an
// array follow each other (tile t starts at t * rows * tile_width). Neighbouring strands are
// neighbouring addresses, as the design asks: a warp of 32 threads reads 32 consecutive values,
// and one host thread walking a strand strides tile_width values, not the whole batch
// (docs/architecture.md). Per-vertex arrays have `vertices` rows, per-edge arrays
// `vertices - 1`, per-strand arrays 1 (so they are plain arrays indexed by strand).
template <class T>
struct DerBatchArrays {
  int strands = 0, vertices = 0;
  int tile_width = 32;  // strands per tile (the row stride)
  // Whether the linearly implicit step's system arrays are allocated (36 values per vertex;
  // a symplectic batch goes without them).
  bool implicit_system = false;
  HS_HD int tile_count() const { return (strands + tile_width - 1) / tile_width; }
  HS_HD int vertex_pairs() const { return (vertices + 1) / 2; }  // 6 x 6 blocks of the system
  // State.
  T* position[3] = {};  // m, per vertex
  T* velocity[3] = {};  // m/s, per vertex
  T* theta = nullptr;   // rad, per edge: material frame angle from the Bishop frame (§4.2.2)
  T* u0[3] = {};        // per strand: Bishop vector of edge 0, unit, normal to t⁰
  // Rest shape and material.
  T* edge_length = nullptr;     // m, per edge: |ē^j|
  T* voronoi_length = nullptr;  // m, per vertex: l̄_i = |ē^{i-1}| + |ē^i|, 0 at the ends
  T* rest_curvature[4] = {};    // per vertex: ω̄ of the edge before (0, 1) and of edge i (2, 3)
  T* mass = nullptr;            // kg, per vertex
  T* bending = nullptr;         // N m², per strand: α (B = α Id)
  T* twist = nullptr;           // N m², per strand: β
  T* rest_twist = nullptr;      // rad, per vertex: m̄_i, the undeformed twist (0 at the ends)
  T* stretching = nullptr;      // N, per strand: EA (the implicit step's stretching stiffness)
  T* root_rest[6] = {};         // m, per strand: vertices 0 and 1 (x, y, z each) at t = 0
  T* root_m1[3] = {};           // per strand: m1 of edge 0 at t = 0 (the root clamp's frame)
  // Derived per step (compute_frames): one place computes them, everything else reads them.
  T* tangent[3] = {};    // per edge
  T* bishop_u[3] = {};   // per edge
  T* m1[3] = {};         // per edge
  T* m2[3] = {};         // per edge
  T* length = nullptr;   // m, per edge: |e^j|
  T* kb[3] = {};         // per vertex: curvature binormal (eq. 1), 0 at the ends
  T* curvature[4] = {};  // per vertex: ω of the edge before (0, 1) and of edge i (2, 3), eq. (2)
  // Outputs and scratch.
  T* force[3] = {};              // N, per vertex
  T* previous_position[3] = {};  // m, per vertex: the start of the step
  T* edge_vector[3] = {};        // m, per edge: e^j as a projection iteration linearised it
  T* pinned = nullptr;           // per vertex: 1 where the projection may not move it
  // Per vertex, where a contact holds it: the collider's outward normal n (world) and n . s, s
  // the surface point (the tangent plane the vertex slides on while lengths are restored).
  T* contact_normal[3] = {};
  T* contact_offset = nullptr;
  // Per vertex: the 2 x 2 blocks [plane row, edge row] of the projection with contact planes
  // (diagonal and super-diagonal, 4 rows each) and its right-hand side / solution (2 rows).
  T* plane_diag = nullptr;
  T* plane_upper = nullptr;
  T* plane_rhs = nullptr;
  T* edge_scratch = nullptr;  // per edge
  // Per edge: a tridiagonal system (twist Hessian or projection matrix; the solve overwrites
  // lower and upper with its eliminated rows), its solution, and θ saved by the line search.
  T* tri_lower = nullptr;
  T* tri_diag = nullptr;
  T* tri_upper = nullptr;
  T* tri_rhs = nullptr;
  T* tri_solution = nullptr;
  T* theta_saved = nullptr;
  // The implicit step's symmetric block-tridiagonal system (PairedBlockSystem): diagonal and
  // super-diagonal 6 x 6 blocks (36 rows per vertex pair each), right-hand side and solution
  // (6 rows per pair). Double in float batches too: the stiff stretching makes the system's
  // condition number h² EA / (|ē| m), about 2e4 for hair at h = 1 ms, and a float solve's error
  // grows with it (measured: 4e-3 L after 200 steps of the parity test, 2e-4 L solved in double).
  double* system_diag = nullptr;
  double* system_upper = nullptr;
  double* system_rhs = nullptr;
};

// Every array of the batch with its row count (vertices, edges, or 1 for per-strand values): the
// one list of fields, for the code that allocates, copies or maps them. f(S*& array, int rows),
// S = T, or double for the implicit system.
template <class T, class F>
HS_HD void for_each_array(DerBatchArrays<T>& a, F&& f) {
  const int v = a.vertices, e = a.vertices - 1;
  for (int k = 0; k < 3; ++k) {
    f(a.position[k], v), f(a.velocity[k], v), f(a.u0[k], 1), f(a.tangent[k], e);
    f(a.bishop_u[k], e), f(a.m1[k], e), f(a.m2[k], e), f(a.kb[k], v), f(a.force[k], v);
  }
  for (int k = 0; k < 4; ++k) f(a.rest_curvature[k], v), f(a.curvature[k], v);
  f(a.theta, e), f(a.edge_length, e), f(a.voronoi_length, v), f(a.mass, v), f(a.rest_twist, v);
  f(a.bending, 1), f(a.twist, 1), f(a.length, e), f(a.edge_scratch, e);
  for (int k = 0; k < 6; ++k) f(a.root_rest[k], 1);
  for (int k = 0; k < 3; ++k) f(a.root_m1[k], 1);
  for (int k = 0; k < 3; ++k) f(a.previous_position[k], v), f(a.edge_vector[k], e);
  f(a.pinned, v);
  for (int k = 0; k < 3; ++k) f(a.contact_normal[k], v);
  f(a.contact_offset, v), f(a.plane_diag, 4 * v), f(a.plane_upper, 4 * v), f(a.plane_rhs, 2 * v);
  f(a.tri_lower, e), f(a.tri_diag, e), f(a.tri_upper, e), f(a.tri_rhs, e);
  f(a.tri_solution, e), f(a.theta_saved, e);
  f(a.stretching, 1);
  const int pairs = a.implicit_system ? a.vertex_pairs() : 0;
  f(a.system_diag, 36 * pairs), f(a.system_upper, 36 * pairs), f(a.system_rhs, 6 * pairs);
}

// The arrays of tile t (pointers moved to the tile's start, `strands` its strand count).
template <class T>
HS_HD DerBatchArrays<T> tile_view(const DerBatchArrays<T>& batch, int t) {
  DerBatchArrays<T> tile = batch;
  tile.strands = batch.strands - t * batch.tile_width < batch.tile_width
                     ? batch.strands - t * batch.tile_width
                     : batch.tile_width;
  const long offset = long(t) * batch.tile_width;
  for_each_array(tile, [&](auto*& array, int rows) { array += offset * rows; });
  return tile;
}

// One strand's view: its tile's arrays, its place in the tile, and the group of lanes that steps
// it (common/lanes.hpp: one lane on the host, a warp's tile on the device). Every pass over the
// strand's rows goes through the group.
template <class T, class G = LoopLanes<1>>
struct Strand {
  DerBatchArrays<T> a;  // the tile's
  int s;                // the strand's column in the tile
  G g;

  HS_HD int edges() const { return a.vertices - 1; }
  template <class S>
  HS_HD Strided<S> per_row(S* p) const {
    return {p + s, a.tile_width};
  }
  HS_HD StridedVector3<T> vectors(T* const (&p)[3]) const {
    return {p[0] + s, p[1] + s, p[2] + s, a.tile_width};
  }
  HS_HD T strand_value(const T* p) const { return p[s]; }
};

// Strand number s of the batch, stepped by the group g.
template <class T, class G = LoopLanes<1>>
HS_HD Strand<T, G> strand_of(const DerBatchArrays<T>& batch, int s, const G& g = G{}) {
  return {tile_view(batch, s / batch.tile_width), s % batch.tile_width, g};
}

}  // namespace hairsim::kernels::der
