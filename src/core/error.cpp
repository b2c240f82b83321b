#include "hairsim/error.hpp"

namespace hairsim {

Error::Error(std::string where, std::string why)
    : std::runtime_error(where.empty() ? why : where + ": " + why),
      where_(std::move(where)),
      why_(std::move(why)) {}

std::string file_location(const std::filesystem::path& file) {
  return file.string();
}

std::string file_location(const std::filesystem::path& file, std::uint64_t byte_offset) {
  return file.string() + ": byte " + std::to_string(byte_offset);
}

}  // namespace hairsim
