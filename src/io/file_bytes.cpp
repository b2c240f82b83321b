#include "file_bytes.hpp"

#include <cerrno>
#include <charconv>
#include <fstream>
#include <random>

namespace hairsim::io {

std::vector<char> read_file_bytes(const std::filesystem::path& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw Error(file_location(path), "is a directory, not a file");
  // A FIFO or device would block the read or never end: only regular files are read.
  const std::filesystem::file_status status = std::filesystem::status(path, ec);
  if (!ec && std::filesystem::exists(status) && !std::filesystem::is_regular_file(status))
    throw Error(file_location(path), "is not a regular file");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(file_location(path), std::string("cannot open: ") + std::strerror(errno));
  in.seekg(0, std::ios::end);
  const std::streamoff size = in.tellg();
  if (size < 0) throw Error(file_location(path), "cannot determine the file size");
  in.seekg(0, std::ios::beg);
  std::vector<char> bytes(static_cast<std::size_t>(size));
  if (!in.read(bytes.data(), size)) throw Error(file_location(path), "read error");
  return bytes;
}

void write_file_atomically(const std::filesystem::path& path, std::string_view contents) {
  std::random_device rd;
  const std::filesystem::path tmp = path.string() + ".tmp" + std::to_string(rd() % 1000000u);
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out)
      throw Error(file_location(path), std::string("cannot write: ") + std::strerror(errno));
    out.write(contents.data(), static_cast<std::streamsize>(contents.size()));
    out.close();
    if (!out) {
      std::error_code ec;
      std::filesystem::remove(tmp, ec);
      throw Error(file_location(path), "write failed (disk full?)");
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::filesystem::remove(tmp, ec);
    throw Error(file_location(path), "cannot rename the temporary file into place");
  }
}

template <class T>
static std::string shortest(T value) {
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value);
  return std::string(buf, end);
}
std::string format_number(double value) {
  return shortest(value);
}
std::string format_number(float value) {
  return shortest(value);
}

}  // namespace hairsim::io
