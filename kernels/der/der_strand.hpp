#pragma once
// DER on the batched engine: one strand's kinematics, energies, forces, twist solve, projection,
// contacts and symplectic step (Bergou et al. 2008), host and device, float or double, over the
// tiled batch layout (DerBatchArrays below). The same equations as the reference
// (src/reference/der/), specialised to hair: open strands, root edge clamped, isotropic bending
// B = α Id per strand (round fibres), a rest curvature ω̄ per vertex, twist modulus β per strand.
// The reference is the yardstick: tests/parity/ compares every quantity and whole runs with it.
#include <cmath>

#include "common/colliders.hpp"
#include "common/hd.hpp"
#include "common/strided.hpp"
#include "common/thomas.hpp"
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
  HS_HD int tile_count() const { return (strands + tile_width - 1) / tile_width; }
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
  T* edge_scratch = nullptr;     // per edge
  // Per edge: a tridiagonal system (twist Hessian or projection matrix), its solution, the
  // Thomas scratch, and θ saved by the line search.
  T* tri_lower = nullptr;
  T* tri_diag = nullptr;
  T* tri_upper = nullptr;
  T* tri_rhs = nullptr;
  T* tri_solution = nullptr;
  T* tri_scratch = nullptr;
  T* theta_saved = nullptr;
};

// Every array of the batch with its row count (vertices, edges, or 1 for per-strand values): the
// one list of fields, for the code that allocates, copies or maps them. f(T*& array, int rows).
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
  f(a.tri_lower, e), f(a.tri_diag, e), f(a.tri_upper, e), f(a.tri_rhs, e);
  f(a.tri_solution, e), f(a.tri_scratch, e), f(a.theta_saved, e);
}

// The arrays of tile t (pointers moved to the tile's start, `strands` its strand count).
template <class T>
HS_HD DerBatchArrays<T> tile_view(const DerBatchArrays<T>& batch, int t) {
  DerBatchArrays<T> tile = batch;
  tile.strands = batch.strands - t * batch.tile_width < batch.tile_width
                     ? batch.strands - t * batch.tile_width
                     : batch.tile_width;
  const long offset = long(t) * batch.tile_width;
  for_each_array(tile, [&](T*& array, int rows) { array += offset * rows; });
  return tile;
}

// One strand's view: its tile's arrays and its lane in the tile.
template <class T>
struct Strand {
  DerBatchArrays<T> a;  // the tile's
  int s;                // lane

  HS_HD int edges() const { return a.vertices - 1; }
  HS_HD Strided<T> per_row(T* p) const { return {p + s, a.tile_width}; }
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

// A rigid motion about a centre: p -> centre + R (p - centre) + translation (the head's pose,
// which carries every root clamp).
template <class T>
struct RigidPose {
  Vector3<T> row[3] = {{T(1), T(0), T(0)}, {T(0), T(1), T(0)}, {T(0), T(0), T(1)}};  // R
  Vector3<T> center, translation;

  HS_HD Vector3<T> rotate(const Vector3<T>& v) const {
    return {dot(row[0], v), dot(row[1], v), dot(row[2], v)};
  }
  HS_HD Vector3<T> apply(const Vector3<T>& p) const {
    return center + rotate(p - center) + translation;
  }
  HS_HD Vector3<T> rotate_back(const Vector3<T>& v) const {  // Rᵀ v
    return v.x * row[0] + v.y * row[1] + v.z * row[2];
  }
  HS_HD Vector3<T> apply_inverse(const Vector3<T>& p) const {
    return center + rotate_back(p - translation - center);
  }
};

constexpr int kMaxColliders = 8;

// Parameters of one step of every strand of a batch.
template <class T>
struct DerStepParameters {
  RigidPose<T> head;           // pose of the root clamps and colliders at the end of the step
  RigidPose<T> head_previous;  // ... and at its start (for the colliders' surface velocity)
  Collider<T> colliders[kMaxColliders];  // head frame
  int collider_count = 0;
  T dt = 0;                // s
  Vector3<T> gravity;      // m/s²
  T damping = 0;           // 1/s: force -damping m v
  T length_tolerance = 0;  // m, fast projection
  T twist_tolerance = 0;   // energy units, max |∂E/∂θ|
  int max_projection_iterations = 50;
  int max_twist_iterations = 50;
};

// Contacts with the head colliders at the end of the step: every free vertex inside one is put
// on its surface and pinned, its velocity (as it penetrated) replaced by the contact velocity
// (inelastic, Coulomb friction, relative to the surface's own velocity). Returns how many
// vertices were in contact.
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
      const Vector3<T> surface = p.head.apply(k.surface);
      const Vector3<T> w = (surface - p.head_previous.apply(k.surface)) / p.dt;
      x.set(i, surface);
      v.set(i, contact_velocity(v.get(i), w, p.head.rotate(k.normal), p.colliders[c].friction));
      pinned[i] = T(1);
      ++touching;
    }
  return touching;
}

// Iterations one step took (summed over strands by the backends, reported by the benchmark).
struct StepCounts {
  long projection_iterations = 0;
  long twist_iterations = 0;
  long contacts = 0;  // vertices put back on a collider's surface
};

// One step of Algorithm 1 for a hair strand (root clamp carried by the head, tip free): forces
// of the quasistatic rod (§7.1), symplectic Euler (§7.2), the root vertices placed by the head
// pose, fast projection with the velocity update v = (x_projected - x_old)/h (§8.1), the Bishop
// frame carried in time (u⁰ parallel-transported from the old first tangent to the new,
// §4.2.2), θ⁰ from the head-rotated root frame (unwrapped to the nearest turn), and the
// quasistatic twist (§5.1).
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
  for (int i = 0; i < nv; ++i) {
    old.set(i, x.get(i));
    if (i < 2) continue;  // the root clamp
    const Vector3<T> vi = v.get(i);
    const Vector3<T> accel = f.get(i) / mass[i] + p.gravity - p.damping * vi;
    const Vector3<T> vn = vi + p.dt * accel;
    v.set(i, vn);
    x.set(i, x.get(i) + p.dt * vn);
  }
  StepCounts counts;
  for (int k = 0; k < 2; ++k)
    x.set(k, p.head.apply({st.strand_value(a.root_rest[3 * k]),
                           st.strand_value(a.root_rest[3 * k + 1]),
                           st.strand_value(a.root_rest[3 * k + 2])}));
  const Strided<T> pinned = st.per_row(a.pinned);
  for (int i = 0; i < nv; ++i) pinned[i] = i < 2 ? T(1) : T(0);
  counts.projection_iterations =
      project_lengths(st, p.length_tolerance, p.max_projection_iterations);
  for (int i = 0; i < nv; ++i) v.set(i, (x.get(i) - old.get(i)) / p.dt);
  counts.contacts = resolve_contacts(st, p);
  if (counts.contacts > 0) {  // contacts pinned; the rest back onto the edge lengths
    counts.projection_iterations +=
        project_lengths(st, p.length_tolerance, p.max_projection_iterations);
    for (int i = 2; i < nv; ++i)
      if (pinned[i] == T(0)) v.set(i, (x.get(i) - old.get(i)) / p.dt);
  }
  // Time-parallel transport of u⁰, kept exactly adapted to the new first tangent.
  const Vector3<T> e0 = x.get(1) - x.get(0), new_t0 = e0 / norm(e0);
  Vector3<T> u0 = parallel_transport(
      Vector3<T>{st.strand_value(a.u0[0]), st.strand_value(a.u0[1]), st.strand_value(a.u0[2])},
      old_t0, new_t0);
  u0 = u0 - dot(u0, new_t0) * new_t0;
  u0 = u0 / norm(u0);
  a.u0[0][st.s] = u0.x, a.u0[1][st.s] = u0.y, a.u0[2][st.s] = u0.z;
  const Vector3<T> m1 = p.head.rotate({st.strand_value(a.root_m1[0]), st.strand_value(a.root_m1[1]),
                                       st.strand_value(a.root_m1[2])});
  const T angle = std::atan2(dot(m1, cross(new_t0, u0)), dot(m1, u0));
  const T turn = T(2) * T(3.14159265358979323846);
  T& theta0 = a.theta[st.s];
  theta0 = angle + turn * std::floor((theta0 - angle) / turn + T(0.5));
  compute_frames(st);
  counts.twist_iterations = solve_twist(st, p.twist_tolerance, p.max_twist_iterations).iterations;
  return counts;
}

}  // namespace hairsim::kernels::der
