// Procedural hairstyles: roots on the scalp, area-uniform, lengths, determinism.
#include <gtest/gtest.h>
#include <omp.h>

#include <Eigen/Geometry>

#include <cmath>
#include <iostream>
#include <numbers>

#include "hairsim/error.hpp"
#include "hairsim/generate.hpp"

namespace hairsim {
namespace {

constexpr double kStyleRampForTest = 0.02;  // m: waves grow in over this (the generator's)

double ellipsoid_level(const Vec3& p, const Vec3& radii) {  // 1 on the surface
  return p.cwiseQuotient(radii).squaredNorm();
}

TEST(Generate, RootsLieOnTheScalpOfTheEllipsoid) {
  HairstyleParams p;
  p.strands = 2000;
  const StrandSet s = generate_hairstyle(p);
  ASSERT_EQ(s.strand_count(), 2000u);
  ASSERT_EQ(s.point_count(), 2000u * 32u);
  for (std::size_t i = 0; i < s.strand_count(); ++i) {
    const Vec3 root = s.strand(i).front();
    ASSERT_NEAR(ellipsoid_level(root, p.head_radii), 1.0, 1e-12) << i;
    const Vec3 u = root.cwiseQuotient(p.head_radii);
    ASSERT_GT(u.y(), 0.1 + 0.45 * u.z()) << i;  // the documented hairline
  }
}

TEST(Generate, StraightHairStaysOutsideTheHead) {
  HairstyleParams p;
  p.strands = 2000;
  const StrandSet s = generate_hairstyle(p);
  for (const Vec3& v : s.points) ASSERT_GE(ellipsoid_level(v, p.head_radii), 1.0 - 1e-9);
}

// A generated strand is a shape a smooth rod can hold (docs/architecture.md, "Procedural
// hairstyles"): resampled finely, no two consecutive edges turn more than the curve's largest
// curvature times the edge length allows, and no vertex lies inside the head. The kinks this
// replaced: a jump onto the drape layer at a strand's second point that turned 0.5-3 rad, and
// curls pressed into the head (about 110 of scenes/curly.json's first 60 strands' vertices were
// pushed out of it).
TEST(Generate, StrandsTurnSmoothlyAndStayOutOfTheHead) {
  constexpr double kPi = std::numbers::pi;
  for (HairStyle style : {HairStyle::straight, HairStyle::wavy, HairStyle::curly}) {
    HairstyleParams p;
    p.style = style;
    p.strands = 300;
    p.length = 0.2;
    p.vertices = 400;  // edges of at most 1.1 x 0.2 / 399 = 0.55 mm: turns read curvature
    const StrandSet s = generate_hairstyle(p);
    // The curvature bound, from the generator's construction (src/generate/hairstyle.cpp):
    // - the centreline: the fall bends it at 40 /m; the smooth rise takes its rise along the
    //   normal from its root's, 1/sqrt(5) (the comb weighted 2 against the normal), to zero over
    //   layer / rise, at most rise^2 / layer = 0.2 / 3 mm = 67 /m; following the head bends it as
    //   the ellipsoid's largest normal curvature, a_max / a_min^2 = 0.095 / 0.075^2 = 17 /m. In
    //   all at most 124 /m.
    // - wavy: a sine of amplitude A and wavenumber k bends at A k^2 (126 /m at the defaults), its
    //   smoothstep ramp S over 2 cm adds at most A (|S''| + 2 k |S'|) = A (6 / ramp^2 + 3 k / ramp)
    //   (0.95 + 1.19 A k^2): 396 /m in all at the defaults.
    // - curly: a helix of radius R and pitch P bends at R / (R^2 + (P / 2 pi)^2), at most 162 /m
    //   for R in 0.8-1.2 x 6 mm and P in 0.9-1.1 x 18 mm; its axis, R above the centreline,
    //   bends as the centreline does, which the helix's turns, each a pitch of axis in about
    //   2.4 pitches of strand, spread over the strand's length: at most the centreline's 124 /m.
    // Each turn between two edges of length e is at most the curvature times e (the tangent
    // turns by at most that between the edges' middles); the margin of 1.25 covers the fine
    // polyline the output is resampled from (four of its points to an output edge).
    const double centreline = 40 + 0.2 / 0.003 + 0.095 / (0.075 * 0.075);
    const double k = 2 * kPi / p.wave_length;
    double curvature = centreline;
    if (style == HairStyle::wavy)
      curvature +=
          p.wave_amplitude * k * k *
          (1 + 6 / (kStyleRampForTest * kStyleRampForTest * k * k) + 3 / (kStyleRampForTest * k));
    if (style == HairStyle::curly) {
      const double r = 0.8 * p.curl_radius, c = 1.1 * p.curl_pitch / (2 * kPi);
      curvature += r / (r * r + c * c);
    }
    double worst_ratio = 0, worst_turn = 0;  // turn over the bound, and the largest turn (rad)
    for (std::size_t i = 0; i < s.strand_count(); ++i) {
      const auto x = s.strand(i);
      for (std::size_t j = 0; j < x.size(); ++j)
        ASSERT_GE(ellipsoid_level(x[j], p.head_radii), 1.0 - 1e-9)
            << "style " << int(style) << " strand " << i << " vertex " << j;
      for (std::size_t j = 1; j + 1 < x.size(); ++j) {
        const Vec3 a = x[j] - x[j - 1], b = x[j + 1] - x[j];
        const double turn = std::atan2(a.cross(b).norm(), a.dot(b));
        const double bound = 1.25 * curvature * std::max(a.norm(), b.norm());
        worst_ratio = std::max(worst_ratio, turn / bound);
        worst_turn = std::max(worst_turn, turn);
        ASSERT_LE(turn, bound) << "style " << int(style) << " strand " << i << " vertex " << j;
      }
    }
    std::cout << "style " << int(style) << ": largest turn " << worst_turn << " rad, "
              << worst_ratio << " of its bound (curvature " << curvature << " /m)\n";
  }
}

// Area of the scalp part of the ellipsoid with u_y > threshold, by midpoint quadrature over
// (theta, phi) of the area element |dx/dtheta x dx/dphi| (independent of the generator).
double scalp_area(const Vec3& r, double u_y_min) {
  const int n = 800;
  double area = 0;
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < 2 * n; ++j) {
      const double th = std::numbers::pi * (i + 0.5) / n, ph = std::numbers::pi * (j + 0.5) / n;
      const Vec3 u(std::sin(th) * std::sin(ph), std::cos(th), std::sin(th) * std::cos(ph));
      if (!(u.y() > 0.1 + 0.45 * u.z()) || !(u.y() > u_y_min)) continue;
      const Vec3 dth(r.x() * std::cos(th) * std::sin(ph), -r.y() * std::sin(th),
                     r.z() * std::cos(th) * std::cos(ph));
      const Vec3 dph(r.x() * std::sin(th) * std::cos(ph), 0, -r.z() * std::sin(th) * std::sin(ph));
      area += dth.cross(dph).norm();
    }
  return area * (std::numbers::pi / n) * (std::numbers::pi / n);
}

TEST(Generate, RootsAreAreaUniform) {
  HairstyleParams p;
  p.strands = 100000;
  p.vertices = 2;
  p.head_radii = Vec3(0.06, 0.11, 0.09);  // strongly anisotropic: a wrong density shows
  const StrandSet s = generate_hairstyle(p);
  const double total = scalp_area(p.head_radii, -2);
  for (double u_min : {0.5, 0.8}) {
    std::size_t count = 0;
    for (std::size_t i = 0; i < s.strand_count(); ++i)
      count += s.strand(i).front().y() / p.head_radii.y() > u_min;
    const double expected = scalp_area(p.head_radii, u_min) / total;
    const double measured = static_cast<double>(count) / 100000.0;
    const double sigma = std::sqrt(expected * (1 - expected) / 100000.0);
    EXPECT_NEAR(measured, expected, 4 * sigma) << "fraction above u_y = " << u_min;
  }
}

TEST(Generate, StrandLengthsWithinTheDocumentedSpread) {
  for (HairStyle style : {HairStyle::straight, HairStyle::wavy, HairStyle::curly}) {
    HairstyleParams p;
    p.style = style;
    p.strands = 300;
    p.length = 0.2;
    p.vertices = 400;  // fine enough that chords follow the curls (pitch 1.8 cm)
    const StrandSet s = generate_hairstyle(p);
    for (std::size_t i = 0; i < s.strand_count(); ++i) {
      const double l = polyline_length(s.strand(i));
      ASSERT_GE(l, 0.9 * 0.2 * 0.995) << int(style) << " strand " << i;
      ASSERT_LE(l, 1.1 * 0.2 * (1 + 1e-12)) << int(style) << " strand " << i;
    }
  }
}

TEST(Generate, DeterministicAndIndependentOfThreadCount) {
  HairstyleParams p;
  p.style = HairStyle::curly;
  p.strands = 500;
  const int threads = omp_get_max_threads();
  omp_set_num_threads(1);
  const StrandSet one = generate_hairstyle(p);
  omp_set_num_threads(std::max(2, threads));
  const StrandSet many = generate_hairstyle(p);
  omp_set_num_threads(threads);
  EXPECT_EQ(one.points, many.points);
  p.seed = 2;
  EXPECT_NE(generate_hairstyle(p).points, one.points);
}

TEST(Generate, RejectsNonPhysicalParameters) {
  HairstyleParams p;
  p.strands = 0;
  EXPECT_THROW(generate_hairstyle(p), Error);
  p = {};
  p.vertices = 1;
  EXPECT_THROW(generate_hairstyle(p), Error);
  p = {};
  p.length = std::nan("");
  EXPECT_THROW(generate_hairstyle(p), Error);
  p = {};
  p.curl_pitch = 0;
  EXPECT_THROW(generate_hairstyle(p), Error);
  EXPECT_THROW(parse_hair_style("frizzy"), Error);
}

}  // namespace
}  // namespace hairsim
