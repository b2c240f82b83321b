// The run path's hostile cases: checkpoints whose checksum holds but whose content does not
// (exit 2 naming the file and the field, nothing written), simulator states of another setup
// (refused naming what differs), and a disk that fills during a run (exit 1, summary "failed",
// the frames before and a .usda of them kept, nothing half-written).
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>

#include "engine/checkpoint.hpp"
#include "engine/simulator.hpp"
#include "hairsim/error.hpp"
#include "hairsim/generate.hpp"
#include "hairsim/io.hpp"
#include "test_support.hpp"

namespace hairsim {
namespace {

using test::read_json;
using test::run_cli;
using test::ScratchDir;

std::string quoted(const std::filesystem::path& p) {
  return "'" + p.string() + "'";
}

std::filesystem::path write_scene(const ScratchDir& dir, const nlohmann::json& scene) {
  const auto path = dir / "scene.json";
  std::ofstream(path) << scene.dump(2);
  return path;
}

// Every file under `folder` with its bytes (what a refused resume must leave as it was), but
// the lock (it holds the process id of the run that locked it last).
std::map<std::string, std::vector<char>> folder_bytes(const std::filesystem::path& folder) {
  std::map<std::string, std::vector<char>> files;
  for (const auto& e : std::filesystem::recursive_directory_iterator(folder))
    if (e.is_regular_file() && e.path().filename() != ".hairsim.lock")
      files[std::filesystem::relative(e.path(), folder).string()] = test::read_bytes(e.path());
  return files;
}

std::size_t lines(const std::string& text) {
  return std::size_t(std::count(text.begin(), text.end(), '\n'));
}

// --- checkpoints validated by content -------------------------------------------------------

struct BadRecord {
  const char* name;
  const char* pointer;   // the field changed ("" : none)
  nlohmann::json value;  // its new value (null: removed)
  const char* field;     // what the error names after the file
  const char* why;       // and part of its reason
};

void PrintTo(const BadRecord& record, std::ostream* os) {
  *os << record.name;
}

// A run of 4 frames checkpointed at frame 4, made by the first case for all (each edits a copy
// of its folder).
class CheckpointContent : public ::testing::TestWithParam<BadRecord> {
 protected:
  static const ScratchDir& first_run() {
    if (!run_) {
      run_ = std::make_unique<ScratchDir>();
      write_scene(*run_, nlohmann::json::parse(R"({
        "backend": "cpu", "precision": "float",
        "hair": {"generate": {"style": "wavy", "strands": 4, "seed": 7}, "vertices": 10},
        "time": {"fps": 30, "frames": 4},
        "output": {"frames": "ply", "usd": true, "checkpoint_every": 2}
      })"));
      ran_ =
          run_cli("run " + quoted(*run_ / "scene.json") + " --out " + quoted(*run_ / "out"), *run_)
              .exit_code;
    }
    return *run_;
  }
  static void TearDownTestSuite() { run_.reset(); }
  static inline std::unique_ptr<ScratchDir> run_;
  static inline int ran_ = -1;
};

TEST_P(CheckpointContent, RefusedNamingFileAndField) {
  // The run's record edited and the checksum made right (write_checkpoint): the issue's cases.
  // Before, "frame": -3 resumed and wrote frame_-0001 files, 1e10 wrapped the frame counter, a
  // missing key gave exit 1 and a raw JSON message.
  const BadRecord c = GetParam();
  const ScratchDir& run = first_run();
  ASSERT_EQ(ran_, 0);
  const auto scene = run / "scene.json";
  const auto out = run / (std::string("out_") + c.name);
  std::filesystem::copy(run / "out", out, std::filesystem::copy_options::recursive);
  const auto file = out / "checkpoint.bin";
  engine::Checkpoint checkpoint = engine::read_checkpoint(file);
  const nlohmann::json::json_pointer at(c.pointer);
  if (c.value.is_null())
    checkpoint.run[at.parent_pointer()].erase(at.back());
  else
    checkpoint.run[at] = c.value;
  engine::write_checkpoint(file, checkpoint);
  const auto before = folder_bytes(out);

  const auto r = run_cli("run " + quoted(scene) + " --frames 8 --resume " + quoted(out), run);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_EQ(lines(r.err), 1u) << r.err;
  const std::string expected = "hairsim: error: " + file.string() + ": " + c.field + ": ";
  EXPECT_EQ(r.err.rfind(expected, 0), 0u) << r.err;
  EXPECT_NE(r.err.find(c.why), std::string::npos) << r.err;
  EXPECT_TRUE(folder_bytes(out) == before) << "the refused resume changed the folder";
}

INSTANTIATE_TEST_SUITE_P(
    Records, CheckpointContent,
    ::testing::Values(
        BadRecord{"negative_frame", "/frame", -3, "frame", "in 0 .. 8 (got -3)"},
        BadRecord{"frame_1e10", "/frame", 1e10, "frame", "must be an integer in 0 .. 8"},
        BadRecord{"frame_beyond_the_run", "/frame", 9, "frame", "in 0 .. 8 (got 9)"},
        BadRecord{"frame_missing", "/frame", nullptr, "frame", "missing from the checkpoint"},
        BadRecord{"frame_as_text", "/frame", "4", "frame", "must be an integer"},
        BadRecord{"frame_not_the_states", "/frame", 2, "frame", "the saved state has taken"},
        BadRecord{"fingerprint_a_number", "/fingerprint", 7, "fingerprint", "must be a string"},
        BadRecord{"trace_not_an_array", "/measures/trace", "x", "measures.trace",
                  "must be an array"},
        BadRecord{"stretch_missing", "/measures/max_stretch", nullptr, "measures.max_stretch",
                  "missing"},
        BadRecord{"usd_frame_past_the_checkpoint", "/outputs/usd/last", 7, "outputs.usd.last",
                  "in -1 .. 4 (got 7)"},
        BadRecord{"usd_bytes_negative", "/outputs/usd/body_bytes", -1, "outputs.usd.body_bytes",
                  "(got -1)"},
        BadRecord{"wall_time_missing", "/wall_time_s/simulate", nullptr, "wall_time_s.simulate",
                  "missing"}),
    [](const auto& param_info) { return std::string(param_info.param.name); });

// --- simulator states of another setup ------------------------------------------------------

HairSetup small_setup(int strands, const std::string& model = "der", int elements = 0) {
  HairstyleParams p;
  p.strands = strands;
  p.vertices = 10;
  p.seed = 3;
  HairSetup setup;
  setup.strands = generate_hairstyle(p);
  setup.integrator = Integrator::implicit;
  setup.dt = 1e-3;
  if (elements > 0) setup.model_settings = model_settings(model, {{"elements", elements}});
  return setup;
}

// The Error a restore_state throws ("" when it restores).
std::string restore_error(Simulator& into, const std::string& state) {
  try {
    into.restore_state(state);
  } catch (const Error& e) {
    EXPECT_EQ(e.where(), "state");
    return e.why();
  }
  return "";
}

TEST(StateOfAnotherSetup, RefusedNamingWhatDiffers) {
  // The issue's case first: a 21-strand state into a 20-strand simulator was taken silently.
  const SimulatorOptions der{"der", Backend::cpu, Precision::float32};
  auto twenty = Simulator::create(small_setup(20), der);
  auto twenty_one = Simulator::create(small_setup(21), der);
  twenty_one->step();
  twenty->step();
  std::vector<Vec3> before, after;
  twenty->positions(before);
  EXPECT_NE(restore_error(*twenty, twenty_one->save_state())
                .find("another setup: strands 21 in the state, 20 in this simulator"),
            std::string::npos);
  twenty->positions(after);
  EXPECT_TRUE(before == after);  // unchanged
  EXPECT_EQ(twenty->steps(), 1);

  auto cosserat =
      Simulator::create(small_setup(20), {"cosserat", Backend::cpu, Precision::float32});
  EXPECT_NE(restore_error(*twenty, cosserat->save_state())
                .find(R"(model "cosserat" in the state, "der" in this simulator)"),
            std::string::npos);
  auto in_double = Simulator::create(small_setup(20), {"der", Backend::cpu, Precision::float64});
  EXPECT_NE(restore_error(*twenty, in_double->save_state())
                .find(R"(precision "double" in the state, "float" in this simulator)"),
            std::string::npos);
  auto reference =
      Simulator::create(small_setup(20), {"der", Backend::reference, Precision::float64});
  EXPECT_NE(restore_error(*in_double, reference->save_state()).find("backend \"reference\""),
            std::string::npos);
  HairSetup longer = small_setup(20);
  longer.strands = resample(longer.strands, 12);
  auto twelve = Simulator::create(longer, der);
  EXPECT_NE(restore_error(*twenty, twelve->save_state())
                .find("vertices 12 in the state, 10 in this simulator"),
            std::string::npos);
  EXPECT_NE(restore_error(*twenty, "not a state").find("not a simulator state"), std::string::npos);
  EXPECT_EQ(restore_error(*twenty, twenty->save_state()), "");  // its own: taken
}

TEST(StateOfAnotherSetup, ElementCountsOfAReducedModel) {
  // A Super-Helix fitted with 4 elements a strand against one with 5: the states differ in
  // shape, and the model's settings (its summary's "elements") name it.
  const SimulatorOptions sh{"super_helix", Backend::cpu, Precision::float64};
  auto four = Simulator::create(small_setup(3, "super_helix", 4), sh);
  auto five = Simulator::create(small_setup(3, "super_helix", 5), sh);
  EXPECT_NE(restore_error(*five, four->save_state())
                .find("solver.elements 4 in the state, 5 in this simulator"),
            std::string::npos);
}

// --- a full disk ----------------------------------------------------------------------------

// Runs `hairsim run SCENE --out <tmpfs>/out` on a tmpfs of `size` mounted in a mount namespace
// of its own (so that nothing stays mounted, whatever happens), then copies the folder out to
// `copy`. Root may mount; others may in a user namespace (unshare -r) where the kernel allows.
// Returns the CLI's exit code, or -1 when no tmpfs could be mounted (the caller skips).
int run_on_small_disk(const ScratchDir& dir, const std::filesystem::path& scene,
                      const std::string& size, const std::filesystem::path& copy) {
  std::filesystem::create_directories(dir / "disk");
  const std::string script =
      "mount -t tmpfs -o size=" + size + " tmpfs \"$0\" || exit 97; OMP_NUM_THREADS=1 \"$1\" " +
      "run \"$2\" --out " +
      "\"$0/out\" >\"$3/cli.stdout\" 2>\"$3/cli.stderr\"; echo $? >\"$3/rc\"; cp -a \"$0/out\" " +
      "\"$4\"";
  for (const char* unshare : {"unshare -m", "unshare -rm"}) {
    const std::string cmd = std::string(unshare) + " sh -c '" + script + "' " +
                            quoted(dir / "disk") + " '" + HAIRSIM_CLI + "' " + quoted(scene) + " " +
                            quoted(dir.path()) + " " + quoted(copy) + " 2>/dev/null";
    if (std::system(cmd.c_str()) == -1 || !std::filesystem::exists(dir / "rc")) continue;
    int rc = -1;
    std::ifstream(dir / "rc") >> rc;
    return rc;
  }
  return -1;
}

TEST(DiskFull, FailedRunKeepsTheFramesBeforeAndTheirUsda) {
  // 30 strands of 20 vertices, a PLY file and a .usda sample per frame (~35 kB a frame) on a
  // 1 MB disk: full after some 24 of the 400 frames (4 implicit steps a frame). Before: exit 2 (bad
  // input's code), the summary left "running", the .usda's frames lost.
  ScratchDir dir;
  const auto scene = write_scene(dir, nlohmann::json::parse(R"({
    "backend": "cpu", "precision": "float",
    "hair": {"generate": {"style": "wavy", "strands": 30, "seed": 3}, "vertices": 20},
    "time": {"fps": 30, "frames": 400, "integrator": "implicit", "dt": 0.008333333333333333},
    "output": {"frames": "ply", "usd": true}
  })"));
  const auto out = dir / "copy";
  const int rc = run_on_small_disk(dir, scene, "1m", out);
  if (rc == -1) GTEST_SKIP() << "no tmpfs can be mounted here (not root, no user namespaces)";
  const auto err = test::read_bytes(dir / "cli.stderr");
  const std::string message(err.begin(), err.end());
  EXPECT_EQ(rc, 1) << message;
  EXPECT_EQ(lines(message), 1u) << message;
  EXPECT_EQ(message.rfind("hairsim: run failed: ", 0), 0u) << message;
  EXPECT_NE(message.find("summary.json says 'failed'"), std::string::npos) << message;

  const auto s = read_json(out / "summary.json");
  EXPECT_EQ(s["status"], "failed");
  // The file that could not be written, and why (write_file_atomically's or the .usda's words).
  EXPECT_NE(s["failed_at"].get<std::string>().find("/out/"), std::string::npos) << s["failed_at"];
  EXPECT_NE(s["reason"].get<std::string>().find("write"), std::string::npos) << s["reason"];
  const int frames = s["frames"].get<int>();
  EXPECT_GT(frames, 5);    // the disk held some
  EXPECT_LT(frames, 400);  // and then was full

  // Frames 0 to `frames`, whole, and no other; the .usda holds the same frames.
  std::size_t frame_files = 0;
  for (const auto& e : std::filesystem::directory_iterator(out / "frames")) {
    ++frame_files;
    EXPECT_EQ(read_strands(e.path()).point_count(), 600u) << e.path();
  }
  EXPECT_EQ(frame_files, std::size_t(frames) + 1);
  const UsdaAnimation usda = read_usda_animation(out / "hair.usda");
  ASSERT_EQ(usda.frames.size(), std::size_t(frames) + 1);
  char last[32];
  std::snprintf(last, sizeof last, "frame_%05d.ply", frames);
  const StrandSet last_frame = read_strands(out / "frames" / last);
  for (std::size_t i = 0; i < last_frame.points.size(); ++i)  // both hold float32 values
    ASSERT_LE((usda.frames.back()[i] - last_frame.points[i]).norm(), 1e-7) << i;
  // Nothing half-written: no temporary file, no partial frame, the reserve given back.
  for (const auto& e : std::filesystem::recursive_directory_iterator(out)) {
    const std::string name = e.path().filename().string();
    EXPECT_EQ(name.find(".tmp"), std::string::npos) << e.path();
    EXPECT_NE(name, ".hairsim.reserve");
  }
}

}  // namespace
}  // namespace hairsim
