// The batched Super Space Clothoid on the cpu backend against its reference: issue 21's parity
// case (tests/super_clothoid_parity_case.hpp) without a collider, with the head sphere and with
// the head mesh.
#include <gtest/gtest.h>

#include "super_clothoid_parity_case.hpp"

namespace hairsim {
namespace {

using test::ClothoidCollider;

TEST(SuperClothoidParity, CpuKernelsFollowTheReference) {
  test::expect_clothoid_kernels_follow_reference(engine::Backend::cpu, ClothoidCollider::none);
}
TEST(SuperClothoidParity, CpuKernelsFollowTheReferenceOnTheHeadSphere) {
  test::expect_clothoid_kernels_follow_reference(engine::Backend::cpu, ClothoidCollider::sphere);
}
TEST(SuperClothoidParity, CpuKernelsFollowTheReferenceOnTheHeadMesh) {
  test::expect_clothoid_kernels_follow_reference(engine::Backend::cpu, ClothoidCollider::mesh);
}

}  // namespace
}  // namespace hairsim
