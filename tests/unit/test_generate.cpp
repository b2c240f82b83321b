// Procedural hairstyles: roots on the scalp, area-uniform, lengths, determinism.
#include <gtest/gtest.h>
#include <omp.h>

#include <Eigen/Geometry>

#include <cmath>
#include <numbers>

#include "hairsim/error.hpp"
#include "hairsim/generate.hpp"

namespace hairsim {
namespace {

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
