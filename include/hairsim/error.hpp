#pragma once
// The one exception type of hairsim: what went wrong (why), and where (a file and byte
// offset, a JSON path, or a strand and step). The CLI prints what() on one line and exits 2
// for bad input.
#include <cstdint>
#include <filesystem>
#include <stdexcept>
#include <string>

namespace hairsim {

class Error : public std::runtime_error {
 public:
  Error(std::string where, std::string why);
  const std::string& where() const { return where_; }
  const std::string& why() const { return why_; }

 private:
  std::string where_;
  std::string why_;
};

// A run that failed on valid input (the state became non-finite, a solver did not converge):
// the CLI exits with code 1 instead of 2.
class RunFailure : public Error {
 public:
  using Error::Error;
};

// Runs `work`, naming `file` (a scene, say) in front of the location of a bad-input Error it
// throws ("scene.json: damping"); RunFailures, which name a strand and step, pass unchanged. An
// empty `file` (input not from a file) names nothing.
template <class Work>
auto naming_file(const std::string& file, Work work) {
  try {
    return work();
  } catch (const RunFailure&) {
    throw;
  } catch (const Error& e) {
    if (file.empty()) throw;
    throw Error(file + ": " + e.where(), e.why());
  }
}

// "FILE" or "FILE: byte OFFSET" as the where of an Error about a file.
std::string file_location(const std::filesystem::path& file);
std::string file_location(const std::filesystem::path& file, std::uint64_t byte_offset);

}  // namespace hairsim
