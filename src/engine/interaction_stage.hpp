#pragma once
// The hair-hair interaction stage on the host (kernels/interaction/interaction_grid.hpp has the
// math; docs/architecture.md "Hair-hair interaction"), for any model's batch: between two steps
// of every strand, the strands' vertices exchange momentum through a grid. The splat is a
// gather, so its sums do not depend on the thread count: the points are sorted by cell (a
// counting sort, stable in point order) and each node adds the points of its 8 cells in that
// order. Everything after the splat is a loop over nodes or points with no shared sum.
#include <omp.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

#include "engine/threads.hpp"
#include "hairsim/error.hpp"
#include "hairsim/simulator.hpp"
#include "interaction/interaction_grid.hpp"

namespace hairsim::engine {

// The points of a batch for the stage (every vertex; those the head holds keep their velocity).
template <class Batch>
kernels::interaction::Points<typename Batch::Scalar> interaction_points(
    const typename Batch::Arrays& a) {
  kernels::interaction::Points<typename Batch::Scalar> p;
  p.position = Batch::positions(a);
  p.velocity = Batch::velocities(a);
  p.mass = Batch::masses(a);
  p.strands = a.strands, p.vertices = a.vertices, p.tile_width = a.tile_width;
  p.clamped = Batch::kClampedVertices;
  return p;
}

// The kernels' settings of a setup's interaction, ρ₀ given (kg/m³).
template <class T>
kernels::interaction::Settings<T> interaction_settings(const Interaction& in, double dt,
                                                       double target_density) {
  kernels::interaction::Settings<T> s;
  s.dt = T(dt);
  s.friction = T(in.friction);
  s.volume_stiffness = T(in.volume_stiffness);
  s.target_density = in.volume_stiffness > 0 ? T(target_density) : T(0);
  s.iterations = in.iterations;
  return s;
}

// The largest grid the stage builds (nodes); a larger box is a run failure (hair thrown metres
// away, or a cell size far too small for the groom).
inline constexpr long kMaxInteractionNodes = 1l << 26;

template <class T>
class HostInteraction {
 public:
  using Grid = kernels::interaction::Grid<T>;
  using Points = kernels::interaction::Points<T>;
  using Settings = kernels::interaction::Settings<T>;

  // The grid around the points, cells of h (m); throws RunFailure when they are not finite or
  // span too large a box.
  Grid fit(const Points& pts, T h) const {
    T lo[3], hi[3];
    for (int c = 0; c < 3; ++c)
      lo[c] = std::numeric_limits<T>::infinity(), hi[c] = -std::numeric_limits<T>::infinity();
    const long n = pts.count();
    bool finite = true;
#pragma omp parallel num_threads(items_team_size(n, parallel_items_))
    {
      T l[3], u[3];
      bool ok = true;
      for (int c = 0; c < 3; ++c) l[c] = lo[c], u[c] = hi[c];
#pragma omp for schedule(static)
      for (long p = 0; p < n; ++p) {
        const kernels::Vector3<T> x = pts.get(pts.position, p);
        for (int c = 0; c < 3; ++c) {
          ok = ok && std::isfinite(x[c]);
          l[c] = std::min(l[c], x[c]), u[c] = std::max(u[c], x[c]);
        }
      }
#pragma omp critical(hairsim_interaction_bounds)
      {
        finite = finite && ok;
        for (int c = 0; c < 3; ++c) lo[c] = std::min(lo[c], l[c]), hi[c] = std::max(hi[c], u[c]);
      }
    }
    if (!finite) throw RunFailure("interaction", "a vertex position is not finite");
    const Grid g =
        kernels::interaction::fit_grid<T>({lo[0], lo[1], lo[2]}, {hi[0], hi[1], hi[2]}, h);
    if (double(g.nx) * g.ny * g.nz > double(kMaxInteractionNodes))
      throw RunFailure("interaction", "the hair spans " + std::to_string(g.nx) + " x " +
                                          std::to_string(g.ny) + " x " + std::to_string(g.nz) +
                                          " grid nodes (interaction.cell_size too small, or a "
                                          "strand thrown far away)");
    return g;
  }

  // Splats the points onto a grid of cells h: mass and momentum (deterministic).
  void splat(const Points& pts, T h) {
    grid_ = fit(pts, h);
    const Grid& g = grid_;
    const long n = pts.count(), nodes = g.nodes(), cells = g.cells();
    // Sorted by cell, stable: the point order inside a cell is the points' order.
    key_.resize(std::size_t(n));
#pragma omp parallel for schedule(static) num_threads(items_team_size(n, parallel_items_))
    for (long p = 0; p < n; ++p) {
      const auto s = kernels::interaction::stencil(g, pts.get(pts.position, p));
      key_[std::size_t(p)] = g.cell(s.i, s.j, s.k);
    }
    start_.assign(std::size_t(cells) + 1, 0);
    for (long p = 0; p < n; ++p) ++start_[std::size_t(key_[std::size_t(p)]) + 1];
    occupied_cells_ = 0;
    for (long c = 0; c < cells; ++c) {
      occupied_cells_ += start_[std::size_t(c) + 1] > 0;
      start_[std::size_t(c) + 1] += start_[std::size_t(c)];
    }
    // Each point's slot in cell order (stable: point order inside a cell), then its stencil
    // fractions, mass and momentum written there, the points read in their own order.
    order_.resize(std::size_t(n));
    {
      std::vector<long> next(start_.begin(), start_.end() - 1);
      for (long p = 0; p < n; ++p)
        order_[std::size_t(p)] = next[std::size_t(key_[std::size_t(p)])]++;
    }
    for (auto* v : {&sf_[0], &sf_[1], &sf_[2], &sm_, &sp_[0], &sp_[1], &sp_[2]})
      v->resize(std::size_t(n));
#pragma omp parallel for schedule(static) num_threads(items_team_size(n, parallel_items_))
    for (long p = 0; p < n; ++p) {
      const std::size_t q = std::size_t(order_[std::size_t(p)]);
      const kernels::Vector3<T> x = pts.get(pts.position, p), v = pts.get(pts.velocity, p);
      const auto s = kernels::interaction::stencil(g, x);
      const T m = pts.get_mass(p);
      for (int c = 0; c < 3; ++c) {
        sf_[c][q] = s.f[c];
        sp_[c][q] = m * v[c];
      }
      sm_[q] = m;
    }
    resize_nodes(nodes);
    // Each node gathers from its 8 cells, in a fixed order, and sets its velocity.
#pragma omp parallel for schedule(static) num_threads(items_team_size(nodes, parallel_items_))
    for (long node = 0; node < nodes; ++node) {
      const int i = int(node % g.nx), j = int(node / g.nx % g.ny), k = int(node / g.nx / g.ny);
      T m = T(0), mv[3] = {T(0), T(0), T(0)};
      for (int corner = 0; corner < 8; ++corner) {
        const int ci = i - (corner & 1), cj = j - (corner >> 1 & 1), ck = k - (corner >> 2 & 1);
        if (ci < 0 || cj < 0 || ck < 0 || ci > g.nx - 2 || cj > g.ny - 2 || ck > g.nz - 2) continue;
        const long cell = g.cell(ci, cj, ck);
        for (long q = start_[std::size_t(cell)]; q < start_[std::size_t(cell) + 1]; ++q) {
          kernels::interaction::Stencil<T> s;
          for (int c = 0; c < 3; ++c) s.f[c] = sf_[c][std::size_t(q)];
          const T w = kernels::interaction::corner_weight(s, corner);
          m += w * sm_[std::size_t(q)];
          for (int c = 0; c < 3; ++c) mv[c] += w * sp_[c][std::size_t(q)];
        }
      }
      nodes_.mass[node] = m;
      for (int c = 0; c < 3; ++c) nodes_.momentum[c][node] = mv[c];
      kernels::interaction::node_velocity(nodes_, node);
    }
  }

  // The whole stage: splat, grid velocity, pressure, the points' velocities.
  void run(const Points& pts, const Settings& s, T h) {
    splat(pts, h);
    const Grid& g = grid_;
    const long nodes = g.nodes();
    const kernels::interaction::Nodes<T> nd = nodes_;  // velocities set by the splat
    if (s.target_density > T(0) && s.iterations > 0) {
      // Only occupied nodes carry a pressure (empty ones hold 0 in both buffers): the grid's
      // box is mostly air around a groom, so the sweeps run over the occupied nodes' list.
      active_.clear();
      for (long n = 0; n < nodes; ++n)
        if (nd.mass[n] > T(0)) active_.push_back(n);
      for_active([&](int i, int j, int k) { kernels::interaction::node_rhs(g, nd, s, i, j, k); });
      T* from = nd.pressure;
      T* to = nd.pressure_next;
      for (int it = 0; it < s.iterations; ++it) {
        for_active([&](int i, int j, int k) {
          kernels::interaction::jacobi_node(g, nd, from, to, i, j, k);
        });
        std::swap(from, to);
      }
      if (from != nd.pressure)
        for (const long n : active_) nd.pressure[n] = from[n];
      for_active([&](int i, int j, int k) {
        kernels::interaction::pressure_change(g, nd, s.dt, i, j, k);
      });
    }
    const T alpha = s.blend();
    const long n = pts.count();
#pragma omp parallel for schedule(static) num_threads(items_team_size(n, parallel_items_))
    for (long p = 0; p < n; ++p) kernels::interaction::update_point(g, nd, pts, p, alpha);
  }

  // ρ₀ of a groom: the mass-weighted mean of its nodes' densities, Σ m_n ρ_n / Σ m_n (kg/m³),
  // the density an average point of it sees.
  T mean_density(const Points& pts, T h) {
    splat(pts, h);
    double mm = 0, m = 0;
    for (long n = 0; n < grid_.nodes(); ++n) {
      mm += double(nodes_.mass[n]) * double(nodes_.mass[n]);
      m += double(nodes_.mass[n]);
    }
    const double volume = double(h) * double(h) * double(h);
    return m > 0 ? T(mm / m / volume) : T(0);
  }

  // A thread per this many items of a loop (default kParallelItems, threads.hpp; tests set 0:
  // every thread).
  void set_parallel_items(long items) {
    parallel_items_ = items;
  }
  const Grid& grid() const {
    return grid_;
  }
  const kernels::interaction::Nodes<T>& nodes() const {
    return nodes_;
  }
  long occupied_cells() const {
    return occupied_cells_;
  }

 private:
  // f(i, j, k) for every occupied node (in parallel when there are enough of them).
  template <class F>
  void for_active(F&& f) {
    const Grid& g = grid_;
    const long count = long(active_.size());
#pragma omp parallel for schedule(static) num_threads(items_team_size(count, parallel_items_))
    for (long a = 0; a < count; ++a) {
      const long n = active_[std::size_t(a)];
      f(int(n % g.nx), int(n / g.nx % g.ny), int(n / g.nx / g.ny));
    }
  }

  void resize_nodes(long nodes) {
    const std::size_t n = std::size_t(nodes);
    for (std::vector<T>& b : buffers_) b.resize(n);
    nodes_ =
        kernels::interaction::nodes_over<T>([&](int k) { return buffers_[std::size_t(k)].data(); });
  }

  Grid grid_;
  kernels::interaction::Nodes<T> nodes_;
  std::vector<std::vector<T>> buffers_ =
      std::vector<std::vector<T>>(kernels::interaction::kNodePlanes);
  std::vector<long> key_, start_, active_;
  std::vector<long> order_;  // point p's slot in cell order
  std::vector<T> sf_[3], sm_, sp_[3];
  long occupied_cells_ = 0;
  long parallel_items_ = kParallelItems;
};

}  // namespace hairsim::engine
