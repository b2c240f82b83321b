#pragma once
// Triangle meshes: heads and colliders (read from PLY/OBJ, or made procedurally).
#include <array>
#include <vector>

#include "hairsim/strands.hpp"

namespace hairsim {

struct TriangleMesh {
  std::vector<Vec3> vertices;                 // m
  std::vector<std::array<int, 3>> triangles;  // counter-clockwise seen from outside

  // Throws Error(where, ...) on an out-of-range index or a non-finite vertex.
  void validate(const std::string& where) const;
};

// Ellipsoid centred at the origin with semi-axes `radii` (m), as a UV sphere of
// `rings` x 2*rings quads; used to show the procedural head.
TriangleMesh ellipsoid_mesh(const Vec3& radii, int rings = 48);

}  // namespace hairsim
