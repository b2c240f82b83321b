#pragma once
// Hair-hair interaction through a volumetric grid (Petrovic, Henne & Anderson 2005, "Volumetric
// methods for simulation and rendering of hair"; McAdams, Selle, Ward, Sifakis & Teran 2009,
// "Detail preserving continuum simulation of straight hair"): the math of one stage between the
// per-strand solves, `HS_HD`, templated on precision, compiled for the cpu backend (the engine's
// host executor, src/engine/interaction_stage.hpp) and the cuda backend (interaction_cuda.cu).
// docs/architecture.md "Hair-hair interaction" gives the stage's steps and choices.
//
// The grid: nodes at origin + h (i, j, k), a lattice anchored at the world origin (origin a
// multiple of h), fitted each step around the points' bounding box with one cell of margin, so
// it follows the hair and the head. Per node: mass m_n = Σ w_pn m_p (kg), momentum
// P_n = Σ w_pn m_p v_p, velocity u_n = P_n / m_n, density ρ_n = m_n / h³ (kg/m³); w_pn the
// trilinear weights of point p at node n. Volume: a pressure p ≥ 0 at occupied nodes with
// ∇²p = (∇·u - d)/Δt, d = k (ρ/ρ₀ - 1) the divergence that relaxes the density towards the
// target ρ₀ at rate k (1/s), solved by projected Jacobi iterations (p = 0 at empty nodes: the
// hair's surface is free), then u' = u - Δt ∇p. Friction: each point's velocity relaxes towards
// the grid's, v += α (I u - v) with α = 1 - exp(-friction Δt) (PIC part), and takes the
// pressure's change I (u' - u) (FLIP part); I the trilinear interpolation.
#include <cmath>
#include <cstddef>

#include "common/batch_layout.hpp"
#include "common/hd.hpp"
#include "common/vector3.hpp"

namespace hairsim::kernels::interaction {

// The stage's inputs of one step.
template <class T>
struct Settings {
  T dt = 0;                // s
  T friction = 0;          // 1/s: the rate of the blend towards the grid's velocity
  T volume_stiffness = 0;  // 1/s: the rate at which an excess density relaxes
  T target_density = 0;    // kg/m³ (ρ₀); <= 0: no volume term
  int iterations = 0;      // projected Jacobi iterations of the pressure
  // α of the PIC blend: 1 - exp(-friction Δt), in [0, 1).
  HS_HD T blend() const { return T(1) - std::exp(-friction * dt); }
};

// The lattice: nx x ny x nz nodes at origin + h (i, j, k), x fastest.
template <class T>
struct Grid {
  Vector3<T> origin{};
  T h = 0;  // m
  int nx = 0, ny = 0, nz = 0;
  HS_HD long nodes() const { return long(nx) * ny * nz; }
  HS_HD long cells() const { return long(nx - 1) * (ny - 1) * (nz - 1); }
  HS_HD long node(int i, int j, int k) const { return (long(k) * ny + j) * nx + i; }
  HS_HD long cell(int i, int j, int k) const { return (long(k) * (ny - 1) + j) * (nx - 1) + i; }
};

// The lattice of spacing h around the box [lo, hi] (every point inside it): node indices from
// floor(lo / h) - 1 to floor(hi / h) + 2 of the lattice through the world origin, so a point is
// always at least one cell inside and its stencil's 8 nodes exist.
template <class T>
HS_HD Grid<T> fit_grid(const Vector3<T>& lo, const Vector3<T>& hi, T h) {
  Grid<T> g;
  g.h = h;
  int n[3];
  for (int c = 0; c < 3; ++c) {
    const double first = std::floor(double(lo[c]) / double(h)) - 1;
    const double last = std::floor(double(hi[c]) / double(h)) + 2;
    g.origin[c] = T(first * double(h));
    n[c] = int(last - first) + 1;
  }
  g.nx = n[0], g.ny = n[1], g.nz = n[2];
  return g;
}

// A point's cell (its stencil's lowest node) and its fractions inside it, each in [0, 1].
template <class T>
struct Stencil {
  int i = 0, j = 0, k = 0;
  T f[3] = {};
};

template <class T>
HS_HD Stencil<T> stencil(const Grid<T>& g, const Vector3<T>& x) {
  Stencil<T> s;
  const int n[3] = {g.nx, g.ny, g.nz};
  int c[3];
  for (int a = 0; a < 3; ++a) {
    const T u = (x[a] - g.origin[a]) / g.h;
    int base = int(std::floor(u));
    base = base < 0 ? 0 : base > n[a] - 2 ? n[a] - 2 : base;
    c[a] = base;
    T f = u - T(base);
    s.f[a] = f < T(0) ? T(0) : f > T(1) ? T(1) : f;
  }
  s.i = c[0], s.j = c[1], s.k = c[2];
  return s;
}

// The trilinear weight of corner `corner` (bit 0: +x, bit 1: +y, bit 2: +z) of a stencil.
template <class T>
HS_HD T corner_weight(const Stencil<T>& s, int corner) {
  T w = T(1);
  for (int a = 0; a < 3; ++a) w *= (corner >> a & 1) ? s.f[a] : T(1) - s.f[a];
  return w;
}

template <class T>
HS_HD long corner_node(const Grid<T>& g, const Stencil<T>& s, int corner) {
  return g.node(s.i + (corner & 1), s.j + (corner >> 1 & 1), s.k + (corner >> 2 & 1));
}

// The grid's node fields (each g.nodes() values). `pressure` and `pressure_next` are the Jacobi
// iteration's two buffers; after `solve_pressure` the result is in `pressure`.
template <class T>
struct Nodes {
  T* mass = nullptr;      // kg, splatted
  T* momentum[3] = {};    // kg m/s, splatted
  T* velocity[3] = {};    // u = P / m, m/s (0 at empty nodes)
  T* change[3] = {};      // u' - u, the pressure's change, m/s
  T* rhs = nullptr;       // (∇·u - d) / Δt, 1/s²
  T* pressure = nullptr;  // m²/s² (a kinematic pressure: p / ρ)
  T* pressure_next = nullptr;
};

// The node arrays over kNodePlanes planes of one store (the host's vectors, the device's buffers),
// in the order above: mass, momentum xyz, velocity xyz, change xyz, rhs, pressure, pressure_next.
inline constexpr int kNodePlanes = 13;
template <class T, class Plane>
Nodes<T> nodes_over(Plane plane) {  // plane(k): the k-th array
  Nodes<T> n;
  n.mass = plane(0);
  for (int c = 0; c < 3; ++c) {
    n.momentum[c] = plane(1 + c);
    n.velocity[c] = plane(4 + c);
    n.change[c] = plane(7 + c);
  }
  n.rhs = plane(10), n.pressure = plane(11), n.pressure_next = plane(12);
  return n;
}

// The 6 neighbours of node (i, j, k) along axis a, -1 outside the grid.
template <class T>
HS_HD long neighbour(const Grid<T>& g, int i, int j, int k, int axis, int side) {
  int c[3] = {i, j, k};
  const int n[3] = {g.nx, g.ny, g.nz};
  c[axis] += side;
  if (c[axis] < 0 || c[axis] >= n[axis]) return -1;
  return g.node(c[0], c[1], c[2]);
}

// Node n's velocity from its mass and momentum.
template <class T>
HS_HD void node_velocity(const Nodes<T>& nd, long n) {
  const T m = nd.mass[n];
  for (int c = 0; c < 3; ++c) {
    nd.velocity[c][n] = m > T(0) ? nd.momentum[c][n] / m : T(0);
    nd.change[c][n] = T(0);
  }
  nd.pressure[n] = T(0);
  nd.pressure_next[n] = T(0);
}

// Node (i, j, k)'s right-hand side (∇·u - d) / Δt: the divergence by central differences, an
// empty (or missing) neighbour taking the node's own velocity (a free surface does not read as
// divergence, so a uniform motion has none); d = k (ρ/ρ₀ - 1).
template <class T>
HS_HD void node_rhs(const Grid<T>& g, const Nodes<T>& nd, const Settings<T>& s, int i, int j,
                    int k) {
  const long n = g.node(i, j, k);
  if (!(nd.mass[n] > T(0)) || !(s.target_density > T(0))) {
    nd.rhs[n] = T(0);
    return;
  }
  T divergence = T(0);
  for (int a = 0; a < 3; ++a) {
    const long up = neighbour(g, i, j, k, a, 1), down = neighbour(g, i, j, k, a, -1);
    const T u = nd.velocity[a][n];
    const T u_up = up >= 0 && nd.mass[up] > T(0) ? nd.velocity[a][up] : u;
    const T u_down = down >= 0 && nd.mass[down] > T(0) ? nd.velocity[a][down] : u;
    divergence += (u_up - u_down) / (T(2) * g.h);
  }
  const T density = nd.mass[n] / (g.h * g.h * g.h);
  const T target = s.volume_stiffness * (density / s.target_density - T(1));
  nd.rhs[n] = (divergence - target) / s.dt;
}

// One projected Jacobi update of node (i, j, k): from `from` into `to`,
// p = max(0, (Σ p_neighbours - h² rhs) / 6) at occupied nodes, 0 at empty ones.
template <class T>
HS_HD void jacobi_node(const Grid<T>& g, const Nodes<T>& nd, const T* from, T* to, int i, int j,
                       int k) {
  const long n = g.node(i, j, k);
  if (!(nd.mass[n] > T(0))) {
    to[n] = T(0);
    return;
  }
  T sum = T(0);
  for (int a = 0; a < 3; ++a)
    for (int side = -1; side <= 1; side += 2) {
      const long m = neighbour(g, i, j, k, a, side);
      sum += m >= 0 ? from[m] : T(0);
    }
  const T p = (sum - g.h * g.h * nd.rhs[n]) / T(6);
  to[n] = p > T(0) ? p : T(0);
}

// Node (i, j, k)'s velocity change by the pressure, -Δt ∇p (central differences).
template <class T>
HS_HD void pressure_change(const Grid<T>& g, const Nodes<T>& nd, T dt, int i, int j, int k) {
  const long n = g.node(i, j, k);
  for (int a = 0; a < 3; ++a) {
    if (!(nd.mass[n] > T(0))) {
      nd.change[a][n] = T(0);
      continue;
    }
    const long up = neighbour(g, i, j, k, a, 1), down = neighbour(g, i, j, k, a, -1);
    const T p_up = up >= 0 ? nd.pressure[up] : T(0), p_down = down >= 0 ? nd.pressure[down] : T(0);
    nd.change[a][n] = -dt * (p_up - p_down) / (T(2) * g.h);
  }
}

// A point's velocity after the stage: v + α (I u - v) + I (u' - u).
template <class T>
HS_HD Vector3<T> blended_velocity(const Grid<T>& g, const Nodes<T>& nd, const Vector3<T>& x,
                                  const Vector3<T>& v, T alpha) {
  const Stencil<T> st = stencil(g, x);
  Vector3<T> u{}, du{};
  for (int corner = 0; corner < 8; ++corner) {
    const T w = corner_weight(st, corner);
    const long n = corner_node(g, st, corner);
    for (int c = 0; c < 3; ++c) {
      u[c] += w * nd.velocity[c][n];
      du[c] += w * nd.change[c][n];
    }
  }
  return v + alpha * (u - v) + du;
}

// The sample points of a batch: every vertex of every strand, point p = s * vertices + i, its
// position, velocity and mass in the model's arrays (batch_layout.hpp). Vertices below
// `clamped` are held by the head: they splat but their velocity is left.
template <class T>
struct Points {
  VertexVectors<T> position, velocity;
  VertexScalars<T> mass;
  int strands = 0, vertices = 0, tile_width = 1, clamped = 0;
  HS_HD long count() const { return long(strands) * vertices; }
  // Offset of row `row` of point p's strand in an array of `rows` rows per strand (two integer
  // divisions per point, not per component).
  struct Place {
    int vertex;
    std::size_t tile_start;  // tile index times tile_width
    int lane;
  };
  HS_HD Place place(long p) const {
    const int s = int(p / vertices);
    const int tile = s / tile_width;
    return {int(p - long(s) * vertices), std::size_t(tile) * std::size_t(tile_width),
            s - tile * tile_width};
  }
  HS_HD Vector3<T> get(const VertexVectors<T>& f, long p) const {
    const Place q = place(p);
    Vector3<T> out;
    for (int c = 0; c < 3; ++c) out[c] = f.array[c][index(q, f.row(q.vertex, c), f.rows)];
    return out;
  }
  HS_HD void set(const VertexVectors<T>& f, long p, const Vector3<T>& value) const {
    const Place q = place(p);
    for (int c = 0; c < 3; ++c) f.array[c][index(q, f.row(q.vertex, c), f.rows)] = value[c];
  }
  HS_HD T get_mass(long p) const {
    const Place q = place(p);
    return mass.array[index(q, mass.row(q.vertex), mass.rows)];
  }
  // tiled_index(row, s, rows, tile_width) of batch_layout.hpp, from a Place.
  HS_HD std::size_t index(const Place& q, int row, int rows) const {
    return (q.tile_start * std::size_t(rows)) + std::size_t(row) * std::size_t(tile_width) +
           std::size_t(q.lane);
  }
  HS_HD bool free(long p) const { return int(p % vertices) >= clamped; }
};

// Point p's update (its velocity, if free).
template <class T>
HS_HD void update_point(const Grid<T>& g, const Nodes<T>& nd, const Points<T>& pts, long p,
                        T alpha) {
  if (!pts.free(p)) return;
  const Vector3<T> x = pts.get(pts.position, p), v = pts.get(pts.velocity, p);
  pts.set(pts.velocity, p, blended_velocity(g, nd, x, v, alpha));
}

}  // namespace hairsim::kernels::interaction
