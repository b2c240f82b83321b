#pragma once
// Hairstyle scenes (docs/scenes.md, "Hairstyle scenes"): a strand file or a generated style on a
// head that moves (built-in motions or keyframes), colliders moving with it, gravity, air drag in
// gusty wind, and the outputs to write. Parsing reads every file the run needs and checks every
// field before anything is written, so bad input fails with one line naming the field or file.
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "engine/simulator.hpp"
#include "hairsim/guides.hpp"
#include "hairsim/mesh.hpp"

namespace hairsim::engine {

struct HairOutputs {
  std::string frames;  // "" (none), "hair" or "ply": one strand file per frame
  bool usd = false;    // one animated .usda for the run
  int png_every = 0;   // a preview PNG every k frames (0: none)
  bool mp4 = false;    // the PNGs assembled by ffmpeg, when installed
  int width = 640, height = 640;
  double azimuth_deg = 30, elevation_deg = 10;
  int checkpoint_every = 0;  // frames between checkpoints (0: none); `hairsim run --resume`
  // What frame files and the .usda hold: "guides" (the simulated strands), "render" (the render
  // strands) or "both" (guides first, then render strands).
  std::string strands = "guides";
  bool contact_sheet = true;  // DIR/contact_sheet.png: 6 of the previews in one image
  bool density_png = false;   // interaction.density_png: the hair's density on a slice, each PNG
};

// Render strands interpolated from the simulated guides every frame (docs/scenes.md, `render`).
struct RenderSettings {
  int strands = 0;  // 0: none (previews and files show the guides)
  RenderStrandOptions options;
  std::vector<Vec3> roots;     // a root per render strand, head frame at t = 0
  double line_width_px = 1.0;  // previews
};

// What makes a run stop as diverged although every value is finite: hair that stretches or
// vertices that fly (a step far beyond a model's stability limit). Every model's centerline is
// inextensible to its solver's tolerance, so a strain of 0.1 is a blow-up, not physics.
struct RunGuard {
  double max_strain = 0.1;  // max | |e| / |ē| - 1 | over every edge
  double max_speed = 1000;  // m/s, any vertex (hair on a head moves at metres per second)
};

struct HairScene {
  HairSetup setup;
  SimulatorOptions options;
  std::string backend_asked;  // as the scene or --backend said (auto resolved in options)
  double fps = 30;            // frames per simulated second
  int frames = 0;             // frames to simulate after frame 0 (the start)
  int steps_per_frame = 1;    // setup.dt is 1 / (fps steps_per_frame)
  HairOutputs output;
  RenderSettings render;
  RunGuard guard;
  std::string fingerprint;     // of the scene document less its length (scene_fingerprint)
  TriangleMesh preview_head;   // drawn in previews, head frame (moves with the head)
  std::string hair_source;     // "generated wavy" or the strand file
  std::string notice;          // said before the run (e.g. the strand count scaled down)
  TriangleMesh scalp_mesh;     // hair.generate.scalp's mesh (the generator's input)
  bool push_out = true;        // hair.push_out: groom vertices inside colliders moved out first
  std::size_t pushed_out = 0;  // vertices it moved
};

// Whether a scene document is a hairstyle scene (it has "hair"), not a single-rod one.
bool is_hair_scene(const nlohmann::json& doc);

// Parses a hairstyle scene; relative file names are taken from `scene_dir`. Throws Error naming
// the JSON path or the file.
HairScene parse_hair_scene(const nlohmann::json& doc, const std::filesystem::path& scene_dir);

// A fingerprint of a scene document (overrides applied) without time.frames and time.duration:
// a checkpoint resumes only the scene that wrote it, for as many frames as asked.
std::string scene_fingerprint(const nlohmann::json& doc);

}  // namespace hairsim::engine
