#include "hairsim/mesh.hpp"

#include <cmath>
#include <numbers>

#include "hairsim/error.hpp"

namespace hairsim {

void TriangleMesh::validate(const std::string& where) const {
  const int n = static_cast<int>(vertices.size());
  for (std::size_t i = 0; i < vertices.size(); ++i)
    if (!vertices[i].allFinite())
      throw Error(where, "vertex " + std::to_string(i) + " has a non-finite coordinate");
  for (std::size_t f = 0; f < triangles.size(); ++f)
    for (int idx : triangles[f])
      if (idx < 0 || idx >= n)
        throw Error(where, "face " + std::to_string(f) + " uses vertex " + std::to_string(idx) +
                               " of " + std::to_string(n));
}

TriangleMesh ellipsoid_mesh(const Vec3& radii, int rings) {
  TriangleMesh mesh;
  const int segments = 2 * rings;
  const double pi = std::numbers::pi;
  // Vertex (r, k) for rings r = 0..rings (pole to pole along y), k = 0..segments-1.
  for (int r = 0; r <= rings; ++r) {
    const double theta = pi * r / rings;  // from +y down to -y
    for (int k = 0; k < segments; ++k) {
      const double phi = 2 * pi * k / segments;
      mesh.vertices.emplace_back(radii.x() * std::sin(theta) * std::sin(phi),
                                 radii.y() * std::cos(theta),
                                 radii.z() * std::sin(theta) * std::cos(phi));
    }
  }
  auto id = [&](int r, int k) { return r * segments + (k % segments); };
  for (int r = 0; r < rings; ++r)
    for (int k = 0; k < segments; ++k) {
      // Counter-clockwise seen from outside.
      mesh.triangles.push_back({id(r, k), id(r + 1, k), id(r + 1, k + 1)});
      mesh.triangles.push_back({id(r, k), id(r + 1, k + 1), id(r, k + 1)});
    }
  return mesh;
}

}  // namespace hairsim
