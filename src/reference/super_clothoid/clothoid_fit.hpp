#pragma once
// A Super Space Clothoid fitted to a polyline (root first): the rest shape of a strand given as
// points (docs/models/super-clothoids.md, "Fitting a polyline").
#include <vector>

#include "reference/super_clothoid/clothoid_kinematics.hpp"

namespace hairsim::super_clothoid {

// `elements` equal elements along the polyline's smooth arc length; the node curvatures and the
// root frame's rotation that bring the centreline closest, in least squares, to every point at
// its arc length (Levenberg-Marquardt with the series' Jacobian, from the curvature of the
// polyline's parallel-transport frame). `max_error`: the largest distance of a point from the
// fitted centreline at its arc length (m).
struct ClothoidFit {
  SuperClothoid shape;
  double max_error = 0;
};
ClothoidFit fit_polyline(const std::vector<Vec3>& points, int elements,
                         const Summation& summation = {});

}  // namespace hairsim::super_clothoid
