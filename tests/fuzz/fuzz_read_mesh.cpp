// libFuzzer target for the mesh readers and the signed-distance grid a scene's mesh collider
// builds from them (head.colliders[].file): bit 0 of the first input byte picks .ply or .obj, the
// rest is the file. When bits 1 and 2 are both set the mesh is also turned into a signed-distance
// grid at the smallest resolution (8 cells), if it has at most 64 triangles: under the sanitizers
// a grid costs about 40 ms for 12 triangles (cells times triangles, Eigen not inlined), so grids
// are a quarter of the inputs and small, to keep the reader fuzzed at full speed. Any
// exception other than hairsim::Error, any crash, hang or sanitizer report is a finding. Corpus:
// tests/fuzz/corpus/read_mesh/ (replayed by the unit test FuzzCorpus.read_mesh); building and
// running: docs/fuzzing.md.
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>

#include "hairsim/error.hpp"
#include "hairsim/io.hpp"
#include "hairsim/sdf.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const auto path =
      std::filesystem::temp_directory_path() /
      ("hairsim_fuzz_mesh_" + std::to_string(::getpid()) + ((data[0] & 1) ? ".obj" : ".ply"));
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data + 1), static_cast<std::streamsize>(size - 1));
  }
  try {
    const hairsim::TriangleMesh mesh = hairsim::read_mesh(path);
    if ((data[0] & 6) == 6 && mesh.triangles.size() <= 64)
      hairsim::make_sdf_grid(mesh, 8, path.string());
  } catch (const hairsim::Error&) {
  }
  return 0;
}
