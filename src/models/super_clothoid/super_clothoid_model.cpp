// Model "super_clothoid" in the model table (engine/model.hpp).
#include "models/super_clothoid/super_clothoid_model.hpp"

#include "reference/super_clothoid/super_clothoid_scene.hpp"

namespace hairsim::models {

engine::Model super_clothoid_model() {
  using Scene = engine::ReferenceRodScene<super_clothoid::SuperClothoidScene,
                                          super_clothoid::run_super_clothoid_scene,
                                          super_clothoid::rod_strands>;
  return engine::single_rod_model(
      "super_clothoid", "Super Space Clothoids (Casati & Bertails-Descoubes 2013)",
      {engine::Integrator::implicit},  // semi-implicit Euler, the elastic terms implicit (§7.2)
      [](const nlohmann::json& doc, const std::filesystem::path& dir) {
        return std::make_unique<Scene>(super_clothoid::parse_super_clothoid_scene(doc, dir));
      });
}

}  // namespace hairsim::models
