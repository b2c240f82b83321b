#pragma once
// DER on the batched engine: one strand's kinematics, energies, forces, twist solve, projection,
// contacts and symplectic step (Bergou et al. 2008), host and device, float or double, over the
// tiled batch layout (DerBatchArrays below). The same equations as the reference
// (src/reference/der/), specialised to hair: open strands, root edge clamped, isotropic bending
// B = α Id per strand (round fibres), a rest curvature ω̄ per vertex, twist modulus β per strand.
// The reference is the yardstick: tests/parity/ compares every quantity and whole runs with it.
#include <cmath>

#include "common/block_thomas.hpp"
#include "common/colliders.hpp"
#include "common/hd.hpp"
#include "common/matrix3.hpp"
#include "common/rigid_pose.hpp"
#include "common/strided.hpp"
#include "common/thomas.hpp"
#include "common/vector3.hpp"
#include "common/wind.hpp"

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
  // Per edge: a tridiagonal system (twist Hessian or projection matrix), its solution, the
  // Thomas scratch, and θ saved by the line search.
  T* tri_lower = nullptr;
  T* tri_diag = nullptr;
  T* tri_upper = nullptr;
  T* tri_rhs = nullptr;
  T* tri_solution = nullptr;
  T* tri_scratch = nullptr;
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
  f(a.theta, e), f(a.edge_length, e), f(a.voronoi_length, v), f(a.mass, v);
  f(a.bending, 1), f(a.twist, 1), f(a.length, e), f(a.edge_scratch, e);
  for (int k = 0; k < 6; ++k) f(a.root_rest[k], 1);
  for (int k = 0; k < 3; ++k) f(a.root_m1[k], 1);
  for (int k = 0; k < 3; ++k) f(a.previous_position[k], v), f(a.edge_vector[k], e);
  f(a.pinned, v);
  for (int k = 0; k < 3; ++k) f(a.contact_normal[k], v);
  f(a.contact_offset, v), f(a.plane_diag, 4 * v), f(a.plane_upper, 4 * v), f(a.plane_rhs, 2 * v);
  f(a.tri_lower, e), f(a.tri_diag, e), f(a.tri_upper, e), f(a.tri_rhs, e);
  f(a.tri_solution, e), f(a.tri_scratch, e), f(a.theta_saved, e);
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

// One strand's view: its tile's arrays and its lane in the tile.
template <class T>
struct Strand {
  DerBatchArrays<T> a;  // the tile's
  int s;                // lane

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

// Strand number s of the batch.
template <class T>
HS_HD Strand<T> strand_of(const DerBatchArrays<T>& batch, int s) {
  return {tile_view(batch, s / batch.tile_width), s % batch.tile_width};
}

// Curvature binormal (κb)_i = 2 e^{i-1} × e^i / (|e^{i-1}| |e^i| + e^{i-1}·e^i), eq. (1).
template <class T>
HS_HD Vector3<T> curvature_binormal(const Vector3<T>& e_prev, const Vector3<T>& e_next) {
  return (T(2) / (norm(e_prev) * norm(e_next) + dot(e_prev, e_next))) * cross(e_prev, e_next);
}

// Parallel transport of u from unit tangent t1 to t2: rotation about t1 × t2 by their angle
// (§4.2.2), in the half-angle form that is exact and the identity when t1 = t2.
template <class T>
HS_HD Vector3<T> parallel_transport(const Vector3<T>& u, const Vector3<T>& t1,
                                    const Vector3<T>& t2) {
  const Vector3<T> b = cross(t1, t2);
  const T c = dot(t1, t2);
  return c * u + cross(b, u) + (dot(b, u) / (T(1) + c)) * b;
}

// The θ-dependent part of the frames: material frames m1 = cos θ u + sin θ v,
// m2 = -sin θ u + cos θ v (§5) and curvatures ω^j_i = (κb·m2^j, -κb·m1^j) (eq. 2), from the
// Bishop frame and κb already computed (what the twist solve's line search changes).
template <class T>
HS_HD void update_material_frames(const Strand<T>& st) {
  const DerBatchArrays<T>& a = st.a;
  const int n_edges = st.edges();
  const StridedVector3<T> t = st.vectors(a.tangent), u = st.vectors(a.bishop_u),
                          m1 = st.vectors(a.m1), m2 = st.vectors(a.m2), kb = st.vectors(a.kb);
  const Strided<T> theta = st.per_row(a.theta);
  for (int j = 0; j < n_edges; ++j) {
    const Vector3<T> uj = u.get(j), vj = cross(t.get(j), uj);
    const T c = std::cos(theta[j]), sn = std::sin(theta[j]);
    m1.set(j, c * uj + sn * vj);
    m2.set(j, c * vj - sn * uj);
  }
  const Strided<T> w[4] = {st.per_row(a.curvature[0]), st.per_row(a.curvature[1]),
                           st.per_row(a.curvature[2]), st.per_row(a.curvature[3])};
  for (int k = 0; k < 4; ++k) w[k][0] = w[k][n_edges] = T(0);
  for (int i = 1; i < n_edges; ++i) {
    const Vector3<T> b = kb.get(i);
    w[0][i] = dot(b, m2.get(i - 1)), w[1][i] = -dot(b, m1.get(i - 1));
    w[2][i] = dot(b, m2.get(i)), w[3][i] = -dot(b, m1.get(i));
  }
}

// Everything derived from the state: edge lengths and tangents, the Bishop frame (u⁰ given,
// u^j = P_j(u^{j-1}), §4.2.2), curvature binormals (eq. 1), then the material frames.
template <class T>
HS_HD void compute_frames(const Strand<T>& st) {
  const DerBatchArrays<T>& a = st.a;
  const int n_edges = st.edges();
  const StridedVector3<T> x = st.vectors(a.position), t = st.vectors(a.tangent),
                          u = st.vectors(a.bishop_u), kb = st.vectors(a.kb);
  const Strided<T> length = st.per_row(a.length);
  for (int j = 0; j < n_edges; ++j) {
    const Vector3<T> e = x.get(j + 1) - x.get(j);
    length[j] = norm(e);
    t.set(j, e / length[j]);
  }
  u.set(0, {st.strand_value(a.u0[0]), st.strand_value(a.u0[1]), st.strand_value(a.u0[2])});
  for (int j = 1; j < n_edges; ++j)
    u.set(j, parallel_transport(u.get(j - 1), t.get(j - 1), t.get(j)));
  kb.set(0, {});
  kb.set(n_edges, {});
  for (int i = 1; i < n_edges; ++i)
    kb.set(i, curvature_binormal(x.get(i) - x.get(i - 1), x.get(i + 1) - x.get(i)));
  update_material_frames(st);
}

// Bending energy Σ_i Σ_{j∈{i-1,i}} α |ω^j_i - ω̄^j_i|² / (2 l̄_i), eq. (3) with B = α Id.
template <class T>
HS_HD T bending_energy(const Strand<T>& st) {
  const DerBatchArrays<T>& a = st.a;
  const T alpha = st.strand_value(a.bending);
  const Strided<T> l = st.per_row(a.voronoi_length);
  T energy = 0;
  for (int i = 1; i < st.edges(); ++i)
    for (int k = 0; k < 4; ++k) {
      const T d = st.per_row(a.curvature[k])[i] - st.per_row(a.rest_curvature[k])[i];
      energy += alpha * d * d / (2 * l[i]);
    }
  return energy;
}

// Twist energy Σ_i β m_i² / l̄_i, m_i = θ^i - θ^{i-1} (§4.2.2).
template <class T>
HS_HD T twist_energy(const Strand<T>& st) {
  const DerBatchArrays<T>& a = st.a;
  const T beta = st.strand_value(a.twist);
  const Strided<T> l = st.per_row(a.voronoi_length), theta = st.per_row(a.theta);
  T energy = 0;
  for (int i = 1; i < st.edges(); ++i) {
    const T m = theta[i] - theta[i - 1];
    energy += beta * m * m / l[i];
  }
  return energy;
}

// ∂E/∂θ^j, eq. (7): bending (1/l̄_i) ωᵀ J B (ω - ω̄) with J the rotation by π/2, and twist
// ±2β m_i / l̄_i. Written into g (per edge).
template <class T>
HS_HD void theta_gradient(const Strand<T>& st, const Strided<T>& g) {
  const DerBatchArrays<T>& a = st.a;
  const T alpha = st.strand_value(a.bending), beta = st.strand_value(a.twist);
  const Strided<T> l = st.per_row(a.voronoi_length), theta = st.per_row(a.theta);
  for (int j = 0; j < st.edges(); ++j) g[j] = T(0);
  for (int i = 1; i < st.edges(); ++i) {
    for (int k = 0; k < 2; ++k) {  // slot k: edge i - 1 + k
      const T w1 = st.per_row(a.curvature[2 * k])[i], w2 = st.per_row(a.curvature[2 * k + 1])[i];
      const T d1 = w1 - st.per_row(a.rest_curvature[2 * k])[i],
              d2 = w2 - st.per_row(a.rest_curvature[2 * k + 1])[i];
      // ωᵀ J (α d) with J (d1, d2) = (-d2, d1).
      g[i - 1 + k] += alpha * (-w1 * d2 + w2 * d1) / l[i];
    }
    const T torque = 2 * beta * (theta[i] - theta[i - 1]) / l[i];
    g[i] += torque;
    g[i - 1] -= torque;
  }
}

// ∂E/∂x at fixed θ (eq. 11 with the exact gradient of eq. 1) for a rod whose first edge's
// material frame is held and whose last is free: force = -∂E/∂x into a.force. The θ-dependence
// of the frames enters through the holonomy gradient (eqs. 9-10) weighted by the bending part of
// ∂E/∂θ^j, summed from the tip (a suffix sum keeps it O(N)).
template <class T>
HS_HD void elastic_forces(const Strand<T>& st) {
  const DerBatchArrays<T>& a = st.a;
  const int n_edges = st.edges();
  const T alpha = st.strand_value(a.bending);
  const StridedVector3<T> x = st.vectors(a.position), kb = st.vectors(a.kb), m1 = st.vectors(a.m1),
                          m2 = st.vectors(a.m2), f = st.vectors(a.force);
  const Strided<T> l = st.per_row(a.voronoi_length), length = st.per_row(a.length),
                   c = st.per_row(a.edge_scratch);
  for (int i = 0; i <= n_edges; ++i) f.set(i, {});
  for (int j = 0; j < n_edges; ++j) c[j] = T(0);
  for (int i = 1; i < n_edges; ++i) {
    const Vector3<T> ea = x.get(i) - x.get(i - 1), eb = x.get(i + 1) - x.get(i), b = kb.get(i);
    Vector3<T> dE_dkb;
    for (int k = 0; k < 2; ++k) {
      const int j = i - 1 + k;
      const T w1 = st.per_row(a.curvature[2 * k])[i], w2 = st.per_row(a.curvature[2 * k + 1])[i];
      const T b1 = alpha * (w1 - st.per_row(a.rest_curvature[2 * k])[i]) / l[i],
              b2 = alpha * (w2 - st.per_row(a.rest_curvature[2 * k + 1])[i]) / l[i];
      dE_dkb += b1 * m2.get(j) - b2 * m1.get(j);  // ∂ω/∂κb = [m2ᵀ; -m1ᵀ]
      c[j] += b1 * w2 - b2 * w1;                  // (B(ω - ω̄))ᵀ (-J ω)
    }
    // Transposed Jacobians of eq. (1) applied to ∂E/∂κb (reference: curvature_binormal_jacobian).
    const T la = norm(ea), lb = norm(eb), denom = la * lb + dot(ea, eb), kd = dot(b, dE_dkb);
    const Vector3<T> ga = (T(2) * cross(eb, dE_dkb) - kd * ((lb / la) * ea + eb)) / denom;
    const Vector3<T> gb = (T(-2) * cross(ea, dE_dkb) - kd * ((la / lb) * eb + ea)) / denom;
    f.set(i - 1, f.get(i - 1) + ga);  // force = -gradient
    f.set(i, f.get(i) - ga + gb);
    f.set(i + 1, f.get(i + 1) - gb);
  }
  T suffix = 0;  // Σ_{j>=k} c_j
  for (int k = n_edges - 1; k >= 1; --k) {
    suffix += c[k];
    const Vector3<T> b = kb.get(k);
    const Vector3<T> before = b / (2 * length[k - 1]), after = -(b / (2 * length[k]));
    f.set(k - 1, f.get(k - 1) - suffix * before);
    f.set(k, f.get(k) + suffix * (before + after));
    f.set(k + 1, f.get(k + 1) - suffix * after);
  }
}

// ∂²E/∂θ², tridiagonal (§5.1): bending (1/l̄_i)[ωᵀJᵀBJω - ωᵀB(ω - ω̄)] = α ω·ω̄ / l̄_i with
// B = α Id, twist 2β/l̄_i on the diagonal and -2β/l̄_i off it.
template <class T>
HS_HD void theta_hessian(const Strand<T>& st, const Strided<T>& lower, const Strided<T>& diag,
                         const Strided<T>& upper) {
  const DerBatchArrays<T>& a = st.a;
  const T alpha = st.strand_value(a.bending), beta = st.strand_value(a.twist);
  const Strided<T> l = st.per_row(a.voronoi_length);
  for (int j = 0; j < st.edges(); ++j) lower[j] = diag[j] = upper[j] = T(0);
  for (int i = 1; i < st.edges(); ++i) {
    for (int k = 0; k < 2; ++k) {
      T w_dot_rest = 0;
      for (int c = 0; c < 2; ++c)
        w_dot_rest +=
            st.per_row(a.curvature[2 * k + c])[i] * st.per_row(a.rest_curvature[2 * k + c])[i];
      diag[i - 1 + k] += alpha * w_dot_rest / l[i];
    }
    const T c = 2 * beta / l[i];
    diag[i] += c;
    diag[i - 1] += c;
    lower[i] -= c;
    upper[i - 1] -= c;
  }
}

template <class T>
HS_HD T elastic_energy(const Strand<T>& st) {
  return bending_energy(st) + twist_energy(st);
}

// Relative round-off allowed in energy comparisons: 45 ε, the reference's 1e-14 in double.
template <class T>
HS_HD constexpr T energy_round_off() {
  return T(45) * (sizeof(T) == sizeof(float) ? T(1.1920929e-7) : T(2.220446049250313e-16));
}

template <class T>
struct TwistResult {
  T residual;
  int iterations;
};

// Quasistatic material frame (§5.1) of a strand whose first material frame is held (θ^0 fixed)
// and whose last edge is free: naturally straight strands take the uniform twist of eqs. (5)-(6)
// (with the tip free, every θ equals θ^0); others Newton on ∂E/∂θ^j = 0 (j >= 1) with the
// tridiagonal Hessian solved by Thomas (a 1e-12 relative diagonal shift, clamped row 0) and an
// Armijo backtracking line search allowing energy_round_off() |E|, falling back to steepest
// descent where the Hessian is not positive definite: the reference's algorithm step for step.
// Needs compute_frames; leaves the frames updated. Returns the residual max_{j>=1} |∂E/∂θ^j| and
// the Newton iterations taken.
template <class T>
HS_HD TwistResult<T> solve_twist(const Strand<T>& st, T tolerance, int max_iterations) {
  const DerBatchArrays<T>& a = st.a;
  const int n = st.edges();
  const Strided<T> theta = st.per_row(a.theta), g = st.per_row(a.tri_rhs),
                   lower = st.per_row(a.tri_lower), diag = st.per_row(a.tri_diag),
                   upper = st.per_row(a.tri_upper), step = st.per_row(a.tri_solution),
                   scratch = st.per_row(a.tri_scratch), saved = st.per_row(a.theta_saved);
  bool straight = true;
  for (int i = 1; i < n && straight; ++i)
    for (int k = 0; k < 4; ++k) straight = straight && st.per_row(a.rest_curvature[k])[i] == T(0);
  if (straight) {
    for (int j = 1; j < n; ++j) theta[j] = theta[0];
    update_material_frames(st);
  }
  T residual = 0;
  int iteration = 0;
  for (;; ++iteration) {
    theta_gradient(st, g);
    residual = 0;
    for (int j = 1; j < n; ++j) residual = std::fmax(residual, std::fabs(g[j]));
    if (residual <= tolerance || iteration == max_iterations) break;
    theta_hessian(st, lower, diag, upper);
    T largest = 0;
    for (int j = 0; j < n; ++j) largest = std::fmax(largest, std::fabs(diag[j]));
    for (int j = 0; j < n; ++j) {
      diag[j] += T(1e-12) * largest;
      step[j] = -g[j];  // right-hand side, solved in place
    }
    diag[0] = T(1), step[0] = T(0), upper[0] = T(0), lower[1] = T(0);  // θ^0 held
    if (!thomas_solve(n, lower, diag, upper, step, step, scratch))
      for (int j = 0; j < n; ++j) step[j] = T(0);
    T slope = 0;
    for (int j = 1; j < n; ++j) slope += g[j] * step[j];
    if (!(slope < T(0))) {
      slope = 0;
      for (int j = 1; j < n; ++j) step[j] = -g[j], slope -= g[j] * g[j];
      step[0] = T(0);
    }
    const T e0 = elastic_energy(st), allowance = energy_round_off<T>() * std::fabs(e0);
    for (int j = 0; j < n; ++j) saved[j] = theta[j];
    T alpha = 1;
    for (int k = 0; k < 40; ++k, alpha *= T(0.5)) {
      for (int j = 0; j < n; ++j) theta[j] = saved[j] + alpha * step[j];
      update_material_frames(st);
      if (elastic_energy(st) <= e0 + T(1e-4) * alpha * slope + allowance) break;
    }
  }
  return {residual, iteration};
}

// Fast projection (Goldenthal et al. 2007; DER §8.1) of the new positions onto the edge
// lengths, the vertices marked in `pinned` held (the root clamp; contacts): Newton steps on
// C_j = |e^j|² - |ē^j|² in the mass metric, each a tridiagonal solve (∇C M⁻¹ ∇Cᵀ) δλ = C by
// Thomas; edges with both ends held are dropped and not measured. Stops when every other edge is
// within `tolerance` (m) of its rest length. Returns the number of iterations.
template <class T>
HS_HD int project_lengths(const Strand<T>& st, T tolerance, int max_iterations) {
  const DerBatchArrays<T>& a = st.a;
  const int n = st.edges();
  const StridedVector3<T> x = st.vectors(a.position), edge = st.vectors(a.edge_vector);
  const Strided<T> rest = st.per_row(a.edge_length), mass = st.per_row(a.mass),
                   lower = st.per_row(a.tri_lower), diag = st.per_row(a.tri_diag),
                   upper = st.per_row(a.tri_upper), c = st.per_row(a.tri_rhs),
                   dl = st.per_row(a.tri_solution), scratch = st.per_row(a.tri_scratch);
  const Strided<T> pinned = st.per_row(a.pinned);
  auto inverse_mass = [&](int i) { return pinned[i] != T(0) ? T(0) : T(1) / mass[i]; };
  int iteration = 0;
  for (;; ++iteration) {
    T worst = 0;  // over the edges the projection moves
    for (int j = 0; j < n; ++j) {
      const Vector3<T> e = x.get(j + 1) - x.get(j);
      edge.set(j, e);
      c[j] = dot(e, e) - rest[j] * rest[j];
      if (pinned[j] == T(0) || pinned[j + 1] == T(0))
        worst = std::fmax(worst, std::fabs(norm(e) - rest[j]));
    }
    if (worst <= tolerance || iteration == max_iterations) break;
    for (int j = 0; j < n; ++j) {
      const Vector3<T> e = edge.get(j);
      diag[j] = 4 * dot(e, e) * (inverse_mass(j) + inverse_mass(j + 1));
      upper[j] = j + 1 < n ? -4 * dot(e, edge.get(j + 1)) * inverse_mass(j + 1) : T(0);
      lower[j] = j > 0 ? -4 * dot(edge.get(j - 1), e) * inverse_mass(j) : T(0);
    }
    for (int j = 0; j < n; ++j)
      if (diag[j] == T(0)) {  // both ends held: drop the constraint
        diag[j] = T(1), c[j] = T(0), upper[j] = lower[j] = T(0);
        if (j > 0) upper[j - 1] = T(0);
        if (j + 1 < n) lower[j + 1] = T(0);
      }
    if (!thomas_solve(n, lower, diag, upper, c, dl, scratch)) break;
    for (int j = 0; j < n; ++j) {        // x <- x - M⁻¹ ∇Cᵀ δλ, ∇C_j = (-2e^j, +2e^j)
      const Vector3<T> e = edge.get(j);  // as linearised, not as moved by edge j - 1
      x.set(j, x.get(j) + (T(2) * inverse_mass(j) * dl[j]) * e);
      x.set(j + 1, x.get(j + 1) - (T(2) * inverse_mass(j + 1) * dl[j]) * e);
    }
  }
  return iteration;
}

using kernels::kMaxColliders;  // common/colliders.hpp
using kernels::RigidPose;      // common/rigid_pose.hpp

// Symplectic Euler with fast projection (DER's Algorithm 1), or the linearly implicit backward
// Euler step with stretching as a stiff energy (the reference's der_implicit.hpp).
enum class Integrator { symplectic, implicit };

// Parameters of one step of every strand of a batch.
template <class T>
struct DerStepParameters {
  Integrator integrator = Integrator::symplectic;
  RigidPose<T> head;           // pose of the root clamps and colliders at the end of the step
  RigidPose<T> head_previous;  // ... and at its start (for the colliders' surface velocity)
  Collider<T> colliders[kMaxColliders];  // head frame
  int collider_count = 0;
  T dt = 0;            // s
  Vector3<T> gravity;  // m/s²
  T damping = 0;       // 1/s: force -damping m v
  // Air drag per unit length, linear in the velocity relative to the air (drag_matrix below).
  T drag_normal = 0;       // N s/m², across the strand
  T drag_tangent = 0;      // N s/m², along it
  WindField<T> wind;       // the air's velocity, evaluated at the step's start
  T time = 0;              // s, the step's start (the wind's clock)
  T length_tolerance = 0;  // m, fast projection
  T twist_tolerance = 0;   // energy units, max |∂E/∂θ|
  int max_projection_iterations = 50;
  int max_twist_iterations = 50;
};

// Air drag on vertex i: f = -D (v - wind), D = ℓ_i [ζ⊥ (I - t tᵀ) + ζ∥ t tᵀ] (resistive force
// theory of a slender fibre: the air resists motion across it more than along it), ℓ_i the
// vertex's share of the rest length, t its unit tangent (the mean of its edges'). Needs the
// tangents of compute_frames.
template <class T>
HS_HD Matrix3<T> drag_matrix(const Strand<T>& st, const DerStepParameters<T>& p, int i) {
  const DerBatchArrays<T>& a = st.a;
  const StridedVector3<T> t = st.vectors(a.tangent);
  const Strided<T> rest = st.per_row(a.edge_length);
  const int n = st.edges();
  const Vector3<T> sum = (i > 0 ? t.get(i - 1) : Vector3<T>{}) + (i < n ? t.get(i) : Vector3<T>{});
  const T sum_length = norm(sum);
  const Vector3<T> ti = sum_length > T(0) ? sum / sum_length : Vector3<T>{};
  const T share = T(0.5) * ((i > 0 ? rest[i - 1] : T(0)) + (i < n ? rest[i] : T(0)));
  const Matrix3<T> along = outer(ti, ti);
  return share * (p.drag_normal * (identity3<T>() - along) + p.drag_tangent * along);
}

// Contacts with the head colliders at the end of the step: every free vertex inside one is put
// on its surface and marked in `pinned`, with the surface's tangent plane recorded
// (contact_normal, contact_offset), its velocity (as it penetrated) replaced by the contact
// velocity (inelastic, Coulomb friction, relative to the surface's own velocity). Returns how
// many vertices were in contact.
template <class T>
HS_HD int resolve_contacts(const Strand<T>& st, const DerStepParameters<T>& p) {
  const DerBatchArrays<T>& a = st.a;
  const StridedVector3<T> x = st.vectors(a.position), v = st.vectors(a.velocity);
  const Strided<T> pinned = st.per_row(a.pinned);
  int touching = 0;
  for (int i = 2; i < a.vertices; ++i)
    for (int c = 0; c < p.collider_count; ++c) {
      const Contact<T> k = contact(p.colliders[c], p.head.apply_inverse(x.get(i)));
      if (!k.inside) continue;
      const Vector3<T> surface = p.head.apply(k.surface), normal = p.head.rotate(k.normal);
      const Vector3<T> w = (surface - p.head_previous.apply(k.surface)) / p.dt;
      x.set(i, surface);
      v.set(i, contact_velocity(v.get(i), w, normal, p.colliders[c].friction));
      pinned[i] = T(1);
      st.vectors(a.contact_normal).set(i, normal);
      st.per_row(a.contact_offset)[i] = dot(normal, surface);
      ++touching;
    }
  return touching;
}

// The fast projection again after contacts (Goldenthal et al. 2007 with one more kind of
// constraint): the edge lengths C_j = |e^j|² - |ē^j|² and, for each contact vertex k, its
// collider's tangent plane g_k = n_k . x_k - n_k . s_k = 0, so contacts slide on the surface
// while the lengths are restored (the root vertices stay held; an edge with both ends held is
// dropped). Ordering the constraints vertex by vertex as [g_k, C_k] makes ∇Φ M⁻¹ ∇Φᵀ
// block-tridiagonal with symmetric 2 x 2 blocks: each Newton step is one block Thomas solve.
// Stops when every edge length and plane is within `tolerance` (m). Returns the iterations.
template <class T>
HS_HD int project_on_contact_planes(const Strand<T>& st, T tolerance, int max_iterations) {
  const DerBatchArrays<T>& a = st.a;
  const int nv = a.vertices, n = st.edges();
  const StridedVector3<T> x = st.vectors(a.position), edge = st.vectors(a.edge_vector),
                          normal = st.vectors(a.contact_normal);
  const Strided<T> rest = st.per_row(a.edge_length), mass = st.per_row(a.mass),
                   pinned = st.per_row(a.pinned), offset = st.per_row(a.contact_offset),
                   diag = st.per_row(a.plane_diag), upper = st.per_row(a.plane_upper),
                   rhs = st.per_row(a.plane_rhs);
  auto w = [&](int i) { return i < 2 ? T(0) : T(1) / mass[i]; };  // roots held
  auto on_plane = [&](int i) { return i >= 2 && pinned[i] != T(0); };
  auto kept = [&](int j) { return j >= 1 && j < n; };  // edge 0 joins the two held roots
  int iteration = 0;
  for (;; ++iteration) {
    T worst = 0;
    for (int j = 0; j < n; ++j) {
      const Vector3<T> e = x.get(j + 1) - x.get(j);
      edge.set(j, e);
      if (kept(j)) worst = std::fmax(worst, std::fabs(norm(e) - rest[j]));
    }
    for (int k = 0; k < nv; ++k)
      if (on_plane(k))
        worst = std::fmax(worst, std::fabs(dot(normal.get(k), x.get(k)) - offset[k]));
    if (worst <= tolerance || iteration == max_iterations) break;
    for (int k = 0; k < nv; ++k) {  // block k: rows [g_k, C_k]
      const bool g = on_plane(k), c = kept(k);
      const Vector3<T> nk = g ? normal.get(k) : Vector3<T>{};
      const Vector3<T> ek = k < n ? edge.get(k) : Vector3<T>{};
      diag[4 * k] = g ? w(k) : T(1);
      diag[4 * k + 1] = diag[4 * k + 2] = g && c ? T(-2) * w(k) * dot(nk, ek) : T(0);
      diag[4 * k + 3] = c ? T(4) * dot(ek, ek) * (w(k) + w(k + 1)) : T(1);
      rhs[2 * k] = g ? dot(nk, x.get(k)) - offset[k] : T(0);
      rhs[2 * k + 1] = c ? dot(ek, ek) - rest[k] * rest[k] : T(0);
      // Coupling to block k + 1 through vertex k + 1: (C_k, g_{k+1}) and (C_k, C_{k+1}).
      upper[4 * k] = upper[4 * k + 1] = T(0);
      const bool next = k + 1 < nv && c;
      upper[4 * k + 2] =
          next && on_plane(k + 1) ? T(2) * w(k + 1) * dot(ek, normal.get(k + 1)) : T(0);
      upper[4 * k + 3] = next && kept(k + 1) ? T(-4) * w(k + 1) * dot(ek, edge.get(k + 1)) : T(0);
    }
    const LowerFromUpper<2, Strided<T>> lower{upper};
    if (!block_thomas_solve<T, 2>(nv, lower, diag, upper, rhs, rhs, diag)) break;
    for (int k = 2; k < nv; ++k) {  // x <- x - M⁻¹ ∇Φᵀ δλ, with the edges as linearised
      Vector3<T> step = on_plane(k) ? rhs[2 * k] * normal.get(k) : Vector3<T>{};
      if (k < n) step -= (T(2) * rhs[2 * k + 1]) * edge.get(k);
      step += (T(2) * rhs[2 * k - 1]) * edge.get(k - 1);
      x.set(k, x.get(k) - w(k) * step);
    }
  }
  return iteration;
}

// Iterations one step took (summed over strands by the backends, reported by the benchmark).
struct StepCounts {
  long projection_iterations = 0;
  long twist_iterations = 0;
  long contacts = 0;  // vertices put back on a collider's surface
  // Implicit steps whose block solve met a singular pivot (the velocities then keep their old
  // values); the system is SPD, so any is a bug or a non-finite state, reported as a failure.
  long solver_failures = 0;
};

// Where the head pose puts root vertex k (0 or 1) of the strand.
template <class T>
HS_HD Vector3<T> root_target(const Strand<T>& st, const RigidPose<T>& head, int k) {
  const DerBatchArrays<T>& a = st.a;
  return head.apply({st.strand_value(a.root_rest[3 * k]), st.strand_value(a.root_rest[3 * k + 1]),
                     st.strand_value(a.root_rest[3 * k + 2])});
}

// The end of both integrators' steps, once the centerline has moved: the Bishop frame carried in
// time (u⁰ parallel-transported from the old first tangent `old_t0` to the new, §4.2.2), θ⁰
// from the head-rotated root frame (unwrapped to the nearest turn), and the quasistatic twist
// (§5.1). Returns the twist solve's Newton iterations.
template <class T>
HS_HD int finish_step(const Strand<T>& st, const DerStepParameters<T>& p,
                      const Vector3<T>& old_t0) {
  const DerBatchArrays<T>& a = st.a;
  const StridedVector3<T> x = st.vectors(a.position);
  const Vector3<T> e0 = x.get(1) - x.get(0), new_t0 = e0 / norm(e0);
  Vector3<T> u0 = parallel_transport(
      Vector3<T>{st.strand_value(a.u0[0]), st.strand_value(a.u0[1]), st.strand_value(a.u0[2])},
      old_t0, new_t0);
  u0 = u0 - dot(u0, new_t0) * new_t0;  // kept exactly adapted to the new first tangent
  u0 = u0 / norm(u0);
  a.u0[0][st.s] = u0.x, a.u0[1][st.s] = u0.y, a.u0[2][st.s] = u0.z;
  const Vector3<T> m1 = p.head.rotate({st.strand_value(a.root_m1[0]), st.strand_value(a.root_m1[1]),
                                       st.strand_value(a.root_m1[2])});
  const T angle = std::atan2(dot(m1, cross(new_t0, u0)), dot(m1, u0));
  const T turn = T(2) * T(3.14159265358979323846);
  T& theta0 = a.theta[st.s];
  theta0 = angle + turn * std::floor((theta0 - angle) / turn + T(0.5));
  compute_frames(st);
  return solve_twist(st, p.twist_tolerance, p.max_twist_iterations).iterations;
}

// One step of Algorithm 1 for a hair strand (root clamp carried by the head, tip free): forces
// of the quasistatic rod (§7.1) with gravity, damping and air drag, symplectic Euler (§7.2), the
// root vertices placed by the head pose, fast projection with the velocity update
// v = (x_projected - x_old)/h (§8.1), contacts, then finish_step.
template <class T>
HS_HD StepCounts symplectic_step(const Strand<T>& st, const DerStepParameters<T>& p) {
  const DerBatchArrays<T>& a = st.a;
  const int nv = a.vertices;
  const StridedVector3<T> x = st.vectors(a.position), v = st.vectors(a.velocity),
                          f = st.vectors(a.force), old = st.vectors(a.previous_position);
  const Strided<T> mass = st.per_row(a.mass);
  compute_frames(st);
  elastic_forces(st);
  const Vector3<T> old_t0 = st.vectors(a.tangent).get(0);
  const bool drag = p.drag_normal != T(0) || p.drag_tangent != T(0);
  for (int i = 0; i < nv; ++i) {
    old.set(i, x.get(i));
    if (i < 2) continue;  // the root clamp
    const Vector3<T> vi = v.get(i);
    Vector3<T> force = f.get(i);
    if (drag) force -= drag_matrix(st, p, i) * (vi - p.wind.at(x.get(i), p.time));
    const Vector3<T> accel = force / mass[i] + p.gravity - p.damping * vi;
    const Vector3<T> vn = vi + p.dt * accel;
    v.set(i, vn);
    x.set(i, x.get(i) + p.dt * vn);
  }
  StepCounts counts;
  for (int k = 0; k < 2; ++k) x.set(k, root_target(st, p.head, k));
  const Strided<T> pinned = st.per_row(a.pinned);
  for (int i = 0; i < nv; ++i) pinned[i] = i < 2 ? T(1) : T(0);
  counts.projection_iterations =
      project_lengths(st, p.length_tolerance, p.max_projection_iterations);
  for (int i = 0; i < nv; ++i) v.set(i, (x.get(i) - old.get(i)) / p.dt);
  counts.contacts = resolve_contacts(st, p);
  if (counts.contacts > 0) {  // contacts on their tangent planes; everything back onto the lengths
    counts.projection_iterations +=
        project_on_contact_planes(st, p.length_tolerance, p.max_projection_iterations);
    for (int i = 2; i < nv; ++i)
      if (pinned[i] == T(0)) v.set(i, (x.get(i) - old.get(i)) / p.dt);
  }
  counts.twist_iterations = finish_step(st, p, old_t0);
  return counts;
}

// The implicit step's linear system of one strand, in place in the batch: vertices paired into
// 6 x 6 blocks (vertex i in block i / 2), which makes the bending stencil's coupling of vertices
// i - 1 and i + 1 block-tridiagonal. Symmetric: only the diagonal and super-diagonal blocks are
// stored (block_thomas_solve reads the sub-diagonal through LowerFromUpper).
// Entries are double (DerBatchArrays::system_diag says why); blocks arrive in T.
template <class T>
struct PairedBlockSystem {
  Strided<double> diag, upper, rhs;

  // Block (vertex r, vertex c) += m; an entry below the block diagonal is skipped (its
  // transpose, added with it, is the one stored).
  HS_HD void add(int r, int c, const Matrix3<T>& m) const {
    const int br = r / 2, bc = c / 2;
    if (bc < br) return;
    const Strided<double>& blocks = bc == br ? diag : upper;
    const int base = 36 * br + 18 * (r % 2) + 3 * (c % 2);
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) blocks[base + 6 * i + j] += double(m(i, j));
  }
  HS_HD void add_rhs(int r, const Vector3<T>& v) const {
    rhs[3 * r] += double(v.x), rhs[3 * r + 1] += double(v.y), rhs[3 * r + 2] += double(v.z);
  }
  HS_HD Vector3<T> solution(int r) const {
    return {T(rhs[3 * r]), T(rhs[3 * r + 1]), T(rhs[3 * r + 2])};
  }
};

// Stretching, ½ EA Σ (|e^j| - |ē^j|)² / |ē^j| (the reference's der_implicit.cpp): its force
// added to a.force; with `hessian`, its Hessian blocks handed to add(r, c, block) instead:
// EA/|ē| [d̂d̂ᵀ + max(0, 1 - |ē|/|e|)(I - d̂d̂ᵀ)] per edge (the compressed part dropped: PSD).
template <class T, class Add>
HS_HD void stretching_terms(const Strand<T>& st, bool hessian, Add&& add) {
  const DerBatchArrays<T>& a = st.a;
  const T ea = st.strand_value(a.stretching);
  const StridedVector3<T> x = st.vectors(a.position), f = st.vectors(a.force);
  const Strided<T> rest = st.per_row(a.edge_length);
  for (int j = 0; j < st.edges(); ++j) {
    const Vector3<T> d = x.get(j + 1) - x.get(j);
    const T length = norm(d);
    const Vector3<T> dir = d / length;
    if (!hessian) {
      const Vector3<T> g = (ea * (length - rest[j]) / rest[j]) * dir;
      f.set(j, f.get(j) + g);
      f.set(j + 1, f.get(j + 1) - g);
      continue;
    }
    const Matrix3<T> along = outer(dir, dir);
    const T stretched = T(1) - rest[j] / length;
    const Matrix3<T> k =
        (ea / rest[j]) * (along + (stretched > T(0) ? stretched : T(0)) * (identity3<T>() - along));
    const Matrix3<T> minus_k = T(-1) * k;
    add(j, j, k), add(j + 1, j + 1, k), add(j, j + 1, minus_k), add(j + 1, j, minus_k);
  }
}

// Gauss-Newton bending Hessian Σ_i J_iᵀ A_i J_i, J_i = ∂(κb)_i/∂x over the stencil (i-1, i, i+1)
// (the exact Jacobian of eq. 1), A_i = (α / l̄_i) Σ_{j=i-1,i} (I - t^j t^jᵀ): the bending form
// Pᵀ B P with P = [m2ᵀ; -m1ᵀ] and B = α Id (eq. 2 with the frames held), as in the reference.
template <class T, class Add>
HS_HD void bending_hessian(const Strand<T>& st, Add&& add) {
  const DerBatchArrays<T>& a = st.a;
  const T alpha = st.strand_value(a.bending);
  const StridedVector3<T> x = st.vectors(a.position), t = st.vectors(a.tangent),
                          kb = st.vectors(a.kb);
  const Strided<T> l = st.per_row(a.voronoi_length);
  for (int i = 1; i < st.edges(); ++i) {
    const Vector3<T> ea = x.get(i) - x.get(i - 1), eb = x.get(i + 1) - x.get(i), b = kb.get(i);
    const T la = norm(ea), lb = norm(eb), denom = la * lb + dot(ea, eb);
    // ∂κb/∂a = (-2[b]× - κb (|b| a/|a| + b)ᵀ) / D, ∂κb/∂b = (2[a]× - κb (|a| b/|b| + a)ᵀ) / D.
    const Matrix3<T> ja =
        (T(1) / denom) * (T(-2) * cross_matrix(eb) - outer(b, (lb / la) * ea + eb));
    const Matrix3<T> jb =
        (T(1) / denom) * (T(2) * cross_matrix(ea) - outer(b, (la / lb) * eb + ea));
    const Vector3<T> t0 = t.get(i - 1), t1 = t.get(i);
    const Matrix3<T> form =
        (alpha / l[i]) * (T(2) * identity3<T>() - outer(t0, t0) - outer(t1, t1));
    const Matrix3<T> d[3] = {T(-1) * ja, ja - jb, jb};  // ∂κb/∂(x_{i-1}, x_i, x_{i+1})
    for (int m = 0; m < 3; ++m) {
      const Matrix3<T> dt_form = transpose(d[m]) * form;
      for (int n = 0; n < 3; ++n) add(i - 1 + m, i - 1 + n, dt_form * d[n]);
    }
  }
}

// One linearly implicit backward Euler step of a hair strand (the reference's
// step_linearly_implicit, der_implicit.hpp, with the head's root clamp and colliders):
//   (M (1 + h c) + h D + h² H) v' = M v + h (F + M g + D w),   x' = x + h v',
// F the elastic forces of the quasistatic rod and stretching, D air drag (drag_matrix, taken
// implicitly), H the PSD Hessian approximation (stretching, Gauss-Newton bending). The root
// vertices move to the head pose: their velocities are known and go to the right-hand side.
// Solved by block Thomas on the 6 x 6 vertex-pair blocks. Then contacts, then finish_step.
template <class T>
HS_HD StepCounts implicit_step(const Strand<T>& st, const DerStepParameters<T>& p) {
  const DerBatchArrays<T>& a = st.a;
  const int nv = a.vertices, pairs = a.vertex_pairs();
  const StridedVector3<T> x = st.vectors(a.position), v = st.vectors(a.velocity),
                          f = st.vectors(a.force);
  const Strided<T> mass = st.per_row(a.mass);
  const PairedBlockSystem<T> system{st.per_row(a.system_diag), st.per_row(a.system_upper),
                                    st.per_row(a.system_rhs)};
  compute_frames(st);
  elastic_forces(st);
  stretching_terms(st, false, [](int, int, const Matrix3<T>&) {});
  const Vector3<T> old_t0 = st.vectors(a.tangent).get(0);
  const bool drag = p.drag_normal != T(0) || p.drag_tangent != T(0);
  for (int k = 0; k < 36 * pairs; ++k) system.diag[k] = system.upper[k] = 0.0;
  for (int k = 0; k < 6 * pairs; ++k) system.rhs[k] = 0.0;
  // Rows: identity for the root vertices (velocity known) and the padding vertex of an odd
  // count; M (1 + h c) + h D for the others.
  Vector3<T> root_velocity[2];
  for (int i = 0; i < 2 * pairs; ++i) {
    if (i < 2 || i >= nv) {
      system.add(i, i, identity3<T>());
      if (i < 2) root_velocity[i] = (root_target(st, p.head, i) - x.get(i)) / p.dt;
      if (i < 2) system.add_rhs(i, root_velocity[i]);
      continue;
    }
    Matrix3<T> lhs = (mass[i] * (T(1) + p.dt * p.damping)) * identity3<T>();
    Vector3<T> rhs = mass[i] * v.get(i) + p.dt * (f.get(i) + mass[i] * p.gravity);
    if (drag) {
      const Matrix3<T> d = drag_matrix(st, p, i);
      lhs += p.dt * d;
      rhs += p.dt * (d * p.wind.at(x.get(i), p.time));
    }
    system.add(i, i, lhs);
    system.add_rhs(i, rhs);
  }
  // h² H on the free rows; its columns of root vertices times their known velocities move to
  // the right-hand side.
  const T h2 = p.dt * p.dt;
  auto add_hessian = [&](int r, int c, const Matrix3<T>& block) {
    if (r < 2) return;
    if (c < 2)
      system.add_rhs(r, -h2 * (block * root_velocity[c]));
    else
      system.add(r, c, h2 * block);
  };
  stretching_terms(st, true, add_hessian);
  bending_hessian(st, add_hessian);
  const LowerFromUpper<6, Strided<double>> lower{system.upper};
  const bool solved = block_thomas_solve<double, 6>(pairs, lower, system.diag, system.upper,
                                                    system.rhs, system.rhs, system.diag);
  for (int i = 0; i < nv; ++i) {
    const Vector3<T> vi = i < 2 ? root_velocity[i] : solved ? system.solution(i) : v.get(i);
    v.set(i, vi);
    x.set(i, i < 2 ? root_target(st, p.head, i) : x.get(i) + p.dt * vi);
  }
  StepCounts counts;
  counts.solver_failures = solved ? 0 : 1;
  counts.contacts = resolve_contacts(st, p);
  counts.twist_iterations = finish_step(st, p, old_t0);
  return counts;
}

// One step of the chosen integrator.
template <class T>
HS_HD StepCounts step(const Strand<T>& st, const DerStepParameters<T>& p) {
  return p.integrator == Integrator::implicit ? implicit_step(st, p) : symplectic_step(st, p);
}

}  // namespace hairsim::kernels::der
