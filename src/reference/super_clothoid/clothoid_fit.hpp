#pragma once
// A Super Space Clothoid fitted to a polyline (root first): the rest shape of a strand given as
// points (docs/models/super-clothoids.md, "Fitting a polyline").
#include <span>
#include <vector>

#include "common/colliders.hpp"

#include "reference/super_clothoid/clothoid_kinematics.hpp"

namespace hairsim::super_clothoid {

// `elements` equal elements along the polyline's smooth arc length; the node curvatures and the
// root frame's rotation that bring the centreline closest, in least squares, to every point at
// its arc length (Levenberg-Marquardt with the series' Jacobian). A least-squares fit of a curve
// the elements cannot follow exactly has local minima: it is started from the polyline's
// curvature in the frame turning with it read at the nodes and in its parallel-transport frame
// averaged about them, and, when an element turns more than a quarter turn or the others leave a
// point more than kFitRetryError off, coarse to fine (1 element, then doubling); the closest is
// kept and polished further. `max_error`: the largest distance of a point from the fitted
// centreline at its arc length (m).
//
// With `obstacles` (a groom's colliders at rest, in the points' frame), a fit whose centreline
// dips into them (sampled at the points and 3 arcs between each two) is polished again with a
// penalty on every sample less than kFitClearance from a surface, its weight raised tenfold
// (10 to 1e5: a penalty, not a constraint) until no sample is deeper than kFitDepthTolerance,
// each weight kept only while its fit's max_error stays within kFitClearanceCost of the plain
// fit's (points that lie inside a collider keep their fit rather than drag it away). A fit still
// more than kFitRetryError off is polished again with smoothness rows a tenth as heavy (until a
// step gains less than 1e-3; then the same penalties), kept where it is closer and no deeper.
// `depth`: how deep the final fit's samples go (m, ≥ 0).
struct ClothoidFit {
  SuperClothoid shape;
  double max_error = 0;
  double depth = 0;
};
inline constexpr double kFitClearance = 2e-5;       // m
inline constexpr double kFitDepthTolerance = 1e-6;  // m
inline constexpr double kFitRetryError = 1e-4;      // m
inline constexpr double kFitClearanceCost = 1e-4;   // m
ClothoidFit fit_polyline(const std::vector<Vec3>& points, int elements,
                         const Summation& summation = {},
                         std::span<const kernels::Collider<double>> obstacles = {});

}  // namespace hairsim::super_clothoid
