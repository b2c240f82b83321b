// Keyframed rigid paths (include/hairsim/motion.hpp): exact at the keys, held outside them,
// at rest at the first and last key, C1 between (one-sided derivatives agree at inner keys),
// and the cubic Hermite form itself (a value checked by hand).
#include <gtest/gtest.h>

#include "hairsim/error.hpp"
#include "hairsim/motion.hpp"

namespace hairsim {
namespace {

using V = Eigen::Vector3d;

Keyframe key(double t, const V& translation, const V& rotation) {
  Keyframe k;
  k.time = t;
  k.translation = translation;
  k.rotation = rotation;
  return k;
}

KeyframePath path() {
  return KeyframePath({key(0.0, V(0, 0, 0), V(0, 0, 0)), key(0.5, V(0.1, 0, 0), V(0, 0.4, 0)),
                       key(1.5, V(0.1, 0.2, 0), V(0, -0.4, 0)), key(2.0, V(0, 0, 0), V(0, 0, 0))},
                      "head.keyframes");
}

TEST(KeyframePath, ExactAtKeysHeldOutside) {
  const KeyframePath p = path();
  EXPECT_NEAR((p.translation(0.5) - Eigen::Vector3d(0.1, 0, 0)).norm(), 0, 1e-15);
  EXPECT_NEAR((p.rotation_vector(1.5) - Eigen::Vector3d(0, -0.4, 0)).norm(), 0, 1e-15);
  EXPECT_EQ(p.translation(-1), p.translation(0));
  EXPECT_EQ(p.translation(5), p.translation(2));
  // A rotation vector (0, 0.4, 0) is a turn of 0.4 rad about y.
  const Eigen::Matrix3d r = p.rotation(0.5);
  EXPECT_NEAR(r(0, 0), std::cos(0.4), 1e-15);
  EXPECT_NEAR(r(0, 2), std::sin(0.4), 1e-15);
}

TEST(KeyframePath, SmoothAndAtRestAtTheEnds) {
  const KeyframePath p = path();
  const double e = 1e-6;
  auto velocity = [&](double t) -> V {
    return (p.translation(t + e) - p.translation(t - e)) / (2 * e);
  };
  EXPECT_LT(velocity(e).norm(), 1e-5);        // starts from rest
  EXPECT_LT(velocity(2.0 - e).norm(), 1e-5);  // ends at rest
  for (double key : {0.5, 1.5}) {             // one-sided derivatives agree: C1
    const Eigen::Vector3d before = (p.translation(key) - p.translation(key - e)) / e;
    const Eigen::Vector3d after = (p.translation(key + e) - p.translation(key)) / e;
    EXPECT_LT((before - after).norm(), 1e-4) << key;
  }
  // At key 0.5 the Catmull-Rom tangent is (p(1.5) - p(0)) / 1.5 = (0.1, 0.2, 0) / 1.5.
  EXPECT_NEAR(velocity(0.5).y(), 0.2 / 1.5, 1e-6);
  // Halfway between keys 0 and 0.5 (tangents 0 and (0.1, 0.2, 0)/1.5, h = 0.5): the Hermite
  // basis at s = 1/2 gives p = 0.5 p1 + h (-1/8) m1 = (0.05 - 0.5/8 * 0.0667, -0.5/8 * 0.1333).
  const Eigen::Vector3d mid = p.translation(0.25);
  EXPECT_NEAR(mid.x(), 0.05 - 0.0625 * 0.1 / 1.5, 1e-15);
  EXPECT_NEAR(mid.y(), -0.0625 * 0.2 / 1.5, 1e-15);
}

TEST(KeyframePath, RejectsBadKeys) {
  EXPECT_THROW(KeyframePath({}, "k"), Error);
  try {
    KeyframePath({key(0, V::Zero(), V::Zero()), key(0, V::Zero(), V::Zero())}, "head.keyframes");
    FAIL();
  } catch (const Error& e) {
    EXPECT_EQ(e.where(), "head.keyframes[1].time");
  }
}

}  // namespace
}  // namespace hairsim
