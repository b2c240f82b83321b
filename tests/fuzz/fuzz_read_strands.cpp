// libFuzzer target for every strand reader: the first input byte picks the format (its value
// mod 6 indexes .hair, .data, .bin, .ply, .obj, .usda), the rest is the file. Any exception other
// than hairsim::Error, any crash, hang or sanitizer report is a finding. Corpus:
// tests/fuzz/corpus/read_strands/ (replayed by the unit test FuzzCorpus.read_strands); building
// and running: docs/fuzzing.md.
#include <unistd.h>

#include <cstdint>
#include <filesystem>
#include <fstream>

#include "hairsim/error.hpp"
#include "hairsim/io.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  static const char* const kExtensions[] = {".hair", ".data", ".bin", ".ply", ".obj", ".usda"};
  const auto path = std::filesystem::temp_directory_path() /
                    ("hairsim_fuzz_" + std::to_string(::getpid()) + kExtensions[data[0] % 6]);
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(reinterpret_cast<const char*>(data + 1), static_cast<std::streamsize>(size - 1));
  }
  try {
    hairsim::read_strands(path);
  } catch (const hairsim::Error&) {
  }
  return 0;
}
