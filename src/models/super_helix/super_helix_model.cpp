// Model "super_helix" in the model table (engine/model.hpp).
#include "models/super_helix/super_helix_model.hpp"

#include "reference/super_helix/super_helix_scene.hpp"

namespace hairsim::models {

engine::Model super_helix_model() {
  using Scene =
      engine::ReferenceRodScene<super_helix::SuperHelixScene, super_helix::run_super_helix_scene,
                                super_helix::rod_strands>;
  return engine::single_rod_model(
      "super_helix", "linear-time Super-Helices (Bertails 2009)",
      {engine::Integrator::implicit},  // semi-implicit Euler ([BAC*06])
      [](const nlohmann::json& doc, const std::filesystem::path& dir) {
        return std::make_unique<Scene>(super_helix::parse_super_helix_scene(doc, dir));
      });
}

}  // namespace hairsim::models
