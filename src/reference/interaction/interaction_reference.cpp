#include "reference/interaction/interaction_reference.hpp"

#include <algorithm>
#include <array>
#include <cmath>

namespace hairsim::reference {
namespace {

using Index = std::array<int, 3>;

long node_index(const InteractionGrid& g, const Index& c) {
  return (long(c[2]) * g.n[1] + c[1]) * g.n[0] + c[0];
}

bool inside(const InteractionGrid& g, const Index& c) {
  for (int a = 0; a < 3; ++a)
    if (c[a] < 0 || c[a] >= g.n[a]) return false;
  return true;
}

// The cell holding x (its lowest node) and x's fractions in it.
void locate(const InteractionGrid& g, const Eigen::Vector3d& x, Index& cell, Eigen::Vector3d& f) {
  for (int a = 0; a < 3; ++a) {
    const double u = (x[a] - g.origin[a]) / g.h;
    cell[a] = std::clamp(int(std::floor(u)), 0, g.n[a] - 2);
    f[a] = std::clamp(u - cell[a], 0.0, 1.0);
  }
}

// The 8 nodes around x with their trilinear weights.
struct Weighted {
  long node;
  double w;
};
std::array<Weighted, 8> trilinear(const InteractionGrid& g, const Eigen::Vector3d& x) {
  Index cell;
  Eigen::Vector3d f;
  locate(g, x, cell, f);
  std::array<Weighted, 8> out;
  int k = 0;
  for (int dz = 0; dz <= 1; ++dz)
    for (int dy = 0; dy <= 1; ++dy)
      for (int dx = 0; dx <= 1; ++dx) {
        const double w = (dx ? f[0] : 1 - f[0]) * (dy ? f[1] : 1 - f[1]) * (dz ? f[2] : 1 - f[2]);
        out[std::size_t(k++)] = {node_index(g, {cell[0] + dx, cell[1] + dy, cell[2] + dz}), w};
      }
  return out;
}

}  // namespace

InteractionGrid splat_points(const std::vector<InteractionPoint>& points, double h) {
  InteractionGrid g;
  g.h = h;
  Eigen::Vector3d lo = Eigen::Vector3d::Constant(INFINITY), hi = -lo;
  for (const InteractionPoint& p : points) lo = lo.cwiseMin(p.x), hi = hi.cwiseMax(p.x);
  // One cell of margin below, two above the lattice lines through the world origin.
  for (int a = 0; a < 3; ++a) {
    const double first = std::floor(lo[a] / h) - 1, last = std::floor(hi[a] / h) + 2;
    g.origin[a] = first * h;
    g.n[a] = int(last - first) + 1;
  }
  const long nodes = long(g.n[0]) * g.n[1] * g.n[2];
  g.mass.assign(std::size_t(nodes), 0.0);
  g.momentum.assign(std::size_t(nodes), Eigen::Vector3d::Zero());
  std::vector<char> used(std::size_t(nodes), 0);  // by cell's lowest node
  for (const InteractionPoint& p : points) {
    for (const Weighted& n : trilinear(g, p.x)) {
      g.mass[std::size_t(n.node)] += n.w * p.m;
      g.momentum[std::size_t(n.node)] += n.w * p.m * p.v;
    }
    Index cell;
    Eigen::Vector3d f;
    locate(g, p.x, cell, f);
    used[std::size_t(node_index(g, cell))] = 1;
  }
  for (const char u : used) g.occupied_cells += u;
  return g;
}

double mean_density(const std::vector<InteractionPoint>& points, double h) {
  const InteractionGrid g = splat_points(points, h);
  double mm = 0, m = 0;
  for (const double mass : g.mass) mm += mass * mass, m += mass;
  return m > 0 ? mm / m / (h * h * h) : 0.0;
}

InteractionGrid interaction_step(std::vector<InteractionPoint>& points,
                                 const InteractionParameters& s) {
  InteractionGrid g = splat_points(points, s.cell_size);
  const double h = g.h;
  const std::size_t nodes = g.mass.size();
  auto occupied = [&](long n) { return n >= 0 && g.mass[std::size_t(n)] > 0; };
  auto at = [&](const Index& c) { return inside(g, c) ? node_index(g, c) : -1l; };
  std::vector<Eigen::Vector3d> u(nodes, Eigen::Vector3d::Zero()),
      du(nodes, Eigen::Vector3d::Zero());
  for (std::size_t n = 0; n < nodes; ++n)
    if (g.mass[n] > 0) u[n] = g.momentum[n] / g.mass[n];

  if (s.target_density > 0 && s.iterations > 0) {
    // ∇²p = (∇·u - d) / Δt, d = k (ρ/ρ₀ - 1); an empty neighbour reads as the node's velocity.
    std::vector<double> rhs(nodes, 0.0), p(nodes, 0.0), next(nodes, 0.0);
    for (int k = 0; k < g.n[2]; ++k)
      for (int j = 0; j < g.n[1]; ++j)
        for (int i = 0; i < g.n[0]; ++i) {
          const long n = node_index(g, {i, j, k});
          if (!occupied(n)) continue;
          double divergence = 0;
          for (int a = 0; a < 3; ++a) {
            Index up{i, j, k}, down{i, j, k};
            ++up[std::size_t(a)], --down[std::size_t(a)];
            const long nu = at(up), nd = at(down);
            const double vu = occupied(nu) ? u[std::size_t(nu)][a] : u[std::size_t(n)][a];
            const double vd = occupied(nd) ? u[std::size_t(nd)][a] : u[std::size_t(n)][a];
            divergence += (vu - vd) / (2 * h);
          }
          const double density = g.mass[std::size_t(n)] / (h * h * h);
          const double target = s.volume_stiffness * (density / s.target_density - 1);
          rhs[std::size_t(n)] = (divergence - target) / s.dt;
        }
    // Projected Jacobi: p ≥ 0 at occupied nodes, 0 at empty ones (a free surface).
    for (int it = 0; it < s.iterations; ++it) {
      for (int k = 0; k < g.n[2]; ++k)
        for (int j = 0; j < g.n[1]; ++j)
          for (int i = 0; i < g.n[0]; ++i) {
            const long n = node_index(g, {i, j, k});
            if (!occupied(n)) {
              next[std::size_t(n)] = 0;
              continue;
            }
            double sum = 0;
            for (int a = 0; a < 3; ++a)
              for (const int side : {-1, 1}) {
                Index c{i, j, k};
                c[std::size_t(a)] += side;
                const long m = at(c);
                if (m >= 0) sum += p[std::size_t(m)];
              }
            next[std::size_t(n)] = std::max(0.0, (sum - h * h * rhs[std::size_t(n)]) / 6);
          }
      std::swap(p, next);
    }
    // u' - u = -Δt ∇p.
    for (int k = 0; k < g.n[2]; ++k)
      for (int j = 0; j < g.n[1]; ++j)
        for (int i = 0; i < g.n[0]; ++i) {
          const long n = node_index(g, {i, j, k});
          if (!occupied(n)) continue;
          for (int a = 0; a < 3; ++a) {
            Index up{i, j, k}, down{i, j, k};
            ++up[std::size_t(a)], --down[std::size_t(a)];
            const long nu = at(up), nd = at(down);
            const double pu = nu >= 0 ? p[std::size_t(nu)] : 0,
                         pd = nd >= 0 ? p[std::size_t(nd)] : 0;
            du[std::size_t(n)][a] = -s.dt * (pu - pd) / (2 * h);
          }
        }
  }

  const double alpha = 1 - std::exp(-s.friction * s.dt);
  for (InteractionPoint& p : points) {
    if (!p.free) continue;
    Eigen::Vector3d grid_velocity = Eigen::Vector3d::Zero(), change = Eigen::Vector3d::Zero();
    for (const Weighted& n : trilinear(g, p.x)) {
      grid_velocity += n.w * u[std::size_t(n.node)];
      change += n.w * du[std::size_t(n.node)];
    }
    p.v += alpha * (grid_velocity - p.v) + change;
  }
  return g;
}

}  // namespace hairsim::reference
