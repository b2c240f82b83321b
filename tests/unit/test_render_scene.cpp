// Scenes with render strands (docs/scenes.md, `render`): bad fields exit 2 with one line naming
// the JSON path and write nothing; a small run writes frame files holding guides and render
// strands as asked, previews and the contact sheet.
#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>

#include "hairsim/io.hpp"
#include "test_support.hpp"

namespace hairsim {
namespace {

using test::ScratchDir;

const char* kBase = R"("hair": {"generate": {"strands": 30, "length": 0.1}, "vertices": 6},
  "time": {"fps": 30, "frames": 2})";

std::string scene(const std::string& extra) {
  return std::string("{") + kBase + (extra.empty() ? "" : ", " + extra) + "}";
}

TEST(RenderScene, BadRenderFieldsExitTwoNamingThePath) {
  ScratchDir dir;
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"("render": {"strands": -1})", "render.strands"},
      {R"("render": {"strands": 10, "interpolation": "cubic"})", "render.interpolation"},
      {R"("render": {"strands": 10, "clump": 1.5})", "render.clump"},
      {R"("render": {"strands": 10, "jitter": -0.1})", "render.jitter"},
      {R"("render": {"strands": 10, "nearest": 9})", "render.nearest"},
      {R"("render": {"strands": 10, "colour": 1})", "render.colour"},
      {R"("output": {"strands": "render"})", "output.strands"},
      {R"("render": {"strands": 10}, "output": {"strands": "all"})", "output.strands"},
  };
  for (const auto& [extra, path] : cases) {
    std::ofstream(dir / "scene.json") << scene(extra);
    const auto r = test::run_cli(
        "run '" + (dir / "scene.json").string() + "' --out '" + (dir / "out").string() + "'", dir);
    EXPECT_EQ(r.exit_code, 2) << extra << "\n" << r.err;
    EXPECT_NE(r.err.find("scene.json: " + path + ":"), std::string::npos) << extra << ": " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_FALSE(std::filesystem::exists(dir / "out")) << extra;
  }
}

TEST(RenderScene, BadScalpFieldsExitTwoNamingThePath) {
  ScratchDir dir;
  const std::string head = test::data_path("Bangs_head.ply").string();
  const std::vector<std::pair<std::string, std::string>> cases = {
      {R"("cap": {"point": [10, 0, 0], "normal": [1, 0, 0]})", "hair.generate.scalp.cap"},
      {R"("faces": [1, 99999999])", "hair.generate.scalp.faces"},
      {R"("cap": {"point": [0, 0, 0], "normal": [0, 0, 0]})", "hair.generate.scalp.cap.normal"},
      {R"("cap": {"point": [0, 0, 0], "normal": [1, 0, 0]}, "faces": [1])",
       "hair.generate.scalp.cap"},
  };
  for (const auto& [region, path] : cases) {
    std::ofstream(dir / "scene.json")
        << R"({"hair": {"generate": {"strands": 5, "scalp": {"file": ")" << head
        << R"(", "units": "mm", "up": [1, 0, 0], "front": [0, -1, 0], )" << region
        << R"(}}, "vertices": 4}, "gravity": [-9.81, 0, 0], "time": {"frames": 1}})";
    const auto r = test::run_cli(
        "run '" + (dir / "scene.json").string() + "' --out '" + (dir / "out").string() + "'", dir);
    EXPECT_EQ(r.exit_code, 2) << region << "\n" << r.err;
    EXPECT_NE(r.err.find("scene.json: " + path + ":"), std::string::npos)
        << region << ": " << r.err;
    EXPECT_FALSE(std::filesystem::exists(dir / "out")) << region;
  }
}

// 30 guides, 200 render strands, frame files holding both (guides first), previews and the
// contact sheet: the counts are the scene's, the render strands' roots stay on the scalp
// ellipsoid (a still head), and their other vertices outside the head's collider.
TEST(RenderScene, RunWritesGuidesAndRenderStrandsAndAContactSheet) {
  ScratchDir dir;
  std::ofstream(dir / "scene.json") << scene(
      R"("render": {"strands": 200, "clump": 0.2, "jitter": 0.001},
         "head": {"colliders": [{"shape": "ellipsoid", "radii": [0.083, 0.103, 0.103]}]},
         "output": {"frames": "hair", "strands": "both", "png_every": 1, "width": 64,
                    "height": 64})");
  const auto r = test::run_cli(
      "run '" + (dir / "scene.json").string() + "' --out '" + (dir / "out").string() + "'", dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const StrandSet f = read_strands(dir / "out" / "frames" / "frame_00002.hair");
  EXPECT_EQ(f.strand_count(), 230u);
  EXPECT_EQ(f.point_count(), 230u * 6u);
  const Vec3 radii(0.075, 0.095, 0.095);  // the generator's default head
  double worst = 0;
  for (std::size_t s = 30; s < 230; ++s)
    worst = std::max(worst, std::abs(f.strand(s)[0].cwiseQuotient(radii).norm() - 1));
  // Roots on the ellipsoid to float precision (the frame holds float positions) on a still head.
  EXPECT_LT(worst, 1e-5);
  EXPECT_TRUE(std::filesystem::exists(dir / "out" / "contact_sheet.png"));
  // No render vertex past the root edge inside the collider, 8 mm larger than the scalp the
  // guides grow on (between guides that wrap around it, the strands would dip in otherwise).
  const Vec3 collider(0.083, 0.103, 0.103);
  int inside = 0;
  for (std::size_t s = 30; s < 230; ++s)
    for (std::size_t j = 2; j < 6; ++j)
      inside += f.strand(s)[j].cwiseQuotient(collider).norm() < 1 - 1e-5;
  EXPECT_EQ(inside, 0);
  EXPECT_TRUE(std::filesystem::exists(dir / "out" / "png" / "frame_00002.png"));
  const auto summary = test::read_json(dir / "out" / "summary.json");
  EXPECT_EQ(summary.at("render").at("strands"), 200);
  EXPECT_EQ(summary.at("render").at("files_hold"), "both");
}

}  // namespace
}  // namespace hairsim
