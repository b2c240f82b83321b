#pragma once
// Hairstyle scenes (docs/scenes.md, "Hairstyle scenes"): a strand file or a generated style on a
// head that moves (built-in motions or keyframes), colliders moving with it, gravity, air drag in
// gusty wind, and the outputs to write. Parsing reads every file the run needs and checks every
// field before anything is written, so bad input fails with one line naming the field or file.
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "engine/simulator.hpp"
#include "hairsim/mesh.hpp"

namespace hairsim::engine {

struct HairOutputs {
  std::string frames;  // "" (none), "hair" or "ply": one strand file per frame
  bool usd = false;    // one animated .usda for the run
  int png_every = 0;   // a preview PNG every k frames (0: none)
  bool mp4 = false;    // the PNGs assembled by ffmpeg, when installed
  int width = 640, height = 640;
  double azimuth_deg = 30, elevation_deg = 10;
};

struct HairScene {
  HairSetup setup;
  SimulatorOptions options;
  std::string backend_asked;  // as the scene or --backend said (auto resolved in options)
  double fps = 30;            // frames per simulated second
  int frames = 0;             // frames to simulate after frame 0 (the start)
  int steps_per_frame = 1;    // setup.dt is 1 / (fps steps_per_frame)
  HairOutputs output;
  TriangleMesh preview_head;   // drawn in previews, head frame (moves with the head)
  std::string hair_source;     // "generated wavy" or the strand file
  std::string notice;          // said before the run (e.g. the strand count scaled down)
  bool push_out = true;        // hair.push_out: groom vertices inside colliders moved out first
  std::size_t pushed_out = 0;  // vertices it moved
};

// Whether a scene document is a hairstyle scene (it has "hair"), not a single-rod one.
bool is_hair_scene(const nlohmann::json& doc);

// Parses a hairstyle scene; relative file names are taken from `scene_dir`. Throws Error naming
// the JSON path or the file.
HairScene parse_hair_scene(const nlohmann::json& doc, const std::filesystem::path& scene_dir);

}  // namespace hairsim::engine
