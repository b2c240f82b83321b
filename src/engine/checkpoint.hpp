#pragma once
// A hairstyle run's checkpoint (output.checkpoint_every; `hairsim run SCENE --resume DIR`): the
// run's bookkeeping as JSON (the scene's fingerprint, frames done, measures so far, the outputs'
// state, wall times) and the simulator's complete state (Simulator::save_state), in one file
// written atomically, DIR/checkpoint.bin. Layout: the line "hairsim checkpoint 1", then the JSON
// and the state, each as a little-endian uint64 byte count and the bytes, then an FNV-1a 64
// checksum of everything before it.
#include <filesystem>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

namespace hairsim::engine {

struct Checkpoint {
  nlohmann::json run;
  std::string simulator;
};

inline const char* const kCheckpointFile = "checkpoint.bin";

void write_checkpoint(const std::filesystem::path& file, const Checkpoint& checkpoint);
// Throws Error naming the file (and byte offset) when it is missing, truncated or corrupt.
Checkpoint read_checkpoint(const std::filesystem::path& file);

// A checkpoint's run record read field by field ("outputs.usd.first"): the checksum says the
// file is as written, not that what was written is sound. Every read checks that the field is
// there, of its type and within its range, and throws Error("FILE: field", why) otherwise: one
// line naming the file, never a raw JSON exception.
class CheckpointFields {
 public:
  CheckpointFields(std::filesystem::path file, const nlohmann::json& run)
      : file_(std::move(file)), run_(run) {}
  std::string text(const std::string& field) const;
  // An integer (not 1e10, not 3.5) in lo .. hi.
  long long integer(const std::string& field, long long lo, long long hi) const;
  double number(const std::string& field) const;  // finite
  const nlohmann::json& array(const std::string& field) const;
  const std::filesystem::path& file() const { return file_; }
  [[noreturn]] void fail(const std::string& field, const std::string& why) const;

 private:
  const nlohmann::json& find(const std::string& field) const;
  std::filesystem::path file_;
  const nlohmann::json& run_;
};

}  // namespace hairsim::engine
