// Hair grown on a head mesh's scalp (include/hairsim/generate.hpp, `scalp`): the real Bangs
// head (tests/data/Bangs_head.ply, mm, x up, face towards -y), a cap above a tilted plane.
// Roots lie on the mesh's scalp triangles, inside the region only, area-uniform with the asked
// density; deterministic per seed.
#include <gtest/gtest.h>

#include <Eigen/Geometry>

#include <cmath>

#include "hairsim/error.hpp"
#include "hairsim/generate.hpp"
#include "hairsim/io.hpp"
#include "test_support.hpp"

namespace hairsim {
namespace {

HairstyleParams bangs_scalp(const TriangleMesh& head) {
  HairstyleParams p;
  p.scalp = &head;
  p.cap_point = Vec3(0.17, 0.135, 0.121);
  p.cap_normal = Vec3(1, 0.5, 0).normalized();  // higher over the face (-y) than at the back
  p.up = Vec3::UnitX();
  p.front = -Vec3::UnitY();
  p.vertices = 8;
  p.length = 0.1;
  p.scalp_resolution = 48;
  return p;
}

// Where p lies on the scalp: the smallest distance to the plane of a scalp triangle whose
// (projected) barycentric coordinates hold p, and that triangle's index (-1: none).
std::pair<double, int> distance_to_scalp(const TriangleMesh& m, const std::vector<int>& faces,
                                         const Vec3& p) {
  double best = 1e300;
  int at = -1;
  for (int f : faces) {
    const auto& t = m.triangles[std::size_t(f)];
    const Vec3 &a = m.vertices[t[0]], &b = m.vertices[t[1]], &c = m.vertices[t[2]];
    const Vec3 n = (b - a).cross(c - a).normalized();
    const double h = std::abs(n.dot(p - a));
    const Vec3 q = p - n.dot(p - a) * n;
    const double wa = n.dot((b - q).cross(c - q)), wb = n.dot((c - q).cross(a - q)),
                 wc = n.dot((a - q).cross(b - q));
    const double area2 = n.dot((b - a).cross(c - a));
    const double tol = -1e-9 * area2;
    if (wa >= tol && wb >= tol && wc >= tol && h < best) best = h, at = f;
  }
  return {best, at};
}

// Area of triangle (a, b, c) where s(x) = n.(x - o) > 0, by clipping (Sutherland-Hodgman).
double area_above(const Vec3& a, const Vec3& b, const Vec3& c, const Vec3& o, const Vec3& n) {
  const Vec3 in[3] = {a, b, c};
  std::vector<Vec3> poly;
  for (int i = 0; i < 3; ++i) {
    const Vec3 &p = in[i], &q = in[(i + 1) % 3];
    const double sp = n.dot(p - o), sq = n.dot(q - o);
    if (sp > 0) poly.push_back(p);
    if ((sp > 0) != (sq > 0)) poly.push_back(p + sp / (sp - sq) * (q - p));
  }
  double area = 0;
  for (std::size_t i = 1; i + 1 < poly.size(); ++i)
    area += 0.5 * (poly[i] - poly[0]).cross(poly[i + 1] - poly[0]).norm();
  return area;
}

TEST(Scalp, RootsLieOnTheMeshInsideTheCapWithTheAskedDensity) {
  const TriangleMesh head = read_mesh(test::data_path("Bangs_head.ply"), {LengthUnit::mm});
  HairstyleParams p = bangs_scalp(head);
  const std::vector<int> faces = scalp_triangles(p);
  const double area = scalp_area(p);
  // Independent area: the listed triangles' areas summed here.
  double sum = 0;
  for (int f : faces) {
    const auto& t = head.triangles[std::size_t(f)];
    sum += 0.5 * (head.vertices[t[1]] - head.vertices[t[0]])
                     .cross(head.vertices[t[2]] - head.vertices[t[0]])
                     .norm();
  }
  EXPECT_NEAR(area, sum, 1e-12);
  std::cout << faces.size() << " scalp triangles of " << head.triangles.size() << ", " << area * 1e4
            << " cm2\n";
  ASSERT_GT(area, 0.01);  // a head's scalp: a few hundred cm²
  p.density = 20000;      // strands per m²
  const StrandSet s = generate_hairstyle(p);
  // The count is the density times the area, rounded.
  EXPECT_EQ(double(s.strand_count()), std::round(20000 * area));
  double worst = 0;
  for (std::size_t i = 0; i < s.strand_count(); ++i) {
    const Vec3 root = s.strand(i)[0];
    const auto [h, face] = distance_to_scalp(head, faces, root);
    ASSERT_GE(face, 0) << "root " << i << " is on no scalp triangle";
    worst = std::max(worst, h);
    EXPECT_GE(p.cap_normal.dot(root - p.cap_point), -1e-12) << i;  // inside the cap
    ASSERT_TRUE(s.points[s.offsets[i] + 7].allFinite());
  }
  std::cout << "largest distance of a root from its triangle: " << worst << " m\n";
  EXPECT_LT(worst, 1e-6);
}

// Area-uniform: 20,000 roots, counted on either side of a plane through the head's middle
// (front/back), against the clipped scalp area on that side; each side's density within 5 % of
// the asked (the count's sampling noise is 0.7 %).
TEST(Scalp, RootDensityIsUniformOverTheScalp) {
  const TriangleMesh head = read_mesh(test::data_path("Bangs_head.ply"), {LengthUnit::mm});
  const HairstyleParams p = bangs_scalp(head);
  const std::vector<int> faces = scalp_triangles(p);
  const double area = scalp_area(p);
  const int count = 20000;
  const std::vector<Vec3> roots = sample_scalp_roots(p, count, 3);
  for (const auto& [o, n] :
       {std::pair{Vec3(0, 0.135, 0), Vec3(0, 1, 0)}, std::pair{Vec3(0, 0, 0.121), Vec3(0, 0, 1)},
        std::pair{Vec3(0.21, 0, 0), Vec3(1, 0, 0)}}) {
    double side = 0;
    for (int f : faces) {
      const auto& t = head.triangles[std::size_t(f)];
      side += area_above(head.vertices[t[0]], head.vertices[t[1]], head.vertices[t[2]], o, n);
    }
    int above = 0;
    for (const Vec3& r : roots) above += n.dot(r - o) > 0;
    const double density_above = above / side, density_below = (count - above) / (area - side);
    const double asked = count / area;
    std::cout << "side " << n.transpose() << ": area fraction " << side / area << ", density ratio "
              << density_above / asked << " / " << density_below / asked << "\n";
    EXPECT_NEAR(density_above / asked, 1.0, 0.05);
    EXPECT_NEAR(density_below / asked, 1.0, 0.05);
  }
}

TEST(Scalp, DeterministicPerSeedAndRegionByFaceList) {
  const TriangleMesh head = read_mesh(test::data_path("Bangs_head.ply"), {LengthUnit::mm});
  HairstyleParams p = bangs_scalp(head);
  p.strands = 200;
  const StrandSet a = generate_hairstyle(p), b = generate_hairstyle(p);
  EXPECT_EQ(a.points, b.points);
  p.seed = 2;
  EXPECT_NE(generate_hairstyle(p).points, a.points);
  // A face list: every root on one of the listed faces.
  p.scalp_faces = {10, 11, 12, 500};
  const std::vector<Vec3> roots = sample_scalp_roots(p, 400, 1);
  for (const Vec3& r : roots) {
    const auto [h, face] = distance_to_scalp(head, p.scalp_faces, r);
    ASSERT_GE(face, 0);
    EXPECT_LT(h, 1e-6);
  }
  p.scalp_faces = {int(head.triangles.size())};
  EXPECT_THROW(scalp_triangles(p), Error);
  p.scalp_faces.clear();
  p.cap_point = Vec3(10, 0, 0);  // above the whole head: nothing selected
  EXPECT_THROW(scalp_triangles(p), Error);
}

}  // namespace
}  // namespace hairsim
