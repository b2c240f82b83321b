#include "hairsim/sdf.hpp"

#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <limits>
#include <queue>

#include "hairsim/error.hpp"

namespace hairsim {
namespace {

// Closest point of triangle abc to p (Ericson, Real-Time Collision Detection, §5.1.5): by the
// Voronoi region of p among the vertices, edges and face.
Vec3 closest_on_triangle(const Vec3& p, const Vec3& a, const Vec3& b, const Vec3& c) {
  const Vec3 ab = b - a, ac = c - a, ap = p - a;
  const double d1 = ab.dot(ap), d2 = ac.dot(ap);
  if (d1 <= 0 && d2 <= 0) return a;
  const Vec3 bp = p - b;
  const double d3 = ab.dot(bp), d4 = ac.dot(bp);
  if (d3 >= 0 && d4 <= d3) return b;
  const double vc = d1 * d4 - d3 * d2;
  if (vc <= 0 && d1 >= 0 && d3 <= 0) return a + d1 / (d1 - d3) * ab;
  const Vec3 cp = p - c;
  const double d5 = ab.dot(cp), d6 = ac.dot(cp);
  if (d6 >= 0 && d5 <= d6) return c;
  const double vb = d5 * d2 - d1 * d6;
  if (vb <= 0 && d2 >= 0 && d6 <= 0) return a + d2 / (d2 - d6) * ac;
  const double va = d3 * d6 - d5 * d4;
  if (va <= 0 && d4 - d3 >= 0 && d5 - d6 >= 0)
    return b + (d4 - d3) / ((d4 - d3) + (d5 - d6)) * (c - b);
  const double denom = 1 / (va + vb + vc);
  return a + ab * (vb * denom) + ac * (vc * denom);
}

}  // namespace

SignedDistanceGrid make_sdf_grid(const TriangleMesh& mesh, int resolution,
                                 const std::string& where) {
  if (mesh.triangles.empty()) throw Error(where, "the mesh has no triangles");
  if (resolution < 8 || resolution > 512)
    throw Error(where,
                "resolution must be between 8 and 512 (got " + std::to_string(resolution) + ")");
  mesh.validate(where);
  Vec3 lo = Vec3::Constant(std::numeric_limits<double>::infinity()), hi = -lo;
  for (const Vec3& p : mesh.vertices) lo = lo.cwiseMin(p), hi = hi.cwiseMax(p);
  constexpr int kMargin = 4, kBandCells = 3;
  SignedDistanceGrid g;
  g.spacing = (hi - lo).maxCoeff() / resolution;
  if (!(g.spacing > 0)) throw Error(where, "the mesh is degenerate (no extent)");
  g.band = kBandCells * g.spacing;
  g.origin = lo - Vec3::Constant(kMargin * g.spacing);
  // The grid's box must be finite in float, the type of its values: a mesh spanning 1e308 m made
  // the cell counts NaN and their conversion to int undefined (found by tests/fuzz/).
  constexpr double kFloatMax = std::numeric_limits<float>::max();
  const Vec3 far = hi + Vec3::Constant((kMargin + 1) * g.spacing);
  if (!(g.origin.allFinite() && far.allFinite() && g.origin.cwiseAbs().maxCoeff() <= kFloatMax &&
        far.cwiseAbs().maxCoeff() <= kFloatMax))
    throw Error(where, "the mesh is too large for a distance grid (its box with " +
                           std::to_string(kMargin) + " cells of margin reaches beyond 3.4e38 m)");
  const Eigen::Vector3i n = ((hi - lo) / g.spacing).array().ceil().cast<int>() + 2 * kMargin + 1;
  g.nx = n.x(), g.ny = n.y(), g.nz = n.z();
  const std::size_t count = std::size_t(g.nx) * g.ny * g.nz;
  auto index = [&](int i, int j, int k) { return (std::size_t(k) * g.ny + j) * g.nx + i; };
  auto point = [&](int i, int j, int k) -> Vec3 {
    return g.origin + g.spacing * Vec3(double(i), double(j), double(k));
  };

  // Exact distances within the band: each triangle visits the samples of its grown box.
  std::vector<double> distance(count, std::numeric_limits<double>::infinity());
  std::vector<double> facing(count, 0);  // |n . (p - q)| / |p - q| of the closest triangle
  std::vector<signed char> sign(count, 1);
  for (const auto& t : mesh.triangles) {
    const Vec3 &a = mesh.vertices[t[0]], &b = mesh.vertices[t[1]], &c = mesh.vertices[t[2]];
    Vec3 normal = (b - a).cross(c - a);
    if (normal.norm() == 0) continue;  // degenerate triangle
    normal.normalize();
    const Vec3 tlo = a.cwiseMin(b).cwiseMin(c) - Vec3::Constant(g.band),
               thi = a.cwiseMax(b).cwiseMax(c) + Vec3::Constant(g.band);
    const Eigen::Vector3i from = ((tlo - g.origin) / g.spacing).array().floor().cast<int>().max(0);
    const Eigen::Vector3i to =
        ((thi - g.origin) / g.spacing).array().ceil().cast<int>().min(n.array() - 1);
    for (int k = from.z(); k <= to.z(); ++k)
      for (int j = from.y(); j <= to.y(); ++j)
        for (int i = from.x(); i <= to.x(); ++i) {
          const Vec3 p = point(i, j, k), q = closest_on_triangle(p, a, b, c);
          const double d = (p - q).norm();
          const double f = d > 0 ? std::abs(normal.dot(p - q)) / d : 1;
          const std::size_t at = index(i, j, k);
          const bool tie = std::abs(d - distance[at]) <= 1e-9 * g.spacing;
          if (d < distance[at] - 1e-9 * g.spacing || (tie && f > facing[at])) {
            distance[at] = d;
            facing[at] = f;
            sign[at] = normal.dot(p - q) >= 0 ? 1 : -1;
          }
        }
  }
  // Beyond the band: outside where the grid's boundary reaches without entering the band.
  std::vector<char> outside(count, 0);
  std::queue<Eigen::Vector3i> todo;
  auto visit = [&](int i, int j, int k) {
    if (i < 0 || j < 0 || k < 0 || i >= g.nx || j >= g.ny || k >= g.nz) return;
    const std::size_t at = index(i, j, k);
    if (outside[at] || distance[at] <= g.band) return;
    outside[at] = 1;
    todo.push({i, j, k});
  };
  for (int k = 0; k < g.nz; ++k)
    for (int j = 0; j < g.ny; ++j)
      for (int i = 0; i < g.nx; ++i)
        if (i == 0 || j == 0 || k == 0 || i == g.nx - 1 || j == g.ny - 1 || k == g.nz - 1)
          visit(i, j, k);
  while (!todo.empty()) {
    const Eigen::Vector3i c = todo.front();
    todo.pop();
    visit(c.x() + 1, c.y(), c.z()), visit(c.x() - 1, c.y(), c.z());
    visit(c.x(), c.y() + 1, c.z()), visit(c.x(), c.y() - 1, c.z());
    visit(c.x(), c.y(), c.z() + 1), visit(c.x(), c.y(), c.z() - 1);
  }
  g.values.resize(count);
  for (std::size_t at = 0; at < count; ++at)
    g.values[at] = float(distance[at] <= g.band ? sign[at] * distance[at]
                         : outside[at]          ? g.band
                                                : -g.band);
  return g;
}

}  // namespace hairsim
