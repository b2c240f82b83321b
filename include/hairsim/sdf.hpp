#pragma once
// Triangle meshes as colliders: a signed-distance grid built once at load time and sampled by
// the kernels (kernels/common/sdf_grid.hpp), on the host or copied to the device.
#include <string>
#include <vector>

#include "hairsim/mesh.hpp"

namespace hairsim {

struct SignedDistanceGrid {
  std::vector<float> values;  // nx * ny * nz, x fastest; m, negative inside
  int nx = 0, ny = 0, nz = 0;
  Vec3 origin = Vec3::Zero();  // m
  double spacing = 0;          // m
  double band = 0;             // m: exact within it; beyond, ±band (inside by flood fill)
};

// The mesh's bounding box split into `resolution` cells along its longest side, plus a margin of
// 4 cells. Within 3 cells of the surface the values are exact distances to the closest triangle,
// signed by that triangle's outward normal (counter-clockwise seen from outside; on near ties the
// triangle facing the point most squarely wins); beyond, +band where the grid's boundary reaches
// without crossing that band (outside), -band elsewhere (inside a closed mesh). Throws Error
// naming `where` on an empty mesh or a resolution outside 8-512.
SignedDistanceGrid make_sdf_grid(const TriangleMesh& mesh, int resolution,
                                 const std::string& where);

}  // namespace hairsim
