// Collider geometry and the contact response (kernels/common/colliders.hpp) against closed
// forms: closest points of a sphere and a capsule, the radial projection onto an ellipsoid, and
// Coulomb friction on the relative velocity.
#include <gtest/gtest.h>

#include <cmath>

#include "common/colliders.hpp"

namespace hairsim::kernels {
namespace {

using V = Vector3<double>;
constexpr double kSkin = 1e-12;  // contact_skin<double>()

double distance(const V& a, const V& b) {
  return norm(a - b);
}

TEST(Colliders, SpherePushesToItsSurfaceAlongTheRadius) {
  Collider<double> c;
  c.a = {1, 2, 3};
  c.radii = {0.5, 0, 0};
  const V inside{1.1, 2.2, 3.0};
  const Contact<double> k = contact(c, inside);
  ASSERT_TRUE(k.inside);
  const V n = (inside - c.a) / norm(inside - c.a);
  EXPECT_LT(distance(k.normal, n), 1e-15);
  EXPECT_LT(distance(k.surface, c.a + 0.5 * (1 + kSkin) * n), 1e-15);
  EXPECT_FALSE(contact(c, V{1.6, 2, 3}).inside);
  EXPECT_FALSE(contact(c, k.surface).inside);  // the skin: a point put there is outside
}

TEST(Colliders, CapsuleUsesTheClosestPointOfItsAxis) {
  Collider<double> c;
  c.shape = ColliderShape::capsule;
  c.a = {0, 0, 0};
  c.b = {0, 0, 2};
  c.radii = {0.3, 0, 0};
  const Contact<double> side = contact(c, V{0.1, 0, 1.2});  // beside the axis
  ASSERT_TRUE(side.inside);
  EXPECT_LT(distance(side.surface, V{0.3 * (1 + kSkin), 0, 1.2}), 1e-15);
  EXPECT_LT(distance(side.normal, V{1, 0, 0}), 1e-15);
  const Contact<double> cap = contact(c, V{0, 0.1, 2.1});  // in the end cap
  ASSERT_TRUE(cap.inside);
  const V n = V{0, 0.1, 0.1} / std::sqrt(0.02);
  EXPECT_LT(distance(cap.surface, V{0, 0, 2} + 0.3 * (1 + kSkin) * n), 1e-15);
  EXPECT_FALSE(contact(c, V{0.31, 0, 1}).inside);
}

TEST(Colliders, EllipsoidProjectsRadiallyInItsScaledFrame) {
  Collider<double> c;
  c.shape = ColliderShape::ellipsoid;
  c.a = {0, 1, 0};
  c.radii = {0.075, 0.095, 0.095};  // the generator's head
  const Contact<double> on_axis = contact(c, V{0.05, 1, 0});
  ASSERT_TRUE(on_axis.inside);
  EXPECT_LT(distance(on_axis.surface, V{0.075 * (1 + kSkin), 1, 0}), 1e-15);
  EXPECT_LT(distance(on_axis.normal, V{1, 0, 0}), 1e-15);
  const Contact<double> k = contact(c, V{0.03, 1.04, -0.02});
  ASSERT_TRUE(k.inside);
  const V d = k.surface - c.a;
  const double level =
      std::pow(d.x / 0.075, 2) + std::pow(d.y / 0.095, 2) + std::pow(d.z / 0.095, 2);
  EXPECT_NEAR(std::sqrt(level), 1 + kSkin, 1e-15);  // on the surface (plus the skin)
  const V gradient{d.x / (0.075 * 0.075), d.y / (0.095 * 0.095), d.z / (0.095 * 0.095)};
  EXPECT_LT(distance(k.normal, gradient / norm(gradient)), 1e-14);
  EXPECT_FALSE(contact(c, V{0.08, 1, 0}).inside);
}

TEST(Colliders, PlaneAndCylinderPushOutAlongTheirNormals) {
  Collider<double> plane;
  plane.shape = ColliderShape::plane;
  plane.a = {0, -1, 0};
  plane.b = {0, 1, 0};
  const Contact<double> k = contact(plane, V{0.3, -1.2, 0.4});
  ASSERT_TRUE(k.inside);
  EXPECT_LT(distance(k.normal, plane.b), 1e-15);
  EXPECT_NEAR(k.surface.y, -1, 1e-11);  // on the plane plus the skin (1e-12 (1 + |p|))
  EXPECT_GT(k.surface.y, -1);
  EXPECT_FALSE(contact(plane, V{5, -0.9, 0}).inside);

  Collider<double> cyl;
  cyl.shape = ColliderShape::cylinder;
  cyl.a = {0, 0, 1};
  cyl.b = {1, 0, 0};  // the axis: the line z = 1, y = 0
  cyl.radii = {0.2, 0, 0};
  const Contact<double> c = contact(cyl, V{7, 0.1, 1});  // far along the axis: still inside
  ASSERT_TRUE(c.inside);
  EXPECT_LT(distance(c.surface, V{7, 0.2 * (1 + kSkin), 1}), 1e-15);
  EXPECT_FALSE(contact(cyl, V{-3, 0, 1.25}).inside);
}

TEST(Colliders, SignedDistancesInsideAndOutside) {
  // Closed forms: |p - axis point| - r, the plane's d = n . (p - a), the ellipsoid's estimate
  // (F - 1) / |∇F| (exact to first order: on the x semi-axis at 1.1 a, F = 1.21, |∇F| = 2.2/a).
  Collider<double> sphere;
  sphere.a = {1, 0, 0};
  sphere.radii = {0.5, 0, 0};
  const SignedDistance<double> s = signed_distance(sphere, V{1, 0.2, 0});
  EXPECT_NEAR(s.distance, -0.3, 1e-15);
  EXPECT_LT(distance(s.normal, V{0, 1, 0}), 1e-15);
  EXPECT_NEAR(signed_distance(sphere, V{1, 0, 2}).distance, 1.5, 1e-15);

  Collider<double> capsule;
  capsule.shape = ColliderShape::capsule;
  capsule.b = {0, 0, 1};
  capsule.radii = {0.1, 0, 0};
  EXPECT_NEAR(signed_distance(capsule, V{0, 0, 1.5}).distance, 0.4, 1e-15);  // past the end
  EXPECT_NEAR(signed_distance(capsule, V{0.05, 0, 0.5}).distance, -0.05, 1e-15);

  Collider<double> cyl;
  cyl.shape = ColliderShape::cylinder;
  cyl.b = {0, 0, 1};
  cyl.radii = {0.1, 0, 0};
  const SignedDistance<double> c = signed_distance(cyl, V{0, 0.4, 9});
  EXPECT_NEAR(c.distance, 0.3, 1e-15);
  EXPECT_LT(distance(c.normal, V{0, 1, 0}), 1e-15);

  Collider<double> plane;
  plane.shape = ColliderShape::plane;
  plane.a = {0, 0, 2};
  plane.b = {0, 0, 1};
  EXPECT_NEAR(signed_distance(plane, V{4, 5, 1.5}).distance, -0.5, 1e-15);

  Collider<double> ellipsoid;
  ellipsoid.shape = ColliderShape::ellipsoid;
  ellipsoid.radii = {0.2, 0.1, 0.1};
  EXPECT_NEAR(signed_distance(ellipsoid, V{0.22, 0, 0}).distance, 0.21 / (2.2 / 0.2), 1e-15);
  EXPECT_NEAR(signed_distance(ellipsoid, V{0, 0.1, 0}).distance, 0, 1e-15);
}

TEST(Colliders, DistanceGradientIsTheDistancesDerivative) {
  // distance_gradient against central differences of signed_distance(...).distance (h = 1e-6 m,
  // truncation O(h²) ~ 1e-11 relative): the ellipsoid's estimate inside, outside and off-axis,
  // where its unit normal alone is off by O(|φ|/a) (checked too, so that the test can tell them
  // apart), and the sphere, whose gradient is its normal.
  Collider<double> ellipsoid;
  ellipsoid.shape = ColliderShape::ellipsoid;
  ellipsoid.a = {0.01, -0.02, 0.03};
  ellipsoid.radii = {0.075, 0.095, 0.11};
  Collider<double> sphere;
  sphere.a = {0, 0, 0};
  sphere.radii = {0.08, 0, 0};
  const V points[] = {{0.06, 0.03, 0.05}, {0.02, 0.09, -0.04}, {-0.05, -0.06, 0.09}};
  for (const Collider<double>& c : {ellipsoid, sphere})
    for (const V& p : points) {
      const SignedDistance<double> sd = signed_distance(c, p);
      const V g = distance_gradient(c, p, sd);
      const double h = 1e-6;
      const V ex{h, 0, 0}, ey{0, h, 0}, ez{0, 0, h};
      const V fd = V{signed_distance(c, p + ex).distance - signed_distance(c, p - ex).distance,
                     signed_distance(c, p + ey).distance - signed_distance(c, p - ey).distance,
                     signed_distance(c, p + ez).distance - signed_distance(c, p - ez).distance} /
                   (2 * h);
      EXPECT_LT(distance(g, fd), 1e-8 * norm(fd)) << sd.distance;
      if (c.shape == ColliderShape::ellipsoid)  // the normal is not the derivative here
        EXPECT_GT(distance(sd.normal, fd), 1e-3 * norm(fd)) << sd.distance;
      else
        EXPECT_LT(distance(sd.normal, g), 1e-15);
    }
}

TEST(Colliders, CoulombFrictionOnTheRelativeVelocity) {
  const V n{0, 1, 0}, w{0.5, 0, 0};  // the surface moves at 0.5 m/s along x
  // Relative velocity (2, -1, 0): the approach 1 is removed, the tangential 2 loses μ·1.
  EXPECT_LT(distance(contact_velocity(V{2.5, -1, 0}, w, n, 0.5), V{0.5 + 1.5, 0, 0}), 1e-15);
  // μ·1 >= 2: it sticks to the surface.
  EXPECT_LT(distance(contact_velocity(V{2.5, -1, 0}, w, n, 3.0), w), 1e-15);
  // Separating: kept as it is.
  EXPECT_LT(distance(contact_velocity(V{2.5, 1, 0}, w, n, 0.5), V{2.5, 1, 0}), 1e-15);
}

}  // namespace
}  // namespace hairsim::kernels
