#pragma once
// The kernels' view of a signed-distance grid (kernels/common/sdf_grid.hpp): it points at the
// grid's float samples, so the grid must outlive it.
#include "common/sdf_grid.hpp"
#include "hairsim/sdf.hpp"

namespace hairsim {

inline kernels::SdfGrid<double> sdf_view(const SignedDistanceGrid& grid) {
  kernels::SdfGrid<double> g;
  g.values = grid.values.data();
  g.nx = grid.nx, g.ny = grid.ny, g.nz = grid.nz;
  g.origin = {grid.origin.x(), grid.origin.y(), grid.origin.z()};
  g.spacing = grid.spacing;
  g.outside = grid.band;
  return g;
}

}  // namespace hairsim
