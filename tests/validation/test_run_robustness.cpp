// Runs that never die silently (issue 27): violent head motion keeps every model's hair at its
// length, a solver or state that fails stops the run with the strand and step named and a
// summary saying so, the summary is rewritten after every frame, checkpoints resume a killed run
// bit for bit, a fresh run replaces an earlier run's outputs, SIGTERM stops like Ctrl-C.
#include <gtest/gtest.h>
#include <signal.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <regex>

#include "engine/checkpoint.hpp"
#include "engine/hair_run.hpp"
#include "engine/hair_scene.hpp"
#include "hairsim/io.hpp"
#include "test_support.hpp"

namespace hairsim {
namespace {

using test::run_cli;
using test::ScratchDir;

using test::read_json;

std::filesystem::path write_scene(const ScratchDir& dir, const nlohmann::json& scene) {
  const auto path = dir / "scene.json";
  std::ofstream(path) << scene.dump(2);
  return path;
}

std::string quoted(const std::filesystem::path& p) {
  return "'" + p.string() + "'";
}

// scenes/stress/violent_shake.json with fewer strands: its head shakes ±3 rad at 8 Hz (the
// scalp's surface at 15 m/s), the motion under which DER's implicit step stretched hair to
// three times its length and Cosserat's solve failed before issue 27.
nlohmann::json violent_scene(int strands) {
  std::ifstream in(std::string(HAIRSIM_SOURCE_DIR) + "/scenes/stress/violent_shake.json");
  nlohmann::json doc = nlohmann::json::parse(in);
  doc["hair"]["generate"]["strands"] = strands;
  return doc;
}

struct ViolentCase {
  const char* model;
  const char* precision;
  double strain_bound;       // issue 27: 1e-3 in float, 1e-6 in double
  double penetration_bound;  // m: the hairstyle scenes' 5e-4
};

class ViolentMotion : public ::testing::TestWithParam<ViolentCase> {};

TEST_P(ViolentMotion, HairKeepsItsLength) {
  const ViolentCase c = GetParam();
  ScratchDir dir;
  const auto scene = write_scene(dir, violent_scene(12));
  // Cosserat's Newton still reaches its cap on some strand steps under this motion, which stops
  // the run by default (NewtonThatStopsUnconvergedFailsTheRun); kept and counted here, to hold
  // the bounds on the steps that follow them.
  const std::string keep =
      std::string(c.model) == "cosserat" ? " --set solver.accept_unconverged=true" : "";
  const auto r = run_cli("run " + quoted(scene) + " --model " + c.model + " --precision " +
                             c.precision + keep + " --out " + quoted(dir / "out"),
                         dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto s = read_json(dir / "out" / "summary.json");
  EXPECT_EQ(s["status"], "complete");
  EXPECT_EQ(s["frames"], 30);
  EXPECT_LE(s["max_stretch"].get<double>(), c.strain_bound);
  EXPECT_LE(s["max_root_drift_m"].get<double>(), 1e-6);
  EXPECT_LE(s["max_penetration_m"].get<double>(), c.penetration_bound);
  std::cout << c.model << " " << c.precision << ": max strain " << s["max_stretch"] << ", deepest "
            << s["max_penetration_m"] << " m, fastest " << s["max_speed_m_s"] << " m/s";
  if (s["solver"].contains("unconverged_steps"))  // printed, not asserted: issue 41
    std::cout << ", unconverged strand steps " << s["solver"]["unconverged_steps"] << " of "
              << 12 * s["steps"].get<long>();
  std::cout << "\n";
}

INSTANTIATE_TEST_SUITE_P(Models, ViolentMotion,
                         // Cosserat's penalty contacts sank 7-16 mm under this motion with a
                         // Newton cap of 20, 1.3 mm with 100 and the paper's Gauss-Newton
                         // matrix; with the chain's curvature (docs/models/cosserat.md) they
                         // are held: measured 8.4e-5 m float, 1.6e-5 m double.
                         ::testing::Values(ViolentCase{"der", "float", 1e-3, 5e-4},
                                           ViolentCase{"der", "double", 1e-6, 5e-4},
                                           ViolentCase{"cosserat", "float", 1e-3, 5e-4},
                                           ViolentCase{"cosserat", "double", 1e-6, 5e-4}),
                         [](const auto& param_info) {
                           return std::string(param_info.param.model) + "_" +
                                  param_info.param.precision;
                         });

// 20 wavy strands of 12 vertices on a shaking head with the scalp ellipsoid, 12 frames.
nlohmann::json small_scene() {
  return nlohmann::json::parse(R"({
    "hair": {"generate": {"style": "wavy", "strands": 20, "seed": 7}, "vertices": 12},
    "damping": 0.5,
    "head": {"motion": {"type": "shake", "amplitude": 0.6, "frequency": 1.5},
             "colliders": [{"shape": "ellipsoid", "radii": [0.075, 0.095, 0.095]}]},
    "time": {"fps": 30, "frames": 12},
    "output": {"frames": "ply", "usd": true, "checkpoint_every": 4}
  })");
}

// Every frame file of a run's frames/ folder, by name.
std::map<std::string, std::vector<char>> frame_files(const std::filesystem::path& out) {
  std::map<std::string, std::vector<char>> files;
  for (const auto& e : std::filesystem::directory_iterator(out / "frames"))
    files[e.path().filename().string()] = test::read_bytes(e.path());
  return files;
}

void expect_same_outputs(const std::filesystem::path& a, const std::filesystem::path& b) {
  const auto fa = frame_files(a), fb = frame_files(b);
  ASSERT_EQ(fa.size(), fb.size());
  for (const auto& [name, bytes] : fa) EXPECT_TRUE(bytes == fb.at(name)) << name << " differs";
  EXPECT_TRUE(test::read_bytes(a / "hair.usda") == test::read_bytes(b / "hair.usda"));
}

TEST(RunRobustness, KilledRunResumesBitForBit) {
  // A real kill -9 once frame 9 exists (after the checkpoint at frame 8), then --resume: the
  // frames and the .usda equal an uninterrupted run's byte for byte (cpu, float).
  ScratchDir dir;
  nlohmann::json doc = small_scene();
  doc["time"]["frames"] = 60;
  const auto scene = write_scene(dir, doc);
  const std::string run = "'" + std::string(HAIRSIM_CLI) + "' run " + quoted(scene) +
                          " --backend cpu --precision float";
  ASSERT_EQ(std::system((run + " --out " + quoted(dir / "whole") + " >/dev/null").c_str()), 0);
  const auto killed = dir / "killed";
  const std::string wait_and_kill = run + " --out " + quoted(killed) +
                                    " >/dev/null 2>&1 & pid=$!; for i in $(seq 2400); do [ -e " +
                                    quoted(killed / "frames" / "frame_00009.ply") +
                                    " ] && break; sleep 0.025; done; kill -9 $pid; wait $pid";
  const int status = std::system(wait_and_kill.c_str());
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 128 + SIGKILL);
  // What a killed run leaves: the summary of the frames it finished, status "running".
  const auto left = read_json(killed / "summary.json");
  EXPECT_EQ(left["status"], "running");
  EXPECT_GE(left["frames"].get<int>(), 8);
  EXPECT_LT(left["frames"].get<int>(), 60);
  EXPECT_TRUE(std::filesystem::exists(killed / "checkpoint.bin"));
  const auto r = run_cli(
      "run " + quoted(scene) + " --backend cpu --precision float --resume " + quoted(killed), dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto s = read_json(killed / "summary.json");
  EXPECT_EQ(s["status"], "complete");
  EXPECT_EQ(s["frames"], 60);
  EXPECT_GE(s["checkpoint"]["resumed_from_frame"].get<int>(), 8);
  EXPECT_EQ(s["steps"], read_json(dir / "whole" / "summary.json")["steps"]);
  EXPECT_EQ(s["energy"], read_json(dir / "whole" / "summary.json")["energy"]);
  expect_same_outputs(dir / "whole", killed);
}

TEST(RunRobustness, InterruptedReferenceRunResumesBitForBit) {
  // The reference backend of every model: a run stopped after frame 5 (what Ctrl-C does)
  // checkpoints there; resumed, it ends as the uninterrupted run, to the bit.
  for (const char* model : {"der", "cosserat"}) {
    ScratchDir dir;
    nlohmann::json doc = small_scene();
    doc["model"] = model;
    doc["backend"] = "reference";
    doc["precision"] = "double";
    doc["hair"]["generate"]["strands"] = 4;
    doc["time"]["frames"] = 8;
    const engine::HairScene sc = engine::parse_hair_scene(doc, dir.path());
    engine::run_hair_scene(sc, dir / "whole", {});
    std::atomic<bool> stop{false};
    test::StopAtFrameLine lines(stop, 5);
    std::ostream progress(&lines);
    const engine::HairRunResult first =
        engine::run_hair_scene(sc, dir / "stopped", {&progress, false, &stop, false});
    ASSERT_TRUE(first.interrupted) << model;
    EXPECT_EQ(first.summary["frames"], 5) << model;
    const engine::HairRunResult second =
        engine::run_hair_scene(sc, dir / "stopped", {nullptr, false, nullptr, true});
    EXPECT_EQ(second.summary["status"], "complete") << model;
    expect_same_outputs(dir / "whole", dir / "stopped");
  }
}

TEST(RunRobustness, ResumeRefusesAnotherScene) {
  ScratchDir dir;
  const auto scene = write_scene(dir, small_scene());
  ASSERT_EQ(run_cli("run " + quoted(scene) + " --backend cpu --out " + quoted(dir / "out"), dir)
                .exit_code,
            0);
  const auto r = run_cli(
      "run " + quoted(scene) + " --backend cpu --set damping=0.7 --resume " + quoted(dir / "out"),
      dir);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--resume: " + (dir / "out" / "checkpoint.bin").string() +
                       " was written by another scene"),
            std::string::npos)
      << r.err;
  const auto none =
      run_cli("run " + quoted(scene) + " --backend cpu --resume " + quoted(dir / "nothing"), dir);
  EXPECT_EQ(none.exit_code, 2);
  EXPECT_NE(none.err.find("no checkpoint"), std::string::npos) << none.err;
}

TEST(RunRobustness, NanInOneStrandStopsTheRunNamingIt) {
  // A NaN injected into strand 3's state through a checkpoint (reference DER: its state is
  // the rods' positions, θ, u⁰, velocities, clocks and torques, rod after rod). The resumed run
  // stops at once: exit 1, strand 3 and the step named, summary "diverged", frames before valid.
  ScratchDir dir;
  nlohmann::json doc = small_scene();
  doc["backend"] = "reference";
  doc["precision"] = "double";
  doc["hair"]["generate"]["strands"] = 6;
  const auto scene = write_scene(dir, doc);
  const auto out = dir / "out";
  ASSERT_EQ(run_cli("run " + quoted(scene) + " --frames 4 --out " + quoted(out), dir).exit_code, 0);
  engine::Checkpoint c = engine::read_checkpoint(out / "checkpoint.bin");
  const int n = 12;                                           // vertices
  const std::size_t rod_bytes = 8 + n * 24 +                  // x
                                8 + (n - 1) * 8 +             // θ
                                24 +                          // u⁰
                                8 + n * 24 +                  // velocity
                                8 + 8;                        // time, torque
  const std::size_t at = 8 + 8 + 3 * rod_bytes + 8 + 5 * 24;  // strand 3, vertex 5, x
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::memcpy(c.simulator.data() + at, &nan, sizeof nan);
  engine::write_checkpoint(out / "checkpoint.bin", c);
  const auto r = run_cli("run " + quoted(scene) + " --frames 8 --resume " + quoted(out), dir);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("strand 3 (vertex "), std::string::npos) << r.err;
  EXPECT_NE(r.err.find(", by step "), std::string::npos) << r.err;
  const auto s = read_json(out / "summary.json");
  EXPECT_EQ(s["status"], "diverged");
  EXPECT_EQ(s["frames"], 4);
  EXPECT_NE(s["diverged_at"].get<std::string>().find("strand 3"), std::string::npos);
  EXPECT_EQ(s["reason"], "non-finite position or velocity");
  EXPECT_EQ(read_usda_animation(out / "hair.usda").frames.size(), 5u);  // frames 0-4, finite
}

TEST(RunRobustness, FailedSolveWritesAFailedSummary) {
  // Cosserat in float with fibres of radius 1e-7 m, the thinnest material.radius a scene takes
  // (1e-30, the probe's case that left no summary, is refused now): the solve fails on (nearly)
  // every strand at the first step, after its retries. Exit 1 naming strand and step; summary
  // "failed" with the reason.
  ScratchDir dir;
  nlohmann::json doc = small_scene();
  doc["model"] = "cosserat";
  doc["material"] = {{"radius", 1e-7}};
  const auto scene = write_scene(dir, doc);
  const auto r =
      run_cli("run " + quoted(scene) + " --backend cpu --out " + quoted(dir / "out"), dir);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("strand 0, step 1 (t = 0 s)"), std::string::npos) << r.err;
  const auto s = read_json(dir / "out" / "summary.json");
  EXPECT_EQ(s["status"], "failed");
  EXPECT_EQ(s["failed_at"], "strand 0, step 1 (t = 0 s)");
  // "the solve failed on N strand step(s)": N of the 20 strands (all of them with the hybrid
  // preconditioner, 18 with the exact chain solve, which two of them get through).
  const std::string reason = s["reason"].get<std::string>();
  const std::string head = "solve failed on ";
  const std::size_t at = reason.find(head);
  ASSERT_NE(at, std::string::npos) << reason;
  const int failed = std::stoi(reason.substr(at + head.size()));
  EXPECT_NE(reason.find(std::to_string(failed) + " strand step(s)"), std::string::npos) << reason;
  EXPECT_GE(failed, 1);
  EXPECT_LE(failed, 20);
  // The summary's counter holds the failed step's solves, the count the message gives (it said
  // 0: the counters were read only after whole frames).
  EXPECT_EQ(s["solver"]["failures"], failed);
  EXPECT_EQ(s["frames"], 0);
}

TEST(RunRobustness, NewtonThatStopsUnconvergedFailsTheRun) {
  // Cosserat with one Newton iteration a step on the shaking head: the first step's Newton stops
  // unconverged on some strand (the head moves the roots; one iteration does not reach the
  // tolerance, 4e-4 of a strand's weight). Reference and cpu kernels: exit 1, the strand and step
  // named, the reason Newton's cap; with solver.accept_unconverged the run completes and the
  // summary counts those steps.
  for (const std::string backend : {"cpu", "reference"}) {
    ScratchDir dir;
    nlohmann::json doc = small_scene();
    doc["model"] = "cosserat";
    doc["hair"]["generate"]["strands"] = 3;
    doc["time"]["frames"] = 2;
    doc["solver"] = {{"newton_max_iterations", 1}};
    doc["output"] = {{"png_every", 0}, {"mp4", false}};
    const auto scene = write_scene(dir, doc);
    const std::string run =
        "run " + quoted(scene) + " --backend " + backend + " --precision double";
    const auto r = run_cli(run + " --out " + quoted(dir / "out"), dir);
    EXPECT_EQ(r.exit_code, 1) << backend << ": " << r.err;
    const auto s = read_json(dir / "out" / "summary.json");
    EXPECT_EQ(s["status"], "failed") << backend;
    const std::string at = s["failed_at"];
    EXPECT_TRUE(std::regex_match(at, std::regex(R"(strand [0-2], step 1 \(t = 0 s\))")))
        << backend << ": " << at;
    EXPECT_NE(s["reason"].get<std::string>().find("did not converge within "
                                                  "solver.newton_max_iterations"),
              std::string::npos)
        << s["reason"];
    EXPECT_NE(r.err.find("run failed: " + at + ": Newton did not converge"), std::string::npos)
        << r.err;
    // The strands of the failed step that stopped unconverged: the reference stops at the first,
    // the kernels finish the step's batch.
    EXPECT_GE(s["solver"]["failures"].get<long>(), 1) << backend;
    EXPECT_LE(s["solver"]["failures"].get<long>(), backend == "cpu" ? 3 : 1) << backend;
    EXPECT_EQ(s["solver"]["accept_unconverged"], false);

    const auto kept =
        run_cli(run + " --set solver.accept_unconverged=true --out " + quoted(dir / "kept"), dir);
    EXPECT_EQ(kept.exit_code, 0) << backend << ": " << kept.err;
    const auto k = read_json(dir / "kept" / "summary.json");
    EXPECT_EQ(k["status"], "complete");
    EXPECT_EQ(k["solver"]["failures"], 0);
    EXPECT_EQ(k["solver"]["accept_unconverged"], true);
    // Some, not all: from the spins' prediction one iteration meets the tolerance on calm steps
    // (measured 43 and 30 of 102 on cpu and reference).
    const long strand_steps = 3 * k["steps"].get<long>();
    EXPECT_GE(k["solver"]["unconverged_steps"].get<long>(), 1) << backend;
    EXPECT_LE(k["solver"]["unconverged_steps"].get<long>(), strand_steps) << backend;
  }
}

TEST(RunRobustness, AReferenceRodsFailureNamesStrandAndStep) {
  // The reduced models' references with fibres of radius 1e-7 m (the thinnest a scene takes):
  // the Super-Helix's state turns non-finite, the clothoid's curvature diverges, within a few
  // steps. Their message named neither strand nor step ("element: the curvature diverged");
  // now as the kernels': "strand S, step N (t = ...)" and the rod's reason, summary "failed"
  // with solver.failures 1.
  for (const std::string model : {"super_helix", "super_clothoid"}) {
    ScratchDir dir;
    nlohmann::json doc = small_scene();
    doc["model"] = model;
    doc["hair"]["generate"]["strands"] = 2;
    doc["material"] = {{"radius", 1e-7}};
    doc["head"].erase("colliders");  // a diverging state's contacts took 16-40 s to fail
    doc["time"]["frames"] = 2;
    doc["output"] = {{"png_every", 0}, {"mp4", false}};
    const auto scene = write_scene(dir, doc);
    const auto r =
        run_cli("run " + quoted(scene) + " --backend reference --precision double --out " +
                    quoted(dir / "out"),
                dir);
    EXPECT_EQ(r.exit_code, 1) << model;
    const auto s = read_json(dir / "out" / "summary.json");
    EXPECT_EQ(s["status"], "failed") << model;
    const std::string at = s["failed_at"];
    EXPECT_TRUE(std::regex_match(at, std::regex(R"(strand [01], step [0-9]+ \(t = [0-9.e-]+ s\))")))
        << model << ": " << at;
    EXPECT_NE(r.err.find("run failed: " + at + ": "), std::string::npos) << r.err;
    EXPECT_EQ(s["solver"]["failures"], 1) << model;
  }
}

TEST(RunRobustness, StretchGuardStopsASilentBlowUp) {
  // The probe's case: symplectic DER at 10 ms with 100 vertices, 100 times its stability limit,
  // was reported "complete" with edges 12,873 times their length. Now "diverged" by the guard.
  ScratchDir dir;
  nlohmann::json doc = small_scene();
  doc["hair"]["vertices"] = 100;
  doc["time"] = {{"fps", 30}, {"frames", 6}, {"integrator", "symplectic"}, {"dt", 0.01}};
  const auto scene = write_scene(dir, doc);
  const auto r =
      run_cli("run " + quoted(scene) + " --backend cpu --out " + quoted(dir / "out"), dir);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.err.find("guard.max_strain"), std::string::npos) << r.err;
  const auto s = read_json(dir / "out" / "summary.json");
  EXPECT_EQ(s["status"], "diverged");
  EXPECT_NE(s["diverged_at"].get<std::string>().find("strand "), std::string::npos);
  EXPECT_LT(s["max_stretch"].get<double>(), 0.1);  // the frames written are within the guard
}

TEST(RunRobustness, FreshRunReplacesAnEarlierRunsOutputs) {
  // A second, shorter run on the folder left the first run's later frames beside its own.
  ScratchDir dir;
  const auto scene = write_scene(dir, small_scene());
  const auto out = dir / "out";
  ASSERT_EQ(run_cli("run " + quoted(scene) + " --backend cpu --frames 6 --out " + quoted(out), dir)
                .exit_code,
            0);
  std::ofstream(out / "notes.txt") << "mine";
  ASSERT_EQ(run_cli("run " + quoted(scene) + " --backend cpu --frames 2 --out " + quoted(out), dir)
                .exit_code,
            0);
  EXPECT_EQ(frame_files(out).size(), 3u);  // frames 0-2
  EXPECT_TRUE(std::filesystem::exists(out / "notes.txt"));
}

TEST(RunRobustness, SigtermStopsAfterTheFrameLikeCtrlC) {
  ScratchDir dir;
  nlohmann::json doc = small_scene();
  doc["time"]["frames"] = 100000;
  const auto scene = write_scene(dir, doc);
  const auto out = dir / "out";
  const std::string cmd = "'" + std::string(HAIRSIM_CLI) + "' run " + quoted(scene) +
                          " --backend cpu --out " + quoted(out) +
                          " >/dev/null 2>&1 & pid=$!; for i in $(seq 2400); do [ -e " +
                          quoted(out / "frames" / "frame_00002.ply") +
                          " ] && break; sleep 0.025; done; kill -TERM $pid; wait $pid";
  const int status = std::system(cmd.c_str());
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 128 + SIGTERM);
  const auto s = read_json(out / "summary.json");
  EXPECT_EQ(s["status"], "interrupted");
  const int frames = s["frames"].get<int>();
  EXPECT_GE(frames, 2);
  EXPECT_EQ(read_usda_animation(out / "hair.usda").frames.size(), std::size_t(frames) + 1);
  EXPECT_FALSE(std::filesystem::exists(out / "hair.usda.frames.tmp"));
  EXPECT_EQ(s["checkpoint"]["last_frame"], frames);  // checkpointed at the stop
}

TEST(RunRobustness, StopBeforeTheFirstFrameLeavesAnInterruptedSummary) {
  // Ctrl-C during the set-up: the run ends at frame 0 with its summary saying so.
  ScratchDir dir;
  const engine::HairScene sc = engine::parse_hair_scene(small_scene(), dir.path());
  std::atomic<bool> stop{true};
  const engine::HairRunResult r = engine::run_hair_scene(sc, dir / "out", {nullptr, false, &stop});
  EXPECT_TRUE(r.interrupted);
  const auto s = read_json(dir / "out" / "summary.json");
  EXPECT_EQ(s["status"], "interrupted");
  EXPECT_EQ(s["frames"], 0);
}

}  // namespace
}  // namespace hairsim
