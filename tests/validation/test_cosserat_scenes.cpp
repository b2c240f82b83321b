// `hairsim run` with model "cosserat" (issue 6): the shipped scenes reproduce their cases, the
// cross-model comparison with DER (validation 8), and bad input.
#include <gtest/gtest.h>

#include <cmath>
#include <nlohmann/json.hpp>
#include <sstream>

#include "hairsim/io.hpp"
#include "hairsim/strands.hpp"
#include "test_support.hpp"

namespace hairsim {
namespace {

using test::run_cli;
using test::ScratchDir;

std::string scene(const std::string& name) {
  return std::string(HAIRSIM_SOURCE_DIR) + "/scenes/validation/" + name + ".json";
}

using test::read_json;

TEST(CosseratScenes, CantileverSceneWithModelCosseratMatchesReference) {
  // Validation 5 through the CLI: DER's cantilever scene (Γ = 10, 80 edges) with --model
  // cosserat: drop / L within 1e-3 of 0.700200; inextensible to round-off.
  ScratchDir dir;
  const auto r = run_cli("run '" + scene("cantilever_gravity") + "' --model cosserat --out '" +
                             dir.path().string() + "' --final '" + (dir / "rod.obj").string() + "'",
                         dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto summary = read_json(dir / "summary.json");
  EXPECT_EQ(summary["model"], "cosserat");
  EXPECT_EQ(summary["mode"], "static");
  const double drop =
      -summary["tip_position_m"][1].get<double>() / summary["length_m"].get<double>();
  EXPECT_NEAR(drop / 0.700200, 1.0, 1e-3);
  EXPECT_LE(std::abs(summary["inextensibility"].get<double>()), 1e-12);
  EXPECT_LE(summary["max_stretch_m"].get<double>(), 1e-12);
  const StrandSet rod = read_strands(dir / "rod.obj");
  ASSERT_EQ(rod.point_count(), 81u);
  EXPECT_EQ(rod.points.back().y(), summary["tip_position_m"][1].get<double>());
}

TEST(CosseratScenes, CurlyStrandHangsLikeTheDerStrand) {
  // Validation 8: a curl (helix of radius 1 cm, 3 cm per turn, 2 turns, 200 edges) clamped at
  // the top, hanging under gravity: static shapes of `cosserat` and `der` (its implicit static
  // solve with a stiff stretching modulus, strain ~1e-7) within 1e-3 L vertex by vertex. The
  // curl deforms by more than 0.1 L, so the agreement is about the loaded shape, not the rest.
  ScratchDir dir;
  const std::string curl = scene("curly_hanging");
  const auto c = run_cli("run '" + curl + "' --out '" + (dir / "c").string() + "' --final '" +
                             (dir / "cosserat.obj").string() + "'",
                         dir);
  ASSERT_EQ(c.exit_code, 0) << c.err;
  const auto d =
      run_cli("run '" + curl + "' --model der --set time.integrator=implicit " +
                  "--set material.stretching_stiffness=1000 --out '" + (dir / "d").string() +
                  "' --final '" + (dir / "der.obj").string() + "'",
              dir);
  ASSERT_EQ(d.exit_code, 0) << d.err;
  const StrandSet a = read_strands(dir / "cosserat.obj"), b = read_strands(dir / "der.obj");
  ASSERT_EQ(a.point_count(), b.point_count());
  const double length = read_json(dir / "c" / "summary.json")["length_m"].get<double>();
  double worst = 0;
  for (std::size_t i = 0; i < a.point_count(); ++i)
    worst = std::max(worst, (a.points[i] - b.points[i]).norm());
  const double sag =
      read_json(dir / "c" / "summary.json")["max_deviation_from_rest_m"].get<double>();
  std::cout << "cosserat vs der: " << worst / length << " L apart; sag " << sag / length << " L\n";
  EXPECT_LE(worst, 1e-3 * length);
  EXPECT_GE(sag, 0.1 * length);
}

TEST(CosseratScenes, HelixSceneReportsSolverWork) {
  // The Fig. 6 helix scene: 100 steps, the hybrid preconditioner's iterations per solve as in
  // the validation test (8.3 there; at most 15 here), Newton converged at every step.
  ScratchDir dir;
  const auto r =
      run_cli("run '" + scene("cosserat_helix") + "' --out '" + dir.path().string() + "'", dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto s = read_json(dir / "summary.json");
  EXPECT_EQ(s["steps"], 100);
  EXPECT_EQ(s["solver"]["preconditioner"], "hybrid");
  EXPECT_GT(s["solver"]["pcg_iterations_per_solve"].get<double>(), 1.0);
  EXPECT_LE(s["solver"]["pcg_iterations_per_solve"].get<double>(), 15.0);
  EXPECT_EQ(s["solver"]["steps_not_converged"], 0);
  EXPECT_LE(std::abs(s["inextensibility"].get<double>()), 1e-12);
}

TEST(CosseratScenes, DraggedRodSceneTracesEveryStep) {
  // Fig. 11's scene: 40 steps of 250 ms, a trace row per step, finite, energy bounded by the
  // validation test's m g L + ½ m v² (0.0417 J) above the start.
  ScratchDir dir;
  const auto r = run_cli(
      "run '" + scene("cosserat_dragged_rod") + "' --out '" + dir.path().string() + "'", dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto bytes = test::read_bytes(dir / "trace.csv");
  std::istringstream in(std::string(bytes.begin(), bytes.end()));
  std::string line;
  std::getline(in, line);
  EXPECT_EQ(line.rfind("step,time_s,tip_x_m", 0), 0u);
  int rows = 0;
  double last_time = 0;
  while (std::getline(in, line)) {
    ++rows;
    std::istringstream row(line);
    std::string step, time;
    std::getline(row, step, ',');
    std::getline(row, time, ',');
    last_time = std::stod(time);
  }
  EXPECT_EQ(rows, 41);  // step 0 and 40 steps
  EXPECT_NEAR(last_time, 10.0, 1e-12);
  const auto s = read_json(dir / "summary.json");
  EXPECT_LE(s["energies_J"]["kinetic"].get<double>(), 0.0417);
}

TEST(CosseratScenes, RodOnCylindersSceneRestsWithoutPenetrating) {
  // Fig. 17's scene: obstacles from the scene file; at most 1e-6 m penetration, in contact at
  // the end, slow (kinetic energy below 1e-3 of the 1.9e-3 J the drop released).
  ScratchDir dir;
  const auto r = run_cli(
      "run '" + scene("cosserat_rod_on_cylinders") + "' --out '" + dir.path().string() + "'", dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto s = read_json(dir / "summary.json");
  EXPECT_EQ(s["contacts"]["obstacles"], 3);
  EXPECT_GE(s["contacts"]["active_at_end"].get<int>(), 3);
  EXPECT_LE(s["contacts"]["max_penetration_m"].get<double>(), 1e-6);
  EXPECT_LT(s["energies_J"]["kinetic"].get<double>(), 1.9e-6);
}

TEST(CosseratScenes, BadScenesExitTwoNamingTheField) {
  ScratchDir dir;
  const std::string out = "--out '" + (dir / "out").string() + "'";
  const std::string cant = "'" + scene("cantilever_gravity") + "' --model cosserat ";
  const std::string cyl = "'" + scene("cosserat_rod_on_cylinders") + "' ";
  const std::pair<std::string, std::string> cases[] = {
      {cant + "--set solver.preconditioner=jacobi",
       "solver.preconditioner: must be 'diagonal', 'block_diagonal', 'hybrid' or 'exact'"},
      {cant + "--set solver.newton_tolerance=-1", "solver.newton_tolerance: must be > 0"},
      {cant + "--set solver.newton_max_iterations=0",
       "solver.newton_max_iterations: must be between 1"},
      {cant + "--set solver.cg=1", "solver.cg: unknown field"},
      {cant + "--set solver.bending_strain=cosine",
       "solver.bending_strain: must be 'tangent' or 'sine' (got 'cosine')"},
      {cant + "--set rod.tip=clamped", "rod.tip: model 'cosserat' takes a free tip only"},
      {cant + "--set rod.shape=ring --set rod.radius=1", "rod.shape: model 'cosserat' takes open"},
      {cant + "--set backend=cpu", "backend: model 'cosserat' runs on the reference backend"},
      {cant + "--set time.integrator=symplectic", "time.integrator: model 'cosserat' steps"},
      {cant + "--set damping=0.1", "damping: is not supported by model 'cosserat'"},
      {cant + "--set rod.root=free", "material: a rod with a free root needs material.radius"},
      {cant + "--set 'obstacles=[{\"type\":\"cone\"}]'", "obstacles[0].type: must be 'plane'"},
      {cant + "--set 'obstacles=[{\"type\":\"plane\",\"point\":[0,0,0],\"normal\":[0,0,0]}]'",
       "obstacles[0].normal: must be non-zero"},
      {cant + "--set 'obstacles=[{\"type\":\"sphere\",\"center\":[0,0,0],\"radius\":-1}]'",
       "obstacles[0].radius: must be > 0"},
      {cyl + "--set contact_thickness=-0.1", "contact_thickness: must be >= 0"},
      {cyl + "--set 'obstacles=[{\"type\":\"plane\",\"point\":[0,0,0],\"normal\":[0,1,0]," +
           "\"friction\":-0.2}]'",
       "obstacles[0].friction: must be >= 0"},
      {cyl + "--set solver.stick_speed=0", "solver.stick_speed: must be > 0"},
      {cant + "--set static.tolerance=0", "static.tolerance: must be > 0"},
  };
  for (const auto& [args, expected] : cases) {
    const auto r = run_cli("run " + args + " " + out, dir);
    EXPECT_EQ(r.exit_code, 2) << args;
    EXPECT_NE(r.err.find(expected), std::string::npos) << args << "\n" << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_FALSE(std::filesystem::exists(dir / "out")) << args;
  }
}

}  // namespace
}  // namespace hairsim
