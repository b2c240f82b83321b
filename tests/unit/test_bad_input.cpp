// Malformed files: every reader names the file and byte offset; the CLI prints one line, exits
// with code 2 and leaves no output file behind.
#include <gtest/gtest.h>

#include <sys/stat.h>
#include <fstream>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include <nlohmann/json.hpp>

#include "hairsim/error.hpp"
#include "hairsim/io.hpp"
#include "test_support.hpp"

namespace hairsim {
namespace {

using test::data_path;
using test::run_cli;
using test::ScratchDir;

template <class T>
void poke(std::vector<char>& bytes, std::size_t offset, T value) {
  std::memcpy(bytes.data() + offset, &value, sizeof(T));
}

std::vector<char> fixture(const char* name) {
  return test::read_bytes(data_path(name));
}

std::vector<char> truncated(const char* name, std::size_t keep) {
  auto b = fixture(name);
  b.resize(keep);
  return b;
}

std::vector<char> text_bytes(const std::string& s) {
  return {s.begin(), s.end()};
}

// Offset of the first vertex's x in the binary PLY fixture (just after "end_header\n").
std::size_t ply_data_start(const std::vector<char>& b) {
  const std::string_view t(b.data(), b.size());
  return t.find("end_header\n") + 11;
}

struct BadCase {
  std::string name;  // test label
  std::string file;  // file name to write (extension picks the reader)
  std::vector<char> bytes;
  std::string message;  // substring the error must contain
};

std::vector<BadCase> bad_cases() {
  std::vector<BadCase> cases;
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  for (const char* ext : {".hair", ".data", ".bin", ".ply", ".obj", ".usda"})
    cases.push_back({std::string("empty") + ext, std::string("bad") + ext, {}, "empty file"});

  // Cem Yuksel .hair: header fields at 4 (hair count), 8 (point count), 12 (array flags).
  cases.push_back(
      {"hair_truncated_header", "bad.hair", truncated("Bangs_100.hair", 100), "truncated header"});
  cases.push_back({"hair_truncated", "bad.hair", truncated("Bangs_100.hair", 5000), "truncated"});
  {
    auto b = fixture("Bangs_100.hair");
    poke<std::uint32_t>(b, 8, 50'000'000);
    cases.push_back({"hair_count_larger_than_file", "bad.hair", b, "truncated"});
  }
  {
    auto b = fixture("Bangs_100.hair");
    poke<std::uint32_t>(b, 12, 0x3 | 0x40);
    cases.push_back({"hair_unknown_flag_bits", "bad.hair", b, "unknown array flag bits 0x40"});
  }
  {
    auto b = fixture("Bangs_100.hair");
    poke<float>(b, 128 + 200 + 12 * 7 + 4, nan);  // point 7, y
    cases.push_back({"hair_nan", "bad.hair", b, "byte 416: non-finite point coordinate"});
  }
  {
    auto b = fixture("Bangs_100.hair");
    poke<std::uint32_t>(b, 4, 0);
    cases.push_back({"hair_zero_strands", "bad.hair", b, "no strands"});
  }
  {
    auto b = fixture("Bangs_100.hair");
    std::memcpy(b.data(), "HAIX", 4);
    cases.push_back({"hair_bad_magic", "bad.hair", b, "not a HAIR file"});
  }
  // USC .data / CT2Hair .bin.
  // A cut file is caught where a count first promises more than is left.
  cases.push_back({"data_truncated", "bad.data", truncated("Bangs_100.data", 7001),
                   "byte 6984: strand 49 vertex count 16 is larger than the file"});
  cases.push_back({"bin_truncated", "bad.bin", truncated("Bangs_100.bin", 9000),
                   "byte 8880: strand 27 vertex count 15 is larger than the file"});
  {
    auto b = fixture("Bangs_100.data");
    poke<std::int32_t>(b, 0, 2'000'000'000);
    cases.push_back({"data_count_larger_than_file", "bad.data", b, "larger than the file"});
  }
  {
    auto b = fixture("Bangs_100.data");
    poke<std::int32_t>(b, 4, 1'000'000);  // first strand's vertex count
    cases.push_back({"data_vertices_larger_than_file", "bad.data", b, "larger than the file"});
  }
  {
    auto b = fixture("Bangs_100.data");
    poke<float>(b, 8 + 4, inf);
    cases.push_back({"data_inf", "bad.data", b, "byte 12: non-finite vertex coordinate"});
  }
  {
    auto b = fixture("Bangs_100.bin");
    poke<float>(b, 8, nan);
    cases.push_back({"bin_nan", "bad.bin", b, "byte 8: non-finite"});
  }
  cases.push_back({"data_zero_strands", "bad.data", std::vector<char>(4, 0), "no strands"});
  {
    auto b = fixture("Bangs_100.data");
    poke<std::int32_t>(b, 0, -3);
    cases.push_back({"data_negative_count", "bad.data", b, "negative strand count"});
  }
  // PLY.
  {
    auto b = fixture("Bangs_100_binary.ply");
    b.resize(b.size() - 100);
    cases.push_back({"ply_binary_truncated", "bad.ply", b,
                     "element 'edge' declares 1065 rows, more than the file holds"});
  }
  {
    auto b = fixture("Bangs_100_ascii.ply");
    b.resize(b.size() / 2);
    cases.push_back({"ply_ascii_truncated", "bad.ply", b, "unexpected end of file"});
  }
  {
    const std::string head =
        "ply\nformat binary_little_endian 1.0\nelement vertex 900000000\n"
        "property float x\nproperty float y\nproperty float z\n"
        "element strand 1\nproperty ushort nsegs\nend_header\n";
    auto b = text_bytes(head);
    b.resize(b.size() + 64, 0);
    cases.push_back({"ply_count_larger_than_file", "bad.ply", b, "more than the file holds"});
  }
  {
    auto b = fixture("Bangs_100_binary.ply");
    const std::size_t at = ply_data_start(b) + 15 * 3;  // vertex 3 (15-byte rows), x
    poke<float>(b, at, nan);
    cases.push_back({"ply_binary_nan", "bad.ply", b,
                     "byte " + std::to_string(at) + ": non-finite value in vertex.x row 3"});
  }
  cases.push_back({"ply_ascii_inf", "bad.ply",
                   text_bytes("ply\nformat ascii 1.0\nelement vertex 2\nproperty float x\n"
                              "property float y\nproperty float z\nelement strand 1\n"
                              "property ushort nsegs\nend_header\n0 0 0\n1 inf 0\n1\n"),
                   "non-finite"});
  cases.push_back({"ply_zero_strands", "bad.ply",
                   text_bytes("ply\nformat ascii 1.0\nelement vertex 0\nproperty float x\n"
                              "property float y\nproperty float z\nelement strand 0\n"
                              "property ushort nsegs\nend_header\n"),
                   "no strands"});
  cases.push_back({"ply_bad_magic", "bad.ply", text_bytes("plx\nformat ascii 1.0\n"), "not a PLY"});
  // Issue 27: a uchar of 300 and a fractional segment count were accepted.
  cases.push_back({"ply_uchar_out_of_range", "bad.ply",
                   text_bytes("ply\nformat ascii 1.0\nelement vertex 2\nproperty float x\n"
                              "property float y\nproperty float z\nproperty uchar red\n"
                              "element strand 1\nproperty ushort nsegs\nend_header\n"
                              "0 0 0 10\n1 0 0 300\n1\n"),
                   "a number 300 is outside its type's range 0 to 255"});
  cases.push_back({"ply_fractional_nsegs", "bad.ply",
                   text_bytes("ply\nformat ascii 1.0\nelement vertex 2\nproperty float x\n"
                              "property float y\nproperty float z\nelement strand 1\n"
                              "property float nsegs\nend_header\n0 0 0\n1 0 0\n2.5\n"),
                   "strand nsegs 2.500000 is not a whole number"});
  cases.push_back({"ply_nsegs_mismatch", "bad.ply",
                   text_bytes("ply\nformat ascii 1.0\nelement vertex 2\nproperty float x\n"
                              "property float y\nproperty float z\nelement strand 1\n"
                              "property ushort nsegs\nend_header\n0 0 0\n1 0 0\n5\n"),
                   "add up to 6 points"});
  // OBJ and USDA.
  cases.push_back({"obj_nan", "bad.obj", text_bytes("v 0 0 0\nv nan 1 0\nl 1 2\n"),
                   "byte 10 (line 2): non-finite"});
  cases.push_back({"obj_index_out_of_range", "bad.obj", text_bytes("v 0 0 0\nv 0 1 0\nl 1 3\n"),
                   "out of range"});
  cases.push_back({"obj_zero_strands", "bad.obj", text_bytes("v 0 0 0\nv 0 1 0\n"), "no strands"});
  cases.push_back({"usda_count_mismatch", "bad.usda",
                   text_bytes("#usda 1.0\ndef BasisCurves \"Hair\"\n{\n"
                              "    int[] curveVertexCounts = [3]\n"
                              "    point3f[] points = [(0, 0, 0), (0, 1, 0)]\n}\n"),
                   "add up to 3 points"});
  return cases;
}

TEST(BadInput, ReadersThrowErrorsNamingFileOffsetAndProblem) {
  ScratchDir dir;
  for (const BadCase& c : bad_cases()) {
    const auto path = dir / c.file;
    test::write_bytes(path, c.bytes);
    try {
      read_strands(path);
      ADD_FAILURE() << c.name << ": no error";
    } catch (const Error& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(path.string()), std::string::npos) << c.name << ": " << what;
      EXPECT_NE(what.find(c.message), std::string::npos) << c.name << ": " << what;
      EXPECT_EQ(what.find('\n'), std::string::npos) << c.name << ": " << what;
    }
  }
}

TEST(BadInput, CliExitsTwoWithOneLineAndNoOutput) {
  ScratchDir dir;
  for (const BadCase& c : bad_cases()) {
    const auto in = dir / c.file;
    test::write_bytes(in, c.bytes);
    for (const std::string out : {"out.ply", "out.hair"}) {
      const auto r =
          test::run_cli("convert '" + in.string() + "' '" + (dir / out).string() + "'", dir);
      EXPECT_EQ(r.exit_code, 2) << c.name;
      EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << c.name << ": " << r.err;
      EXPECT_EQ(r.err.rfind("hairsim: error: ", 0), 0u) << c.name << ": " << r.err;
      EXPECT_NE(r.err.find(c.message), std::string::npos) << c.name << ": " << r.err;
    }
    const auto r =
        test::run_cli("render '" + in.string() + "' -o '" + (dir / "x.png").string() + "'", dir);
    EXPECT_EQ(r.exit_code, 2) << c.name;
    // Only the input file remains: no output, no temporary file.
    EXPECT_EQ(dir.files(), std::vector<std::string>{c.file}) << c.name;
    std::filesystem::remove(in);
  }
}

TEST(BadInput, WorkThatCannotFitInMemoryExitsTwoWithTheEstimate) {
  // Issue 27: `convert --resample 1000000000` died in std::bad_alloc (exit 1, no hint). 100
  // strands of 1e9 vertices need 4.8e12 bytes (points and the writer's copy, 24 bytes each):
  // refused before allocating, naming the option and the estimate.
  ScratchDir dir;
  const auto r = run_cli("convert '" + data_path("Bangs_100.hair").string() + "' '" +
                             (dir / "out.ply").string() + "' --resample 1000000000",
                         dir);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--resample: 100 strands of 1000000000 vertices needs about 4.8e+03 GB"),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "out.ply"));
}

TEST(BadInput, CliRejectsBadArgumentsWithExitTwo) {
  ScratchDir dir;
  const std::string bangs = data_path("Bangs_100.hair").string();
  const std::string cases[] = {
      "info '" + bangs + "' --units furlong",
      "convert '" + bangs + "' '" + (dir / "out.xyz").string() + "'",
      "convert '" + bangs + "' '" + (dir / "out.ply").string() + "' --resample 1",
      "render '" + bangs + "' -o '" + (dir / "out.png").string() + "' --width 0",
      "render '" + bangs + "' -o '" + (dir / "out.png").string() + "' --up w",
      "render '" + bangs + "' -o '" + (dir / "out.jpg").string() + "'",
      "render '" + bangs + "' -o '" + (dir / "out.png").string() + "' --azimuth nan",
      "render '" + bangs + "' -o '" + (dir / "out.png").string() + "' --line-width inf",
      "generate --style frizzy -o '" + (dir / "g.hair").string() + "'",
      "generate --strands 0 -o '" + (dir / "g.hair").string() + "'",
      "generate --length -1 -o '" + (dir / "g.hair").string() + "'",
      "generate --length 1e300 -o '" + (dir / "g.hair").string() + "'",
      "generate --seed -1 -o '" + (dir / "g.hair").string() + "'",  // wrapped to 2^64 - 1
      // 1e12 points (48 TB with a copy): exit 1 "out of memory" after the allocation failed.
      "generate --strands 10000000 --vertices 100000 -o '" + (dir / "g.hair").string() + "'",
      // Outside the generator's range: a skipped row and exit 0.
      "bench --strands 10 --vertices 1000000 --steps 1",
      "bench --strands 20000000 --vertices 8 --steps 1",
      "info '" + (dir / "missing.hair").string() + "'", "info", "frobnicate"};
  for (const std::string& args : cases) {
    const auto r = test::run_cli(args, dir);
    EXPECT_EQ(r.exit_code, 2) << args;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << args << ": " << r.err;
    EXPECT_TRUE(dir.files().empty()) << args;
  }
}

TEST(BadInput, OutputsAndSpecialFilesAreCheckedBeforeTheWork) {
  // Issue 27's hostile probe: --out naming an existing file exited 1 with a filesystem error
  // after the whole run, `info` on a FIFO hung, a 100,000-character value was echoed whole.
  ScratchDir dir;
  std::ofstream(dir / "taken") << "not a folder";
  const std::string cantilever =
      std::string(HAIRSIM_SOURCE_DIR) + "/scenes/validation/cantilever_gravity.json";
  ASSERT_EQ(::mkfifo((dir / "pipe.hair").c_str(), 0600), 0);
  std::ofstream(dir / "long.json") << "{\"model\": \"" << std::string(100000, 'x') << "\"}";
  std::ofstream(dir / "twice.json")
      << R"({"hair": {"generate": {}}, "time": {"fps": 30, "fps": 60}})";
  std::ofstream(dir / "huge.obj") << "v 0 0 0\nv 3e38 0 0\nl 1 2\n";  // 3e38 m: inf in mm
  const std::pair<std::string, std::string> cases[] = {
      {"run '" + cantilever + "' --out '" + (dir / "taken").string() + "'",
       "--out: " + (dir / "taken").string() + " exists and is not a folder"},
      {"run '" + cantilever + "' --out '" + (dir / "taken" / "sub").string() + "'",
       "exists and is not a folder"},
      {"run '" + cantilever + "' --final '" + (dir / "nowhere" / "x.obj").string() + "'",
       "--final: the folder " + (dir / "nowhere").string() + " does not exist"},
      {"info '" + (dir / "pipe.hair").string() + "'", "pipe.hair: is not a regular file"},
      {"run '" + (dir / "long.json").string() + "'", "characters left out"},
      {"run '" + (dir / "twice.json").string() + "'",
       "twice.json: duplicate key 'fps' in one object"},
      {"convert '" + (dir / "huge.obj").string() + "' '" + (dir / "huge.ply").string() +
           "' --out-units mm",
       "huge.ply: a coordinate of"}};
  for (const auto& [args, message] : cases) {
    const auto r = test::run_cli(args, dir);
    EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos) << args << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_LT(r.err.size(), 600u) << args;
  }
  EXPECT_FALSE(std::filesystem::exists(dir / "out"));
}

TEST(BadInput, MeshColliderTooLargeForAGridExitsTwo) {
  // Found by tests/fuzz/ (fuzz_read_mesh): a mesh spanning 2e308 m (PLY doubles) made the distance
  // grid's cell counts NaN, converted to int (undefined behaviour, a random grid size).
  ScratchDir dir;
  std::ofstream(dir / "huge.ply") << "ply\nformat ascii 1.0\nelement vertex 3\n"
                                     "property double x\nproperty double y\nproperty double z\n"
                                     "element face 1\nproperty list uchar int vertex_indices\n"
                                     "end_header\n-1e308 0 0\n1e308 0 0\n0 1 0\n3 0 1 2\n";
  std::ofstream(dir / "scene.json")
      << R"({"hair": {"generate": {"strands": 4}, "vertices": 4},)"
      << R"( "head": {"colliders": [{"shape": "mesh", "file": "huge.ply", "resolution": 8}]}})";
  const auto r = test::run_cli(
      "run '" + (dir / "scene.json").string() + "' --out '" + (dir / "out").string() + "'", dir);
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_NE(r.err.find("huge.ply: the mesh is too large for a distance grid"), std::string::npos)
      << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "out"));
}

TEST(BadInput, DegenerateUscStrandsAreSkippedWithWarning) {
  // Real USC files hold strands with 0 or 1 vertex: skipped and counted, not an error.
  ScratchDir dir;
  std::vector<char> b(4);
  poke<std::int32_t>(b, 0, 4);
  auto add_strand = [&](int n) {
    const std::size_t at = b.size();
    b.resize(at + 4 + 12 * n);
    poke<std::int32_t>(b, at, n);
    for (int v = 0; v < n; ++v) poke<float>(b, at + 4 + 12 * v + 4, static_cast<float>(v));
  };
  add_strand(3);
  add_strand(0);
  add_strand(1);
  add_strand(2);
  test::write_bytes(dir / "d.data", b);
  ReadReport report;
  const StrandSet s = read_strands(dir / "d.data", {}, &report);
  EXPECT_EQ(s.strand_count(), 2u);
  EXPECT_EQ(s.point_count(), 5u);
  EXPECT_EQ(report.skipped_degenerate_strands, 2u);
  const auto r = test::run_cli("info '" + (dir / "d.data").string() + "'", dir);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_NE(r.err.find("skipped 2 degenerate strands"), std::string::npos) << r.err;
}

// Scene input a user gets wrong, each refused before any work: exit 2, one line naming the scene
// file and the field (or the option), no output folder.
void expect_refused(const std::string& args, const std::string& message, const ScratchDir& dir) {
  const auto r = run_cli(args + " --out '" + (dir / "out").string() + "'", dir);
  EXPECT_EQ(r.exit_code, 2) << args << "\n" << r.err;
  EXPECT_EQ(r.err.rfind("hairsim: error: ", 0), 0u) << args << ": " << r.err;
  EXPECT_NE(r.err.find(message), std::string::npos) << args << ": " << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << args << ": " << r.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "out")) << args;
}

TEST(BadInput, SceneWithoutHairOrRodSaysWhatASceneNeeds) {
  // `{}` said "rod.length: is required": a newcomer is told what a scene is, naming the file.
  ScratchDir dir;
  std::ofstream(dir / "empty.json") << "{}";
  std::ofstream(dir / "typo.json") << R"({"hiar": {"generate": {"strands": 4}}})";
  for (const char* file : {"empty.json", "typo.json"})
    expect_refused("run '" + (dir / file).string() + "'",
                   (dir / file).string() + ": scene: needs 'hair' (a hairstyle", dir);
}

TEST(BadInput, KernelLimitsOfAModelNameTheSceneFileAndField) {
  // The clothoid kernels hold at most 16 elements: 17 on cpu named no file (found when the
  // simulator was made); the reference takes 17.
  ScratchDir dir;
  const std::string bangs = std::string(HAIRSIM_SOURCE_DIR) + "/scenes/bangs.json";
  expect_refused(
      "run '" + bangs + "' --model super_clothoid --backend cpu --set solver.elements=17",
      bangs + ": solver.elements: at most 16 on the cpu and cuda backends (got 17)", dir);
}

TEST(BadInput, CosseratHessianIsOneOfTwoNames) {
  ScratchDir dir;
  const std::string bangs = std::string(HAIRSIM_SOURCE_DIR) + "/scenes/bangs.json";
  expect_refused("run '" + bangs + "' --model cosserat --set solver.hessian=exact",
                 bangs +
                     ": solver.hessian: must be 'projected_newton' or 'gauss_newton' (got "
                     "'exact')",
                 dir);
}

TEST(BadInput, ReferenceOnlySettingsAreRefusedOnTheKernels) {
  // The implicit velocity-product terms are the references' (the kernels keep them explicit): a
  // hairstyle asking for them on cpu exits 2 naming the file and field, for both reduced models.
  ScratchDir dir;
  const std::string bangs = std::string(HAIRSIM_SOURCE_DIR) + "/scenes/bangs.json";
  for (const char* model : {"super_helix", "super_clothoid"})
    expect_refused("run '" + bangs + "' --model " + model +
                       " --backend cpu --set solver.implicit_inertia=true",
                   bangs + ": solver.implicit_inertia: true only on the reference backend", dir);
}

TEST(BadInput, CudaWithoutADeviceIsARequestThatCannotBeMet) {
  // Exit 1 before (a failed run); the user's request cannot be met: exit 2 naming --backend, or
  // the scene file and its field. Only where cuda cannot run (the CI machines).
  ScratchDir dir;
  const auto devices = nlohmann::json::parse(run_cli("devices", dir).out);
  if (!devices["cuda"]["devices"].empty()) GTEST_SKIP() << "a CUDA device is present";
  std::ofstream(dir / "cuda.json")
      << R"({"hair": {"generate": {"strands": 4}, "vertices": 6}, "backend": "cuda"})";
  std::ofstream(dir / "rod.json") << R"({"rod": {"length": 0.1}, "backend": "cuda"})";
  const std::string bangs = std::string(HAIRSIM_SOURCE_DIR) + "/scenes/bangs.json";
  expect_refused("run '" + bangs + "' --backend cuda", "--backend: cuda: ", dir);
  expect_refused("run '" + (dir / "cuda.json").string() + "'",
                 (dir / "cuda.json").string() + ": backend: cuda: ", dir);
  expect_refused("run '" + (dir / "rod.json").string() + "'",
                 (dir / "rod.json").string() + ": backend: cuda: ", dir);
}

TEST(BadInput, PhysicalParametersOutsideTheirRangesNameTheField) {
  // 1e300 Pa passed as "positive" and the run failed at its first step (EI overflows a float);
  // each of these did the same or diverged. The ranges: scene/rod_material.hpp, hair_scene.cpp.
  ScratchDir dir;
  std::ofstream(dir / "s.json")
      << R"({"hair": {"generate": {"strands": 4}, "vertices": 6}, "time": {"frames": 1}})";
  const std::string run = "run '" + (dir / "s.json").string() + "' --set ";
  const std::string file = (dir / "s.json").string() + ": ";
  const std::pair<std::string, std::string> cases[] = {
      {"material.youngs_modulus=1e300",
       "material.youngs_modulus: must be > 0 and within [1, 1e13] (Pa) (got 1e+300)"},
      {"material.shear_modulus=1e-300", "material.shear_modulus: must be > 0 and within"},
      {"material.radius=1e-30", "material.radius: must be > 0 and within [1e-7, 1] (m)"},
      {"material.density=1e300", "material.density: must be > 0 and within [1e-3, 1e5]"},
      {"material.radius_variation=0.99999999 --set material.radius=1e-7",
       "material.radius_variation: gives strand "},
      {"'gravity=[0,-1e300,0]'", "gravity: must be at most 1e4 m/s²"},
      {"damping=1e300", "damping: must be >= 0 and <= 1e4 (1/s)"},
      {"air.drag_normal=1e300", "air.drag_normal: must be >= 0 and <= 100"},
      {"air.drag_tangent=1e300", "air.drag_tangent: must be >= 0 and <= 100"},
      {"'air.wind=[1e300,0,0]'", "air.wind: must be at most 1000 m/s"},
      {"air.gusts.strength=1e300", "air.gusts.strength: must be >= 0 and <= 1000"},
      {"'head.motion={\"type\":\"shake\",\"amplitude\":1e300}'",
       "head.motion.amplitude: must be >= 0 and <= 100"},
      {"'head.center=[1e300,0,0]'", "head.center: must be within 100 m of the origin"},
      // Each of these ran to `complete` (a 1e30 Hz shake, a keyframe turning 1e30 rad, an
      // ellipsoid of 1e300 m) or diverged at step 0 (a sphere of radius 1e300 m).
      {"'head.motion={\"type\":\"shake\",\"frequency\":1e30}'",
       "head.motion.frequency: must be > 0 and <= 1000 (Hz) (got 1e+30)"},
      {"'head.motion={\"type\":\"keyframes\",\"keyframes\":[{\"time\":0},"
       "{\"time\":0.5,\"rotation\":[1e30,0,0]}]}'",
       "head.motion.keyframes[1].rotation: must turn at most 100 rad"},
      {"'head.motion={\"type\":\"keyframes\",\"keyframes\":[{\"time\":0},"
       "{\"time\":1e300}]}'",
       "head.motion.keyframes[1].time: must be within [-1e6, 1e6] (s)"},
      {"'head.colliders=[{\"shape\":\"ellipsoid\",\"radii\":[1e300,0.1,0.1]}]'",
       "head.colliders[0].radii: must be > 0 and <= 100 (m)"},
      {"'head.colliders=[{\"shape\":\"sphere\",\"radius\":1e300}]'",
       "head.colliders[0].radius: must be > 0 and <= 100 (m)"},
      {"'head.colliders=[{\"shape\":\"sphere\",\"radius\":0.1,\"center\":[1e300,0,0]}]'",
       "head.colliders[0].center: must be within 100 m of the origin"},
      {"'head.colliders=[{\"shape\":\"capsule\",\"radius\":0.1,\"from\":[0,0,0],"
       "\"to\":[0,1e300,0]}]'",
       "head.colliders[0].to: must be within 100 m of the origin"},
      {"'head.colliders=[{\"shape\":\"sphere\",\"radius\":0.1,\"friction\":1e300}]'",
       "head.colliders[0].friction: must be >= 0 and <= 100"},
      {"head.friction=1e300", "head.friction: must be >= 0 and <= 100"},
      {"air.gusts.frequency=1e300", "air.gusts.frequency: must be > 0 and <= 1000 (Hz)"},
      {"air.gusts.size=1e-300", "air.gusts.size: must be within [1e-3, 1e3] (m)"}};
  for (const auto& [set, message] : cases) expect_refused(run + set, file + message, dir);
  // A single rod's material reads through the same ranges.
  expect_refused("run '" + std::string(HAIRSIM_SOURCE_DIR) +
                     "/scenes/validation/hair_swing.json' --set material.youngs_modulus=1e300",
                 "hair_swing.json: material.youngs_modulus: must be > 0 and within", dir);
}

}  // namespace
}  // namespace hairsim
