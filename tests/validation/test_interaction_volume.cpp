// Hair-hair interaction's effect (issue 22): a generated groom on a still head under gravity.
// Without interaction strands pass through each other and the groom settles onto the scalp; with
// it the volume term holds the hair apart. Measured: the mean distance of the free vertices from
// the scalp (radially from the head's centre to its ellipsoid) and the groom's occupied volume
// (1 cm cells holding a vertex), at the end against the start. CI runs 300 strands for 1 s; with
// HAIRSIM_FULL_EFFECT=1 it runs the case, 2,000 strands for 2 s (bench/RESULTS.md has
// its numbers and the command).
#include <cmath>
#include <cstdlib>
#include <iostream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "engine/interaction_stage.hpp"
#include "hairsim/generate.hpp"
#include "hairsim/simulator.hpp"
#include "test_support.hpp"

namespace hairsim {
namespace {

const Vec3 kRadii{0.075, 0.095, 0.095};

struct Volume {
  double scalp_distance = 0;  // m, mean over free vertices
  double occupied = 0;        // m³
};

Volume measure(const std::vector<Vec3>& x, int vertices) {
  Volume v;
  long count = 0;
  for (std::size_t k = 0; k < x.size(); ++k) {
    if (int(k % std::size_t(vertices)) < 2) continue;
    const double scaled = x[k].cwiseQuotient(kRadii).norm();
    v.scalp_distance += x[k].norm() * (1 - 1 / scaled);
    ++count;
  }
  v.scalp_distance /= double(count);
  // Occupied 1 cm cells (the stage's own count on the positions).
  std::vector<double> ones(x.size(), 1.0);
  kernels::interaction::Points<double> pts;
  for (int c = 0; c < 3; ++c) {
    pts.position.array[c] = pts.velocity.array[c] = const_cast<double*>(x[0].data()) + c;
  }
  pts.position.rows = pts.velocity.rows = 3 * int(x.size());
  pts.position.vertex_rows = pts.velocity.vertex_rows = 3;
  pts.mass = {ones.data(), int(x.size()), 1, 0};
  pts.strands = 1, pts.vertices = int(x.size()), pts.tile_width = 1;
  engine::HostInteraction<double> stage;
  stage.splat(pts, 0.01);
  v.occupied = double(stage.occupied_cells()) * 1e-6;
  return v;
}

struct Effect {
  Volume start, end;
};

Effect run(int strands, int vertices, double seconds, bool interaction, std::string model) {
  HairstyleParams p;
  p.style = HairStyle::wavy;
  p.strands = strands;
  p.vertices = vertices;
  HairSetup setup;
  setup.strands = generate_hairstyle(p);
  Collider head;
  head.shape = Collider::Shape::ellipsoid;
  head.radii = kRadii;
  head.friction = 0.3;
  setup.colliders.push_back(head);
  setup.integrator = Integrator::implicit;
  setup.dt = 1e-3;
  setup.damping = 0.5;
  setup.drag_normal = 1e-4, setup.drag_tangent = 5e-5;
  setup.interaction.enabled = interaction;
  auto sim = Simulator::create(setup, {model, Backend::cpu, Precision::float32});
  std::vector<Vec3> x;
  sim->positions(x);
  Effect e;
  e.start = measure(x, vertices);
  const int steps = int(std::lround(seconds / setup.dt));
  for (int s = 0; s < steps; ++s) sim->step();
  sim->positions(x);
  for (const Vec3& q : x) EXPECT_TRUE(q.allFinite());
  e.end = measure(x, vertices);
  const InteractionStats st = sim->interaction_stats();
  std::cout << model << ", " << strands << " x " << vertices << ", " << seconds
            << " s, interaction " << (interaction ? "on" : "off")
            << ": mean distance from the scalp " << 1e3 * e.start.scalp_distance << " -> "
            << 1e3 * e.end.scalp_distance << " mm ("
            << e.end.scalp_distance / e.start.scalp_distance << "), occupied volume "
            << 1e6 * e.start.occupied << " -> " << 1e6 * e.end.occupied << " cm^3 ("
            << e.end.occupied / e.start.occupied << ")";
  if (interaction)
    std::cout << "; stage " << 1e3 * st.stage_seconds / double(st.steps) << " ms/step, strands "
              << 1e3 * st.strand_seconds / double(st.steps) << " ms/step";
  std::cout << "\n";
  return e;
}

// With interaction, both measures stay within 20 % of the start (the criterion); without
// it the groom visibly collapses (expected from the physics: strands pass through each other and
// settle on the scalp; the drop is printed, and asserted to exceed the kept volume's deviation).
TEST(InteractionEffect, HairKeepsItsVolume) {
  const bool full = std::getenv("HAIRSIM_FULL_EFFECT") != nullptr;
  const int strands = full ? 2000 : 300, vertices = full ? 24 : 16;
  const double seconds = full ? 2.0 : 1.0;
  const Effect on = run(strands, vertices, seconds, true, "der");
  const Effect off = run(strands, vertices, seconds, false, "der");
  const double kept = on.end.scalp_distance / on.start.scalp_distance;
  const double dropped = off.end.scalp_distance / off.start.scalp_distance;
  EXPECT_NEAR(kept, 1.0, 0.2);
  EXPECT_NEAR(on.end.occupied / on.start.occupied, 1.0, 0.2);
  EXPECT_LT(dropped, kept - 0.05);
}

// A checkpoint of a run with interaction resumes it bit for bit (the stage keeps no state
// between steps: its ρ₀ comes from the setup's rest groom, its grid is rebuilt each step).
TEST(InteractionEffect, CheckpointResumesBitForBit) {
  HairstyleParams p;
  p.strands = 100;
  p.vertices = 12;
  HairSetup setup;
  setup.strands = generate_hairstyle(p);
  Collider head;
  head.shape = Collider::Shape::ellipsoid;
  head.radii = kRadii;
  setup.colliders.push_back(head);
  setup.integrator = Integrator::implicit;
  setup.dt = 1e-3;
  setup.interaction.enabled = true;
  for (const std::string model : {"der", "cosserat"}) {
    auto a = Simulator::create(setup, {model, Backend::cpu, Precision::float32});
    for (int s = 0; s < 20; ++s) a->step();
    const std::string state = a->save_state();
    auto b = Simulator::create(setup, {model, Backend::cpu, Precision::float32});
    b->restore_state(state);
    for (int s = 0; s < 20; ++s) a->step(), b->step();
    std::vector<Vec3> xa, xb;
    a->positions(xa);
    b->positions(xb);
    EXPECT_TRUE(xa == xb) << model;
    a->velocities(xa);
    b->velocities(xb);
    EXPECT_TRUE(xa == xb) << model;
  }
}

// The scene's interaction fields: a bad one exits 2 with one line naming its JSON path and
// writes nothing (docs/scenes.md).
TEST(InteractionScenes, BadFieldsExitTwoNamingTheField) {
  test::ScratchDir dir;
  const std::string out = "--out '" + (dir / "out").string() + "'";
  const std::string sc =
      "'" + std::string(HAIRSIM_SOURCE_DIR) + "/scenes/interaction_volume.json' ";
  const std::pair<std::string, std::string> cases[] = {
      {"--set interaction.cell_size=0", "interaction.cell_size: must be > 0 and <= 1 (m)"},
      {"--set interaction.cell_size=2", "interaction.cell_size: must be > 0 and <= 1 (m)"},
      {"--set interaction.friction=-1", "interaction.friction: must be >= 0 (1/s)"},
      {"--set interaction.volume_stiffness=-0.5",
       "interaction.volume_stiffness: must be >= 0 (1/s)"},
      {"--set interaction.iterations=-1", "interaction.iterations: must be between 0"},
      {"--set interaction.iterations=2.5", "interaction.iterations"},
      {"--set interaction.enabled=1", "interaction.enabled"},
      {"--set interaction.grid=1", "interaction.grid: unknown field"},
      {"--set backend=reference --set precision=double",
       "interaction.enabled: the hair-hair stage runs on the cpu and cuda backends"},
      {"--set interaction.enabled=false --set interaction.density_png=true",
       "interaction.density_png: needs interaction.enabled"},
      {"--set output.png_every=0 --set interaction.density_png=true",
       "interaction.density_png: needs output.png_every >= 1"},
  };
  for (const auto& [args, expected] : cases) {
    const auto r = test::run_cli("run " + sc + args + " " + out, dir);
    EXPECT_EQ(r.exit_code, 2) << args;
    EXPECT_NE(r.err.find(expected), std::string::npos) << args << "\n" << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_FALSE(std::filesystem::exists(dir / "out")) << args;
  }
}

// A short run of the volume scene (100 strands, 3 frames): the summary reports the stage (its
// time share in (0, 1), occupied cells, ρ₀ > 0: expected from the definitions) and the density
// slice is a PNG beside each preview.
TEST(InteractionScenes, SummaryReportsTheStageAndTheDensitySlice) {
  test::ScratchDir dir;
  const auto r = test::run_cli(
      "run '" + std::string(HAIRSIM_SOURCE_DIR) +
          "/scenes/interaction_volume.json' --set hair.generate.strands=100 --set hair.vertices=12 "
          "--frames 3 --set output.png_every=3 --set interaction.density_png=true --out "
          "'" +
          (dir / "out").string() + "'",
      dir);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto s = test::read_json(dir / "out" / "summary.json");
  const auto& in = s["interaction"];
  EXPECT_GT(in["time_share"].get<double>(), 0.0);
  EXPECT_LT(in["time_share"].get<double>(), 1.0);
  EXPECT_GT(in["occupied_cells"].get<long>(), 20);
  EXPECT_GT(in["target_density_kg_m3"].get<double>(), 0.0);
  EXPECT_EQ(in["cell_size_m"].get<double>(), 0.01);
  EXPECT_TRUE(std::filesystem::exists(dir / "out" / "png" / "density_00003.png"));
  EXPECT_TRUE(std::filesystem::exists(dir / "out" / "png" / "frame_00003.png"));
}

}  // namespace
}  // namespace hairsim
