#pragma once
// Reads a JSON object field by field, knowing its JSON path ("rod.material.radius"), so every
// error names the field. finish() rejects fields nobody read: a misspelt key is an error, not
// silently ignored.
#include <Eigen/Core>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "hairsim/error.hpp"

namespace hairsim::scene {

class JsonReader {
 public:
  JsonReader(const nlohmann::json& object, std::string path);

  bool has(const std::string& key) const { return object_.contains(key); }
  bool is_string(const std::string& key) const { return has(key) && object_.at(key).is_string(); }
  // A number (finite); `check` names the allowed range in the error when it fails.
  double number(const std::string& key, std::optional<double> fallback, const char* rule = nullptr,
                bool (*check)(double) = nullptr);
  int integer(const std::string& key, std::optional<int> fallback, int min, int max);
  std::string string(const std::string& key, std::optional<std::string> fallback);
  bool boolean(const std::string& key, std::optional<bool> fallback);
  Eigen::Vector3d vec3(const std::string& key, std::optional<Eigen::Vector3d> fallback);
  // A required array of at least `min_count` points [x, y, z] (finite).
  std::vector<Eigen::Vector3d> points(const std::string& key, std::size_t min_count);
  // A required non-empty array of integers, each in [min, max].
  std::vector<int> integers(const std::string& key, int min, int max);
  JsonReader object(const std::string& key);  // {} when absent
  // An array of objects, each read as "key[i]" (empty when absent).
  std::vector<JsonReader> objects(const std::string& key);
  // Throws naming the first field that was never read.
  void finish() const;
  std::string path_of(const std::string& key) const {
    return path_.empty() ? key : path_ + "." + key;
  }
  [[noreturn]] void fail(const std::string& key, const std::string& why) const {
    throw Error(path_of(key), why);
  }

 private:
  const nlohmann::json* find(const std::string& key);
  const nlohmann::json& object_;
  std::string path_;
  std::set<std::string> read_;
  static const nlohmann::json kEmpty;
};

bool positive(double x);
bool non_negative(double x);

// Applies a --set override "a.b.c=value" to a JSON document: value is parsed as JSON when it
// parses (numbers, true/false, arrays, quoted strings), else taken as a plain string.
void apply_override(nlohmann::json& document, const std::string& assignment);

}  // namespace hairsim::scene
