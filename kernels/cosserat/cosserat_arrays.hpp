#pragma once
// The Cosserat model's batch arrays (kernels/cosserat/): every array of a batch in the tiled
// layout, the one list of them (for_each_array), a strand's view, and the small vector types.
#include "common/hd.hpp"
#include "common/small_matrix.hpp"
#include "common/strided.hpp"

namespace hairsim::kernels::cosserat {

// The discrete Darboux vector's measure of a relative rotation θ about n (docs/models/cosserat.md):
// `sine` is eq. (29) as printed, 2 sin(θ/2) n / l̄, which saturates at θ = π and jumps there;
// `tangent` is 2 tan(θ/2) n / l̄ (DER's curvature binormal), whose energy grows without bound
// towards θ = π, so a segment cannot fold onto its neighbour.
enum class BendingStrain : int { sine = 0, tangent = 1 };

// Batch arrays, tiled as DER's (kernels/der/der_strand.hpp): tiles of `tile_width` strands,
// vertex-major inside a tile. Quantities with k components per vertex (or segment) take k rows
// per vertex: entry (k i + c). "s-space" arrays hold one 3-vector per block of s: block 0 is
// the root vertex, block 1 + i is ω_i, so they have 3 rows per vertex.
template <class T>
struct CosseratBatchArrays {
  int strands = 0, vertices = 0;
  int tile_width = 32;
  BendingStrain bending_strain = BendingStrain::tangent;  // the rest shape's (every strand's)
  HS_HD int segments() const { return vertices - 1; }
  HS_HD int tile_count() const { return (strands + tile_width - 1) / tile_width; }
  // State.
  T* config = nullptr;    // s = [p_c, ω_0, ...] (3 per vertex)
  T* velocity = nullptr;  // ṗ, m/s (3 per vertex)
  T* spin = nullptr;      // Ω, body angular velocity, rad/s (3 per segment)
  // Rest shape and material.
  T* length = nullptr;      // l_i, m (per segment)
  T* darboux = nullptr;     // ε̄_k, 1/m (3 per vertex; 0 at the ends)
  T* mass = nullptr;        // kg (per vertex)
  T* stiffness = nullptr;   // K_11, K_22, K_33, N m² (3 per strand)
  T* inertia = nullptr;     // J_11, J_22, J_33, kg m (3 per strand)
  T* root_rest = nullptr;   // p_0 at the head's rest pose, m (3 per strand)
  T* frame_rest = nullptr;  // segment 0's frame at the rest pose, row-major (9 per strand)
  // The start of the step (eqs. 30-31).
  T* predicted = nullptr;    // p_t + Δt ṗ_t (3 per vertex)
  T* start_x = nullptr;      // p_t (3 per vertex)
  T* start_q = nullptr;      // q_t (4 per segment)
  T* rotation_dt = nullptr;  // Δt Ω_t (3 per segment)
  T* resistance = nullptr;   // C_j = D_j + d m_j I, 3 x 3 row-major (9 per vertex; Loads)
  T* air_force = nullptr;    // D_j w_j, N (3 per vertex)
  T* friction = nullptr;  // lagged friction: normal, anchor (m), μ λ (N), stick (m) (8 per vertex)
  T* contact = nullptr;   // the contacts' Hessian block, penalty + friction (9 per vertex)
  // Kinematics of the current s (one place computes them).
  T* q = nullptr;          // 4 per segment
  T* dq = nullptr;         // ∂q/∂ω, 4 x 3 row-major (12 per segment)
  T* x = nullptr;          // vertices (3 per vertex)
  T* dx = nullptr;         // J^i = l_i ∂d/∂ω_i, 3 x 3 row-major (9 per segment)
  T* bend_prev = nullptr;  // ∂Ω_k/∂q_{k-1}, 3 x 4 (12 per vertex)
  T* bend_next = nullptr;  // ∂Ω_k/∂q_k, 3 x 4 (12 per vertex)
  T* mq = nullptr;         // M_q,i / Δt², 4 x 4 (16 per segment)
  T* chain = nullptr;  // the chain's curvature block of ∂²E/∂ω_i², projected (9 per segment)
  // Solver vectors (3 per vertex: s-space) and the x-space scratch of products.
  T* saved = nullptr;       // s at the start of a Newton iteration
  T* gradient = nullptr;    // b = Jᵀ ∂E/∂x
  T* step = nullptr;        // the Newton step (the PCG solution)
  T* residual = nullptr;    // PCG r
  T* direction = nullptr;   // PCG d
  T* product = nullptr;     // A d
  T* precond = nullptr;     // P⁻¹ r
  T* xp = nullptr;          // x-space scratch, positions (3 per vertex)
  T* xq = nullptr;          // x-space scratch, quaternions (4 per segment)
  T* hp = nullptr;          // H times it (3 per vertex)
  T* hq = nullptr;          // (4 per segment)
  T* pc_diag = nullptr;     // preconditioner blocks, 3 x 3 row-major (9 per vertex)
  T* pc_upper = nullptr;    // (9 per vertex)
  T* pc_scratch = nullptr;  // block Thomas scratch (9 per vertex)
  // The state at the step's start, for a step retried in substeps (step()).
  T* retry_config = nullptr;    // 3 per vertex
  T* retry_velocity = nullptr;  // 3 per vertex
  T* retry_spin = nullptr;      // 3 per segment
};

// Calls f(pointer, rows per strand) for every array.
template <class T, class F>
HS_HD void for_each_array(CosseratBatchArrays<T>& a, F&& f) {
  const int v = a.vertices, e = a.vertices - 1;
  f(a.config, 3 * v), f(a.velocity, 3 * v), f(a.spin, 3 * e);
  f(a.length, e), f(a.darboux, 3 * v), f(a.mass, v), f(a.stiffness, 3), f(a.inertia, 3);
  f(a.root_rest, 3), f(a.frame_rest, 9);
  f(a.predicted, 3 * v), f(a.start_x, 3 * v), f(a.start_q, 4 * e), f(a.rotation_dt, 3 * e);
  f(a.resistance, 9 * v), f(a.air_force, 3 * v), f(a.friction, 8 * v), f(a.contact, 9 * v);
  f(a.q, 4 * e), f(a.dq, 12 * e), f(a.x, 3 * v), f(a.dx, 9 * e);
  f(a.bend_prev, 12 * v), f(a.bend_next, 12 * v), f(a.mq, 16 * e), f(a.chain, 9 * e);
  f(a.saved, 3 * v), f(a.gradient, 3 * v), f(a.step, 3 * v), f(a.residual, 3 * v);
  f(a.direction, 3 * v), f(a.product, 3 * v), f(a.precond, 3 * v);
  f(a.xp, 3 * v), f(a.xq, 4 * e), f(a.hp, 3 * v), f(a.hq, 4 * e);
  f(a.pc_diag, 9 * v), f(a.pc_upper, 9 * v), f(a.pc_scratch, 9 * v);
  f(a.retry_config, 3 * v), f(a.retry_velocity, 3 * v), f(a.retry_spin, 3 * e);
}

// One strand's view: its tile's arrays and its lane.
template <class T>
struct Strand {
  CosseratBatchArrays<T> a;
  int lane;
  HS_HD int vertices() const { return a.vertices; }
  HS_HD int segments() const { return a.vertices - 1; }
  HS_HD Strided<T> rows(T* p) const { return {p + lane, a.tile_width}; }
  // R x C consecutive rows starting at item i (item = R * C rows).
  template <int R, int C>
  HS_HD Mat<T, R, C> get(T* p, int i) const {
    const Strided<T> s = rows(p);
    Mat<T, R, C> m;
    for (int k = 0; k < R * C; ++k) m[k] = s[R * C * i + k];
    return m;
  }
  template <int R, int C>
  HS_HD void set(T* p, int i, const Mat<T, R, C>& m) const {
    const Strided<T> s = rows(p);
    for (int k = 0; k < R * C; ++k) s[R * C * i + k] = m[k];
  }
};

// The arrays of tile t (pointers moved to the tile's start).
template <class T>
HS_HD CosseratBatchArrays<T> tile_view(const CosseratBatchArrays<T>& batch, int t) {
  CosseratBatchArrays<T> tile = batch;
  const long offset = long(t) * batch.tile_width;
  for_each_array(tile, [&](T*& array, int rows) { array += offset * rows; });
  return tile;
}

template <class T>
HS_HD Strand<T> strand_of(const CosseratBatchArrays<T>& batch, int s) {
  return {tile_view(batch, s / batch.tile_width), s % batch.tile_width};
}

template <class T>
using V3 = Vec<T, 3>;
template <class T>
using V4 = Vec<T, 4>;
template <class T>
using M3 = Mat<T, 3, 3>;

}  // namespace hairsim::kernels::cosserat
