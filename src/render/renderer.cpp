// Preview renderer: a supersampled z-buffer on the CPU.
//  - head mesh: triangles with smooth Lambert shading, two-sided;
//  - strands: each segment drawn as a screen-space capsule of fixed pixel width, depth-tested,
//    shaded with Kajiya-Kay (1989): diffuse sin(T, L), specular sin(T, H)^p, with T the segment
//    tangent, L the light and H the half vector; a root-to-tip ramp stands in for self-shadowing.
// Shading is linear; the box-filtered result is written gamma-encoded (2.2).
#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

#include "hairsim/error.hpp"
#include "hairsim/render.hpp"

namespace hairsim {
namespace {

using Vec3f = Eigen::Vector3f;

struct Camera {
  Vec3 eye;
  Eigen::Matrix3d world_to_camera;  // rows: right, up, forward
  double focal_px = 1;              // in supersampled pixels
  double cx = 0, cy = 0;

  // Screen position (x right, y down, supersampled pixels) and depth along the view.
  Vec3 project(const Vec3& p) const {
    const Vec3 q = world_to_camera * (p - eye);
    return {cx + focal_px * q.x() / q.z(), cy - focal_px * q.y() / q.z(), q.z()};
  }
  Vec3 forward() const { return world_to_camera.row(2).transpose(); }
};

constexpr double kFieldOfViewDeg = 30;

Camera frame_camera(const Vec3& lo, const Vec3& hi, const RenderOptions& o, int sw, int sh) {
  const Vec3 center = 0.5 * (lo + hi);
  const double radius = std::max(0.5 * (hi - lo).norm(), 1e-9);
  const double az = o.azimuth_deg * std::numbers::pi / 180,
               el = o.elevation_deg * std::numbers::pi / 180;
  // Right-handed basis (side, up, front) with front the axis after up (x -> y -> z -> x).
  const Vec3 up_axis = o.up.normalized();
  int k = 0;
  up_axis.cwiseAbs().maxCoeff(&k);
  const Vec3 front_axis = Vec3::Unit((k + 1) % 3);
  const Vec3 side_axis = up_axis.cross(front_axis);
  const Vec3 back = std::sin(az) * std::cos(el) * side_axis + std::sin(el) * up_axis +
                    std::cos(az) * std::cos(el) * front_axis;
  const double half_fov = 0.5 * kFieldOfViewDeg * std::numbers::pi / 180;
  Camera c;
  c.eye = center + back * (1.05 * radius / std::sin(half_fov));
  const Vec3 forward = -back;
  Vec3 right = forward.cross(up_axis);
  if (right.norm() < 1e-6) right = side_axis;  // looking straight along the up axis
  right.normalize();
  const Vec3 up = right.cross(forward);
  c.world_to_camera.row(0) = right;
  c.world_to_camera.row(1) = up;
  c.world_to_camera.row(2) = forward;
  c.focal_px = 0.5 * std::min(sw, sh) / std::tan(half_fov);
  c.cx = 0.5 * sw;
  c.cy = 0.5 * sh;
  return c;
}

struct Framebuffer {
  int w, h;
  std::vector<Vec3f> color;
  std::vector<float> depth;
  Framebuffer(int width, int height)
      : w(width),
        h(height),
        color(std::size_t(width) * height),
        depth(std::size_t(width) * height, std::numeric_limits<float>::infinity()) {
    for (int y = 0; y < h; ++y) {  // soft vertical gradient background
      const float t = static_cast<float>(y) / static_cast<float>(h);
      const Vec3f bg = Vec3f(0.30f, 0.33f, 0.38f) * (1 - t) + Vec3f(0.10f, 0.11f, 0.13f) * t;
      std::fill(color.begin() + std::size_t(y) * w, color.begin() + std::size_t(y + 1) * w, bg);
    }
  }
  void plot(int x, int y, float z, const Vec3f& c) {
    const std::size_t i = std::size_t(y) * w + x;
    if (z < depth[i]) {
      depth[i] = z;
      color[i] = c;
    }
  }
};

struct Lighting {
  Vec3 light;  // unit vector towards the key light (world)
  Vec3 view;   // unit vector towards the camera (world)
};

Lighting make_lighting(const Camera& cam) {
  // Key light above, to the left and in front of the camera: a classic three-quarter light.
  const Vec3 right = cam.world_to_camera.row(0), up = cam.world_to_camera.row(1);
  return {(-0.5 * right + 0.8 * up - 0.6 * cam.forward()).normalized(), -cam.forward()};
}

void draw_mesh(Framebuffer& fb, const Camera& cam, const Lighting& light, const TriangleMesh& mesh,
               const Color& base) {
  std::vector<Vec3> normals(mesh.vertices.size(), Vec3::Zero());
  for (const auto& t : mesh.triangles) {
    const Vec3 n = (mesh.vertices[t[1]] - mesh.vertices[t[0]])
                       .cross(mesh.vertices[t[2]] - mesh.vertices[t[0]]);
    for (int i : t) normals[i] += n;  // area-weighted
  }
  std::vector<Vec3> screen(mesh.vertices.size());
  for (std::size_t i = 0; i < mesh.vertices.size(); ++i) screen[i] = cam.project(mesh.vertices[i]);

  for (const auto& t : mesh.triangles) {
    const Vec3 &a = screen[t[0]], &b = screen[t[1]], &c = screen[t[2]];
    if (a.z() <= 0 || b.z() <= 0 || c.z() <= 0) continue;  // behind the camera
    const double area = (b.x() - a.x()) * (c.y() - a.y()) - (b.y() - a.y()) * (c.x() - a.x());
    if (std::abs(area) < 1e-12) continue;
    const int x0 = std::max(0, int(std::floor(std::min({a.x(), b.x(), c.x()}))));
    const int x1 = std::min(fb.w - 1, int(std::ceil(std::max({a.x(), b.x(), c.x()}))));
    const int y0 = std::max(0, int(std::floor(std::min({a.y(), b.y(), c.y()}))));
    const int y1 = std::min(fb.h - 1, int(std::ceil(std::max({a.y(), b.y(), c.y()}))));
    for (int y = y0; y <= y1; ++y)
      for (int x = x0; x <= x1; ++x) {
        const double px = x + 0.5, py = y + 0.5;
        const double w0 = ((b.x() - px) * (c.y() - py) - (b.y() - py) * (c.x() - px)) / area;
        const double w1 = ((c.x() - px) * (a.y() - py) - (c.y() - py) * (a.x() - px)) / area;
        const double w2 = 1 - w0 - w1;
        if (w0 < 0 || w1 < 0 || w2 < 0) continue;
        // Perspective-correct depth: 1/z is linear in screen space.
        const double z = 1.0 / (w0 / a.z() + w1 / b.z() + w2 / c.z());
        Vec3 n = (w0 * normals[t[0]] + w1 * normals[t[1]] + w2 * normals[t[2]]).normalized();
        if (n.dot(light.view) < 0) n = -n;  // two-sided
        const double diffuse = std::max(0.0, n.dot(light.light));
        const float shade = static_cast<float>(0.25 + 0.75 * diffuse);
        fb.plot(x, y, static_cast<float>(z), base * shade);
      }
  }
}

// Kajiya-Kay shading of a segment with unit tangent t.
Vec3f hair_shade(const Vec3& t, const Lighting& light, const Vec3f& base, float darkening) {
  const double tl = t.dot(light.light);
  const double diffuse = std::sqrt(std::max(0.0, 1 - tl * tl));
  const Vec3 half = (light.light + light.view).normalized();
  const double th = t.dot(half);
  const double specular = std::pow(std::sqrt(std::max(0.0, 1 - th * th)), 80.0);
  const Vec3f lit = base * static_cast<float>(0.25 + 0.75 * diffuse) * darkening;
  return lit + Vec3f::Constant(static_cast<float>(0.35 * specular) * darkening);
}

// Segment as a screen-space capsule of half width `hw` supersampled pixels.
void draw_segment(Framebuffer& fb, const Vec3& a, const Vec3& b, double hw, const Vec3f& c) {
  if (a.z() <= 0 || b.z() <= 0) return;
  const int x0 = std::max(0, int(std::floor(std::min(a.x(), b.x()) - hw)));
  const int x1 = std::min(fb.w - 1, int(std::ceil(std::max(a.x(), b.x()) + hw)));
  const int y0 = std::max(0, int(std::floor(std::min(a.y(), b.y()) - hw)));
  const int y1 = std::min(fb.h - 1, int(std::ceil(std::max(a.y(), b.y()) + hw)));
  const double dx = b.x() - a.x(), dy = b.y() - a.y();
  const double len2 = dx * dx + dy * dy;
  for (int y = y0; y <= y1; ++y)
    for (int x = x0; x <= x1; ++x) {
      const double px = x + 0.5 - a.x(), py = y + 0.5 - a.y();
      const double s = len2 > 0 ? std::clamp((px * dx + py * dy) / len2, 0.0, 1.0) : 0.0;
      const double ex = px - s * dx, ey = py - s * dy;
      if (ex * ex + ey * ey > hw * hw) continue;
      fb.plot(x, y, static_cast<float>(a.z() + s * (b.z() - a.z())), c);
    }
}

// Small deterministic per-strand brightness jitter so neighbouring strands separate visually.
float strand_jitter(std::size_t i) {
  std::uint64_t h = i * 0x9E3779B97F4A7C15ull;
  h ^= h >> 31;
  h *= 0xBF58476D1CE4E5B9ull;
  h ^= h >> 29;
  return 0.85f + 0.3f * static_cast<float>(h % 1000) / 1000.0f;
}

void draw_strands(Framebuffer& fb, const Camera& cam, const Lighting& light, const StrandSet& s,
                  const RenderOptions& o) {
  const double hw = std::max(0.5, 0.5 * o.line_width_px * o.supersample);
  for (std::size_t i = 0; i < s.strand_count(); ++i) {
    const auto strand = s.strand(i);
    const float jitter = strand_jitter(i);
    Vec3 prev = cam.project(strand[0]);
    for (std::size_t v = 0; v + 1 < strand.size(); ++v) {
      const Vec3 next = cam.project(strand[v + 1]);
      const Vec3 d = strand[v + 1] - strand[v];
      const Vec3 t = d.norm() > 0 ? Vec3(d.normalized()) : Vec3::UnitY();
      // Roots sit under other hair: darker there (a cheap stand-in for self-shadowing).
      const float along = static_cast<float>(v + 1) / static_cast<float>(strand.size());
      const float darkening = jitter * (0.55f + 0.45f * along);
      const Vec3f base = s.has_colors() ? s.colors[s.offsets[i] + v] : o.hair_color;
      draw_segment(fb, prev, next, hw, hair_shade(t, light, base, darkening));
      prev = next;
    }
  }
}

std::uint8_t encode(float linear) {
  const float g = std::pow(std::clamp(linear, 0.0f, 1.0f), 1.0f / 2.2f);
  return static_cast<std::uint8_t>(std::lround(g * 255.0f));
}

}  // namespace

Vec3 parse_axis(std::string_view text, const std::string& where) {
  double sign = 1;
  if (!text.empty() && (text[0] == '+' || text[0] == '-')) {
    sign = text[0] == '-' ? -1 : 1;
    text.remove_prefix(1);
  }
  if (text == "x") return sign * Vec3::UnitX();
  if (text == "y") return sign * Vec3::UnitY();
  if (text == "z") return sign * Vec3::UnitZ();
  throw Error(where, "expected an axis: x, y, z, -x, -y or -z");
}

Image render(const StrandSet& strands, const TriangleMesh* head, const RenderOptions& o) {
  if (o.width < 16 || o.height < 16 || o.width > 16384 || o.height > 16384)
    throw Error("--width/--height", "image size must be between 16 and 16384 pixels");
  if (o.supersample < 1 || o.supersample > 8) throw Error("supersample", "must be 1 to 8");
  if (!(o.line_width_px > 0)) throw Error("line width", "must be positive");
  if (!o.up.allFinite() || o.up.norm() == 0) throw Error("up", "must be a non-zero axis");
  if (strands.point_count() == 0 && (!head || head->vertices.empty()))
    throw Error("render", "nothing to draw");

  Vec3 lo = Vec3::Constant(std::numeric_limits<double>::infinity()), hi = -lo;
  for (const Vec3& p : strands.points) lo = lo.cwiseMin(p), hi = hi.cwiseMax(p);
  if (head)
    for (const Vec3& p : head->vertices) lo = lo.cwiseMin(p), hi = hi.cwiseMax(p);
  if ((o.frame_min.array() <= o.frame_max.array()).all()) lo = o.frame_min, hi = o.frame_max;

  const int ss = o.supersample;
  Framebuffer fb(o.width * ss, o.height * ss);
  const Camera cam = frame_camera(lo, hi, o, fb.w, fb.h);
  const Lighting light = make_lighting(cam);
  if (head) draw_mesh(fb, cam, light, *head, o.head_color);
  draw_strands(fb, cam, light, strands, o);

  Image img{o.width, o.height, std::vector<std::uint8_t>(std::size_t(3) * o.width * o.height)};
  const float inv = 1.0f / static_cast<float>(ss * ss);
  for (int y = 0; y < o.height; ++y)
    for (int x = 0; x < o.width; ++x) {
      Vec3f sum = Vec3f::Zero();
      for (int j = 0; j < ss; ++j)
        for (int i = 0; i < ss; ++i) sum += fb.color[std::size_t(y * ss + j) * fb.w + (x * ss + i)];
      for (int k = 0; k < 3; ++k)
        img.rgb[(std::size_t(y) * o.width + x) * 3 + k] = encode(sum[k] * inv);
    }
  return img;
}

}  // namespace hairsim
