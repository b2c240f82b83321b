#pragma once
// Runs a hairstyle scene: the simulator stepped frame by frame, the chosen outputs written as the
// frames come (strand files, an animated .usda, PNG previews, an MP4 at the end when ffmpeg is
// installed), progress on the terminal, a clean stop after the current frame when asked, and
// summary.json (docs/scenes.md lists its fields).
#include <atomic>
#include <filesystem>
#include <functional>
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
  std::string folder_option = "out";   // how errors name the output folder (the CLI: "--out")
  std::function<void()> started = {};  // called once the folder is checked and locked
};

struct HairRunResult {
  nlohmann::json summary;
  std::vector<std::filesystem::path> written;  // files, in the order they were finished
  bool interrupted = false;
};

// The one run path of `hairsim run` and hairsim.run() in Python. Writes into `out` (created; a
// fresh run first removes an earlier run's outputs there), after checking it
// (check_output_folder) and locking it for the run (<out>/.hairsim.lock: a second run on the
// folder, from any process, is refused with Error naming the holder). Bad input found before
// anything is written (Error) removes a folder this call made.
// summary.json is rewritten after every frame with status "running", and at the end with
// "complete", "interrupted", "diverged" (a non-finite state, or one beyond the scene's guard) or
// "failed" (a solver gave up after its retries, or a write failed: a full disk). The last two
// throw RunFailure naming the strand, step and time (or the file), after finishing the outputs
// of the frames before (all valid: a frame whose write failed is removed, the .usda keeps the
// frames before; room for that is kept in <out>/.hairsim.reserve during the run).
// With output.checkpoint_every, a checkpoint every that many frames and at an interruption.
HairRunResult run_hair_scene(const HairScene& scene, const std::filesystem::path& out,
                             const RunControl& control);

// Whether a file can be made in `folder` (an existing one).
bool writable_folder(const std::filesystem::path& folder);
// An output folder checked before any simulation, so that a run is not lost to a path found bad
// at its end: Error(where, ...) for an existing file in its place, or no writable folder to make
// it in. Makes nothing.
void check_output_folder(const std::filesystem::path& out, const std::string& where);

}  // namespace hairsim::engine
