#include "hairsim/error.hpp"

namespace hairsim {

namespace {

// A message stays one readable line: a huge value quoted in it (a 10 MB string in a scene) is
// cut in the middle, saying how much.
std::string clipped(std::string text) {
  constexpr std::size_t kMax = 400, kKeep = 180;
  if (text.size() <= kMax) return text;
  const std::size_t cut = text.size() - 2 * kKeep;
  return text.substr(0, kKeep) + " ... (" + std::to_string(cut) + " characters left out) ... " +
         text.substr(text.size() - kKeep);
}

std::string joined(const std::string& where, const std::string& why) {
  return where.empty() ? why : where + ": " + why;
}

}  // namespace

Error::Error(std::string where, std::string why)
    : std::runtime_error(joined(clipped(where), clipped(why))),
      where_(clipped(std::move(where))),
      why_(clipped(std::move(why))) {}

std::string file_location(const std::filesystem::path& file) {
  return file.string();
}

std::string file_location(const std::filesystem::path& file, std::uint64_t byte_offset) {
  return file.string() + ": byte " + std::to_string(byte_offset);
}

}  // namespace hairsim
