#include "scene/json_reader.hpp"

#include <cmath>

namespace hairsim::scene {

const nlohmann::json JsonReader::kEmpty = nlohmann::json::object();

JsonReader::JsonReader(const nlohmann::json& object, std::string path)
    : object_(object), path_(std::move(path)) {
  if (!object_.is_object()) throw Error(path_.empty() ? "scene" : path_, "must be a JSON object");
}

const nlohmann::json* JsonReader::find(const std::string& key) {
  read_.insert(key);
  const auto it = object_.find(key);
  return it == object_.end() ? nullptr : &*it;
}

double JsonReader::number(const std::string& key, std::optional<double> fallback, const char* rule,
                          bool (*check)(double)) {
  const nlohmann::json* v = find(key);
  if (!v) {
    if (!fallback) fail(key, "is required");
    return *fallback;
  }
  if (!v->is_number()) fail(key, "must be a number");
  const double x = v->get<double>();
  if (!std::isfinite(x)) fail(key, "must be finite");
  if (check && !check(x)) fail(key, std::string("must be ") + rule + " (got " + v->dump() + ")");
  return x;
}

int JsonReader::integer(const std::string& key, std::optional<int> fallback, int min, int max) {
  const nlohmann::json* v = find(key);
  if (!v) {
    if (!fallback) fail(key, "is required");
    return *fallback;
  }
  if (!v->is_number_integer()) fail(key, "must be an integer");
  // An unsigned value above long long's range (2^64 - 1) read as long long wrapped to -1.
  const bool huge = v->is_number_unsigned() &&
                    v->get<unsigned long long>() > static_cast<unsigned long long>(max);
  const long long x = huge ? max + 1LL : v->get<long long>();
  if (x < min || x > max)
    fail(key, "must be between " + std::to_string(min) + " and " + std::to_string(max) + " (got " +
                  v->dump() + ")");
  return static_cast<int>(x);
}

std::string JsonReader::string(const std::string& key, std::optional<std::string> fallback) {
  const nlohmann::json* v = find(key);
  if (!v) {
    if (!fallback) fail(key, "is required");
    return *fallback;
  }
  if (!v->is_string()) fail(key, "must be a string");
  return v->get<std::string>();
}

bool JsonReader::boolean(const std::string& key, std::optional<bool> fallback) {
  const nlohmann::json* v = find(key);
  if (!v) {
    if (!fallback) fail(key, "is required");
    return *fallback;
  }
  if (!v->is_boolean()) fail(key, "must be true or false");
  return v->get<bool>();
}

Eigen::Vector3d JsonReader::vec3(const std::string& key, std::optional<Eigen::Vector3d> fallback) {
  const nlohmann::json* v = find(key);
  if (!v) {
    if (!fallback) fail(key, "is required");
    return *fallback;
  }
  if (!v->is_array() || v->size() != 3) fail(key, "must be an array of 3 numbers");
  Eigen::Vector3d out;
  for (int k = 0; k < 3; ++k) {
    if (!(*v)[k].is_number()) fail(key, "must be an array of 3 numbers");
    out[k] = (*v)[k].get<double>();
    if (!std::isfinite(out[k])) fail(key, "must be finite");
  }
  return out;
}

std::vector<Eigen::Vector3d> JsonReader::points(const std::string& key, std::size_t min_count) {
  const nlohmann::json* v = find(key);
  if (!v) fail(key, "is required");
  if (!v->is_array() || v->size() < min_count)
    fail(key, "must be an array of at least " + std::to_string(min_count) + " points");
  std::vector<Eigen::Vector3d> out;
  for (std::size_t i = 0; i < v->size(); ++i) {
    const nlohmann::json& p = (*v)[i];
    if (!p.is_array() || p.size() != 3 || !p[0].is_number() || !p[1].is_number() ||
        !p[2].is_number())
      fail(key, "entry " + std::to_string(i) + " must be an array of 3 numbers");
    out.emplace_back(p[0].get<double>(), p[1].get<double>(), p[2].get<double>());
    if (!out.back().allFinite()) fail(key, "entry " + std::to_string(i) + " must be finite");
  }
  return out;
}

std::vector<int> JsonReader::integers(const std::string& key, int min, int max) {
  const nlohmann::json* v = find(key);
  if (!v) fail(key, "is required");
  if (!v->is_array() || v->empty()) fail(key, "must be a non-empty array of integers");
  std::vector<int> out;
  for (std::size_t i = 0; i < v->size(); ++i) {
    const nlohmann::json& e = (*v)[i];
    if (!e.is_number_integer() || e.get<long long>() < min || e.get<long long>() > max)
      fail(key, "entry " + std::to_string(i) + " must be an integer " + std::to_string(min) + "-" +
                    std::to_string(max));
    out.push_back(e.get<int>());
  }
  return out;
}

JsonReader JsonReader::object(const std::string& key) {
  const nlohmann::json* v = find(key);
  if (!v) return JsonReader(kEmpty, path_of(key));
  if (!v->is_object()) fail(key, "must be an object");
  return JsonReader(*v, path_of(key));
}

std::vector<JsonReader> JsonReader::objects(const std::string& key) {
  const nlohmann::json* v = find(key);
  std::vector<JsonReader> out;
  if (!v) return out;
  if (!v->is_array()) fail(key, "must be an array of objects");
  for (std::size_t i = 0; i < v->size(); ++i) {
    const std::string path = path_of(key) + "[" + std::to_string(i) + "]";
    if (!(*v)[i].is_object()) throw Error(path, "must be an object");
    out.emplace_back((*v)[i], path);
  }
  return out;
}

void JsonReader::finish() const {
  for (auto it = object_.begin(); it != object_.end(); ++it)
    if (!read_.count(it.key())) throw Error(path_of(it.key()), "unknown field");
}

bool positive(double x) {
  return x > 0;
}
bool non_negative(double x) {
  return x >= 0;
}

void apply_override(nlohmann::json& document, const std::string& assignment) {
  const auto eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0)
    throw Error("--set " + assignment, "expected key.path=value");
  const std::string key = assignment.substr(0, eq), text = assignment.substr(eq + 1);
  nlohmann::json value = nlohmann::json::parse(text, nullptr, false);
  if (value.is_discarded()) value = text;
  nlohmann::json* node = &document;
  std::size_t start = 0;
  while (true) {
    const auto dot = key.find('.', start);
    const std::string part = key.substr(start, dot - start);
    if (part.empty()) throw Error("--set " + assignment, "empty path component");
    if (!node->is_object()) throw Error("--set " + key, "'" + part + "' is inside a non-object");
    if (dot == std::string::npos) {
      (*node)[part] = value;
      return;
    }
    node = &(*node)[part];
    if (node->is_null()) *node = nlohmann::json::object();
    start = dot + 1;
  }
}

}  // namespace hairsim::scene
