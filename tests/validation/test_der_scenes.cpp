// `hairsim run` on the DER validation scenes (issue 3): every shipped scene reproduces its case.
#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <numbers>
#include <sstream>

#include "hairsim/io.hpp"
#include "hairsim/strands.hpp"
#include "test_support.hpp"

namespace hairsim {
namespace {

using test::run_cli;
using test::ScratchDir;

const std::string kCantilever =
    std::string(HAIRSIM_SOURCE_DIR) + "/scenes/validation/cantilever_gravity.json";

using test::read_json;

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

void write_text(const std::filesystem::path& p, const std::string& text) {
  test::write_bytes(p, std::vector<char>(text.begin(), text.end()));
}

TEST(DerScenes, HairSwingSceneIsStableAtTwoMilliseconds) {
  // scenes/validation/hair_swing.json, issue 3 case 9: a 10 cm hair (r = 50 µm, E = 3 GPa,
  // ρ = 1300 kg/m³, 32 vertices) released horizontally, 1 s at Δt = 2 ms, implicit.
  ScratchDir dir;
  const std::string scene = std::string(HAIRSIM_SOURCE_DIR) + "/scenes/validation/hair_swing.json";
  const auto r = run_cli("run '" + scene + "' --out '" + dir.path().string() + "'", dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto summary = read_json(dir / "summary.json");
  EXPECT_TRUE(summary["finite"].get<bool>());
  EXPECT_EQ(summary["steps"], 500);
  const double tip_y = summary["tip_position_m"][1].get<double>();
  EXPECT_LT(tip_y, -0.05);  // swung down (Γ ≈ 6.8: it sags about 0.6 L when at rest)
  EXPECT_GT(tip_y, -0.1);   // not below its length
  // Edge strain of the final state: about the static tension strain ρSgL/EA = 4.2e-7 (root).
  const double edge = 0.1 / 30.5;
  EXPECT_LT(summary["max_stretch_m"].get<double>() / edge, 1e-6);
}

TEST(DerScenes, ImplicitCantileverSceneReproducesCase2) {
  ScratchDir dir;
  const std::string scene =
      std::string(HAIRSIM_SOURCE_DIR) + "/scenes/validation/cantilever_gravity_implicit.json";
  const auto r = run_cli("run '" + scene + "' --out '" + dir.path().string() + "'", dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto summary = read_json(dir / "summary.json");
  EXPECT_NEAR(-summary["tip_position_m"][1].get<double>() / 0.700200, 1.0, 1e-3);
}

TEST(DerScenes, GroomedHelixIsAtRestUnderNoLoad) {
  // Issue 3: any rest polyline, curls included, is at rest when no load acts: 500 steps without
  // gravity leave it exactly where it was, with zero elastic energy.
  ScratchDir dir;
  write_text(dir / "helix.json", R"({
    "rod": {"shape": "helix", "radius": 0.01, "pitch": 0.02, "turns": 3, "edges": 60,
            "direction": [0, -1, 0]},
    "material": {"radius": 5e-5},
    "gravity": [0, 0, 0],
    "time": {"steps": 500}
  })");
  auto r = run_cli("run '" + (dir / "helix.json").string() + "' --out '" + (dir / "a").string() +
                       "' --set time.steps=0",
                   dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = run_cli("run '" + (dir / "helix.json").string() + "' --out '" + (dir / "b").string() + "'",
              dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto a = read_json(dir / "a" / "summary.json"), b = read_json(dir / "b" / "summary.json");
  EXPECT_EQ(a["tip_position_m"], b["tip_position_m"]);
  EXPECT_EQ(b["energies_J"]["bending"].get<double>(), 0.0);
  EXPECT_EQ(b["energies_J"]["twist"].get<double>(), 0.0);
}

TEST(DerScenes, PolylineRodAndClampMotion) {
  // A polyline rest shape resampled to 12 edges, its root clamp moving at 0.5 m/s along z from
  // rest (implicit integrator, gravity): after 0.1 s the clamp point has moved 5 cm.
  ScratchDir dir;
  write_text(dir / "poly.json", R"({
    "rod": {"shape": "polyline", "points": [[0, 0, 0], [0.05, -0.01, 0], [0.1, -0.03, 0.01]],
            "edges": 12, "root_motion": {"velocity": [0, 0, 0.5]}},
    "material": {"radius": 5e-5},
    "time": {"integrator": "implicit", "dt": 0.001, "steps": 100}
  })");
  const auto r =
      run_cli("run '" + (dir / "poly.json").string() + "' --out '" + dir.path().string() +
                  "' --final '" + (dir / "final.ply").string() + "'",
              dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const StrandSet s = read_strands(dir / "final.ply");
  ASSERT_EQ(s.point_count(), 13u);
  const Vec3 clamp_point = 0.5 * (s.points[0] + s.points[1]);
  // The first edge lies in z = 0 at t = 0; its midpoint moved 0.5 m/s x 0.1 s along z
  // (float32 file precision).
  EXPECT_NEAR(clamp_point.z(), 0.05, 1e-6);
  EXPECT_GT(s.points.back().z(), 0.0);  // the free end follows
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
      {"--set model=superhelix",
       "model: unknown model 'superhelix' (available: der, cosserat, super_helix, super_clothoid)"},
      {"--set backend=gpu", "backend: must be 'reference', 'cpu', 'cuda' or 'auto'"},
      {"--set time.dt=0", "time.dt: must be > 0"},
      {"--set static.enabled=yes", "static.enabled: must be true or false"},
      {"--set time.integrator=rk4", "time.integrator: must be 'symplectic' or 'implicit'"},
      {"--set time.integrator=implicit", "material: the implicit integrator needs"},
      {"--set 'loads.tip_force=[0,1]'", "loads.tip_force: must be an array of 3 numbers"},
      {"--set loads.wind=1", "loads.wind: unknown field"},
      {"--set air.drag_normal=-1", "air.drag_normal: must be >= 0"},
      {"--set 'air.wind=[1,0]'", "air.wind: must be an array of 3 numbers"},
      {"--set air.gusts=1", "air.gusts: unknown field"},
      {"--set rod.shape=spiral", "rod.shape: must be 'straight', 'helix', 'polyline' or 'ring'"},
      {"--set rod.shape=polyline --set 'rod.points=[[0,0,0],[1,2]]'",
       "rod.points: entry 1 must be an array of 3 numbers"},
      {"--set rod.shape=helix --set rod.radius=0.01 --set rod.pitch=0.01",
       "rod.turns: is required"},
      {"--set rod.root=free --set 'rod.root_motion={\"velocity\":[1,0,0]}'",
       "rod.root_motion: needs rod.root = clamped"},
      {"--set 'rod.tip_motion={\"spin\":1}' --set rod.tip=clamped",
       "rod.tip_motion.spin: unknown field"},
      {"--set rod.shape=ring --set rod.radius=1 --set rod.root=clamped",
       "rod.root: a ring has no ends"},
      {"--set rod.closing_twist=1", "rod.closing_twist: needs rod.shape = ring"},
      {"--set rod.tip_twist=1", "rod.tip_twist: needs rod.tip = clamped"},
      {"--set 'rod.tip_motion={\"duration\":0}' --set rod.tip=clamped",
       "rod.tip_motion.duration: must be > 0"},
      {"--set static.enabled=false --set 'body={\"mass\":1}'", "body.inertia: is required"},
      {"--set static.enabled=false --set 'body={\"mass\":1,\"inertia\":[1,1,0]}'",
       "body.inertia: principal moments (kg m^2) must be > 0"},
      {"--set static.enabled=false --set "
       "'body={\"mass\":1,\"inertia\":[1,1,1],\"position\":\"axis\"}'",
       "body.position: must be [x, y, z] or \"helix_axis\""},
      {"--set static.enabled=false --set "
       "'body={\"mass\":1,\"inertia\":[1,1,1],\"position\":\"helix_axis\"}'",
       "body.position: \"helix_axis\" needs rod.shape = helix"},
      {"--set 'body={\"mass\":1,\"inertia\":[1,1,1]}'", "static: static mode does not take bodies"},
      {"--set initial.mode=1 --set rod.tip=clamped", "initial.mode: needs a straight rod"},
      {"--set initial.perturbation=-1", "initial.perturbation: must be >= 0"},
      {"--set output.trace_every=-1", "output.trace_every: must be between"},
      {"--set output.every=1", "output.every: unknown field"},
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

std::string scene_path(const std::string& name) {
  return std::string(HAIRSIM_SOURCE_DIR) + "/scenes/validation/" + name;
}

// Runs scenes/validation/NAME into OUT with extra arguments; false (and a test failure) if the
// run failed.
bool run_scene(const std::string& name, const std::filesystem::path& out, const ScratchDir& dir,
               const std::string& extra = "") {
  const auto r =
      run_cli("run '" + scene_path(name) + "' --out '" + out.string() + "' " + extra, dir);
  EXPECT_EQ(r.exit_code, 0) << name << ": " << r.err;
  return r.exit_code == 0;
}

// Largest |y - y(0)| over samples with t in [from, to).
double amplitude(const std::vector<double>& t, const std::vector<double>& y, double from,
                 double to) {
  double a = 0;
  for (std::size_t i = 0; i < t.size(); ++i)
    if (t[i] >= from && t[i] < to) a = std::max(a, std::abs(y[i] - y[0]));
  return a;
}

TEST(DerScenes, CpuBackendRunsTheSceneLikeTheReference) {
  // Issue 4: `hairsim run --backend cpu` steps the scene with the batched kernels. A curl whose
  // root turns and translates, 3000 symplectic steps: the same tip as the reference to 1e-12 m
  // (the parity tests bound the kernels to round-off). A scene the engine cannot run yet is
  // refused naming the field; cuda without a device fails the run (exit 1), saying why.
  ScratchDir dir;
  write_text(dir / "curl.json", R"({
    "rod": {"shape": "helix", "radius": 0.01, "pitch": 0.02, "turns": 3, "edges": 30,
            "direction": [0, -1, 0],
            "root_motion": {"angular_velocity": [0, 3, 0], "velocity": [0.1, 0, 0]}},
    "material": {"radius": 5e-5}, "damping": 1, "time": {"steps": 3000}
  })");
  const std::string scene = "run '" + (dir / "curl.json").string() + "' --out '";
  ASSERT_EQ(run_cli(scene + (dir / "ref").string() + "'", dir).exit_code, 0);
  const auto r = run_cli(scene + (dir / "cpu").string() + "' --backend cpu", dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto ref = read_json(dir / "ref" / "summary.json"),
             cpu = read_json(dir / "cpu" / "summary.json");
  EXPECT_EQ(cpu["backend"], "cpu");
  for (int k = 0; k < 3; ++k)
    EXPECT_NEAR(cpu["tip_position_m"][k].get<double>(), ref["tip_position_m"][k].get<double>(),
                1e-12);
  EXPECT_GT(std::abs(ref["tip_position_m"][0].get<double>()), 0.01);  // the root motion acted
  // The implicit integrator likewise (300 steps of the default dt): block Thomas against Eigen's
  // sparse LDLᵀ, round-off apart, amplified by the stiff stretching (measured 2.1e-12 m; the
  // issue's bound 1e-9 L is 2e-10 m here).
  const std::string implicit = " --set time.integrator=implicit --set time.steps=300";
  ASSERT_EQ(run_cli(scene + (dir / "ref_implicit").string() + "'" + implicit, dir).exit_code, 0);
  const auto ri =
      run_cli(scene + (dir / "cpu_implicit").string() + "' --backend cpu" + implicit, dir);
  ASSERT_EQ(ri.exit_code, 0) << ri.err;
  const auto ref_i = read_json(dir / "ref_implicit" / "summary.json"),
             cpu_i = read_json(dir / "cpu_implicit" / "summary.json");
  for (int k = 0; k < 3; ++k)
    EXPECT_NEAR(cpu_i["tip_position_m"][k].get<double>(), ref_i["tip_position_m"][k].get<double>(),
                1e-10);
  EXPECT_GT(std::abs(ref_i["tip_position_m"][0].get<double>()), 0.01);
  const auto refused =
      run_cli("run '" + kCantilever + "' --out '" + (dir / "x").string() + "' --backend cpu", dir);
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.err.find("backend: 'cpu' does not run static mode yet"), std::string::npos)
      << refused.err;
  EXPECT_FALSE(std::filesystem::exists(dir / "x"));
}

TEST(DerScenes, MichellRingSceneBucklesAboveCriticalTwistOnly) {
  // Case 4 from scenes/validation/michell_ring.json: α = β = 1, n = 50, perturbation 1e-4; the
  // scene twists the ring by 1.05 Θc (Θc = 2π√3 = 10.8828): the ring writhes out of its plane.
  // At 0.95 Θc the perturbation stays as small as it started (40 time units both).
  ScratchDir dir;
  ASSERT_TRUE(run_scene("michell_ring.json", dir / "above", dir));
  ASSERT_TRUE(
      run_scene("michell_ring.json", dir / "below", dir, "--set rod.closing_twist=10.33865638"));
  const auto above = read_json(dir / "above" / "summary.json"),
             below = read_json(dir / "below" / "summary.json");
  EXPECT_GT(above["max_deviation_from_rest_m"].get<double>(), 0.1);
  EXPECT_LT(below["max_deviation_from_rest_m"].get<double>(), 5e-4);  // a few perturbations
  EXPECT_LT(below["twist_residual_N_m"].get<double>(), 1e-10);        // case 7
  EXPECT_LT(below["max_stretch_m"].get<double>(), 1e-10 * 2 * std::numbers::pi);
  const auto trace = test::read_trace(dir / "above" / "trace.csv");
  EXPECT_EQ(trace.at("step").size(), 26667u / 100 + 1);
  EXPECT_LT(trace.at("max_deviation_m").front(), 5e-4);  // it grew from the perturbation
}

TEST(DerScenes, HelicalBucklingSceneReproducesCase5) {
  // Case 5 from scenes/validation/helical_buckling.json (n = 110): the maximal tangent deviation
  // is the discrete equilibrium's φ0 = 0.772 of test_der_helical_buckling.cpp (the analytic
  // 0.9186 is reached only under refinement, docs/models/der.md); the perturbation differs, so
  // within 1 %.
  ScratchDir dir;
  ASSERT_TRUE(run_scene("helical_buckling.json", dir.path(), dir));
  const auto summary = read_json(dir / "summary.json");
  EXPECT_NEAR(summary["max_tangent_rotation_rad"].get<double>() / 0.772, 1.0, 0.01);
  EXPECT_LT(summary["twist_residual_N_m"].get<double>(), 1e-10);
}

TEST(DerScenes, CantileverVibrationSceneReproducesCase6) {
  // Case 6 from scenes/validation/cantilever_vibration.json: L = EI = ρS = 1, 40 edges, started
  // in the first mode at 1e-4 L; the tip's zero crossings in trace.csv give ω1 = 3.5160 within
  // 0.5 %.
  ScratchDir dir;
  ASSERT_TRUE(run_scene("cantilever_vibration.json", dir.path(), dir));
  const auto trace = test::read_trace(dir / "trace.csv");
  const double omega = test::crossing_frequency(trace.at("time_s"), trace.at("tip_y_m"));
  EXPECT_NEAR(omega / 3.5160, 1.0, 0.005);
}

TEST(DerScenes, WilberforceSceneBeats) {
  // Case 8 from scenes/validation/wilberforce.json: the tuned spring of test_der_wilberforce.cpp
  // (3 turns, 24 edges per turn), its bob started downwards, coils at rest. Helical-spring theory:
  // beat period 2π/(ω₂ - ω₁) = 1415.4. Around half a beat the vertical motion has mostly gone
  // into rotation; after a full beat it is back.
  ScratchDir dir;
  ASSERT_TRUE(run_scene("wilberforce.json", dir.path(), dir));
  const auto trace = test::read_trace(dir / "trace.csv");
  const auto& t = trace.at("time_s");
  const auto& z = trace.at("body_z_m");
  const auto& turn = trace.at("body_rotation_z_rad");
  const double beat = 1415.4;
  const double z_start = amplitude(t, z, 0, 0.15 * beat),
               z_half = amplitude(t, z, 0.45 * beat, 0.55 * beat),
               z_end = amplitude(t, z, 0.95 * beat, 1.05 * beat);
  const double turn_start = amplitude(t, turn, 0, 0.15 * beat),
               turn_half = amplitude(t, turn, 0.45 * beat, 0.55 * beat);
  EXPECT_LT(z_half, 0.3 * z_start);
  EXPECT_GT(z_end, 0.8 * z_start);
  EXPECT_GT(turn_half, 2 * turn_start);
}

}  // namespace
}  // namespace hairsim
