// The batched Super Space Clothoid on the cpu backend against its reference: issue 21's parity
// case (tests/super_clothoid_parity_case.hpp) without a collider, with the head sphere and with
// the head mesh.
#include <gtest/gtest.h>

#include <memory>

#include "models/super_clothoid/super_clothoid_rods.hpp"
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

// More quadrature points than the kernels' contact list holds (16 elements x 16 points against
// 128) are refused naming the field, rather than run dropping contacts (which, at 64 places for
// 16 x 8 points, let tips 1.8 mm into the head on the soak).
TEST(SuperClothoidParity, RefusesMoreContactPointsThanTheKernelsHold) {
  engine::HairSetup setup = test::simulator_parity_setup(engine::Integrator::implicit);
  auto settings = std::make_shared<models::SuperClothoidSettings>();
  settings->elements = 16;
  settings->quadrature = 16;
  setup.model_settings = settings;
  try {
    engine::make_batched_simulator<models::SuperClothoidEngine>(setup, engine::Backend::cpu,
                                                                engine::Precision::float64);
    ADD_FAILURE() << "expected an error naming solver.quadrature";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("solver.quadrature"), std::string::npos) << e.what();
  }
  settings->quadrature = 8;  // 128 points: accepted
  EXPECT_NO_THROW(engine::make_batched_simulator<models::SuperClothoidEngine>(
      setup, engine::Backend::cpu, engine::Precision::float64));
}

}  // namespace
}  // namespace hairsim
