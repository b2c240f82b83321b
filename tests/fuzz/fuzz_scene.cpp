// Fuzz target for scene documents: the input is parsed exactly as `hairsim run SCENE --set ...`
// parses it (scene::parse_scene_document, then engine::parse_hair_scene for a scene with "hair",
// else engine::parse_rod_scene through the model table), without running the simulation or
// writing anything. Bad input must end as hairsim::Error (RunFailure included); any other
// exception, a crash, a hang or a sanitizer report is a finding (docs/fuzzing.md).
//
// Input framing (plain text, no selector byte, so every corpus file is also a scene file):
//   the scene's JSON text
//   --                       a line holding only "--" ends the document (optional)
//   --set key.path=value     after it, each line starting with "--set " is one override, in
//   --set ...                order; other lines are ignored
//
// Bounded work: a valid scene may legitimately ask for minutes of set-up (2,000,000 generated
// strands, a 512^3 signed-distance grid). Such inputs are skipped, not parsed: after the
// overrides, the document is checked with the parser's own fields and defaults (too_much_work
// below) and the target returns when it asks for more than a small budget. Only values that the
// parser would accept can ask for work, so every rejected value (wrong type, out of range) still
// reaches the parser. Files named by the scene ("file" anywhere) resolve against
// tests/fuzz/files/ (small fixtures); absolute names and ".." are skipped the same way, so the
// fuzzer cannot read /dev/zero or a FIFO. libFuzzer's -timeout catches what the bound misses.
#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "engine/hair_scene.hpp"
#include "engine/model.hpp"
#include "hairsim/error.hpp"
#include "scene/scene_document.hpp"

namespace {

using nlohmann::json;

constexpr long long kMaxGeneratedPoints = 4000;  // hair.generate.strands * hair.vertices
constexpr long long kMaxSdfResolution = 16;      // head.colliders[i].resolution (mesh)
constexpr long long kMaxRodEdges = 2000;         // rod.edges
constexpr long long kMaxRodElements = 32;        // rod.elements (the reduced models' fit)

// An integer field as the parser reads it (JsonReader::integer): `fallback` when absent, the
// value when it is an integer in [min, max], else 0: the parser rejects it before any work.
long long integer_or(const json& object, const char* key, long long fallback, long long min,
                     long long max) {
  if (!object.is_object()) return fallback;
  const auto it = object.find(key);
  if (it == object.end()) return fallback;
  if (!it->is_number_integer() || (it->is_number_unsigned() && it->get<std::uint64_t>() > 1u << 31))
    return 0;
  const long long value = it->get<long long>();
  return value >= min && value <= max ? value : 0;
}

const json& member(const json& object, const char* key) {
  static const json kNull;
  if (!object.is_object()) return kNull;
  const auto it = object.find(key);
  return it == object.end() ? kNull : *it;
}

// A "file" anywhere that could leave tests/fuzz/files/: absolute, or with a ".." component.
bool escapes_fixture_folder(const json& node) {
  if (node.is_array()) {
    for (const json& item : node)
      if (escapes_fixture_folder(item)) return true;
  }
  if (!node.is_object()) return false;
  for (auto it = node.begin(); it != node.end(); ++it) {
    if (it.key() == "file" && it->is_string()) {
      const std::filesystem::path p(it->get<std::string>());
      if (p.is_absolute() || p.has_root_name() || p.has_root_directory()) return true;
      for (const auto& part : p)
        if (part == "..") return true;
    }
    if (escapes_fixture_folder(*it)) return true;
  }
  return false;
}

// Whether the scene asks for more set-up work than a fuzz input may take (see the header).
bool too_much_work(const json& doc) {
  if (escapes_fixture_folder(doc)) return true;
  const json& hair = member(doc, "hair");
  const json& generate = member(hair, "generate");
  if (generate.is_object()) {  // hair_scene.cpp parse_hair: vertices 24, strands 1000 by default
    const long long points = integer_or(hair, "vertices", 24, 3, 1000) *
                             integer_or(generate, "strands", 1000, 1, 2000000);
    if (points > kMaxGeneratedPoints) return true;
  }
  const json& colliders = member(member(doc, "head"), "colliders");
  if (colliders.is_array())
    for (const json& c : colliders)  // parse_collider: a mesh's grid, 64 by default
      if (member(c, "shape") == "mesh" &&
          integer_or(c, "resolution", 64, 8, 512) > kMaxSdfResolution)
        return true;
  // Single-rod scenes (der_scene.cpp, cosserat_scene.cpp): 40 edges by default. The reduced
  // models' (super_helix_scene.cpp, super_clothoid_scene.cpp) fit their rod at parse time, its
  // cost the cube of rod.elements (at most 256; 10 and 4 by default), on max(200, 8 × elements)
  // edges by default.
  const json& rod = member(doc, "rod");
  return integer_or(rod, "edges", 40, 2, 100000) > kMaxRodEdges ||
         integer_or(rod, "elements", 10, 1, 256) > kMaxRodElements;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  std::string_view document = input;
  std::vector<std::string> overrides;
  std::size_t end = input.starts_with("--\n") ? 0 : input.find("\n--\n");
  if (end != std::string_view::npos) {
    document = input.substr(0, end);
    std::string_view rest = input.substr(end + (end == 0 ? 3 : 4));
    while (!rest.empty()) {
      const std::size_t eol = rest.find('\n');
      const std::string_view line = rest.substr(0, eol);
      if (line.starts_with("--set ")) overrides.emplace_back(line.substr(6));
      rest = eol == std::string_view::npos ? std::string_view() : rest.substr(eol + 1);
    }
  }
  try {
    const json doc = hairsim::scene::parse_scene_document(document, "fuzz.json", overrides);
    if (too_much_work(doc)) return 0;
    if (hairsim::engine::is_hair_scene(doc))
      hairsim::engine::parse_hair_scene(doc, HAIRSIM_FUZZ_FILES_DIR);
    else
      hairsim::engine::parse_rod_scene(doc, HAIRSIM_FUZZ_FILES_DIR);
  } catch (const hairsim::Error&) {  // bad input, reported as the CLI reports it (exit 2)
  }
  return 0;
}
