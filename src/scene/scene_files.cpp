#include "scene/scene_files.hpp"

#include "hairsim/io.hpp"
#include "hairsim/units.hpp"

namespace hairsim::scene {

std::filesystem::path resolve(const std::filesystem::path& dir, const std::string& name) {
  const std::filesystem::path p(name);
  return p.is_absolute() ? p : dir / p;
}

std::shared_ptr<const SignedDistanceGrid> parse_mesh_grid(JsonReader& c,
                                                          const std::filesystem::path& dir,
                                                          TriangleMesh& mesh) {
  const std::filesystem::path file = resolve(dir, c.string("file", std::nullopt));
  const LengthUnit units = parse_length_unit(c.string("units", "m"), c.path_of("units"));
  const int resolution = c.integer("resolution", 64, 8, 512);
  mesh = read_mesh(file, {units});
  return std::make_shared<SignedDistanceGrid>(make_sdf_grid(mesh, resolution, file.string()));
}

}  // namespace hairsim::scene
