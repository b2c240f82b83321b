#include "scene/scene_document.hpp"

#include <set>

#include "hairsim/error.hpp"
#include "scene/json_reader.hpp"

namespace hairsim::scene {

nlohmann::json parse_scene_document(std::string_view text, const std::string& source,
                                    const std::vector<std::string>& overrides) {
  nlohmann::json doc;
  // A key given twice in one object is refused (the parser would keep the last one silently).
  std::vector<std::set<std::string>> keys;  // per open object
  const auto no_duplicate_keys = [&](int, nlohmann::json::parse_event_t event,
                                     nlohmann::json& parsed) {
    using Event = nlohmann::json::parse_event_t;
    if (event == Event::object_start) keys.emplace_back();
    if (event == Event::object_end) keys.pop_back();
    if (event == Event::key && !keys.back().insert(parsed.get<std::string>()).second)
      throw Error(source, "duplicate key '" + parsed.get<std::string>() + "' in one object");
    return true;
  };
  try {
    doc = nlohmann::json::parse(text.begin(), text.end(), no_duplicate_keys);
  } catch (const nlohmann::json::parse_error& e) {
    throw Error(file_location(source, e.byte), "invalid JSON");
  } catch (const nlohmann::json::exception& e) {  // a number out of double's range, ...
    const std::string what = e.what();
    throw Error(source, "invalid JSON: " + what.substr(what.find(']') + 2));
  }
  for (const std::string& o : overrides) apply_override(doc, o);
  return doc;
}

}  // namespace hairsim::scene
