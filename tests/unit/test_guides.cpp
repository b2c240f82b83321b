// Render strands from guides (include/hairsim/guides.hpp, kernels/render/): a render strand at a
// guide's root is that guide, a rigid motion of every guide moves the render strands rigidly,
// barycentric weights are the plane's, offsets ride in the guides' frames, and the result does
// not depend on the thread count.
#include <gtest/gtest.h>
#include <omp.h>

#include <Eigen/Geometry>

#include <cmath>

#include "hairsim/error.hpp"
#include "hairsim/generate.hpp"
#include "hairsim/guides.hpp"

namespace hairsim {
namespace {

StrandSet curly_guides(int strands, int vertices) {
  HairstyleParams p;
  p.style = HairStyle::curly;
  p.strands = strands;
  p.vertices = vertices;
  p.seed = 5;
  return generate_hairstyle(p);
}

// A deformed state: every vertex beyond the root edge bent by a smooth field (what a simulation
// gives), so the frames are not the rest frames.
std::vector<Vec3> deformed(const StrandSet& s) {
  std::vector<Vec3> x = s.points;
  for (std::size_t g = 0; g < s.strand_count(); ++g)
    for (std::size_t j = 2; j < s.strand_size(g); ++j) {
      Vec3& p = x[s.offsets[g] + j];
      p += 0.02 * double(j) / double(s.strand_size(g)) *
           Vec3(std::sin(20 * p.y()), 0.3 * std::cos(15 * p.x()), std::sin(10 * p.z() + 1));
    }
  return x;
}

Eigen::Matrix3d some_rotation() {
  return Eigen::AngleAxisd(0.9, Vec3(0.3, 1, -0.4).normalized()).toRotationMatrix();
}

double largest_difference(const std::vector<Vec3>& a, const std::vector<Vec3>& b) {
  double worst = 0;
  for (std::size_t i = 0; i < a.size(); ++i) worst = std::max(worst, (a[i] - b[i]).norm());
  return worst;
}

// Rounded to float through 4-byte storage: GCC 12 folds (double)(float)x back to x otherwise
// (docs/architecture.md, "Float rounding and GCC 12").
Vec3 to_float(const Vec3& v) {
  volatile float c[3] = {float(v.x()), float(v.y()), float(v.z())};
  return {double(c[0]), double(c[1]), double(c[2])};
}

std::vector<Vec3> roots_and_scatter(const StrandSet& guides, int scattered) {
  std::vector<Vec3> roots = scatter_render_roots(guides, scattered, 11);
  for (std::size_t g = 0; g < guides.strand_count(); g += 7) roots.push_back(guides.strand(g)[0]);
  return roots;
}

// A render strand whose root is guide g's root gets weight 1 on g and offset 0, so its points
// are g's points: in float, exactly the float-rounded guide (1 x + 0 adds nothing).
void expect_strands_at_roots_reproduce_guides(GuideInterpolation mode, bool double_precision) {
  const StrandSet guides = curly_guides(400, 24);
  const std::vector<Vec3> roots = roots_and_scatter(guides, 500);
  RenderStrandOptions o;
  o.interpolation = mode;
  o.clump = 0.6;
  o.double_precision = double_precision;
  GuideInterpolator interp(guides, roots, o);
  const std::vector<Vec3> x = deformed(guides);
  interp.interpolate(x);
  StrandSet out;
  interp.render_strands(out);
  ASSERT_EQ(out.strand_count(), roots.size());
  double worst = 0;
  int checked = 0;
  for (std::size_t g = 0, s = 500; g < guides.strand_count(); g += 7, ++s, ++checked) {
    const auto w = interp.weights_of(int(s));
    ASSERT_EQ(w[0].first, int(g));
    ASSERT_EQ(w[0].second, 1.0);
    for (int j = 0; j < 24; ++j) {
      const Vec3 guide = x[g * 24 + j];
      const Vec3 rounded = double_precision ? guide : to_float(guide);
      worst = std::max(worst, (out.strand(s)[j] - rounded).norm());
    }
  }
  EXPECT_GT(checked, 50);
  EXPECT_EQ(worst, 0.0);
}

TEST(Guides, RenderStrandAtAGuideRootIsThatGuideBarycentric) {
  expect_strands_at_roots_reproduce_guides(GuideInterpolation::barycentric, false);
  expect_strands_at_roots_reproduce_guides(GuideInterpolation::barycentric, true);
}

TEST(Guides, RenderStrandAtAGuideRootIsThatGuideNearest) {
  expect_strands_at_roots_reproduce_guides(GuideInterpolation::nearest, false);
}

// x -> R x + T of every guide gives p -> R p + T of every render strand: the frames are built
// from tangents and the vector between two roots, both turned by R. Tolerance: round-off of
// ~100 operations on coordinates of 0.3 m (with T = 0.4 m): 1e-13 m in double; float's ε = 6e-8
// times 0.7 m times a few operations: 2e-6 m.
void expect_rigid(bool double_precision, GuideInterpolation mode, double tolerance) {
  const StrandSet guides = curly_guides(300, 32);
  const std::vector<Vec3> roots = roots_and_scatter(guides, 3000);
  RenderStrandOptions o;
  o.interpolation = mode;
  o.clump = 0.3;
  o.jitter = 0.004;
  o.double_precision = double_precision;
  GuideInterpolator interp(guides, roots, o);
  std::vector<Vec3> x = deformed(guides);
  interp.interpolate(x);
  StrandSet before;
  interp.render_strands(before);
  const Eigen::Matrix3d r = some_rotation();
  const Vec3 t(0.1, -0.4, 0.25);
  for (Vec3& p : x) p = r * p + t;
  interp.interpolate(x);
  StrandSet after;
  interp.render_strands(after);
  std::vector<Vec3> expected = before.points;
  for (Vec3& p : expected) p = r * p + t;
  const double worst = largest_difference(after.points, expected);
  std::cout << (double_precision ? "double" : "float") << " " << to_string(mode)
            << ": largest departure from the rigid motion " << worst << " m\n";
  EXPECT_LT(worst, tolerance);
  // And the motion is not trivially small: strands moved by decimetres.
  EXPECT_GT(largest_difference(after.points, before.points), 0.1);
}

TEST(Guides, RigidMotionOfTheGuidesMovesRenderStrandsRigidly) {
  expect_rigid(true, GuideInterpolation::barycentric, 1e-13);
  expect_rigid(true, GuideInterpolation::nearest, 1e-13);
  expect_rigid(false, GuideInterpolation::barycentric, 2e-6);
}

// Guides on the plane y = 0 at the corners of centimetre squares: the weights of a root inside
// a square are barycentric in a triangle of its corners, and with straight
// guides along +y (parallel frames) a render strand is its root plus the guides' common shape.
TEST(Guides, BarycentricWeightsAndOffsetsOnAFlatPatch) {
  StrandSet guides;
  const double h = 0.01;
  for (int i = 0; i < 6; ++i)
    for (int k = 0; k < 6; ++k) {
      std::vector<Vec3> s;
      for (int j = 0; j < 5; ++j) s.emplace_back(i * h, 0.02 * j, k * h);
      guides.add_strand(s);
    }
  // Inside the right triangle (2,2), (3,2), (2,3) (indices i*6+k): barycentric (0.5, 0.3, 0.2).
  const Vec3 p =
      0.5 * Vec3(2 * h, 0, 2 * h) + 0.3 * Vec3(3 * h, 0, 2 * h) + 0.2 * Vec3(2 * h, 0, 3 * h);
  RenderStrandOptions o;
  o.double_precision = true;
  GuideInterpolator interp(guides, std::vector<Vec3>{p}, o);
  // p lies in two triangles of the candidates with the shortest longest edge (h sqrt 2): the
  // square's two halves along either diagonal. Either way the weights are barycentric: >= 0,
  // summing to 1 and reproducing p from the three roots (to round-off of 0.03 m values).
  double w_sum = 0;
  Vec3 blend = Vec3::Zero();
  int used = 0;
  for (const auto& [g, w] : interp.weights_of(0)) {
    EXPECT_GE(w, 0.0);
    if (w == 0) continue;
    ++used;
    w_sum += w;
    blend += w * guides.strand(std::size_t(g))[0];
    const int i = g / 6, k = g % 6;
    EXPECT_TRUE((i == 2 || i == 3) && (k == 2 || k == 3)) << g;  // a corner of p's square
  }
  EXPECT_EQ(used, 3);
  EXPECT_NEAR(w_sum, 1.0, 1e-14);
  EXPECT_LT((blend - p).norm(), 1e-15);
  interp.interpolate(guides.points);
  StrandSet out;
  interp.render_strands(out);
  for (int j = 0; j < 5; ++j)
    EXPECT_LT((out.strand(0)[j] - (p + Vec3(0, 0.02 * j, 0))).norm(), 1e-14);
}

// Clumping shrinks the offsets linearly to (1 - clump) at the tip: on the straight patch a strand
// at distance d from its guides' blend ends at (1 - clump) d from it.
TEST(Guides, ClumpPullsTipsTowardsTheGuides) {
  StrandSet guides;
  for (int i = 0; i < 3; ++i)
    for (int k = 0; k < 3; ++k) {
      std::vector<Vec3> s;
      for (int j = 0; j < 4; ++j) s.emplace_back(i * 0.01, 0.03 * j, k * 0.01);
      guides.add_strand(s);
    }
  const Vec3 p(0.012, 0, 0.007);
  RenderStrandOptions o;
  o.double_precision = true;
  o.interpolation = GuideInterpolation::nearest;
  o.nearest = 1;  // follows guide (1, 1) alone: root (0.01, 0, 0.01)
  o.clump = 0.75;
  GuideInterpolator interp(guides, std::vector<Vec3>{p}, o);
  interp.interpolate(guides.points);
  StrandSet out;
  interp.render_strands(out);
  const Vec3 guide_tip(0.01, 0.09, 0.01);
  EXPECT_NEAR((out.strand(0)[3] - guide_tip).norm(), 0.25 * (p - Vec3(0.01, 0, 0.01)).norm(),
              1e-15);
}

TEST(Guides, InterpolationDoesNotDependOnTheThreadCount) {
  const StrandSet guides = curly_guides(200, 16);
  const std::vector<Vec3> roots = scatter_render_roots(guides, 2000, 3);
  RenderStrandOptions o;
  o.jitter = 0.003;
  o.clump = 0.2;
  const std::vector<Vec3> x = deformed(guides);
  const int threads = omp_get_max_threads();
  StrandSet a, b;
  omp_set_num_threads(1);
  {
    GuideInterpolator interp(guides, scatter_render_roots(guides, 2000, 3), o);
    interp.interpolate(x);
    interp.render_strands(a);
  }
  omp_set_num_threads(std::max(2, threads));
  {
    GuideInterpolator interp(guides, roots, o);
    interp.interpolate(x);
    interp.render_strands(b);
  }
  omp_set_num_threads(threads);
  ASSERT_EQ(a.points.size(), b.points.size());
  EXPECT_EQ(largest_difference(a.points, b.points), 0.0);  // bit for bit
}

TEST(Guides, BadInputIsRefused) {
  const StrandSet guides = curly_guides(10, 8);
  RenderStrandOptions o;
  o.clump = 1.5;
  EXPECT_THROW(GuideInterpolator(guides, std::vector<Vec3>{Vec3::Zero()}, o), Error);
  o.clump = 0;
  o.nearest = 5;
  EXPECT_THROW(GuideInterpolator(guides, std::vector<Vec3>{Vec3::Zero()}, o), Error);
  EXPECT_THROW(GuideInterpolator(StrandSet{}, std::vector<Vec3>{}, RenderStrandOptions{}), Error);
}

// Guides alike at rest that part in motion: two straight guides 1 cm apart rising 10 cm along
// +y; this frame one of them is thrown 45° forward (its tip 7.1 cm from the other's, 0.77 of the
// main guide's length apart from their roots). A render strand whose root lies 3 mm from the
// upright guide blends the two nearest (render.interpolation nearest, k = 2: weights 0.84 /
// 0.16 by inverse squared distance) and hung between them: its tip 1.5 cm from the upright
// guide's (measured before motion_weights). With the thrown guide faded out of
// the blend (its gap above kShapeGap + kMotionFade of the length) the strand follows the upright
// one: its tip within its root offset (3 mm) of it, bound 5 mm. While the guides stay alike
// (the other at 5°: gap 0.087 L, under kShapeGap) the blend is kept: the tip between both.
TEST(Guides, GuidesThatPartInMotionAreNotBlended) {
  auto guide = [](double x, double angle) {
    std::vector<Vec3> s;
    for (int j = 0; j <= 10; ++j)
      s.emplace_back(x + 0.01 * j * std::sin(angle), 0.01 * j * std::cos(angle), 0.0);
    return s;
  };
  StrandSet rest;  // a third guide 5 cm away: a blend needs three roots
  rest.add_strand(guide(0.0, 0.0));
  rest.add_strand(guide(0.01, 0.0));
  rest.add_strand(guide(-0.05, 0.0));
  RenderStrandOptions o;
  o.interpolation = GuideInterpolation::nearest;  // a blend of both guides
  o.nearest = 2;
  o.double_precision = true;
  const std::vector<Vec3> roots{Vec3(0.003, 0, 0)};
  GuideInterpolator interp(rest, roots, o);
  auto tip_after = [&](double angle) {
    StrandSet moved;
    moved.add_strand(guide(0.0, 0.0));
    moved.add_strand(guide(0.01, angle));
    moved.add_strand(guide(-0.05, 0.0));
    interp.interpolate(moved.points);
    StrandSet out;
    interp.render_strands(out);
    return out.strand(0)[10];
  };
  const Vec3 upright_tip(0, 0.1, 0);
  const double thrown = (tip_after(M_PI / 4) - upright_tip).norm();
  std::cout << "render tip from the upright guide's, its neighbour thrown 45 degrees: " << thrown
            << " m\n";
  EXPECT_LT(thrown, 0.005);
  // Alike (5 degrees): still blended, the tip between the two guides' tips.
  const Vec3 tilted_tip(0.01 + 0.1 * std::sin(M_PI / 36), 0.1 * std::cos(M_PI / 36), 0);
  const Vec3 alike = tip_after(M_PI / 36);
  std::cout << "its neighbour at 5 degrees: " << (alike - upright_tip).norm()
            << " m from the upright tip, " << (alike - tilted_tip).norm()
            << " m from the tilted one\n";
  EXPECT_GT((alike - upright_tip).norm(), 0.004);
  EXPECT_GT((alike - tilted_tip).norm(), 0.004);
}

}  // namespace
}  // namespace hairsim

namespace hairsim {
namespace {

// Roots scattered around a strand file's guides lie on the guides' root surface up to the sag
// of a disc of the neighbour spacing: on the generator's ellipsoid (radii 7.5-9.5 cm), 2,000
// guides are ~5 mm apart, a tangent disc of radius r departs from the surface by about
// r² / (2 R) = 0.2 mm, 2.5e-3 of the radius, more at the hairline where the 8 neighbours are
// on one side (a larger disc, a tilted fitted plane): measured 7.2e-3 (0.6 mm), bound 1e-2.
// Each lies within 3 neighbour spacings of some guide root.
TEST(Guides, ScatteredRootsLieOnTheGuidesRootSurface) {
  HairstyleParams p;
  p.strands = 2000;
  p.vertices = 4;
  const StrandSet guides = generate_hairstyle(p);
  const std::vector<Vec3> roots = scatter_render_roots(guides, 5000, 4);
  double worst = 0;
  for (const Vec3& r : roots) {
    worst = std::max(worst, std::abs(r.cwiseQuotient(p.head_radii).norm() - 1));
    double nearest = 1e300;
    for (std::size_t g = 0; g < guides.strand_count(); ++g)
      nearest = std::min(nearest, (guides.strand(g)[0] - r).norm());
    ASSERT_LT(nearest, 0.015);
  }
  std::cout << "largest departure from the scalp ellipsoid: " << worst << " of the radius\n";
  EXPECT_LT(worst, 1e-2);
  EXPECT_EQ(scatter_render_roots(guides, 5000, 4), roots);  // deterministic
}

}  // namespace
}  // namespace hairsim

namespace hairsim {
namespace {

// A parting: guides on a 1 cm grid of roots in the plane y = 0, rising along +y (10 cm) and
// combed away from x = 0: p = root + (±0.05 s², 0.1 s, 0), s from 0 at the root to 1 at the
// tip. Guides either side are 53° apart (root to tip), within the 60° of the direction check,
// and their tips 10 cm apart: a render strand whose root lies between the two sides blended
// them and hung in the middle: 5.5 cm from any guide (measured, direction check alone). With the
// shape check each follows the guides of its side: measured 0.72 cm (a root between guides 1 cm
// apart); bound 2 cm, the spacing plus kShapeGap x the guides' 10 cm of length.
TEST(Guides, NoRenderStrandHangsBetweenPartedGuides) {
  StrandSet guides;
  for (int i = -3; i <= 3; ++i)
    for (int k = -3; k <= 3; ++k) {
      const double x = 0.01 * i + 0.005, side = x < 0 ? -1 : 1;
      std::vector<Vec3> s;
      for (int j = 0; j <= 10; ++j) {
        const double t = j / 10.0;
        s.emplace_back(x + side * 0.05 * t * t, 0.1 * t, 0.01 * k);
      }
      guides.add_strand(s);
    }
  std::vector<Vec3> roots;  // across the parting (x in [-1.5, 1.5] cm), along z
  for (int i = 0; i <= 30; ++i)
    for (int k = -20; k <= 20; k += 4) roots.emplace_back(-0.015 + 0.001 * i, 0, 0.001 * k);
  RenderStrandOptions o;
  o.double_precision = true;
  GuideInterpolator interp(guides, roots, o);
  interp.interpolate(guides.points);
  StrandSet out;
  interp.render_strands(out);
  double worst = 0;
  for (std::size_t s = 0; s < out.strand_count(); ++s)
    for (std::size_t j = 0; j < 11; ++j) {
      double nearest = 1e300;
      for (std::size_t g = 0; g < guides.strand_count(); ++g)
        nearest = std::min(nearest, (out.strand(s)[j] - guides.strand(g)[j]).norm());
      worst = std::max(worst, nearest);
    }
  std::cout << "largest distance of a render vertex from a guide's same vertex: " << worst
            << " m\n";
  EXPECT_LT(worst, 0.02);
}

}  // namespace
}  // namespace hairsim
