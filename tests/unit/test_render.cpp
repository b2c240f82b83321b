// Preview renderer: framing and coverage against the camera's analytic projection, PNG output.
#include <gtest/gtest.h>
#include <png.h>

#include <cmath>
#include <numbers>

#include "hairsim/error.hpp"
#include "hairsim/render.hpp"
#include "test_support.hpp"

namespace hairsim {
namespace {

// The camera model of renderer.cpp: 30 degree field of view across the shorter image side,
// eye at 1.05 * (bounding-sphere radius) / sin(15 deg) from the bounding-box centre.
constexpr double kHalfFov = 15.0 * std::numbers::pi / 180.0;

bool reddish(const Image& img, int x, int y) {  // skin and hair are red > blue; background not
  const std::uint8_t* p = &img.rgb[(std::size_t(y) * img.width + x) * 3];
  return p[0] > p[2];
}

TEST(Render, SphereCoverageMatchesPerspectiveProjection) {
  const double r = 0.1;
  const TriangleMesh sphere = ellipsoid_mesh(Vec3::Constant(r), 64);
  RenderOptions o;
  o.width = o.height = 400;
  o.elevation_deg = 0;
  const Image img = render(StrandSet{}, &sphere, o);
  int covered = 0;
  for (int y = 0; y < img.height; ++y)
    for (int x = 0; x < img.width; ++x) covered += reddish(img, x, y);
  // Silhouette of a sphere of radius r at distance D: angular radius asin(r / D), image radius
  // f tan(asin(r / D)) with f = (W / 2) / tan(half fov); D from the bounding box [-r, r]^3.
  const double distance = 1.05 * r * std::sqrt(3.0) / std::sin(kHalfFov);
  const double f = 0.5 * o.width / std::tan(kHalfFov);
  const double rho = f * std::tan(std::asin(r / distance));
  const double expected = std::numbers::pi * rho * rho;
  EXPECT_NEAR(covered / expected, 1.0, 0.015) << covered << " vs " << expected;
}

TEST(Render, VerticalStrandSpansItsProjectedLength) {
  StrandSet s;
  s.add_strand(std::vector<Vec3>{{0, -1, 0}, {0, 0, 0}, {0, 1, 0}});
  RenderOptions o;
  o.width = o.height = 300;
  o.elevation_deg = 0;
  o.line_width_px = 2;
  const Image img = render(s, nullptr, o);
  // Bounding sphere radius 1: the strand ends at (0, +-1, 0) project to +-f / D pixels; the
  // round caps of the drawn line add half the line width at each end.
  const double distance = 1.05 / std::sin(kHalfFov);
  const double f = 0.5 * o.width / std::tan(kHalfFov);
  int rows = 0;
  for (int y = 0; y < img.height; ++y) rows += reddish(img, img.width / 2, y);
  EXPECT_NEAR(rows, 2 * f / distance + o.line_width_px, 1.0);
  EXPECT_FALSE(reddish(img, img.width / 4, img.height / 2));  // nothing away from the strand
}

TEST(Render, UpAxisAndAzimuthTurnTheView) {
  // A strand along +x seen with up = x must look vertical like a y strand with up = y.
  StrandSet sx, sy;
  sx.add_strand(std::vector<Vec3>{{-1, 0, 0}, {1, 0, 0}});
  sy.add_strand(std::vector<Vec3>{{0, -1, 0}, {0, 1, 0}});
  RenderOptions ox, oy;
  ox.width = ox.height = oy.width = oy.height = 64;
  ox.up = parse_axis("x");
  EXPECT_EQ(render(sx, nullptr, ox).rgb, render(sy, nullptr, oy).rgb);
  EXPECT_EQ(parse_axis("-z"), Vec3(0, 0, -1));
  EXPECT_THROW(parse_axis("w"), Error);
}

TEST(Render, PngReadsBackWithLibpng) {
  test::ScratchDir dir;
  StrandSet s;
  s.add_strand(std::vector<Vec3>{{0, 0, 0}, {0.1, 0.2, 0.3}});
  RenderOptions o;
  o.width = 64;
  o.height = 48;
  const Image img = render(s, nullptr, o);
  write_png(dir / "a.png", img);
  png_image png{};
  png.version = PNG_IMAGE_VERSION;
  ASSERT_TRUE(png_image_begin_read_from_file(&png, (dir / "a.png").c_str()));
  png.format = PNG_FORMAT_RGB;
  std::vector<std::uint8_t> pixels(PNG_IMAGE_SIZE(png));
  ASSERT_TRUE(png_image_finish_read(&png, nullptr, pixels.data(), 0, nullptr));
  EXPECT_EQ(png.width, 64u);
  EXPECT_EQ(png.height, 48u);
  EXPECT_EQ(pixels, img.rgb);
}

}  // namespace
}  // namespace hairsim
