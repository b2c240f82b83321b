#pragma once
// Headless CPU preview renderer: strands as anti-aliased, depth-tested lines shaded with the
// Kajiya-Kay hair model, an optional head mesh behind them, camera framed on the bounding box.
#include <cstdint>
#include <filesystem>
#include <string_view>
#include <vector>

#include "hairsim/mesh.hpp"
#include "hairsim/strands.hpp"

namespace hairsim {

struct RenderOptions {
  int width = 800;
  int height = 800;
  // The scene's up axis, one of +-x, +-y, +-z. The camera turns around it by the azimuth;
  // azimuth 0 looks at the scene from the axis after `up` (y up: from +z; z up: from +x;
  // x up: from +y).
  Vec3 up = Vec3::UnitY();
  double azimuth_deg = 0;
  double elevation_deg = 10;  // camera above the horizontal plane
  double line_width_px = 1.0;
  int supersample = 3;  // samples per pixel along each axis (anti-aliasing)
  // The box (m) the camera frames; unset (min above max), the drawn geometry's bounding box.
  // An animation sets it once so that every frame shares one camera.
  Vec3 frame_min = Vec3::Constant(1), frame_max = Vec3::Constant(-1);
  Color hair_color{0.16f, 0.085f,
                   0.04f};  // linear RGB: mid brown  // used when the strands carry no colours
  Color head_color{0.62f, 0.45f, 0.36f};
  // Lighting (docs/architecture.md, "Preview renderer"): a key light with self-shadowing from
  // an opacity shadow map, a dimmer fill light from the other side, ambient light.
  // key_light: unit vector towards the key light in the world; zero: above, left of and in front
  // of the camera.
  Vec3 key_light = Vec3::Zero();
  bool shadows = true;
  double shadow_density = 0.25;  // opacity of one strand sample in a shadow-map texel (0-1)
  int threads = 0;               // 0: OpenMP's default; the image does not depend on it
};

struct Image {
  int width = 0, height = 0;
  std::vector<std::uint8_t> rgb;  // row-major, top row first, 3 bytes a pixel
};

// "+x", "-y", "z" ... as a unit vector; throws Error naming `where` otherwise.
Vec3 parse_axis(std::string_view text, const std::string& where = "--up");

Image render(const StrandSet& strands, const TriangleMesh* head, const RenderOptions& options);
// Writes an 8-bit RGB PNG (temporary file + rename).
void write_png(const std::filesystem::path& path, const Image& image);
// Reads a PNG as 8-bit RGB (the sweep's contact sheet, python/hairsim/_sweep.py); throws Error
// naming the file when it cannot.
Image read_png(const std::filesystem::path& path);

}  // namespace hairsim
