#include "reference/super_clothoid/clothoid_fit.hpp"

#include <Eigen/Cholesky>
#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>

#include "hairsim/error.hpp"
#include "reference/levenberg_marquardt.hpp"
#include "scene/rod_scene.hpp"

namespace hairsim::super_clothoid {
namespace {

using VecX = Eigen::VectorXd;
using MatX = Eigen::MatrixXd;

// The polyline's curvature in its parallel-transport (Bishop) frame started from `frame`: at each
// interior point the rotation between its edges, 2 tan(φ/2) / (mean edge length) about their
// binormal, in the transported normals (twist 0); linear between points.
std::vector<Vec3> bishop_curvatures(const std::vector<Vec3>& points, const Mat3& frame) {
  std::vector<Vec3> out(points.size(), Vec3::Zero());
  Vec3 d1 = frame.col(1);
  for (std::size_t i = 1; i + 1 < points.size(); ++i) {
    const Vec3 a = points[i] - points[i - 1], b = points[i + 1] - points[i];
    const Vec3 axis = a.cross(b);
    const double phi = std::atan2(axis.norm(), a.dot(b));
    const Vec3 t = a.normalized();
    d1 = (d1 - d1.dot(t) * t).normalized();
    const Vec3 d2 = t.cross(d1);
    if (axis.norm() > 1e-14) {
      const Vec3 omega = 2 * std::tan(phi / 2) / (0.5 * (a.norm() + b.norm())) * axis.normalized();
      out[i] = Vec3(0, omega.dot(d1), omega.dot(d2));
      d1 = Eigen::AngleAxisd(phi, axis.normalized()) * d1;
    }
  }
  if (points.size() > 2) out.front() = out[1], out.back() = out[points.size() - 2];
  return out;
}

// Whether a trial curvature is one a strand could have: at most 50 turns an element (a step of
// the fit beyond it would ask the series for thousands of APS pieces, and throw).
bool curvature_is_fittable(const Vec3& kappa, double ell) {
  return kappa.allFinite() && kappa.norm() * ell < 100 * M_PI;
}

// Levenberg-Marquardt on every node curvature and the root frame's rotation θ (its last 3;
// ∂x/∂θ = −[x − r0]×) from `fit`'s shape, against every point at its arc length `s`.
void polish(ClothoidFit& fit, const std::vector<Vec3>& points, const std::vector<double>& s) {
  SuperClothoid& rod = fit.shape;
  const int elements = rod.elements();
  const int n = 3 * (elements + 1) + 3;
  const Mat3 base = rod.root.R;
  Vec3 rotation = Vec3::Zero();
  auto residual = [&](VecX& r, MatX& jac) {
    r.resize(3 * Eigen::Index(points.size()));
    jac.setZero(r.size(), n);
    for (int j = 0; j <= elements; ++j)
      if (!curvature_is_fittable(rod.node_curvature[std::size_t(j)],
                                 rod.length[std::size_t(std::min(j, elements - 1))])) {
        r.setConstant(1e3);  // a step Levenberg-Marquardt rejects
        return;
      }
    const std::vector<FrameJacobian> f = frame_jacobians(rod, s);
    for (std::size_t i = 0; i < points.size(); ++i) {
      r.segment<3>(3 * Eigen::Index(i)) = f[i].frame.r - points[i];
      for (int q = 0; q + 3 < n; ++q)
        jac.block<3, 1>(3 * Eigen::Index(i), q) = f[i].dr[std::size_t(q)];
      const Vec3 d = f[i].frame.r - rod.root.r;
      Mat3 cross;
      cross << 0, -d.z(), d.y(), d.z(), 0, -d.x(), -d.y(), d.x(), 0;
      jac.block<3, 3>(3 * Eigen::Index(i), n - 3) = -cross;
    }
  };
  auto get = [&] {
    VecX k(n);
    for (int j = 0; j <= elements; ++j) k.segment<3>(3 * j) = rod.node_curvature[std::size_t(j)];
    k.tail<3>() = rotation;
    return k;
  };
  auto set = [&](const VecX& k) {
    for (int j = 0; j <= elements; ++j) rod.node_curvature[std::size_t(j)] = k.segment<3>(3 * j);
    rotation = k.tail<3>();
    const double angle = rotation.norm();
    rod.root.R = angle > 0 ? Mat3(Eigen::AngleAxisd(angle, rotation / angle) * base) : base;
  };
  const VecX r = reference::levenberg_marquardt(get, set, residual);
  fit.max_error = 0;
  for (std::size_t i = 0; i < points.size(); ++i)
    fit.max_error = std::max(fit.max_error, r.segment<3>(3 * Eigen::Index(i)).norm());
}

}  // namespace

ClothoidFit fit_polyline(const std::vector<Vec3>& points, int elements,
                         const Summation& summation) {
  if (points.size() < 2) throw Error("polyline", "needs at least 2 points");
  if (elements < 1) throw Error("elements", "must be >= 1");
  const std::vector<double> s = scene::smooth_arc_lengths(points);
  const double length = s.back();
  ClothoidFit fit;
  SuperClothoid& rod = fit.shape;
  rod.summation = summation;
  rod.length.assign(std::size_t(elements), length / elements);
  if (elements == 1) {
    // One element from the polyline's parallel-transport curvature at its ends.
    const Vec3 t0 = scene::root_tangent(points), n1 = t0.unitOrthogonal();
    rod.root.r = points[0];
    rod.root.R << t0, n1, t0.cross(n1);
    const std::vector<Vec3> bishop = bishop_curvatures(points, rod.root.R);
    rod.node_curvature = {bishop.front(), bishop.back()};
  } else {
    // Coarse to fine: the fit with half the elements, its piecewise affine curvature read at
    // these nodes (exactly the same curve when the element count is even). Started from the
    // parallel-transport curvature instead, 3 elements of a 4-turn helix stuck 3 cm off.
    const ClothoidFit coarse = fit_polyline(points, elements / 2, summation);
    rod.root = coarse.shape.root;
    const double coarse_length = coarse.shape.length[0];
    for (int j = 0; j <= elements; ++j) {
      const double at = length * j / elements;
      const int e = std::min(int(at / coarse_length), coarse.shape.elements() - 1);
      const double u = std::clamp(at / coarse_length - e, 0.0, 1.0);
      rod.node_curvature.push_back((1 - u) * coarse.shape.node_curvature[std::size_t(e)] +
                                   u * coarse.shape.node_curvature[std::size_t(e) + 1]);
    }
  }
  polish(fit, points, s);
  return fit;
}

}  // namespace hairsim::super_clothoid
