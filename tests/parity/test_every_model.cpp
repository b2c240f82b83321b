// Every registered model through the same generic checks (tests/every_model_case.hpp) on the cpu
// backend against its reference, in double and float: a new model in the table gets them without
// a line here. Bounds: 1e-9 L (double) and 2e-3 L (float) from the reference without colliders
// (the parity issues'), 2e-3 L with the head sphere (contact methods may differ between a
// model's reference and kernels); roots on the head to round-off of the coordinates (1e-12 m
// double, 1e-6 m float: a few float ulps of head-scale coordinates), no failed solve.
#include <gtest/gtest.h>

#include "every_model_case.hpp"

namespace hairsim {
namespace {

class EveryModel : public testing::TestWithParam<std::string> {};

TEST_P(EveryModel, CpuFollowsItsReferenceOnAShakingHead) {
  const engine::Model& model = engine::find_model(GetParam());
  for (const bool collider : {false, true})
    for (const engine::Precision precision :
         {engine::Precision::float64, engine::Precision::float32}) {
      const bool single = precision == engine::Precision::float32;
      const test::SimulatorParityResult r = test::run_every_model_case(
          model, test::every_model_setup(model, collider), engine::Backend::cpu, precision);
      EXPECT_TRUE(r.finite);
      EXPECT_LE(r.max_deviation_over_length, single || collider ? 2e-3 : 1e-9);
      EXPECT_LE(r.max_velocity_deviation, single || collider ? 2e-3 : 1e-9);
      EXPECT_LE(r.max_root_error, single ? 1e-6 : 1e-12);
      EXPECT_EQ(r.counts["solver_failures"], 0);
      if (collider) {
        EXPECT_GT(r.contacts, 0);  // the head sphere is touched, not only tested
      }
      EXPECT_EQ(r.counts.names, r.reference_counts.names);  // one set of names per model
    }
}

TEST_P(EveryModel, IsRegisteredCompletely) {
  const engine::Model& model = engine::find_model(GetParam());
  EXPECT_FALSE(model.description.empty());
  EXPECT_FALSE(model.integrators.empty());
  EXPECT_TRUE(model.parse_settings && model.make_simulator && model.bench_values &&
              model.parse_rod_scene);
  // Every model's settings parse from an empty "solver" object (its defaults).
  const nlohmann::json empty = nlohmann::json::object();
  EXPECT_NE(model.parse_settings(scene::JsonReader(empty, "solver")), nullptr);
}

INSTANTIATE_TEST_SUITE_P(Table, EveryModel, testing::ValuesIn(test::registered_model_names()),
                         [](const testing::TestParamInfo<std::string>& p) { return p.param; });

}  // namespace
}  // namespace hairsim
