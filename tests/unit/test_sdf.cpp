// Mesh colliders as signed-distance grids (include/hairsim/sdf.hpp, kernels/common/sdf_grid.hpp):
// a triangulated sphere against the exact distance |p| - r, the inside/outside beyond the band,
// and the contact that pushes a point out along the field.
#include <gtest/gtest.h>

#include <random>

#include "common/colliders.hpp"
#include "core/sdf_view.hpp"
#include "hairsim/error.hpp"
#include "hairsim/sdf.hpp"

namespace hairsim {
namespace {

constexpr double kRadius = 0.1;

// A UV sphere of 48 rings x 96 segments: quads of Δ = π/48 on a side, whose middles lie
// r (1 - cos(Δ/√2)) ≈ r Δ² / 4 = 1.07e-4 m inside the sphere (at the equator).
const SignedDistanceGrid& sphere_grid() {
  static const SignedDistanceGrid g =
      make_sdf_grid(ellipsoid_mesh(Vec3::Constant(kRadius), 48), 64, "sphere");
  return g;
}

TEST(SdfGrid, MatchesTheSphereDistanceNearTheSurface) {
  const kernels::SdfGrid<double> g = sdf_view(sphere_grid());
  EXPECT_NEAR(g.spacing, 2 * kRadius / 64, 1e-12);
  std::mt19937 rng(4);
  std::uniform_real_distribution<double> u(-1, 1);
  double worst = 0;
  for (int n = 0; n < 2000; ++n) {
    Vec3 dir(u(rng), u(rng), u(rng));
    dir.normalize();
    const double d = 2 * g.spacing * u(rng);  // within two cells of the surface
    const Vec3 p = (kRadius + d) * dir;
    worst = std::max(worst, std::abs(g.distance({p.x(), p.y(), p.z()}) - d));
  }
  // Faceting 1.07e-4 m plus trilinear interpolation of |p|: h² / 8 per axis times the curvature
  // 1/r, 3 axes: 3.7e-5 m.
  EXPECT_LT(worst, 1.07e-4 + 3.7e-5);
  EXPECT_NEAR(g.distance({0, 0, 0}), -sphere_grid().band, 1e-7);     // deep inside
  EXPECT_NEAR(g.distance({0.125, 0, 0}), sphere_grid().band, 1e-7);  // beyond the band
  EXPECT_EQ(g.distance({1, 0, 0}), sphere_grid().band);              // beyond the grid
}

TEST(SdfGrid, ContactPushesOutAlongTheNormal) {
  kernels::Collider<double> c;
  c.shape = kernels::ColliderShape::mesh;
  c.sdf = sdf_view(sphere_grid());
  const Vec3 dir = Vec3(0.3, 0.8, -0.5).normalized();
  const Vec3 p = 0.097 * dir;  // 3 mm inside
  const kernels::Contact<double> k = kernels::contact(c, {p.x(), p.y(), p.z()});
  ASSERT_TRUE(k.inside);
  const Vec3 s(k.surface.x, k.surface.y, k.surface.z), n(k.normal.x, k.normal.y, k.normal.z);
  EXPECT_NEAR(s.norm(), kRadius, 1e-4);
  EXPECT_GT(n.dot(dir), 0.9999);
  EXPECT_FALSE(kernels::contact(c, {0.102 * dir.x(), 0.102 * dir.y(), 0.102 * dir.z()}).inside);
}

TEST(SdfGrid, RejectsEmptyMeshAndBadResolution) {
  EXPECT_THROW(make_sdf_grid(TriangleMesh{}, 64, "m"), Error);
  EXPECT_THROW(make_sdf_grid(ellipsoid_mesh(Vec3::Constant(1), 8), 4, "m"), Error);
}

}  // namespace
}  // namespace hairsim
