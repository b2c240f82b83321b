// `hairsim run` on the DER validation scenes (issue 3): the shipped scene reproduces case 2.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "hairsim/io.hpp"
#include "test_support.hpp"

namespace hairsim {
namespace {

using test::run_cli;
using test::ScratchDir;

const std::string kCantilever =
    std::string(HAIRSIM_SOURCE_DIR) + "/scenes/validation/cantilever_gravity.json";

nlohmann::json read_json(const std::filesystem::path& p) {
  const auto b = test::read_bytes(p);
  return nlohmann::json::parse(b.begin(), b.end());
}

TEST(DerScenes, CantileverSceneReproducesCase2) {
  ScratchDir dir;
  const auto r = run_cli("run '" + kCantilever + "' --out '" + dir.path().string() + "' --final '" +
                             (dir / "tip.obj").string() + "'",
                         dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto summary = read_json(dir / "summary.json");
  const double drop =
      -summary["tip_position_m"][1].get<double>() / summary["length_m"].get<double>();
  EXPECT_NEAR(drop / 0.700200, 1.0, 1e-3);  // issue 3, case 2 at Γ = 10, 80 edges
  EXPECT_TRUE(summary["finite"].get<bool>());
  EXPECT_LE(summary["max_stretch_m"].get<double>(), 1e-10);
  const StrandSet final_state = read_strands(dir / "tip.obj");
  ASSERT_EQ(final_state.point_count(), 81u);
  EXPECT_EQ(final_state.points.back().y(), summary["tip_position_m"][1].get<double>());
}

TEST(DerScenes, SetOverridesSceneFields) {
  // Γ = 1 through --set, 20 edges: drop close to 0.123471 (discretisation error ~1e-3 at 20).
  ScratchDir dir;
  const auto r = run_cli("run '" + kCantilever + "' --out '" + dir.path().string() +
                             "' --set 'gravity=[0,-1,0]' --set rod.edges=20",
                         dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto summary = read_json(dir / "summary.json");
  EXPECT_NEAR(-summary["tip_position_m"][1].get<double>(), 0.123471, 0.005 * 0.123471);
}

TEST(DerScenes, ImplicitIntegratorFromTheScene) {
  // Case 9 through `hairsim run`: the implicit static solve reaches the case-2 drop.
  ScratchDir dir;
  const auto r =
      run_cli("run '" + kCantilever + "' --out '" + dir.path().string() +
                  "' --set time.integrator=implicit --set material.stretching_stiffness=1e7",
              dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto summary = read_json(dir / "summary.json");
  EXPECT_EQ(summary["integrator"], "implicit");
  EXPECT_NEAR(-summary["tip_position_m"][1].get<double>() / 0.700200, 1.0, 1e-3);
}

TEST(DerScenes, BadScenesExitTwoNamingTheField) {
  ScratchDir dir;
  const std::string out = "--out '" + (dir / "out").string() + "'";
  const std::pair<std::string, std::string> cases[] = {
      {"--set rod.lenght=2", "rod.lenght: unknown field"},
      {"--set rod.length=-1", "rod.length: must be > 0"},
      {"--set rod.edges=1", "rod.edges: must be between 2"},
      {"--set rod.edges=2.5", "rod.edges: must be an integer"},
      {"--set material.linear_density=0", "material.linear_density: must be > 0"},
      {"--set 'gravity=[0,1]'", "gravity: must be an array of 3 numbers"},
      {"--set rod.root=glued", "rod.root: must be 'clamped' or 'free'"},
      {"--set model=cosserat", "model: this build runs model 'der' only"},
      {"--set time.dt=0", "time.dt: must be > 0"},
      {"--set static.enabled=yes", "static.enabled: must be true or false"},
      {"--set time.integrator=rk4", "time.integrator: must be 'symplectic' or 'implicit'"},
      {"--set time.integrator=implicit", "material: the implicit integrator needs"},
      {"--set noequals", "expected key.path=value"},
      {"--final out.xyz", "unknown strand file extension"}};
  for (const auto& [args, message] : cases) {
    const auto r = run_cli("run '" + kCantilever + "' " + out + " " + args, dir);
    EXPECT_EQ(r.exit_code, 2) << args;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << args << ": " << r.err;
    EXPECT_NE(r.err.find(message), std::string::npos) << args << ": " << r.err;
    EXPECT_TRUE(dir.files().empty()) << args;  // nothing written
  }
  test::write_bytes(dir / "broken.json", {'{', '"', 'a', '"', ':', ' ', '}'});
  const auto r = run_cli("run '" + (dir / "broken.json").string() + "' " + out, dir);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("broken.json: byte 7: invalid JSON"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace hairsim
