#include "reference/super_clothoid/clothoid_fit.hpp"

#include <Eigen/Cholesky>
#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <numeric>

#include "hairsim/error.hpp"
#include "reference/eigen_bridge.hpp"
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

// The same curvatures (at the points, arcs `s`) in the material frame turned about the tangent by
// the angle ψ(s) of the transport curvature (κ1, κ2), taken modulo π (where the curve
// inflects, the curvature changes sign rather than ψ half a turn) and 0 at the root: twist ψ' and
// the curvature turned by −ψ (the Darboux vector in the turned frame). The centreline is the
// same; a helix's curvature, which turns with the torsion in the transport frame, is constant in
// this one, as the affine elements hold it exactly.
std::vector<Vec3> turning_curvatures(const std::vector<Vec3>& bishop,
                                     const std::vector<double>& s) {
  const std::size_t n = bishop.size();
  double largest = 0;
  for (const Vec3& k : bishop) largest = std::max(largest, k.tail<2>().norm());
  std::vector<double> psi(n, 0.0);
  double reference = NAN;  // the transport angle where ψ was last read
  for (std::size_t i = 0; i < n; ++i) {
    psi[i] = i > 0 ? psi[i - 1] : 0.0;
    const Eigen::Vector2d k = bishop[i].tail<2>();
    // Where the curve is nearly straight the angle is noise: ψ held.
    if (!(k.norm() > 1e-3 * largest)) continue;
    const double angle = std::atan2(k.y(), k.x());
    if (!std::isnan(reference))
      psi[i] += std::remainder(angle - reference, M_PI);  // the turn modulo π, in [−π/2, π/2]
    reference = angle;
  }
  std::vector<Vec3> out(n);
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t a = i > 0 ? i - 1 : 0, b = std::min(i + 1, n - 1);
    const double c = std::cos(psi[i]), sn = std::sin(psi[i]);
    const double twist = s[b] > s[a] ? (psi[b] - psi[a]) / (s[b] - s[a]) : 0.0;
    out[i] = Vec3(bishop[i].x() + twist, c * bishop[i].y() + sn * bishop[i].z(),
                  -sn * bishop[i].y() + c * bishop[i].z());
  }
  return out;
}

// The weight of the fit's smoothness rows (polish), and the lighter one a fit still more than
// kFitRetryError off is polished with too (fit_polyline).
constexpr double kCurvatureJump = 1e-2;
constexpr double kLighterCurvatureJump = kCurvatureJump / 10;

// Whether a trial curvature is one a strand could have: at most 50 turns an element (a step of
// the fit beyond it would ask the series for thousands of APS pieces, and throw).
bool curvature_is_fittable(const Vec3& kappa, double ell) {
  return kappa.allFinite() && kappa.norm() * ell < 100 * M_PI;
}

// Where the fit looks at the centreline: every point's arc length and kSamplesPerEdge - 1 arcs
// between each two, 4 times as many on the first edge (a strand leaving the scalp at a low
// angle dipped 0.23 mm between the first samples there), and where each point is among them.
// With 4 points a turn (the generated curls), the smooth curve bulges millimetres away from its
// chords between the points.
constexpr int kSamplesPerEdge = 4;
struct Samples {
  std::vector<double> arcs;
  std::vector<std::size_t> of_point;
};
Samples sample_arcs(const std::vector<double>& s) {
  Samples out{{s.front()}, {0}};
  for (std::size_t i = 1; i < s.size(); ++i) {
    const int n = i == 1 ? 4 * kSamplesPerEdge : kSamplesPerEdge;
    for (int k = 1; k <= n; ++k) out.arcs.push_back(s[i - 1] + (s[i] - s[i - 1]) * k / n);
    out.of_point.push_back(out.arcs.size() - 1);
  }
  return out;
}

// The obstacles a fit keeps out of: each sample below `clearance` from a collider's surface adds
// the residual weight (d − clearance) (d its signed distance; 0 elsewhere), a penalty beside the
// points' distances (m both).
struct Obstacles {
  std::span<const kernels::Collider<double>> colliders;
  double weight = 0;
  double clearance = 0;
};

kernels::SignedDistance<double> distance_to(const kernels::Collider<double>& c, const Vec3& x) {
  return kernels::signed_distance(c, bridge::to_kernel(x));
}

// How deep the fitted centreline goes into the colliders at its samples (m, ≥ 0).
double depth(const SuperClothoid& rod, const std::vector<double>& samples,
             std::span<const kernels::Collider<double>> colliders) {
  double deepest = 0;
  const std::vector<PointJacobian> f = point_jacobians(rod, samples);
  for (std::size_t j = 1; j < f.size(); ++j)
    for (const kernels::Collider<double>& c : colliders)
      deepest = std::max(deepest, -distance_to(c, f[j].x).distance);
  return deepest;
}

// How far a fit is polished: until a Levenberg-Marquardt step gains less than this of the
// residual. The starts to kStartGain, enough to tell them apart; the start kept, and the collider
// penalties' fits, to kFinalGain. At the round-off rule (1e-13) every polish ran into the 200-step
// cap, each step gaining ~1e-3 along a valley; from the turning start scenes/curly.json's curls
// are within a tenth of 2000 steps' residual after ~20 steps, and these stops take a fifth of the
// cap's steps for the same point errors (docs/models/super-clothoids.md, "A fit that fails, and
// the cost").
constexpr double kStartGain = 1e-3;
constexpr double kFinalGain = 1e-5;

// Levenberg-Marquardt on every node curvature and the root frame's rotation θ (its last 3;
// ∂x/∂θ = −[x − r0]×) from `fit`'s shape, against every point at its arc length `s`, the
// smoothness rows of weight `jump_weight`, and the obstacles' penalties at the samples when there
// are obstacles, until a step gains less than `min_gain` of the residual.
void polish(ClothoidFit& fit, const std::vector<Vec3>& points, const std::vector<double>& s,
            const Obstacles& obstacles, double min_gain, double jump_weight = kCurvatureJump) {
  SuperClothoid& rod = fit.shape;
  const int elements = rod.elements();
  const int n = 3 * (elements + 1) + 3;
  const Mat3 base = rod.root.R;
  Vec3 rotation = Vec3::Zero();
  // Without obstacles the points' arcs alone.
  Samples at{s, std::vector<std::size_t>(s.size())};
  std::iota(at.of_point.begin(), at.of_point.end(), std::size_t(0));
  if (!obstacles.colliders.empty()) at = sample_arcs(s);
  const std::vector<double>& samples = at.arcs;
  const Eigen::Index point_rows = 3 * Eigen::Index(points.size());
  const Eigen::Index obstacle_rows = Eigen::Index(samples.size() * obstacles.colliders.size());
  const Eigen::Index rows = point_rows + obstacle_rows + 3 * elements;
  auto residual = [&](VecX& r, MatX& jac) {
    r.setZero(rows);
    jac.setZero(rows, n);
    for (int j = 0; j <= elements; ++j)
      if (!curvature_is_fittable(rod.node_curvature[std::size_t(j)],
                                 rod.length[std::size_t(std::min(j, elements - 1))])) {
        r.setConstant(1e3);  // a step Levenberg-Marquardt rejects
        return;
      }
    std::vector<PointJacobian> f;
    try {
      f = point_jacobians(rod, samples);
    } catch (const RunFailure&) {  // a trial the series cannot sum (too many APS pieces)
      r.setConstant(1e3);
      return;
    }
    // ∂x/∂q of sample j: the series' columns, then the root rotation's.
    auto position_jacobian = [&](std::size_t j) {
      Eigen::Matrix<double, 3, Eigen::Dynamic> dx(3, n);
      dx.leftCols(n - 3) = f[j].J;
      const Vec3 d = f[j].x - rod.root.r;
      Mat3 cross;
      cross << 0, -d.z(), d.y(), d.z(), 0, -d.x(), -d.y(), d.x(), 0;
      dx.rightCols<3>() = -cross;
      return dx;
    };
    for (std::size_t i = 0; i < points.size(); ++i) {
      const std::size_t j = at.of_point[i];
      r.segment<3>(3 * Eigen::Index(i)) = f[j].x - points[i];
      jac.middleRows<3>(3 * Eigen::Index(i)) = position_jacobian(j);
    }
    Eigen::Index row = point_rows;
    for (std::size_t j = 0; j < samples.size(); ++j)
      for (const kernels::Collider<double>& c : obstacles.colliders) {
        const kernels::SignedDistance<double> d = distance_to(c, f[j].x);
        if (j > 0 && d.distance < obstacles.clearance) {  // the root is where the strand is
          const Vec3 normal(d.normal.x, d.normal.y, d.normal.z);
          r(row) = obstacles.weight * (d.distance - obstacles.clearance);
          jac.row(row) = obstacles.weight * normal.transpose() * position_jacobian(j);
        }
        ++row;
      }
    // Smoothness: jump_weight ℓ² (κ̂j+1 − κ̂j) an element, the tip's displacement of a jump
    // across it scaled down (m). Where the points leave the curvature free (few points an
    // element, a kink), least squares wandered to 1e4 /m (κ ℓ at 100 π, the fittable bound);
    // a constant curvature (a helix) pays nothing.
    for (int e = 0; e < elements; ++e) {
      const double w = jump_weight * rod.length[std::size_t(e)] * rod.length[std::size_t(e)];
      for (int c = 0; c < 3; ++c, ++row) {
        r(row) =
            w * (rod.node_curvature[std::size_t(e) + 1](c) - rod.node_curvature[std::size_t(e)](c));
        jac(row, 3 * (e + 1) + c) = w;
        jac(row, 3 * e + c) = -w;
      }
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
  const VecX r = reference::levenberg_marquardt(get, set, residual, min_gain);
  fit.max_error = 0;
  for (std::size_t i = 0; i < points.size(); ++i)
    fit.max_error = std::max(fit.max_error, r.segment<3>(3 * Eigen::Index(i)).norm());
}

// The polyline's root frame: its tangent (scene::root_tangent) and any normal.
Frame root_frame(const std::vector<Vec3>& points) {
  const Vec3 t0 = scene::root_tangent(points), n1 = t0.unitOrthogonal();
  Frame root;
  root.r = points[0];
  root.R << t0, n1, t0.cross(n1);
  return root;
}

// The piecewise linear function through `values` at the increasing arcs `at`, read at x
// (clamped to its ends).
Vec3 interpolate(const std::vector<double>& at, const std::vector<Vec3>& values, double x) {
  const std::size_t i = std::size_t(
      std::clamp<std::ptrdiff_t>(std::upper_bound(at.begin(), at.end(), x) - at.begin() - 1, 0,
                                 std::ptrdiff_t(at.size()) - 2));
  const double u = std::clamp((x - at[i]) / (at[i + 1] - at[i]), 0.0, 1.0);
  return (1 - u) * values[i] + u * values[i + 1];
}

// A piecewise linear curvature (values at arcs `at`) read at the element nodes of `rod`.
std::vector<Vec3> at_nodes(const SuperClothoid& rod, const std::vector<double>& at,
                           const std::vector<Vec3>& values) {
  std::vector<Vec3> out;
  double node = 0;
  for (int j = 0; j <= rod.elements(); ++j) {
    if (j > 0) node += rod.length[std::size_t(j - 1)];
    out.push_back(interpolate(at, values, node));
  }
  return out;
}

// A piecewise linear curvature (values at arcs `at`) averaged over the half elements on both
// sides of each node of `rod`: a kink's turning (one spike of the polyline's curvature) spread
// over its elements instead of read, or missed, at a node.
std::vector<Vec3> averaged_at_nodes(const SuperClothoid& rod, const std::vector<double>& at,
                                    const std::vector<Vec3>& values) {
  constexpr int kSamples = 32;
  std::vector<Vec3> out;
  double node = 0;
  for (int j = 0; j <= rod.elements(); ++j) {
    const double before = j > 0 ? rod.length[std::size_t(j - 1)] : 0.0;
    const double after = j < rod.elements() ? rod.length[std::size_t(j)] : 0.0;
    node += before;
    const double from = node - before / 2, to = node + after / 2;
    Vec3 sum = Vec3::Zero();
    for (int k = 0; k < kSamples; ++k)
      sum += interpolate(at, values, from + (to - from) * (k + 0.5) / kSamples);
    out.push_back(sum / kSamples);
  }
  return out;
}

// A rod of equal elements along the polyline, its curvature not set.
ClothoidFit empty_fit(const std::vector<double>& s, int elements, const Summation& summation) {
  ClothoidFit fit;
  fit.shape.summation = summation;
  fit.shape.length.assign(std::size_t(elements), s.back() / elements);
  return fit;
}

// The starts from the polyline's curvature: in the transport frame read at the nodes, averaged
// about them, or in the frame turning with the curvature (turning_curvatures) read at the nodes.
enum class Start { transport, averaged, turning };

// A fit from one of them, polished to kStartGain.
ClothoidFit fit_from_transport(const std::vector<Vec3>& points, const std::vector<double>& s,
                               int elements, const Summation& summation, Start start) {
  ClothoidFit fit = empty_fit(s, elements, summation);
  fit.shape.root = root_frame(points);
  std::vector<Vec3> curvature = bishop_curvatures(points, fit.shape.root.R);
  if (start == Start::turning) curvature = turning_curvatures(curvature, s);
  fit.shape.node_curvature = start == Start::averaged ? averaged_at_nodes(fit.shape, s, curvature)
                                                      : at_nodes(fit.shape, s, curvature);
  polish(fit, points, s, {}, kStartGain);
  return fit;
}

// Coarse to fine: one element from the transport or the turning curvature read at its ends
// (averaged over the element, a helix's would cancel), the closer of the two (Bangs_100's
// strand 1, its points 9 mm inside the head mesh: 1.03 mm from the transport's, 0.74 mm from the
// turning's), then each fit with twice the elements started from the previous one's piecewise
// affine curvature at its nodes (the same curve when the count is even), polished at every level.
ClothoidFit fit_coarse_to_fine(const std::vector<Vec3>& points, const std::vector<double>& s,
                               int elements, const Summation& summation) {
  if (elements == 1) {
    ClothoidFit transport = fit_from_transport(points, s, 1, summation, Start::transport);
    ClothoidFit turning = fit_from_transport(points, s, 1, summation, Start::turning);
    return turning.max_error < transport.max_error ? turning : transport;
  }
  const ClothoidFit coarse = fit_coarse_to_fine(points, s, elements / 2, summation);
  std::vector<double> node_arcs{0};
  for (double l : coarse.shape.length) node_arcs.push_back(node_arcs.back() + l);
  ClothoidFit fit = empty_fit(s, elements, summation);
  fit.shape.root = coarse.shape.root;
  fit.shape.node_curvature = at_nodes(fit.shape, node_arcs, coarse.shape.node_curvature);
  polish(fit, points, s, {}, kStartGain);
  return fit;
}

// A polished fit (smoothness `jump_weight`) kept out of the obstacles where its centreline dips
// into them: polished again with their penalty, each heavier weight kept only while the points
// stay within kFitClearanceCost of where the plain polish had them: where the points themselves
// lie inside a collider (a groom not pushed out, a coarse mesh), a penalty of 1e5 dragged
// Bangs_100's fits 25 mm off their points.
ClothoidFit kept_out(ClothoidFit fit, const std::vector<Vec3>& points, const std::vector<double>& s,
                     std::span<const kernels::Collider<double>> obstacles, double jump_weight) {
  if (obstacles.empty()) return fit;
  const std::vector<double> samples = sample_arcs(s).arcs;
  fit.depth = depth(fit.shape, samples, obstacles);
  const double plain_error = fit.max_error;
  for (double weight : {10.0, 100.0, 1000.0, 1e4, 1e5}) {
    if (fit.depth <= kFitDepthTolerance) break;
    ClothoidFit heavier = fit;
    polish(heavier, points, s, {obstacles, weight, kFitClearance}, kFinalGain, jump_weight);
    if (!(heavier.max_error <= plain_error + kFitClearanceCost)) break;
    fit = std::move(heavier);
    fit.depth = depth(fit.shape, samples, obstacles);
  }
  return fit;
}

// How much the polyline turns (rad): the sum of the angles between its edges.
double total_turning(const std::vector<Vec3>& points) {
  double turning = 0;
  for (std::size_t i = 1; i + 1 < points.size(); ++i) {
    const Vec3 a = points[i] - points[i - 1], b = points[i + 1] - points[i];
    turning += std::atan2(a.cross(b).norm(), a.dot(b));
  }
  return turning;
}

}  // namespace

ClothoidFit fit_polyline(const std::vector<Vec3>& points, int elements, const Summation& summation,
                         std::span<const kernels::Collider<double>> obstacles) {
  if (points.size() < 2) throw Error("polyline", "needs at least 2 points");
  if (elements < 1) throw Error("elements", "must be >= 1");
  const std::vector<double> s = scene::smooth_arc_lengths(points);
  // The curvature read at the nodes is a good start while an element turns less than a quarter
  // turn (hair with 16 elements: curls 1.4 rad an element); beyond, its samples are too far apart
  // (3 elements of a 4-turn helix stuck 3 cm off) and the coarse-to-fine start is tried too, the
  // closer fit kept. Read in the frame turning with the curvature: scenes/curly.json's curls
  // from the transport frame crawled along a valley towards it (twist traded for the
  // curvature's direction), 3.2e-5 m from their points after 200 steps (median of 30), 1.4e-5 m
  // from this start (docs/models/super-clothoids.md, "Fitting a polyline").
  ClothoidFit fit = fit_from_transport(points, s, elements, summation, Start::turning);
  auto keep_closer = [&](ClothoidFit other) {
    if (other.max_error < fit.max_error) fit = std::move(other);
  };
  keep_closer(fit_from_transport(points, s, elements, summation, Start::averaged));
  // Coarse to fine also where the transport starts left the fit more than kFitRetryError off:
  // on Bangs_100 (24 points, 16 elements) one strand stuck 4.7 mm off from both.
  if (total_turning(points) > elements * M_PI / 2 || fit.max_error > kFitRetryError)
    keep_closer(fit_coarse_to_fine(points, s, elements, summation));
  if (!(fit.max_error < 1e3)) throw RunFailure("fit", "no start of the fit could be summed");
  polish(fit, points, s, {}, kFinalGain);  // the start kept
  ClothoidFit out = kept_out(fit, points, s, obstacles, kCurvatureJump);
  // Still more than kFitRetryError off: the smoothness rows may hold the fit back where the
  // points bend within an element. On Bangs_100 (24 points, 16 elements, its head mesh) rows a
  // tenth as heavy, polished from the plain polish to kStartGain, took 13 of the 19 such fits
  // closer, none farther, the farthest point from 0.74 to 0.50 mm (the Super-Helix's fit:
  // 0.66 mm), at no measurable cost (polished on to kFinalGain: 0.48 mm, 1.26x the fits' time).
  // The lighter fit is kept where it is closer and no deeper in the obstacles: without that
  // rule one of them (strand 98) dipped 0.47 mm into the head, the penalty that would push it out
  // refused for its cost.
  if (out.max_error > kFitRetryError) {
    ClothoidFit lighter = fit;
    polish(lighter, points, s, {}, kStartGain, kLighterCurvatureJump);
    if (lighter.max_error <
        out.max_error) {  // else the penalties (which cost closeness) are skipped
      lighter = kept_out(std::move(lighter), points, s, obstacles, kLighterCurvatureJump);
      if (lighter.max_error < out.max_error &&
          lighter.depth <= std::max(out.depth, kFitDepthTolerance))
        out = std::move(lighter);
    }
  }
  return out;
}

}  // namespace hairsim::super_clothoid
