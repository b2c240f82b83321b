// A stop (SIGTERM, Ctrl-C) is honoured between the steps of a frame, not only between frames: a
// slow model's frame can take minutes (issue 45: Super Space Clothoids on a violent shake ran on
// 10 s after SIGTERM). Every model, through the CLI, on a scene whose one frame is 5e5 steps.
#include <gtest/gtest.h>
#include <signal.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "test_support.hpp"

namespace hairsim {
namespace {

using test::read_json;
using test::ScratchDir;

std::string quoted(const std::filesystem::path& p) {
  return "'" + p.string() + "'";
}

class StopMidFrame : public ::testing::TestWithParam<const char*> {};

TEST_P(StopMidFrame, SigtermEndsTheRunWithinSecondsOfTheStep) {
  ScratchDir dir;
  // 4 strands, one frame of 500 s at the default Δt = 1 ms: 5e5 steps, minutes for every model.
  // (At Δt of 2.5-50 µs the Super-Helix's solve fails on this scene within 250 steps.)
  const nlohmann::json doc = nlohmann::json::parse(R"({
    "hair": {"generate": {"style": "wavy", "strands": 4, "seed": 7}, "vertices": 12},
    "head": {"motion": {"type": "shake", "amplitude": 0.5, "frequency": 1.5}},
    "time": {"fps": 0.002, "frames": 1},
    "output": {"frames": "ply", "usd": false, "checkpoint_every": 1}
  })");
  std::ofstream(dir / "scene.json") << doc.dump(2);
  const auto out = dir / "out";
  // The run started, SIGTERM once its frame loop runs (summary.json "running"), its exit awaited
  // and the time from the signal to the exit written to a file (a SIGKILL after 60 s, so that a
  // run that ignores the stop fails the test instead of hanging it). The watchdog's output goes
  // nowhere: its sleep, left behind, kept ctest's pipe open and every case took 60 s.
  const std::string cmd =
      "'" + std::string(HAIRSIM_CLI) + "' run " + quoted(dir / "scene.json") + " --model " +
      GetParam() + " --backend cpu --out " + quoted(out) + " >" + quoted(dir / "log") +
      " 2>&1 & pid=$!; for i in $(seq 2400); do grep -qs running " + quoted(out / "summary.json") +
      " && break; sleep 0.025; done; sleep 0.2; t0=$(date +%s%N); kill -TERM $pid; "
      "(sleep 60; kill -KILL $pid) >/dev/null 2>&1 & watchdog=$!; wait $pid; rc=$?; "
      "echo $(( $(date +%s%N) - t0 )) >" +
      quoted(dir / "stop_ns") + "; kill $watchdog 2>/dev/null; exit $rc";
  const int status = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 128 + SIGTERM);
  const auto s = read_json(out / "summary.json");
  EXPECT_EQ(s["status"], "interrupted");
  EXPECT_EQ(s["frames"], 0);  // stopped inside the first frame, not after it
  // The checkpoint at the stop holds the last whole frame's state (frame 0), not the state the
  // abandoned frame's steps reached.
  EXPECT_EQ(s["checkpoint"]["last_frame"], 0);
  EXPECT_TRUE(std::filesystem::exists(out / "checkpoint.bin"));
  double seconds = 0;
  std::ifstream(dir / "stop_ns") >> seconds;
  seconds *= 1e-9;
  // The stop's grace for the frame (1 s, hair_run.cpp), one step (well under a millisecond
  // here) and the summary: 3 s leaves a loaded CI machine 2 s.
  EXPECT_LT(seconds, 3.0) << GetParam();
  std::cout << GetParam() << ": " << seconds << " s from SIGTERM to exit\n";
}

INSTANTIATE_TEST_SUITE_P(Models, StopMidFrame,
                         ::testing::Values("der", "cosserat", "super_helix", "super_clothoid"));

}  // namespace
}  // namespace hairsim
