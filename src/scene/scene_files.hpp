#pragma once
// Files a scene names: paths relative to the scene's folder, and triangle meshes turned into
// the signed-distance grids colliders sample (hairstyle colliders and single-rod obstacles).
#include <filesystem>
#include <memory>
#include <string>

#include "hairsim/mesh.hpp"
#include "hairsim/sdf.hpp"
#include "scene/json_reader.hpp"

namespace hairsim::scene {

// `name` as given when absolute, else relative to the scene's folder `dir`.
std::filesystem::path resolve(const std::filesystem::path& dir, const std::string& name);

// A mesh collider's fields of `c`: "file" (OBJ or PLY, relative to `dir`), "units" (default m)
// and "resolution" (grid cells along the mesh's longest side, 8-512, default 64). Reads the mesh
// into `mesh` and returns its distance grid; errors name the file or the field.
std::shared_ptr<const SignedDistanceGrid> parse_mesh_grid(JsonReader& c,
                                                          const std::filesystem::path& dir,
                                                          TriangleMesh& mesh);

}  // namespace hairsim::scene
