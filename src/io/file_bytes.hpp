#pragma once
// Internal helpers shared by the format readers and writers.
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "hairsim/error.hpp"

namespace hairsim::io {

static_assert(std::endian::native == std::endian::little,
              "binary readers assume a little-endian host");

// Whole file in memory; throws Error naming the file when it cannot be read.
std::vector<char> read_file_bytes(const std::filesystem::path& path);

// Writes `contents` to a temporary file beside `path`, then renames it over `path`, so a
// failed write leaves nothing behind. Throws Error naming the file.
void write_file_atomically(const std::filesystem::path& path, std::string_view contents);

// Bounds-checked little-endian reads from a file image; every error names the file and the
// byte offset where the read would have started.
class ByteReader {
 public:
  ByteReader(const std::filesystem::path& path, const std::vector<char>& bytes,
             std::size_t start = 0)
      : path_(path), bytes_(bytes), pos_(start) {}

  std::size_t offset() const { return pos_; }
  std::size_t remaining() const { return bytes_.size() - pos_; }
  std::size_t size() const { return bytes_.size(); }
  const std::filesystem::path& path() const { return path_; }

  [[noreturn]] void fail(std::size_t at, const std::string& why) const {
    throw Error(file_location(path_, at), why);
  }
  // Throws unless `count` items of `item_bytes` each fit in the rest of the file.
  void require(std::uint64_t count, std::uint64_t item_bytes, const std::string& what) const {
    if (item_bytes != 0 && count > remaining() / item_bytes)
      fail(pos_, what + ": needs " + std::to_string(count) + " x " + std::to_string(item_bytes) +
                     " bytes, only " + std::to_string(remaining()) + " left in the file");
  }
  template <class T>
  T read(const char* what) {
    require(1, sizeof(T), std::string("truncated ") + what);
    T value;
    std::memcpy(&value, bytes_.data() + pos_, sizeof(T));
    pos_ += sizeof(T);
    return value;
  }
  // A float that must be finite (coordinates, attributes).
  float read_finite_float(const char* what) {
    const std::size_t at = pos_;
    const float value = read<float>(what);
    if (!std::isfinite(value)) fail(at, std::string("non-finite ") + what);
    return value;
  }
  void skip(std::size_t n, const char* what) {
    require(1, n, std::string("truncated ") + what);
    pos_ += n;
  }
  void expect_end() const {
    if (remaining() != 0)
      fail(pos_, std::to_string(remaining()) + " unexpected bytes after the last record");
  }

 private:
  const std::filesystem::path& path_;
  const std::vector<char>& bytes_;
  std::size_t pos_;
};

// Appends the little-endian bytes of a value.
template <class T>
void append_bytes(std::string& out, const T& value) {
  out.append(reinterpret_cast<const char*>(&value), sizeof(T));
}

// Shortest decimal text that reads back to exactly the same value.
std::string format_number(double value);
std::string format_number(float value);

// Scale from file units to metres, and a float coordinate converted back to file units.
inline float to_file_float(double metres, double metres_per_unit) {
  return static_cast<float>(metres / metres_per_unit);
}

}  // namespace hairsim::io
