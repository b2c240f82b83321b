// The public simulator API (include/hairsim/simulator.hpp) as a user's program sees it: this file
// is compiled with include/ alone on its include path (tests/CMakeLists.txt), so it fails to build
// if the public header pulls in kernels/ or src/ headers. It lists the models, makes settings
// from JSON, and steps a small hairstyle on the reference and cpu backends.
#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>

#include "hairsim/error.hpp"
#include "hairsim/generate.hpp"
#include "hairsim/simulator.hpp"

namespace {

hairsim::HairSetup small_setup() {
  hairsim::HairstyleParams style;
  style.style = hairsim::HairStyle::wavy;
  style.strands = 8;
  style.vertices = 12;
  hairsim::HairSetup setup;
  setup.strands = hairsim::generate_hairstyle(style);
  hairsim::Collider head;
  head.shape = hairsim::Collider::Shape::ellipsoid;
  head.radii = style.head_radii;
  setup.colliders.push_back(head);
  setup.head.rotation_amplitude = hairsim::Vec3(0, 0.3, 0);
  setup.head.frequency = 2;
  setup.wind.mean = hairsim::Vec3(0.5, 0, 0);
  setup.drag_normal = 1e-4;
  setup.integrator = hairsim::Integrator::implicit;
  setup.dt = 1e-3;
  return setup;
}

TEST(PublicApi, ListsTheModelsWithTheirIntegrators) {
  const std::vector<hairsim::ModelInfo> models = hairsim::registered_models();
  ASSERT_GE(models.size(), 2u);
  for (const hairsim::ModelInfo& m : models) {
    EXPECT_FALSE(m.name.empty());
    EXPECT_FALSE(m.integrators.empty());
  }
}

TEST(PublicApi, StepsEveryModelOnTheReferenceAndCpuAlike) {
  // 20 implicit steps of 1 ms on 0.25 m strands, default settings: the double kernels within
  // 2.5e-7 m (1e-6 L) of the reference, every model. Not round-off: with its default inexact
  // PCG (1e-2) the Cosserat model carries the two implementations' round-off differences on
  // (measured 5.6e-9 m here; 2.4e-5 L after 200 steps, docs/architecture.md); DER 4.9e-15 m. The
  // tight parity bounds are tests/parity/'s, with the models' parity settings.
  for (const hairsim::ModelInfo& m : hairsim::registered_models()) {
    if (std::find(m.backends.begin(), m.backends.end(), hairsim::Backend::cpu) == m.backends.end())
      continue;  // single-rod scenes only, so far
    hairsim::HairSetup setup = small_setup();
    setup.model_settings = hairsim::model_settings(m.name, nlohmann::json::object());
    auto reference = hairsim::Simulator::create(
        setup, {m.name, hairsim::Backend::reference, hairsim::Precision::float64});
    auto cpu = hairsim::Simulator::create(
        setup, {m.name, hairsim::Backend::cpu, hairsim::Precision::float64});
    for (int k = 0; k < 20; ++k) reference->step(), cpu->step();
    std::vector<hairsim::Vec3> a, b;
    reference->positions(a);
    cpu->positions(b);
    ASSERT_EQ(a.size(), b.size());
    ASSERT_EQ(a.size(), std::size_t(8 * 12));
    double worst = 0;
    for (std::size_t i = 0; i < a.size(); ++i) worst = std::max(worst, (a[i] - b[i]).norm());
    std::cout << m.name << ": " << worst << " m from the reference after 20 steps\n";
    EXPECT_LE(worst, 2.5e-7) << m.name;
    EXPECT_EQ(cpu->counts()["solver_failures"], 0) << m.name;
    EXPECT_NEAR(cpu->time(), 0.02, 1e-15);
  }
}

TEST(PublicApi, SettingsComeFromTheSolverFieldsAndAreChecked) {
  EXPECT_THROW(hairsim::model_settings("der", {{"no_such_field", 1}}), hairsim::Error);
  EXPECT_THROW(hairsim::model_settings("no_such_model", nlohmann::json::object()), hairsim::Error);
  try {
    hairsim::model_settings("der", {{"relative_twist_tolerance", -1}});
    ADD_FAILURE() << "a negative tolerance was accepted";
  } catch (const hairsim::Error& e) {
    EXPECT_NE(std::string(e.what()).find("solver.relative_twist_tolerance"), std::string::npos);
  }
  // One model's settings given to another: refused by create().
  hairsim::HairSetup setup = small_setup();
  setup.model_settings = hairsim::model_settings("der", nlohmann::json::object());
  EXPECT_THROW(hairsim::Simulator::create(
                   setup, {"cosserat", hairsim::Backend::cpu, hairsim::Precision::float64}),
               hairsim::Error);
}

}  // namespace
