// The hairsim executable end to end: info, convert, generate, render.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "hairsim/io.hpp"
#include "test_support.hpp"

namespace hairsim {
namespace {

using test::data_path;
using test::run_cli;
using test::ScratchDir;

TEST(Cli, InfoJsonReportsBangs) {
  ScratchDir dir;
  const auto r = run_cli("info '" + data_path("Bangs_100.hair").string() + "' --json", dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["strands"], 100);  // fixture README
  EXPECT_EQ(j["points"], 1165);
  EXPECT_EQ(j["vertices_per_strand"]["min"], 5);
  EXPECT_EQ(j["vertices_per_strand"]["max"], 21);
}

TEST(Cli, InfoUnitsScaleLengths) {
  ScratchDir dir;
  const std::string f = "'" + data_path("Bangs_100.data").string() + "'";
  const auto m = nlohmann::json::parse(run_cli("info " + f + " --json", dir).out);
  const auto mm = nlohmann::json::parse(run_cli("info " + f + " --json --units mm", dir).out);
  EXPECT_NEAR(mm["length_m"]["max"].get<double>(), 1e-3 * m["length_m"]["max"].get<double>(),
              1e-15);
}

TEST(Cli, ConvertChainKeepsPoints) {
  ScratchDir dir;
  const auto in = data_path("Bangs_100_binary.ply");
  std::filesystem::path prev = in;
  for (const char* next : {"a.hair", "b.obj", "c.usda", "d.bin", "e.ply"}) {
    const auto r = run_cli("convert '" + prev.string() + "' '" + (dir / next).string() + "'", dir);
    ASSERT_EQ(r.exit_code, 0) << next << ": " << r.err;
    prev = dir / next;
  }
  EXPECT_EQ(read_strands(prev).points, read_strands(in).points);
}

TEST(Cli, ConvertResamplesAndChangesUnits) {
  ScratchDir dir;
  const auto r = run_cli("convert '" + data_path("Curly_100.ply").string() + "' '" +
                             (dir / "c.hair").string() + "' --units mm --out-units m --resample 12",
                         dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const StrandSet s = read_strands(dir / "c.hair");
  EXPECT_EQ(s.point_count(), 1200u);
  const StrandSet original = read_strands(data_path("Curly_100.ply"), {LengthUnit::mm});
  // Root kept; stored as float32 metres (|x| < 0.26 m: half an ulp is at most 2^-25 m).
  EXPECT_LE((s.points[0] - original.points[0]).cwiseAbs().maxCoeff(), 0x1.0p-25);
}

TEST(Cli, GenerateAndRenderWritePngAndHead) {
  ScratchDir dir;
  auto r =
      run_cli("generate --style curly --strands 300 --vertices 24 -o '" +
                  (dir / "g.hair").string() + "' --head-out '" + (dir / "head.ply").string() + "'",
              dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(read_strands(dir / "g.hair").point_count(), 300u * 24u);
  r = run_cli("render '" + (dir / "g.hair").string() + "' --head '" + (dir / "head.ply").string() +
                  "' -o '" + (dir / "g.png").string() + "' --width 120 --height 90",
              dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto png = test::read_bytes(dir / "g.png");
  ASSERT_GT(png.size(), 24u);
  EXPECT_EQ(std::string(png.begin() + 1, png.begin() + 4), "PNG");
  EXPECT_EQ(png[19], 120);  // IHDR width, big-endian
  EXPECT_EQ(png[23], 90);   // IHDR height
}

TEST(Cli, HelpExitsZero) {
  ScratchDir dir;
  for (const char* cmd : {"--help", "info --help", "convert --help", "render --help",
                          "generate --help", "bench --help"}) {
    const auto r = run_cli(cmd, dir);
    EXPECT_EQ(r.exit_code, 0) << cmd;
    EXPECT_NE(r.out.find("Usage"), std::string::npos) << cmd;
  }
}

TEST(Cli, BenchWritesOneRowPerCase) {
  // 2 backends x 2 integrators x collisions off/on x 2 strand counts; the cuda rows say why they
  // were skipped when no device is here.
  ScratchDir dir;
  const auto r = run_cli(
      "bench --backend cpu,cuda --precision double --integrator symplectic,implicit "
      "--collisions off,on --strands 8,16 --vertices 6 --steps 2 --json '" +
          (dir / "bench.json").string() + "'",
      dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto bytes = test::read_bytes(dir / "bench.json");
  const auto rows = nlohmann::json::parse(bytes.begin(), bytes.end());
  ASSERT_EQ(rows.size(), 16u);
  int implicit_rows = 0, collision_rows = 0;
  for (const auto& row : rows) {
    EXPECT_EQ(row["vertices"], 6);
    implicit_rows += row["integrator"] == "implicit";
    collision_rows += row["collisions"].get<bool>();
    if (row["backend"] == "cpu") {
      EXPECT_TRUE(row["ran"].get<bool>());
      // SVU/s is strands x vertices over the time of one step.
      EXPECT_NEAR(row["svu_per_second"].get<double>() * row["ms_per_step"].get<double>() * 1e-3,
                  row["strands"].get<double>() * 6, 1e-6 * row["strands"].get<double>());
      // The symplectic step projects at least once; the implicit one only where its stiff
      // stretching left an edge off its length by more than the tolerance (a strain limit).
      if (row["integrator"] == "implicit")
        EXPECT_GE(row["projection_iterations"].get<double>(), 0.0);
      else
        EXPECT_GE(row["projection_iterations"].get<double>(), 1.0);
    } else if (!row["ran"].get<bool>()) {
      EXPECT_FALSE(row["note"].get<std::string>().empty());
    }
  }
  EXPECT_EQ(implicit_rows, 8);
  EXPECT_EQ(collision_rows, 8);
}

TEST(Cli, BenchRunsTheCosseratModel) {
  // --model cosserat: the reference and cpu rows report Newton iterations per strand-step
  // (at least one: the hair moves under gravity from rest) and PCG iterations per solve.
  ScratchDir dir;
  const auto r = run_cli(
      "bench --model cosserat --integrator implicit --backend reference,cpu "
      "--collisions off,on --precision double --strands 8 --vertices 12 --steps 30 --json '" +
          (dir / "bench.json").string() + "'",
      dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto bytes = test::read_bytes(dir / "bench.json");
  const auto rows = nlohmann::json::parse(bytes.begin(), bytes.end());
  ASSERT_EQ(rows.size(), 4u);
  for (const auto& row : rows) {
    EXPECT_EQ(row["model"], "cosserat");
    EXPECT_TRUE(row["ran"].get<bool>());
    EXPECT_GE(row["newton_iterations"].get<double>(), 1.0);
    EXPECT_GE(row["pcg_iterations_per_solve"].get<double>(), 1.0);
    // These 8 strands rise smoothly off the scalp and start outside the grown scalp ellipsoid
    // (none of their vertices within 5 mm of the head); in 30 ms they fall onto it (0.29
    // contacts a strand and step): contacts only with collisions on.
    if (row["collisions"].get<bool>())
      EXPECT_GT(row["contacts"].get<double>(), 0.0);
    else
      EXPECT_EQ(row["contacts"].get<double>(), 0.0);
  }
  // Rows: reference off, on; cpu off, on. Without colliders the two run the same solves.
  // Iteration counts are compared within a few percent, never for equality (a faster variant may
  // sum in another order).
  EXPECT_NEAR(rows[0]["newton_iterations"].get<double>(),
              rows[2]["newton_iterations"].get<double>(),
              0.05 * rows[0]["newton_iterations"].get<double>());
}

TEST(Cli, BenchRepeatsDistinctStrands) {
  // --distinct-strands 3: 12 strands are the 3 generated ones four times over, so each strand's
  // work repeats: the contact pairs per strand and step equal the 3-strand case's exactly (same
  // arithmetic on the cpu, double), and the Super-Helix fits 3 shapes, not 12.
  ScratchDir dir;
  const auto r = run_cli(
      "bench --model super_helix --backend cpu --precision double --collisions on "
      "--strands 3,12 --distinct-strands 3 --vertices 12 --steps 2 --json '" +
          (dir / "bench.json").string() + "'",
      dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto bytes = test::read_bytes(dir / "bench.json");
  const auto rows = nlohmann::json::parse(bytes.begin(), bytes.end());
  ASSERT_EQ(rows.size(), 2u);
  for (const auto& row : rows) {
    EXPECT_TRUE(row["ran"].get<bool>());
    EXPECT_EQ(row["distinct_strands"], 3);
  }
  EXPECT_GT(rows[0]["contacts"].get<double>(), 0.0);
  EXPECT_EQ(rows[0]["contacts"].get<double>(), rows[1]["contacts"].get<double>());
  EXPECT_EQ(run_cli("bench --distinct-strands -2", dir).exit_code, 2);
}

TEST(Cli, BenchSkipsCasesPastTheirBudget) {
  // A row budget of 1 µs: the first case of each series (vertex count) runs, and the next strand
  // count of the series is predicted (linearly, from the case's wall time) past the budget and
  // skipped, saying so. A time limit of 1 µs is spent before the first case: every case is
  // skipped, saying so. Skipped rows are not failures: exit 0.
  ScratchDir dir;
  const std::string json = (dir / "bench.json").string();
  auto r = run_cli(
      "bench --strands 4,8 --vertices 6,7 --steps 1 --row-budget 0.000001 --json '" + json + "'",
      dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  auto bytes = test::read_bytes(dir / "bench.json");
  auto rows = nlohmann::json::parse(bytes.begin(), bytes.end());
  ASSERT_EQ(rows.size(), 4u);  // strands outer, vertices inner: (4,6) (4,7) (8,6) (8,7)
  for (int k = 0; k < 4; ++k) {
    const bool first_of_series = rows[k]["strands"] == 4;
    EXPECT_EQ(rows[k]["ran"].get<bool>(), first_of_series) << k;
    EXPECT_GT(rows[k]["seconds"].get<double>(), first_of_series ? 0.0 : -1.0) << k;
    if (!first_of_series) {
      EXPECT_NE(rows[k]["note"].get<std::string>().find("> row budget"), std::string::npos)
          << rows[k]["note"];
    }
  }
  r = run_cli(
      "bench --strands 4,8 --vertices 6 --steps 1 --time-limit 0.000001 --json '" + json + "'",
      dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  bytes = test::read_bytes(dir / "bench.json");
  rows = nlohmann::json::parse(bytes.begin(), bytes.end());
  ASSERT_EQ(rows.size(), 2u);
  for (const auto& row : rows) {
    EXPECT_FALSE(row["ran"].get<bool>());
    EXPECT_EQ(row["note"], "time limit of 1e-06 s spent");
  }
}

TEST(Cli, DevicesDescribesTheCpuAndCuda) {
  // hairsim devices: the CPU with its OpenMP threads and, without a device, why there is none.
  ScratchDir dir;
  const auto r = run_cli("devices", dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_GE(j["cpu"]["threads"].get<int>(), 1);
  EXPECT_GT(j["cpu"]["available_memory_bytes"].get<double>(), 0.0);
  ASSERT_TRUE(j["cuda"]["devices"].is_array());
  if (j["cuda"]["devices"].empty()) {
    EXPECT_FALSE(j["cuda"]["note"].get<std::string>().empty());
  } else {
    for (const auto& d : j["cuda"]["devices"]) {
      EXPECT_GT(d["multiprocessors"].get<int>(), 0);
      EXPECT_GT(d["global_bytes"].get<double>(), 0.0);
    }
  }
}

TEST(Cli, BenchRejectsUnknownBackendAndModel) {
  ScratchDir dir;
  for (const auto& [args, message] :
       {std::pair{"bench --backend gpu", "--backend: must be reference, cpu or cuda"},
        std::pair{"bench --model superhelix",
                  "--model: unknown model 'superhelix' (available: der, cosserat, super_helix, "
                  "super_clothoid)"},
        std::pair{"bench --model cosserat --integrator symplectic",
                  "--integrator: model cosserat has no symplectic step"},
        std::pair{"bench --precision half", "--precision: must be float or double"},
        std::pair{"bench --integrator rk4", "--integrator: must be symplectic or implicit"},
        std::pair{"bench --collisions maybe", "--collisions: must be on or off"},
        std::pair{"bench --json out.txt", "--json: expected a .json file name"},
        std::pair{"bench --row-budget -1", "--row-budget: must be >= 0 seconds"},
        std::pair{"bench --time-limit -5", "--time-limit: must be >= 0 seconds"}}) {
    const auto r = run_cli(args, dir);
    EXPECT_EQ(r.exit_code, 2) << args;
    EXPECT_NE(r.err.find(message), std::string::npos) << args << ": " << r.err;
    EXPECT_TRUE(dir.files().empty()) << args;
  }
}

// `hairsim bench ARGS --json F`: its stdout, and its rows as read back from F (exit 0 asserted).
std::pair<std::string, nlohmann::json> bench_rows(const std::string& args, const ScratchDir& dir) {
  const auto r = run_cli("bench " + args + " --json '" + (dir / "bench.json").string() + "'", dir);
  EXPECT_EQ(r.exit_code, 0) << args << ": " << r.err;
  return {r.out, test::read_json(dir / "bench.json")};
}

TEST(Cli, BenchRunsTheReferenceInDoubleBesideFloatRows) {
  // The README's `bench --backend reference,cpu` (float by default) dropped the reference rows
  // without a word: the reference runs in double only, so its rows are double, said by a notice.
  ScratchDir dir;
  const auto [out, rows] = bench_rows(
      "--backend reference,cpu --precision float,double --strands 4 --vertices 6 --steps 1", dir);
  EXPECT_EQ(
      out.rfind("notice: the reference backend runs in double only: its rows are double\n", 0), 0u)
      << out;
  ASSERT_EQ(rows.size(), 3u);  // the reference once (double), cpu float and double
  EXPECT_EQ(rows[0]["backend"], "reference");
  EXPECT_EQ(rows[0]["precision"], "double");
  EXPECT_TRUE(rows[0]["ran"].get<bool>());
  EXPECT_EQ(rows[1]["precision"], "float");
  EXPECT_EQ(rows[2]["precision"], "double");
  // Asked in double only, no notice.
  const auto [double_out, double_rows] =
      bench_rows("--backend reference --precision double --strands 4 --vertices 6 --steps 1", dir);
  EXPECT_EQ(double_out.find("notice"), std::string::npos) << double_out;
  EXPECT_EQ(double_rows.size(), 1u);
  // A bad precision is refused even where only the reference would run.
  const auto bad = run_cli("bench --backend reference --precision half", dir);
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--precision: must be float or double (got 'half')"), std::string::npos)
      << bad.err;
}

}  // namespace
}  // namespace hairsim
