#pragma once
// A scene file's text as the JSON document `hairsim run` works on: parsed (no key twice in one
// object), then the --set overrides applied in order. Shared by the CLI and the scene fuzz target
// (tests/fuzz/fuzz_scene.cpp), so both parse exactly the same way.
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

namespace hairsim::scene {

// Throws Error naming `source` (and the byte offset where the JSON is malformed), or the --set
// assignment that is malformed.
nlohmann::json parse_scene_document(std::string_view text, const std::string& source,
                                    const std::vector<std::string>& overrides);

}  // namespace hairsim::scene
