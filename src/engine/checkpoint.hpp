#pragma once
// A hairstyle run's checkpoint (output.checkpoint_every; `hairsim run SCENE --resume DIR`): the
// run's bookkeeping as JSON (the scene's fingerprint, frames done, measures so far, the outputs'
// state, wall times) and the simulator's complete state (Simulator::save_state), in one file
// written atomically, DIR/checkpoint.bin. Layout: the line "hairsim checkpoint 1", then the JSON
// and the state, each as a little-endian uint64 byte count and the bytes, then an FNV-1a 64
// checksum of everything before it.
#include <filesystem>
#include <string>

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

}  // namespace hairsim::engine
