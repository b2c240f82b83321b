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

namespace hairsim {
namespace {

// Red channel summed over the lowest run of hair pixels in column x (the lower strand).
int lower_strand_red(const Image& img, int x) {
  int y = img.height - 1;
  while (y >= 0 && !reddish(img, x, y)) --y;
  int sum = 0;
  for (; y >= 0 && reddish(img, x, y); --y) sum += img.rgb[(std::size_t(y) * img.width + x) * 3];
  return sum;
}

// Two horizontal strands seen from +z under a key light from straight above (+y): the upper one
// (A, y = 3 cm) spans only the left half, so it shades the left half of the lower one (B). With
// shadow density 1 a strand in front passes e^-1 = 37 % of the key light; B's left half must
// lose at least 10 % of its brightness against the same scene without A (key 0.85 of ambient
// 0.18 + key + fill), its right half (nothing above) must keep it within 2 %.
TEST(Render, ShadowsDarkenAStrandBehindAnOccluder) {
  auto line = [](double x0, double x1, double y) {
    std::vector<Vec3> p;
    for (int i = 0; i <= 40; ++i) p.emplace_back(x0 + (x1 - x0) * i / 40.0, y, 0.0);
    return p;
  };
  StrandSet both, alone;
  both.add_strand(line(-0.1, 0.1, 0.0));
  alone.add_strand(line(-0.1, 0.1, 0.0));
  both.add_strand(line(-0.1, 0.0, 0.03));
  RenderOptions o;
  o.width = o.height = 200;
  o.elevation_deg = 0;
  o.line_width_px = 3;
  o.key_light = Vec3::UnitY();
  o.shadow_density = 1.0;
  o.frame_min = Vec3(-0.12, -0.05, -0.02);
  o.frame_max = Vec3(0.12, 0.08, 0.02);
  const Image with = render(both, nullptr, o), without = render(alone, nullptr, o);
  const int left = o.width * 3 / 10, right = o.width * 7 / 10;
  const double shaded = double(lower_strand_red(with, left)) / lower_strand_red(without, left);
  const double lit = double(lower_strand_red(with, right)) / lower_strand_red(without, right);
  std::cout << "lower strand under the occluder: " << shaded << " of its unshadowed brightness; "
            << "beside it: " << lit << "\n";
  EXPECT_LT(shaded, 0.9);
  EXPECT_NEAR(lit, 1.0, 0.02);
  o.shadows = false;  // and without shadows nothing changes
  EXPECT_EQ(lower_strand_red(render(both, nullptr, o), left),
            lower_strand_red(render(alone, nullptr, o), left));
}

// Bands of rows per thread, strands shaded per thread: the same image bit for bit.
TEST(Render, ImageDoesNotDependOnTheThreadCount) {
  StrandSet s;
  for (int i = 0; i < 300; ++i) {
    std::vector<Vec3> p;
    for (int j = 0; j < 12; ++j)
      p.emplace_back(0.01 * std::sin(i * 0.7) + 0.002 * j, -0.01 * j, 0.01 * std::cos(i * 1.3));
    s.add_strand(p);
  }
  const TriangleMesh head = ellipsoid_mesh(Vec3::Constant(0.01), 16);
  RenderOptions o;
  o.width = o.height = 120;
  o.threads = 1;
  const Image one = render(s, &head, o);
  o.threads = 2;
  EXPECT_EQ(render(s, &head, o).rgb, one.rgb);
  o.threads = 3;
  EXPECT_EQ(render(s, &head, o).rgb, one.rgb);
}

}  // namespace
}  // namespace hairsim
