// Issue 27's robustness paths on the cuda backend (label gpu; they skip, saying why, without CUDA
// in the build or a device), for every registered model: the simulator's state saved and
// restored through the device arrays reproduces its steps to the bit; a hairstyle run stopped
// after a frame and resumed from its checkpoint ends as the uninterrupted run, byte for byte; a
// solve that fails on the device stops the run naming the lowest failed strand and its step (the
// kernel's atomicMin of failure keys). The same checks on the cpu backend are in
// tests/validation/test_run_robustness.cpp. Written before any device was lent: checked on the
// cpu backend (the backend swapped in a scratch copy, all five passed) and left for the GPU
// bring-up (issue 25) to run on cuda.
#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <streambuf>

#include "engine/hair_run.hpp"
#include "engine/hair_scene.hpp"
#include "every_model_case.hpp"
#include "test_support.hpp"
#ifdef HAIRSIM_HAVE_CUDA
#include "cuda/cuda_api.hpp"
#endif

namespace hairsim {
namespace {

using test::ScratchDir;

// The reason a cuda test cannot run here, or "" when it can.
std::string cuda_missing() {
#ifndef HAIRSIM_HAVE_CUDA
  return "hairsim was built without CUDA (HAIRSIM_CUDA=OFF or no nvcc)";
#else
  return cuda::device_count() == 0
             ? "no CUDA device present (cudaGetDeviceCount failed or returned 0)"
             : "";
#endif
}

// 20 wavy strands of 12 vertices on a shaking head with the scalp ellipsoid, 10 frames,
// checkpoints every 5, in float on cuda.
nlohmann::json small_cuda_scene(const std::string& model) {
  nlohmann::json doc = nlohmann::json::parse(R"({
    "backend": "cuda", "precision": "float",
    "hair": {"generate": {"style": "wavy", "strands": 20, "seed": 11}, "vertices": 12},
    "damping": 0.5,
    "head": {"motion": {"type": "shake", "amplitude": 0.6, "frequency": 1.5},
             "colliders": [{"shape": "ellipsoid", "radii": [0.075, 0.095, 0.095]}]},
    "time": {"fps": 30, "frames": 10},
    "output": {"frames": "ply", "usd": true, "checkpoint_every": 5}
  })");
  doc["model"] = model;
  return doc;
}

std::vector<char> file_bytes(const std::filesystem::path& p) {
  return test::read_bytes(p);
}

class EveryModelRobustnessGpu : public testing::TestWithParam<std::string> {};

TEST_P(EveryModelRobustnessGpu, RestoredStateRepeatsTheStepsToTheBit) {
  if (const std::string why = cuda_missing(); !why.empty()) GTEST_SKIP() << why;
  const engine::Model& model = engine::find_model(GetParam());
  const engine::HairSetup setup = test::every_model_setup(model, true);
  auto sim = engine::Simulator::create(
      setup, {model.name, engine::Backend::cuda, engine::Precision::float32});
  for (int k = 0; k < 5; ++k) sim->step();
  const std::string saved = sim->save_state();
  std::vector<Vec3> first, second;
  for (int k = 0; k < 5; ++k) sim->step();
  sim->positions(first);
  sim->restore_state(saved);
  for (int k = 0; k < 5; ++k) sim->step();
  sim->positions(second);
  ASSERT_EQ(first.size(), second.size());
  for (std::size_t i = 0; i < first.size(); ++i)
    ASSERT_TRUE(first[i] == second[i])
        << "vertex " << i << ": " << first[i].transpose() << " then " << second[i].transpose();
}

TEST_P(EveryModelRobustnessGpu, StoppedRunResumesBitForBit) {
  if (const std::string why = cuda_missing(); !why.empty()) GTEST_SKIP() << why;
  ScratchDir dir;
  const engine::HairScene scene =
      engine::parse_hair_scene(small_cuda_scene(GetParam()), dir.path());
  engine::run_hair_scene(scene, dir / "whole", {});
  // Stop after frame 7, as Ctrl-C does: the checkpoint of frame 5 is resumed.
  std::atomic<bool> stop{false};
  test::StopAtFrameLine lines(stop, 7);
  std::ostream progress(&lines);
  const engine::HairRunResult first =
      engine::run_hair_scene(scene, dir / "stopped", {&progress, false, &stop, false});
  ASSERT_TRUE(first.interrupted);
  const engine::HairRunResult second =
      engine::run_hair_scene(scene, dir / "stopped", {nullptr, false, nullptr, true});
  EXPECT_EQ(second.summary["status"], "complete");
  for (const auto& e : std::filesystem::directory_iterator(dir / "whole" / "frames")) {
    const auto resumed = dir / "stopped" / "frames" / e.path().filename();
    ASSERT_TRUE(std::filesystem::exists(resumed)) << resumed;
    EXPECT_TRUE(file_bytes(e.path()) == file_bytes(resumed)) << e.path().filename() << " differs";
  }
  EXPECT_TRUE(file_bytes(dir / "whole" / "hair.usda") == file_bytes(dir / "stopped" / "hair.usda"));
}

INSTANTIATE_TEST_SUITE_P(Table, EveryModelRobustnessGpu,
                         testing::ValuesIn(test::registered_model_names()),
                         [](const testing::TestParamInfo<std::string>& p) { return p.param; });

TEST(RunRobustnessGpu, FailedSolveNamesTheLowestStrand) {
  // Cosserat with fibres of radius 1e-7 m, the thinnest material.radius a scene takes (1e-30 is
  // refused now; on the cpu in float the solve fails on every strand at the first step). The
  // device reports the lowest failed strand (atomicMin over step and strand), so the run names
  // strand 0 and step 1, as the cpu does, with a "failed" summary.
  if (const std::string why = cuda_missing(); !why.empty()) GTEST_SKIP() << why;
  ScratchDir dir;
  nlohmann::json doc = small_cuda_scene("cosserat");
  doc["material"] = {{"radius", 1e-7}};
  const auto path = dir / "scene.json";
  std::ofstream(path) << doc.dump(2);
  const auto r =
      test::run_cli("run '" + path.string() + "' --out '" + (dir / "out").string() + "'", dir);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("strand 0, step 1 (t = 0 s)"), std::string::npos) << r.err;
  const auto s = test::read_json(dir / "out" / "summary.json");
  EXPECT_EQ(s["status"], "failed");
  EXPECT_EQ(s["failed_at"], "strand 0, step 1 (t = 0 s)");
  // Every strand's first step at least (the device runs ahead of the host).
  EXPECT_GE(s["solver"]["failures"].get<long>(), 20);
}

}  // namespace
}  // namespace hairsim
