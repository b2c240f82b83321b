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

namespace hairsim {
namespace {

// A flat square grid of `quads` x `quads` quads: corner `origin`, sides `a` and `b` (counter-
// clockwise seen from a x b).
TriangleMesh plate(const Vec3& origin, const Vec3& a, const Vec3& b, int quads) {
  TriangleMesh m;
  for (int j = 0; j <= quads; ++j)
    for (int i = 0; i <= quads; ++i) m.vertices.push_back(origin + a * i / quads + b * j / quads);
  for (int j = 0; j < quads; ++j)
    for (int i = 0; i < quads; ++i) {
      const int v = j * (quads + 1) + i;
      m.triangles.push_back({v, v + 1, v + quads + 2});
      m.triangles.push_back({v, v + quads + 2, v + quads + 1});
    }
  return m;
}

void append(TriangleMesh& to, const TriangleMesh& m) {
  const int base = int(to.vertices.size());
  to.vertices.insert(to.vertices.end(), m.vertices.begin(), m.vertices.end());
  for (auto t : m.triangles) to.triangles.push_back({t[0] + base, t[1] + base, t[2] + base});
}

double red(const Image& img, int x, int y) {
  return img.rgb[(std::size_t(y) * img.width + x) * 3];
}

// A strand behind everything (z = -5 cm, hidden by the receiver and casting onto nothing seen):
// the shadow map spans the strands, so a scene of meshes alone gets one the same way.
StrandSet strand_behind() {
  StrandSet s;
  s.add_strand(std::vector<Vec3>{{-0.15, -0.15, -0.05}, {0, 0, -0.05}, {0.15, 0.15, -0.05}});
  return s;
}

// The straight edge of a cast shadow: a receiver plate (z = 0, 20 x 20 cm), an occluder plate
// 3 cm in front of it whose edge is the line u = 0 (u = x cos 30° + y sin 30°), the key light
// along (0.6 (cos 30°, sin 30°), 0.8). The shadow is the occluder shifted by -3 cm x 0.6 / 0.8 in
// u: its edge is the straight line u = -2.25 cm. The camera looks from +z at a 2 cm box around a
// point of that edge (0.06 mm a pixel). Per row, the edge is where the red channel crosses half
// way between the lit and the shadowed level (linear between pixels); a line is fitted to those
// crossings and the RMS of the residuals measures the staircase of shadow-map texels.
struct EdgeFit {
  double rms_px = 0, width_px = 0;
  int rows = 0;
};

EdgeFit shadow_edge(const RenderOptions& base) {
  const double c = std::cos(std::numbers::pi / 6), s = std::sin(std::numbers::pi / 6);
  const Vec3 u(c, s, 0), v(-s, c, 0);
  TriangleMesh scene = plate(Vec3(-0.1, -0.1, 0), Vec3(0.2, 0, 0), Vec3(0, 0.2, 0), 20);
  append(scene, plate(Vec3(0, 0, 0.03) - 0.1 * v, 0.1 * u, 0.2 * v, 10));
  RenderOptions o = base;
  o.width = o.height = 240;
  o.elevation_deg = 0;
  o.key_light = Vec3(0.6 * c, 0.6 * s, 0.8);
  const Vec3 centre = -0.0225 * u;
  o.frame_min = centre - Vec3(0.01, 0.01, 0);
  o.frame_max = centre + Vec3(0.01, 0.01, 0);
  const Image img = render(strand_behind(), &scene, o);
  // Lit and shadowed levels: far left and far right of the middle row (the edge runs near the
  // image's middle, 30° from the vertical).
  const double lit = red(img, 5, img.height / 2), dark = red(img, img.width - 6, img.height / 2);
  EXPECT_GT(lit - dark, 40) << lit << " " << dark;
  const double mid = 0.5 * (lit + dark), lo = dark + 0.1 * (lit - dark),
               hi = dark + 0.9 * (lit - dark);
  std::vector<double> ys, xs;
  double width = 0;
  for (int y = 20; y < img.height - 20; ++y) {
    double x_mid = -1, x_hi = -1, x_lo = -1;
    for (int x = 1; x < img.width; ++x) {
      const double a = red(img, x - 1, y), b = red(img, x, y);
      auto crossing = [&](double level, double& at) {
        if (at < 0 && a >= level && b < level) at = x - 1 + (a - level) / (a - b);
      };
      crossing(hi, x_hi);
      crossing(mid, x_mid);
      crossing(lo, x_lo);
    }
    if (x_mid < 0) continue;
    ys.push_back(y);
    xs.push_back(x_mid);
    width += x_lo - x_hi;
  }
  EdgeFit f;
  f.rows = int(ys.size());
  if (f.rows < 2) return f;
  const double n = f.rows;
  double sy = 0, sx = 0, syy = 0, sxy = 0;
  for (int i = 0; i < f.rows; ++i)
    sy += ys[i], sx += xs[i], syy += ys[i] * ys[i], sxy += ys[i] * xs[i];
  const double slope = (n * sxy - sy * sx) / (n * syy - sy * sy), icpt = (sx - slope * sy) / n;
  double ss = 0;
  for (int i = 0; i < f.rows; ++i) ss += std::pow(xs[i] - (slope * ys[i] + icpt), 2);
  f.rms_px = std::sqrt(ss / n);
  f.width_px = width / n;
  return f;
}

// Measured: a single-texel comparison (texels of 1.3 mm, 16 px here) drew a staircase, 2.86 px
// RMS off the line, 1.8 px wide; percentage-closer filtering over 5 texels of 0.5 mm: 0.28 px,
// 18.8 px (1.6 mm) wide. Bounds: 0.5 px, and a penumbra of 10-30 px (the filter's 5 texels of
// the head map's 512 over the plates' 0.26 m extent in light space, 1.2-2.5 mm).
TEST(RenderShadows, CastShadowEdgeIsStraight) {
  RenderOptions o;
  const EdgeFit f = shadow_edge(o);
  std::cout << "shadow edge: " << f.rows << " rows, RMS departure from a line " << f.rms_px
            << " px, 10-90 % width " << f.width_px << " px\n";
  EXPECT_GT(f.rows, 150);
  EXPECT_LT(f.rms_px, 0.5);
  EXPECT_GT(f.width_px, 10);
  EXPECT_LT(f.width_px, 30);
}

// A lone sphere under the key light: a convex body shadows none of its own lit side, so with
// shadows on it must look as with shadows off (no shadow acne: dark pixels where the depth map
// compares a surface against itself). The head is drawn pure red and the strand behind pure
// blue: the pixels compared are those wholly of the sphere (no blue) in both images.
TEST(RenderShadows, ConvexBodyHasNoSelfShadowAcne) {
  const TriangleMesh sphere = ellipsoid_mesh(Vec3::Constant(0.1), 48);
  RenderOptions o;
  o.width = o.height = 200;
  o.key_light = Vec3(-0.5, 0.8, 0.3);
  o.frame_min = Vec3::Constant(-0.1);
  o.frame_max = Vec3::Constant(0.1);
  o.head_color = Color(1, 0, 0);
  o.hair_color = Color(0, 0, 1);
  const StrandSet behind = strand_behind();
  const Image on = render(behind, &sphere, o);
  o.shadows = false;
  const Image off = render(behind, &sphere, o);
  int darker = 0, compared = 0, worst = 0;
  for (std::size_t i = 0; i < on.rgb.size(); i += 3) {
    if (on.rgb[i + 2] != 0 || off.rgb[i + 2] != 0) continue;
    ++compared;
    darker += on.rgb[i] + 2 < off.rgb[i];
    worst = std::max(worst, int(off.rgb[i]) - int(on.rgb[i]));
  }
  std::cout << "sphere: " << darker << " of " << compared
            << " pixels darker with shadows, at most by " << worst << " levels\n";
  EXPECT_GT(compared, 8000);
  // A hard single-texel comparison with a fixed bias darkened 5,858 of 8,902 pixels by up to 106
  // levels (stripes over the lit side); with the slope-scaled bias and the filter, 197 by at most
  // 4 levels.
  EXPECT_LE(worst, 4);
  EXPECT_LT(darker, compared / 40);
}

}  // namespace
}  // namespace hairsim
