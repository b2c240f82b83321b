#pragma once
// Runs a hairstyle scene: the simulator stepped frame by frame, the chosen outputs written as the
// frames come (strand files, an animated .usda, PNG previews, an MP4 at the end when ffmpeg is
// installed), progress on the terminal, a clean stop after the current frame when asked, and
// summary.json (docs/scenes.md lists its fields).
#include <atomic>
#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/hair_scene.hpp"

namespace hairsim::engine {

struct RunControl {
  std::ostream* progress = nullptr;         // where progress goes (none: quiet)
  bool terminal = false;                    // a bar redrawn in place; else periodic plain lines
  const std::atomic<bool>* stop = nullptr;  // set (by SIGINT) to stop after the current frame
  bool resume = false;  // continue from out/checkpoint.bin (the same scene's; Error otherwise)
};

struct HairRunResult {
  nlohmann::json summary;
  std::vector<std::filesystem::path> written;  // files, in the order they were finished
  bool interrupted = false;
};

// Writes into `out` (created; a fresh run first removes an earlier run's outputs there).
// summary.json is rewritten after every frame with status "running", and at the end with
// "complete", "interrupted", "diverged" (a non-finite state, or one beyond the scene's guard) or
// "failed" (a solver gave up after its retries). The last two throw RunFailure naming the
// strand, step and time, after finishing the outputs of the frames before (all valid).
// With output.checkpoint_every, a checkpoint every that many frames and at an interruption.
HairRunResult run_hair_scene(const HairScene& scene, const std::filesystem::path& out,
                             const RunControl& control);

}  // namespace hairsim::engine
