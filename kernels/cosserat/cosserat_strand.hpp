#pragma once
// Compact inextensible Cosserat rods (Zhao et al. 2022) for the batched engine: one strand's
// implicit Euler step as `__host__ __device__` code, float or double. The same mathematics as the
// reference (src/reference/cosserat/, docs/models/cosserat.md), function for function: the chain
// of eq. (7), the energies of App. A, J·v and Jᵀ·v as prefix and suffix sums (eq. 18), the
// hybrid (eq. 22) or block-diagonal preconditioner applied by block Thomas, PCG, and Newton with
// the same line search. The root is clamped to the head (root vertex and segment 0's frame move
// with the head's rigid pose); the head's colliders act through an implicit penalty (Loads).
#include <cmath>

#include "common/block_thomas.hpp"
#include "common/colliders.hpp"
#include "common/friction.hpp"
#include "common/hd.hpp"
#include "common/scan.hpp"
#include "common/small_matrix.hpp"
#include "common/strided.hpp"
#include "common/wind.hpp"

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
  f(a.bend_prev, 12 * v), f(a.bend_next, 12 * v), f(a.mq, 16 * e);
  f(a.saved, 3 * v), f(a.gradient, 3 * v), f(a.step, 3 * v), f(a.residual, 3 * v);
  f(a.direction, 3 * v), f(a.product, 3 * v), f(a.precond, 3 * v);
  f(a.xp, 3 * v), f(a.xq, 4 * e), f(a.hp, 3 * v), f(a.hq, 4 * e);
  f(a.pc_diag, 9 * v), f(a.pc_upper, 9 * v), f(a.pc_scratch, 9 * v);
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

// --- Kinematics (§2.1) -------------------------------------------------------------------------

template <class T>
HS_HD T norm3(const V3<T>& v) {
  return std::sqrt(dot(v, v));
}

// std::sin(θ/2)/θ and (θ/2 std::cos(θ/2) - std::sin(θ/2))/θ³, with the reference's series below 0.1
// rad.
template <class T>
HS_HD T half_sinc(T theta) {
  if (theta < T(0.1)) {
    const T t2 = theta * theta;
    return T(0.5) - t2 / T(48) + t2 * t2 / T(3840) - t2 * t2 * t2 / T(645120);
  }
  return std::sin(T(0.5) * theta) / theta;
}
template <class T>
HS_HD T half_sinc_derivative_over_theta(T theta) {
  if (theta < T(0.1)) {
    const T t2 = theta * theta;
    return T(-1) / T(24) + t2 / T(960) - t2 * t2 / T(107520) + t2 * t2 * t2 / T(23224320);
  }
  return (T(0.5) * theta * std::cos(T(0.5) * theta) - std::sin(T(0.5) * theta)) /
         (theta * theta * theta);
}

// Eqs. (4)-(5).
template <class T>
HS_HD V4<T> quaternion(const V3<T>& w) {
  const T theta = norm3(w), s = half_sinc(theta);
  return {{{std::cos(T(0.5) * theta)}, {s * w[0]}, {s * w[1]}, {s * w[2]}}};
}
template <class T>
HS_HD Mat<T, 4, 3> quaternion_jacobian(const V3<T>& w) {
  const T theta = norm3(w), s = half_sinc(theta), d = half_sinc_derivative_over_theta(theta);
  Mat<T, 4, 3> j;
  for (int c = 0; c < 3; ++c) {
    j(0, c) = T(-0.5) * s * w[c];
    for (int r = 0; r < 3; ++r) j(1 + r, c) = (r == c ? s : T(0)) + d * w[r] * w[c];
  }
  return j;
}
template <class T>
HS_HD V3<T> director(const V4<T>& q) {
  const T w = q[0], x = q[1], y = q[2], z = q[3];
  return {{{T(2) * (x * z + w * y)}, {T(2) * (y * z - w * x)}, {w * w - x * x - y * y + z * z}}};
}
template <class T>
HS_HD Mat<T, 3, 4> director_jacobian(const V4<T>& q) {
  const T w = q[0], x = q[1], y = q[2], z = q[3];
  return {{{2 * y, 2 * z, 2 * w, 2 * x},
           {-2 * x, -2 * w, 2 * z, 2 * y},
           {2 * w, -2 * x, -2 * y, 2 * z}}};
}
// f(a, b) = vec(conj(a) ⊗ b) and its derivatives (bilinear).
template <class T>
HS_HD Mat<T, 3, 4> d_vec_d_first(const V4<T>& b) {
  return {{{b[1], -b[0], -b[3], b[2]}, {b[2], b[3], -b[0], -b[1]}, {b[3], -b[2], b[1], -b[0]}}};
}
template <class T>
HS_HD Mat<T, 3, 4> d_vec_d_second(const V4<T>& a) {
  return {{{-a[1], a[0], a[3], -a[2]}, {-a[2], -a[3], a[0], a[1]}, {-a[3], a[2], -a[1], a[0]}}};
}
// 2 vec(conj(a) ⊗ b) with b on a's hemisphere.
template <class T>
HS_HD V3<T> relative_rotation(const V4<T>& a, V4<T> b) {
  if (dot(a, b) < T(0)) b = T(-1) * b;
  return T(2) * (d_vec_d_second(a) * b);
}

// q, ∂q/∂ω, the vertices (eq. 7) and J^i from the strand's current s.
template <class T>
HS_HD void compute_kinematics(const Strand<T>& st) {
  const auto& a = st.a;
  for (int i = 0; i < st.segments(); ++i) {
    const V3<T> w = st.template get<3, 1>(a.config, 1 + i);
    const V4<T> q = quaternion(w);
    const Mat<T, 4, 3> dq = quaternion_jacobian(w);
    st.set(a.q, i, q);
    st.set(a.dq, i, dq);
    st.set(a.dx, i, st.rows(a.length)[i] * (director_jacobian(q) * dq));
  }
  const V3<T> root = st.template get<3, 1>(a.config, 0);
  st.set(a.x, 0, root);
  inclusive_scan(
      st.segments(), root,
      [&](int i) { return st.rows(a.length)[i] * director(st.template get<4, 1>(a.q, i)); },
      [&](int i, const V3<T>& p) { st.set(a.x, i + 1, p); });
}

// --- Energies (App. A)
// ----------------------------------------------------------------------------

template <class T>
struct Darboux {
  V3<T> value;
  Mat<T, 3, 4> d_prev, d_next;
};
// Ω_k and its derivatives with q_k taken on q_{k-1}'s side (q and -q are one frame): with
// f = vec(conj(q_{k-1}) ⊗ q_k) = sin(θ/2) n and c = q_{k-1} · q_k = cos(θ/2) >= 0,
// sine: Ω = 2 f / l̄; tangent: Ω = 2 f / (c l̄), ∂Ω/∂q = (2 / l̄)(∂f/∂q / c - f ∂c/∂q / c²).
// c is held above the precision's ε (θ within ~ε of π), where the energy is ~1/ε² of a unit bend.
template <class T>
HS_HD Darboux<T> darboux(const V4<T>& q_prev, const V4<T>& q_next, T voronoi,
                         BendingStrain measure) {
  const T sign = dot(q_prev, q_next) < T(0) ? T(-1) : T(1);
  const V4<T> next = sign * q_next;
  const Mat<T, 3, 4> f_prev = d_vec_d_first(next), f_next = d_vec_d_second(q_prev);
  if (measure == BendingStrain::sine)
    return {(T(2) / voronoi) * (f_next * next), (T(2) / voronoi) * f_prev,
            (T(2) * sign / voronoi) * f_next};
  const T epsilon = sizeof(T) == sizeof(double) ? T(2.220446049250313e-16) : T(1.1920929e-7);
  const T c_raw = dot(q_prev, next), c = c_raw > epsilon ? c_raw : epsilon;
  const V3<T> f = f_next * next;
  const T w = T(2) / (voronoi * c), wf = T(2) / (voronoi * c * c);
  Mat<T, 3, 4> d_prev, d_next;
  for (int r = 0; r < 3; ++r)
    for (int col = 0; col < 4; ++col) {
      d_prev(r, col) = w * f_prev(r, col) - wf * f[r] * next[col];
      d_next(r, col) = sign * (w * f_next(r, col) - wf * f[r] * q_prev[col]);
    }
  return {w * f, d_prev, d_next};
}
template <class T>
HS_HD T voronoi(const Strand<T>& st, int k) {
  const Strided<T> l = st.rows(st.a.length);
  return T(0.5) * (l[k - 1] + l[k]);
}

// The rotational term of segment i: e = R q - Δt Ω_t, R = ∂e/∂q.
template <class T>
struct RotationalTerm {
  Mat<T, 3, 4> r;
  V3<T> error;
};
template <class T>
HS_HD RotationalTerm<T> rotational_term(const Strand<T>& st, const V4<T>& q, int i) {
  const V4<T> qt = st.template get<4, 1>(st.a.start_q, i);
  const T sign = dot(qt, q) < T(0) ? T(-1) : T(1);
  return {(T(2) * sign) * d_vec_d_second(qt),
          relative_rotation(qt, q) - st.template get<3, 1>(st.a.rotation_dt, i)};
}

// The head's rigid pose: x -> rotation x + translation (rotation row-major).
template <class T>
struct Pose {
  T rotation[9] = {T(1), T(0), T(0), T(0), T(1), T(0), T(0), T(0), T(1)};
  T translation[3] = {T(0), T(0), T(0)};
  HS_HD M3<T> r() const {
    M3<T> m;
    for (int k = 0; k < 9; ++k) m[k] = rotation[k];
    return m;
  }
  HS_HD V3<T> to_head(const V3<T>& x) const {
    V3<T> d = x;
    for (int k = 0; k < 3; ++k) d[k] -= translation[k];
    return transpose_times(r(), d);
  }
  HS_HD V3<T> to_world(const V3<T>& local) const {
    V3<T> x = r() * local;
    for (int k = 0; k < 3; ++k) x[k] += translation[k];
    return x;
  }
};

// External loads of a step: gravity, the linear resistance the reference takes implicitly
// (cosserat::CosseratRod): viscous damping -d m ṗ and air drag -ℓ [ζ⊥ (I - ttᵀ) + ζ∥ ttᵀ] (ṗ - w),
// and the head: its pose at the end of the step (the root clamp's, and the colliders').
template <class T>
struct Loads {
  V3<T> gravity = V3<T>::zero();        // m/s²
  T damping = 0;                        // 1/s
  T drag_normal = 0, drag_tangent = 0;  // N s/m²
  WindField<T> wind;                    // evaluated at the step's start
  T time = 0;                           // s, the step's start (the wind's clock)
  Pose<T> head;                         // at the step's end
  Pose<T> head_start;                   // at the step's start (friction's lagged contacts)
  // Colliders (head frame) by an implicit penalty, not the reference's active set: a free
  // vertex with gap c = φ - δ < 0 adds ½ k_j c², k_j = κ m_j / Δt², so that it penetrates by about
  // (v Δt + g Δt²) / κ: 1e-7 m for 1 m/s at 1 ms with κ = 1e4 (docs/models/cosserat.md; the
  // engine takes κ = 300 in float, HairSetup::contact_ratio).
  int collider_count = 0;
  Collider<T> colliders[kMaxColliders];
  T contact_thickness = 0;   // δ, m
  T contact_ratio = T(1e4);  // κ
  // Coulomb friction (the colliders' μ): a vertex inside a collider at the step's start, pushed
  // out by the penalty's λ = k_j |c|, adds μ λ f0(|u|) (kernels/common/friction.hpp), its slip u
  // measured from the surface point it touched, carried by the head; ε_v = stick_speed.
  T stick_speed = T(1e-3);  // m/s
  HS_HD bool resistive() const {
    return damping != T(0) || drag_normal != T(0) || drag_tangent != T(0);
  }
  HS_HD bool frictional() const {
    for (int c = 0; c < collider_count; ++c)
      if (colliders[c].friction > T(0)) return true;
    return false;
  }
};

// The smallest gap φ - δ of point x over the colliders with the head at `pose` (head frame:
// x_head = Rᵀ (x - t)), that collider's outward normal in the world and its μ; 1 m and no normal
// without colliders. By default the head at the step's end.
template <class T>
struct Gap {
  T value;
  V3<T> normal;
  T friction;
};
template <class T>
HS_HD Gap<T> contact_gap(const Loads<T>& loads, const V3<T>& x, const Pose<T>& pose) {
  Gap<T> gap{T(1), V3<T>::zero(), T(0)};
  if (loads.collider_count == 0) return gap;
  const V3<T> local = pose.to_head(x);
  for (int c = 0; c < loads.collider_count; ++c) {
    const SignedDistance<T> sd =
        signed_distance(loads.colliders[c], Vector3<T>{local[0], local[1], local[2]});
    const T value = sd.distance - loads.contact_thickness;
    if (value < gap.value)
      gap = {value, pose.r() * V3<T>{{{sd.normal.x}, {sd.normal.y}, {sd.normal.z}}},
             loads.colliders[c].friction};
  }
  return gap;
}
template <class T>
HS_HD Gap<T> contact_gap(const Loads<T>& loads, const V3<T>& x) {
  return contact_gap(loads, x, loads.head);
}
// The penalty stiffness of vertex j, κ m_j / Δt² (N/m).
template <class T>
HS_HD T contact_stiffness(const Strand<T>& st, const Loads<T>& loads, T dt, int j) {
  return loads.contact_ratio * st.rows(st.a.mass)[j] / (dt * dt);
}

// Friction's lagged contacts of a step: a free vertex inside a collider with μ > 0 at the step's
// start (the head then) keeps the normal n there, the touched surface point carried by the head
// to the step's end (its anchor a), μ λ, λ = k_j |c| the penalty's force then, and the stick
// length (kernels::stick_length); μ λ = 0 at the other vertices. The reference takes its own last
// multipliers as λ (cosserat::CosseratRod).
template <class T>
HS_HD void set_friction(const Strand<T>& st, const Loads<T>& loads, T dt) {
  for (int v = 0; v < st.vertices(); ++v) {
    Vec<T, 8> f = Vec<T, 8>::zero();
    const V3<T> x = st.template get<3, 1>(st.a.start_x, v);
    const Gap<T> gap = v >= 2 ? contact_gap(loads, x, loads.head_start) : Gap<T>{T(1), {}, T(0)};
    if (gap.value < T(0) && gap.friction > T(0)) {
      const V3<T> anchor = loads.head.to_world(loads.head_start.to_head(x));
      for (int k = 0; k < 3; ++k) f[k] = gap.normal[k], f[3 + k] = anchor[k];
      f[6] = gap.friction * contact_stiffness(st, loads, dt, v) * -gap.value;
      f[7] = stick_length(loads.stick_speed, dt, f[6], st.rows(st.a.mass)[v]);
    }
    st.set(st.a.friction, v, f);
  }
}

// Vertex v's friction at its current position (kernels/common/friction.hpp).
template <class T>
HS_HD FrictionTerm<T> friction_term(const Strand<T>& st, int v) {
  const Vec<T, 8> f = st.template get<8, 1>(st.a.friction, v);
  V3<T> normal, anchor;
  for (int k = 0; k < 3; ++k) normal[k] = f[k], anchor[k] = f[3 + k];
  return friction_term(f[6], normal, anchor, f[7], st.template get<3, 1>(st.a.x, v));
}

template <class T>
struct Energy {
  T total = 0;
  T scale = 0;  // Σ |terms|: the round-off yardstick of the line search
};
// E of eq. (8a) at the current kinematics.
template <class T>
HS_HD Energy<T> energy(const Strand<T>& st, T dt, const Loads<T>& loads) {
  const V3<T>& gravity = loads.gravity;
  const auto& a = st.a;
  const V3<T> k = st.template get<3, 1>(a.stiffness, 0), j = st.template get<3, 1>(a.inertia, 0);
  const T inv_dt2 = T(1) / (dt * dt);
  T bend = 0, twist = 0, trans = 0, rot = 0, grav = 0, resist = 0;
  for (int v = 1; v + 1 < st.vertices(); ++v) {
    const T l = voronoi(st, v);
    const V3<T> strain = darboux(st.template get<4, 1>(a.q, v - 1), st.template get<4, 1>(a.q, v),
                                 l, a.bending_strain)
                             .value -
                         st.template get<3, 1>(a.darboux, v);
    bend += T(0.5) * l * (k[0] * strain[0] * strain[0] + k[1] * strain[1] * strain[1]);
    twist += T(0.5) * l * k[2] * strain[2] * strain[2];
  }
  for (int v = 0; v < st.vertices(); ++v) {
    const T m = st.rows(a.mass)[v];
    const V3<T> x = st.template get<3, 1>(a.x, v);
    const V3<T> d = x - st.template get<3, 1>(a.predicted, v);
    trans += T(0.5) * m * inv_dt2 * dot(d, d);
    grav -= m * dot(gravity, x);
  }
  for (int v = 2; v < st.vertices() && loads.collider_count > 0; ++v) {
    const Gap<T> g = contact_gap(loads, st.template get<3, 1>(a.x, v));
    if (g.value < T(0)) resist += T(0.5) * contact_stiffness(st, loads, dt, v) * g.value * g.value;
  }
  if (loads.frictional())
    for (int v = 2; v < st.vertices(); ++v) resist += friction_term(st, v).energy();
  if (loads.resistive())
    for (int v = 0; v < st.vertices(); ++v) {
      const V3<T> d = st.template get<3, 1>(a.x, v) - st.template get<3, 1>(a.start_x, v);
      resist += T(0.5) / dt * dot(d, st.template get<3, 3>(a.resistance, v) * d) -
                dot(d, st.template get<3, 1>(a.air_force, v));
    }
  for (int i = 0; i < st.segments(); ++i) {
    const V3<T> e = rotational_term(st, st.template get<4, 1>(a.q, i), i).error;
    rot += T(0.5) * st.rows(a.length)[i] * inv_dt2 * dot(e, scale_rows(j, e));
  }
  const auto abs = [](T v) { return v < T(0) ? -v : v; };
  return {bend + twist + trans + rot + grav + resist,
          abs(bend) + abs(twist) + abs(trans) + abs(rot) + abs(grav) + abs(resist)};
}

// --- Products (§3.2) ---------------------------------------------------------------------------

// Jᵀ y from the x-space arrays xp, xq into the s-space array `out`, suffix sums (eq. 18).
template <class T>
HS_HD void apply_jt(const Strand<T>& st, T* yp, T* yq, T* out) {
  const auto& a = st.a;
  const V3<T> beyond_root = reverse_inclusive_scan(
      st.segments(), V3<T>::zero(), [&](int i) { return st.template get<3, 1>(yp, i + 1); },
      [&](int i, const V3<T>& beyond) {
        st.set(out, 1 + i,
               transpose_times(st.template get<3, 3>(a.dx, i), beyond) +
                   transpose_times(st.template get<4, 3>(a.dq, i), st.template get<4, 1>(yq, i)));
      });
  st.set(out, 0, beyond_root + st.template get<3, 1>(yp, 0));
}

// J v (prefix sums) into xp, xq.
template <class T>
HS_HD void apply_j(const Strand<T>& st, T* v) {
  const auto& a = st.a;
  const V3<T> root = st.template get<3, 1>(v, 0);
  st.set(a.xp, 0, root);
  inclusive_scan(
      st.segments(), root,
      [&](int i) { return st.template get<3, 3>(a.dx, i) * st.template get<3, 1>(v, 1 + i); },
      [&](int i, const V3<T>& p) { st.set(a.xp, i + 1, p); });
  for (int i = 0; i < st.segments(); ++i)
    st.set(a.xq, i, st.template get<4, 3>(a.dq, i) * st.template get<3, 1>(v, 1 + i));
}

// b = Jᵀ ∂E/∂x into `gradient`, the fixed root blocks zeroed.
template <class T>
HS_HD void compute_gradient(const Strand<T>& st, T dt, const Loads<T>& loads, T* out) {
  const auto& a = st.a;
  const V3<T> k = st.template get<3, 1>(a.stiffness, 0), j = st.template get<3, 1>(a.inertia, 0);
  const T inv_dt2 = T(1) / (dt * dt);
  for (int v = 0; v < st.vertices(); ++v) {
    const T m = st.rows(a.mass)[v];
    V3<T> g =
        m * (inv_dt2 * (st.template get<3, 1>(a.x, v) - st.template get<3, 1>(a.predicted, v)) -
             loads.gravity);
    if (loads.resistive()) {  // C (p - p_t) / Δt - D w
      const V3<T> cd = st.template get<3, 3>(a.resistance, v) *
                       (st.template get<3, 1>(a.x, v) - st.template get<3, 1>(a.start_x, v));
      const V3<T> f = st.template get<3, 1>(a.air_force, v);
      for (int c = 0; c < 3; ++c) g[c] += cd[c] / dt - f[c];
    }
    if (v >= 2 && loads.collider_count > 0) {  // the penalty's k c n
      const Gap<T> gap = contact_gap(loads, st.template get<3, 1>(a.x, v));
      if (gap.value < T(0)) g += (contact_stiffness(st, loads, dt, v) * gap.value) * gap.normal;
      if (loads.frictional()) g += friction_term(st, v).gradient();
    }
    st.set(a.xp, v, g);
  }
  for (int i = 0; i < st.segments(); ++i) {
    const RotationalTerm<T> t = rotational_term(st, st.template get<4, 1>(a.q, i), i);
    st.set(a.xq, i,
           (st.rows(a.length)[i] * inv_dt2) * transpose_times(t.r, scale_rows(j, t.error)));
  }
  for (int v = 1; v + 1 < st.vertices(); ++v) {
    const T l = voronoi(st, v);
    const Darboux<T> d = darboux(st.template get<4, 1>(a.q, v - 1), st.template get<4, 1>(a.q, v),
                                 l, a.bending_strain);
    const V3<T> moment = l * scale_rows(k, d.value - st.template get<3, 1>(a.darboux, v));
    st.set(a.xq, v - 1, st.template get<4, 1>(a.xq, v - 1) + transpose_times(d.d_prev, moment));
    st.set(a.xq, v, st.template get<4, 1>(a.xq, v) + transpose_times(d.d_next, moment));
  }
  apply_jt(st, a.xp, a.xq, out);
  st.set(out, 0, V3<T>::zero());  // the clamped root: blocks 0 and 1 are held
  st.set(out, 1, V3<T>::zero());
}

// H's quaternion blocks at the current kinematics: M_q / Δt² and the Darboux Jacobians.
template <class T>
HS_HD void compute_hessian(const Strand<T>& st, T dt, const Loads<T>& loads) {
  const auto& a = st.a;
  const V3<T> j = st.template get<3, 1>(a.inertia, 0);
  const T inv_dt2 = T(1) / (dt * dt);
  // The contacts' block: the penalty's Gauss-Newton k n nᵀ at the vertices in contact now, and
  // the friction's Hessian at those in contact at the step's start (zero elsewhere).
  for (int v = 0; v < st.vertices(); ++v) {
    M3<T> c = M3<T>::zero();
    if (v >= 2 && loads.collider_count > 0) {
      const Gap<T> gap = contact_gap(loads, st.template get<3, 1>(a.x, v));
      if (gap.value < T(0)) {
        const T k = contact_stiffness(st, loads, dt, v);
        for (int r = 0; r < 3; ++r)
          for (int e = 0; e < 3; ++e) c(r, e) = k * gap.normal[r] * gap.normal[e];
      }
      if (loads.frictional()) c += friction_term(st, v).hessian();
    }
    st.set(a.contact, v, c);
  }
  for (int i = 0; i < st.segments(); ++i) {
    const Mat<T, 3, 4> r = rotational_term(st, st.template get<4, 1>(a.q, i), i).r;
    st.set(a.mq, i, (st.rows(a.length)[i] * inv_dt2) * transpose_times(r, scale_rows(j, r)));
  }
  for (int v = 1; v + 1 < st.vertices(); ++v) {
    const Darboux<T> d = darboux(st.template get<4, 1>(a.q, v - 1), st.template get<4, 1>(a.q, v),
                                 voronoi(st, v), a.bending_strain);
    st.set(a.bend_prev, v, d.d_prev);
    st.set(a.bend_next, v, d.d_next);
  }
}

// C_j / Δt (divided entry by entry, as the reference's Mat3 / Δt).
template <class T>
HS_HD M3<T> resistance_dt(const Strand<T>& st, T dt, int v) {
  M3<T> c = st.template get<3, 3>(st.a.resistance, v);
  for (int k = 0; k < 9; ++k) c[k] = c[k] / dt;
  return c;
}

// out = A v on the free blocks (v's fixed blocks are zero), 0 on the fixed ones.
template <class T>
HS_HD void apply_a(const Strand<T>& st, T dt, bool resistive, T* v, T* out) {
  const auto& a = st.a;
  const V3<T> k = st.template get<3, 1>(a.stiffness, 0);
  const T inv_dt2 = T(1) / (dt * dt);
  apply_j(st, v);
  for (int p = 0; p < st.vertices(); ++p) {
    const V3<T> y = st.template get<3, 1>(a.xp, p);
    V3<T> hy = (st.rows(a.mass)[p] * inv_dt2) * y;
    if (resistive) hy += resistance_dt(st, dt, p) * y;
    hy += st.template get<3, 3>(a.contact, p) * y;
    st.set(a.hp, p, hy);
  }
  for (int i = 0; i < st.segments(); ++i)
    st.set(a.hq, i, st.template get<4, 4>(a.mq, i) * st.template get<4, 1>(a.xq, i));
  for (int p = 1; p + 1 < st.vertices(); ++p) {
    const Mat<T, 3, 4> gp = st.template get<3, 4>(a.bend_prev, p),
                       gn = st.template get<3, 4>(a.bend_next, p);
    const V3<T> w = voronoi(st, p) * scale_rows(k, gp * st.template get<4, 1>(a.xq, p - 1) +
                                                       gn * st.template get<4, 1>(a.xq, p));
    st.set(a.hq, p - 1, st.template get<4, 1>(a.hq, p - 1) + transpose_times(gp, w));
    st.set(a.hq, p, st.template get<4, 1>(a.hq, p) + transpose_times(gn, w));
  }
  apply_jt(st, a.hp, a.hq, out);
  st.set(out, 0, V3<T>::zero());
  st.set(out, 1, V3<T>::zero());
}

// --- Preconditioner (§3.3) ---------------------------------------------------------------------

enum class Preconditioner : int { diagonal = 0, block_diagonal = 1, hybrid = 2 };

template <class T>
HS_HD void build_preconditioner(const Strand<T>& st, T dt, bool resistive, Preconditioner kind) {
  const auto& a = st.a;
  const int n = st.vertices();
  const V3<T> k = st.template get<3, 1>(a.stiffness, 0);
  const T inv_dt2 = T(1) / (dt * dt);
  // H_j = h_j I (+ C_j / Δt), summed beyond each segment (eq. 28).
  auto block = [&](int j) {
    M3<T> b = (st.rows(a.mass)[j] * inv_dt2) * M3<T>::identity();
    if (resistive) b += resistance_dt(st, dt, j);
    b += st.template get<3, 3>(a.contact, j);
    return b;
  };
  const M3<T> beyond_root = reverse_inclusive_scan(
      st.segments(), M3<T>::zero(), [&](int i) { return block(i + 1); },
      [&](int i, const M3<T>& beyond) {
        const M3<T> dx = st.template get<3, 3>(a.dx, i);
        const Mat<T, 4, 3> dq = st.template get<4, 3>(a.dq, i);
        st.set(a.pc_diag, 1 + i,
               transpose_times(dx, beyond) * dx +
                   transpose_times(dq, st.template get<4, 4>(a.mq, i) * dq));
      });
  st.set(a.pc_diag, 0, beyond_root + block(0));
  for (int b = 0; b < n; ++b) st.set(a.pc_upper, b, M3<T>::zero());
  for (int v = 1; v + 1 < n; ++v) {
    const T l = voronoi(st, v);
    const M3<T> pa = st.template get<3, 4>(a.bend_prev, v) * st.template get<4, 3>(a.dq, v - 1);
    const M3<T> pb = st.template get<3, 4>(a.bend_next, v) * st.template get<4, 3>(a.dq, v);
    const M3<T> kpa = l * scale_rows(k, pa), kpb = l * scale_rows(k, pb);
    st.set(a.pc_diag, v, st.template get<3, 3>(a.pc_diag, v) + transpose_times(pa, kpa));
    st.set(a.pc_diag, v + 1, st.template get<3, 3>(a.pc_diag, v + 1) + transpose_times(pb, kpb));
    if (kind == Preconditioner::hybrid) st.set(a.pc_upper, v, transpose_times(pa, kpb));
  }
  if (kind == Preconditioner::diagonal)
    for (int b = 0; b < n; ++b) {
      M3<T> d = st.template get<3, 3>(a.pc_diag, b);
      for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c)
          if (r != c) d(r, c) = T(0);
      st.set(a.pc_diag, b, d);
    }
  // The clamped root's blocks: the identity, uncoupled.
  st.set(a.pc_diag, 0, M3<T>::identity());
  st.set(a.pc_diag, 1, M3<T>::identity());
  st.set(a.pc_upper, 0, M3<T>::zero());
  st.set(a.pc_upper, 1, M3<T>::zero());
}

template <class T>
HS_HD bool apply_preconditioner(const Strand<T>& st, T* r, T* z) {
  const auto& a = st.a;
  const Strided<T> upper = st.rows(a.pc_upper);
  return block_thomas_solve<T, 3>(st.vertices(), LowerFromUpper<3, Strided<T>>{upper},
                                  st.rows(a.pc_diag), upper, st.rows(r), st.rows(z),
                                  st.rows(a.pc_scratch));
}

// --- PCG ---------------------------------------------------------------------------------------

struct PcgSettings {
  double tolerance = 1e-7;
  double relative_tolerance = 1e-2;
  int max_iterations = 0;  // 0: 2 x unknowns
};

template <class T>
HS_HD T s_dot(const Strand<T>& st, T* u, T* v) {
  const Strided<T> a = st.rows(u), b = st.rows(v);
  T sum = 0;
  for (int k = 0; k < 3 * st.vertices(); ++k) sum += a[k] * b[k];
  return sum;
}

// Solves A x = rhs from x = 0 (`x` and `rhs` distinct s-space arrays). Returns the iterations,
// -1 on a singular preconditioner.
template <class T>
HS_HD int pcg(const Strand<T>& st, T dt, bool resistive, T* rhs, T* x,
              const PcgSettings& settings) {
  const auto& a = st.a;
  const int size = 3 * st.vertices();
  const int max_iterations = settings.max_iterations > 0 ? settings.max_iterations : 2 * size;
  const Strided<T> xs = st.rows(x), r = st.rows(a.residual), d = st.rows(a.direction),
                   ad = st.rows(a.product), z = st.rows(a.precond), b = st.rows(rhs);
  for (int k = 0; k < size; ++k) xs[k] = T(0), r[k] = b[k];
  const T rhs_norm = std::sqrt(s_dot(st, rhs, rhs));
  const T floor = (sizeof(T) == sizeof(double) ? T(1e-15) : T(1e-6)) * rhs_norm;
  T stop = T(settings.relative_tolerance) * rhs_norm;
  if (T(settings.tolerance) < stop) stop = T(settings.tolerance);
  if (stop < floor) stop = floor;
  if (!(rhs_norm >= stop)) return 0;
  if (!apply_preconditioner(st, a.residual, a.precond)) return -1;
  for (int k = 0; k < size; ++k) d[k] = z[k];
  T rz = s_dot(st, a.residual, a.precond);
  int it = 0;
  while (it < max_iterations) {
    apply_a(st, dt, resistive, a.direction, a.product);
    const T dad = s_dot(st, a.direction, a.product);
    if (!(dad > T(0))) break;
    const T alpha = rz / dad;
    for (int k = 0; k < size; ++k) xs[k] += alpha * d[k], r[k] -= alpha * ad[k];
    ++it;
    if (std::sqrt(s_dot(st, a.residual, a.residual)) < stop) break;
    if (!apply_preconditioner(st, a.residual, a.precond)) return -1;
    const T rz_next = s_dot(st, a.residual, a.precond);
    for (int k = 0; k < size; ++k) d[k] = z[k] + (rz_next / rz) * d[k];
    rz = rz_next;
  }
  return it;
}

// --- One step (Alg. 1, no obstacles) -------------------------------------------------------------

struct StepSettings {
  Preconditioner preconditioner = Preconditioner::hybrid;
  double newton_tolerance = 1e-5;
  int newton_max_iterations = 5;
  PcgSettings pcg;
};

struct StepCounts {
  int newton = 0, pcg_iterations = 0, pcg_solves = 0, failures = 0;
  int contacts = 0;  // vertices inside a collider (gap < 0) at the end of the step
};

// ω of a rotation matrix, |ω| <= π, through its unit quaternion (the largest of w, x, y, z
// found first, as Eigen's Quaternion(Matrix3) and AngleAxis the reference uses).
template <class T>
HS_HD V3<T> rotation_vector(const M3<T>& m) {
  V4<T> q;
  const T trace = m(0, 0) + m(1, 1) + m(2, 2);
  if (trace > T(0)) {
    T t = std::sqrt(trace + T(1));
    q[0] = T(0.5) * t;
    t = T(0.5) / t;
    q[1] = (m(2, 1) - m(1, 2)) * t, q[2] = (m(0, 2) - m(2, 0)) * t, q[3] = (m(1, 0) - m(0, 1)) * t;
  } else {
    int i = 0;
    if (m(1, 1) > m(0, 0)) i = 1;
    if (m(2, 2) > m(i, i)) i = 2;
    const int j = (i + 1) % 3, k = (j + 1) % 3;
    T t = std::sqrt(m(i, i) - m(j, j) - m(k, k) + T(1));
    q[1 + i] = T(0.5) * t;
    t = T(0.5) / t;
    q[0] = (m(k, j) - m(j, k)) * t;
    q[1 + j] = (m(j, i) + m(i, j)) * t;
    q[1 + k] = (m(k, i) + m(i, k)) * t;
  }
  const V3<T> v{{{q[1]}, {q[2]}, {q[3]}}};
  const T n = norm3(v);
  if (!(n > T(0))) return V3<T>::zero();
  const T angle = T(2) * std::atan2(n, q[0] < T(0) ? -q[0] : q[0]);
  return ((q[0] < T(0) ? -angle : angle) / n) * v;
}

// |ω| <= π (the reference's `wrapped`).
template <class T>
HS_HD V3<T> wrapped(const V3<T>& w) {
  const T theta = norm3(w);
  const T pi = T(3.14159265358979323846);
  if (theta <= pi) return w;
  const T reduced = std::remainder(theta, T(2) * pi);
  return (reduced / theta) * w;
}

// Root vertex and segment 0's frame at the head pose: p_0 = R p_0,rest + t, frame = R frame_rest.
template <class T>
HS_HD void place_root(const Strand<T>& st, const Pose<T>& pose) {
  const auto& a = st.a;
  M3<T> r;
  for (int k = 0; k < 9; ++k) r[k] = pose.rotation[k];
  const V3<T> t{{{pose.translation[0]}, {pose.translation[1]}, {pose.translation[2]}}};
  st.set(a.config, 0, r * st.template get<3, 1>(a.root_rest, 0) + t);
  st.set(a.config, 1, rotation_vector(r * st.template get<3, 3>(a.frame_rest, 0)));
}

// The merit's value (no constraints: E) at the current kinematics.
template <class T>
HS_HD void set_trial(const Strand<T>& st, T alpha) {
  const Strided<T> s = st.rows(st.a.config), saved = st.rows(st.a.saved), p = st.rows(st.a.step);
  for (int k = 0; k < 3 * st.vertices(); ++k) s[k] = saved[k] + alpha * p[k];
  compute_kinematics(st);
}

// Backtracking from α = 1 as the reference's line_search: Armijo on E while the decrease it
// predicts is above 1e-12 of the energy terms (1e-4 in float), else the slope test. `b` holds
// the gradient at s. Returns α, 0 when none qualifies (s restored).
template <class T>
HS_HD T line_search(const Strand<T>& st, T dt, const Loads<T>& loads) {
  const auto& a = st.a;
  const Energy<T> e0 = energy(st, dt, loads);
  const T slope = s_dot(st, a.gradient, a.step);
  const T resolution = sizeof(T) == sizeof(double) ? T(1e-12) : T(1e-4);
  const bool energy_resolves = -slope > resolution * e0.scale;
  T alpha = 1;
  for (int tries = 0; tries < 40; ++tries, alpha *= T(0.5)) {
    set_trial(st, alpha);
    bool accepted;
    if (energy_resolves) {
      accepted = energy(st, dt, loads).total <= e0.total + T(1e-4) * alpha * slope;
    } else {
      compute_gradient(st, dt, loads, a.precond);
      accepted = s_dot(st, a.precond, a.step) <= T(-0.9) * slope;
    }
    if (accepted) return alpha;
  }
  set_trial(st, T(0));
  return T(0);
}

// v / |v| (entry by entry, as Eigen's normalized()); 0 stays 0.
template <class T>
HS_HD V3<T> normalized(V3<T> v) {
  const T length = norm3(v);
  if (length > T(0))
    for (int k = 0; k < 3; ++k) v[k] = v[k] / length;
  return v;
}

// C_j = D_j + d m_j I and D_j w_j at the step's start (the reference's step_start): D_j the
// drag ℓ_j [ζ⊥ (I - ttᵀ) + ζ∥ ttᵀ], t the normalised mean of the adjacent segments' directions.
template <class T>
HS_HD void set_resistance(const Strand<T>& st, const Loads<T>& loads) {
  const auto& a = st.a;
  const int n = st.vertices();
  const Strided<T> l = st.rows(a.length);
  for (int j = 0; j < n; ++j) {
    const V3<T> x = st.template get<3, 1>(a.x, j);
    V3<T> sum = V3<T>::zero();
    if (j > 0) sum += normalized(x - st.template get<3, 1>(a.x, j - 1));
    if (j + 1 < n) sum += normalized(st.template get<3, 1>(a.x, j + 1) - x);
    const V3<T> t = normalized(sum);
    const T share = T(0.5) * ((j > 0 ? l[j - 1] : T(0)) + (j + 1 < n ? l[j] : T(0)));
    M3<T> along;
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) along(r, c) = t[r] * t[c];
    const M3<T> d =
        share * (loads.drag_normal * (M3<T>::identity() - along) + loads.drag_tangent * along);
    const Vector3<T> w = loads.wind.at({x[0], x[1], x[2]}, loads.time);
    const V3<T> wv{{{w.x}, {w.y}, {w.z}}};
    st.set(a.resistance, j, d + (loads.damping * st.rows(a.mass)[j]) * M3<T>::identity());
    st.set(a.air_force, j, d * wv);
  }
}

// Whether a Newton step α p moved the centerline by less than the precision resolves: a bound on
// every vertex's displacement, |α p_root| + Σ ℓ_i |α p_ωi| (each segment's rotation swings the
// rest of the rod), below 16 ulps of the largest coordinate. In double (~1e-15 m) the gradient
// test always stops first. In float the penalty's k_j = κ m_j/Δt² turns the gap's round-off
// (an ulp of the coordinates) into a gradient of ~10 vertex weights, far above Newton's
// tolerance, which then never holds at a strand in contact: without this test float iterated on
// round-off to the cap (measured 8.3 Newton iterations per strand-step against 3.0 in double on
// hair sliding on a head), though the position it fixes is resolved to an ulp.
template <class T>
HS_HD bool below_resolution(const Strand<T>& st, T alpha, T coordinate_scale) {
  const Strided<T> p = st.rows(st.a.step), l = st.rows(st.a.length);
  T bound = norm3(V3<T>{{{p[0]}, {p[1]}, {p[2]}}});
  for (int i = 0; i < st.segments(); ++i)
    bound += l[i] * norm3(V3<T>{{{p[3 + 3 * i]}, {p[4 + 3 * i]}, {p[5 + 3 * i]}}});
  const T epsilon = sizeof(T) == sizeof(double) ? T(2.220446049250313e-16) : T(1.1920929e-7);
  return (alpha < T(0) ? -alpha : alpha) * bound < T(16) * epsilon * coordinate_scale;
}

// One implicit Euler step of `dt` (Alg. 1 without obstacles): the root moves to `pose`, then
// inexact Newton with PCG and the line search, as the reference's `step`.
template <class T>
HS_HD StepCounts step(const Strand<T>& st, T dt, const Loads<T>& loads,
                      const StepSettings& settings) {
  const auto& a = st.a;
  StepCounts counts;
  for (int i = 0; i < st.segments(); ++i)
    st.set(a.config, 1 + i, wrapped(st.template get<3, 1>(a.config, 1 + i)));
  compute_kinematics(st);
  for (int v = 0; v < st.vertices(); ++v) {
    const V3<T> x = st.template get<3, 1>(a.x, v);
    st.set(a.start_x, v, x);
    st.set(a.predicted, v, x + dt * st.template get<3, 1>(a.velocity, v));
  }
  for (int i = 0; i < st.segments(); ++i) {
    st.set(a.start_q, i, st.template get<4, 1>(a.q, i));
    st.set(a.rotation_dt, i, dt * st.template get<3, 1>(a.spin, i));
  }
  if (loads.resistive()) set_resistance(st, loads);
  if (loads.frictional()) set_friction(st, loads, dt);
  place_root(st, loads.head);
  const int size = 3 * st.vertices();
  T coordinate_scale = 0;  // max |x_j| at the step's start
  for (int v = 0; v < st.vertices(); ++v) {
    const T r = norm3(st.template get<3, 1>(a.start_x, v));
    coordinate_scale = r > coordinate_scale ? r : coordinate_scale;
  }
  for (int it = 0;; ++it) {
    compute_kinematics(st);
    compute_gradient(st, dt, loads, a.gradient);
    if (std::sqrt(s_dot(st, a.gradient, a.gradient)) < T(settings.newton_tolerance)) break;
    if (it == settings.newton_max_iterations) break;
    compute_hessian(st, dt, loads);
    build_preconditioner(st, dt, loads.resistive(), settings.preconditioner);
    const Strided<T> b = st.rows(a.gradient), saved = st.rows(a.saved), s = st.rows(a.config);
    for (int k = 0; k < size; ++k) b[k] = -b[k];
    const int iterations = pcg(st, dt, loads.resistive(), a.gradient, a.step, settings.pcg);
    for (int k = 0; k < size; ++k) b[k] = -b[k], saved[k] = s[k];
    ++counts.pcg_solves;
    if (iterations < 0) {
      ++counts.failures;
      break;
    }
    counts.pcg_iterations += iterations;
    const T alpha = line_search(st, dt, loads);
    if (alpha == T(0)) break;
    ++counts.newton;
    if (below_resolution(st, alpha, coordinate_scale)) break;
  }
  compute_kinematics(st);
  for (int v = 0; v < st.vertices(); ++v)
    st.set(a.velocity, v,
           (T(1) / dt) * (st.template get<3, 1>(a.x, v) - st.template get<3, 1>(a.start_x, v)));
  for (int i = 0; i < st.segments(); ++i)
    st.set(a.spin, i,
           (T(1) / dt) * relative_rotation(st.template get<4, 1>(a.start_q, i),
                                           st.template get<4, 1>(a.q, i)));
  for (int v = 2; v < st.vertices() && loads.collider_count > 0; ++v)
    counts.contacts += contact_gap(loads, st.template get<3, 1>(a.x, v)).value < T(0) ? 1 : 0;
  return counts;
}

}  // namespace hairsim::kernels::cosserat
