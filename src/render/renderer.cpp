// Preview renderer: a supersampled z-buffer on the CPU.
//  - head mesh: triangles with smooth Lambert shading, two-sided;
//  - strands: each segment drawn as a screen-space capsule of fixed pixel width, depth-tested,
//    shaded with Kajiya-Kay (1989): diffuse sin(T, L), specular sin(T, H)^p, with T the segment
//    tangent, L the light and H the half vector;
//  - lights: a key light whose light the hair attenuates (an opacity shadow map, Kim & Neumann
//    2001: strand samples counted in layers of depth from the light, transmittance
//    exp(-density x samples in front)) and the head blocks (a depth map from the light over the
//    head, read by percentage-closer filtering with a slope-scaled bias: ShadowMap), a fill
//    light from the other side, and ambient light.
//  - threads: shading per strand, rasterisation per band of rows (each band draws its segments
//    in strand order), so the image does not depend on the thread count.
// Shading is linear; the box-filtered result is written gamma-encoded (2.2).
#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

#include <omp.h>

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

// Shadows of the key light.
//  - The hair: an opacity shadow map (Kim & Neumann 2001), light-space texels (n x n) with
//    `layers` depth layers over the strands' extent; strand samples are counted per voxel and
//    summed front to back.
//  - The head: a depth map (Williams 1978) of its own, `head_n` square texels over the head's
//    extent (a point outside it is not behind the head: the border is lit, never the edge texel
//    stretched), each texel the nearest depth plus a slope-scaled bias (below), read by
//    percentage-closer filtering (Reeves, Salesin & Cook 1987): the fraction of the texels of a
//    (2 kPcfRadius + 1)-texel box that are nearer than the point, the box's edge texels weighted
//    bilinearly so that the fraction varies continuously with the point. A hard comparison with
//    one texel drew the texels' staircase along every shadow edge (2.9 px RMS off the straight
//    edge of tests/unit/test_render.cpp's plate at 0.08 mm a pixel) and self-shadowing acne.
struct ShadowMap {
  static constexpr int n = 192, layers = 48;
  static constexpr int head_n = 512, kPcfRadius = 2;
  Eigen::Matrix3d to_light;     // rows: u, v, depth (along the light's travel)
  Vec3 lo = Vec3::Zero();       // light-space box corner of the opacity map
  Vec3 cell = Vec3::Ones();     // its cell size per axis
  std::vector<float> count;     // n * n * layers, then running sums in depth; empty: no strands
  Vec3 head_lo = Vec3::Zero();  // light-space corner of the head's depth map (x, y)
  double head_cell = 1;         // its texel size (m)
  std::vector<float> head;  // head_n^2: biased nearest head depth (m), +inf: none; empty: no head
  float density = 0;
  bool on = false;

  Vec3 grid(const Vec3& p) const { return (to_light * p - lo).cwiseQuotient(cell); }
  // Strand samples in front of p along the light (trilinear in the summed layers).
  float in_front(const Vec3& g) const {
    if (count.empty()) return 0;
    const double x = std::clamp(g.x() - 0.5, 0.0, n - 1.0),
                 y = std::clamp(g.y() - 0.5, 0.0, n - 1.0);
    const double z = std::clamp(g.z() - 1.0, -1.0, layers - 1.0);  // the layers strictly in front
    const int i = std::min(int(x), n - 2), j = std::min(int(y), n - 2);
    const double fx = x - i, fy = y - j;
    auto at = [&](int ii, int jj) {
      if (z < 0) return 0.0;
      const int k = std::min(int(z), layers - 2);
      const double fz = z - k;
      const float* c = &count[(std::size_t(jj) * n + ii) * layers];
      return c[k] * (1 - fz) + c[k + 1] * fz;
    };
    return float((at(i, j) * (1 - fx) + at(i + 1, j) * fx) * (1 - fy) +
                 (at(i, j + 1) * (1 - fx) + at(i + 1, j + 1) * fx) * fy);
  }
  // Fraction of the head's depth-map texels around p (percentage-closer filtering) that p lies
  // behind: 0 in the open, 1 deep in the head's shadow.
  float behind_head(const Vec3& p) const {
    if (head.empty()) return 0;
    const Vec3 l = to_light * p;
    const double x = (l.x() - head_lo.x()) / head_cell - 0.5,
                 y = (l.y() - head_lo.y()) / head_cell - 0.5;  // texel-centre coordinates
    const int i = int(std::floor(x)), j = int(std::floor(y));
    const double fx = x - i, fy = y - j;
    // Taps i - r .. i + r + 1: the box [x - r - 1/2, x + r + 1/2] of unit texels, its end texels
    // weighted by the part of them inside (1 - fx, fx).
    auto weight = [](int k, double f) {
      return k == -kPcfRadius ? 1 - f : k == kPcfRadius + 1 ? f : 1.0;
    };
    double shadowed = 0;
    for (int b = -kPcfRadius; b <= kPcfRadius + 1; ++b) {
      const int jj = j + b;
      if (jj < 0 || jj >= head_n) continue;
      for (int a = -kPcfRadius; a <= kPcfRadius + 1; ++a) {
        const int ii = i + a;
        if (ii < 0 || ii >= head_n) continue;
        if (l.z() > head[std::size_t(jj) * head_n + ii]) shadowed += weight(a, fx) * weight(b, fy);
      }
    }
    constexpr double taps = 2 * kPcfRadius + 1;
    return float(shadowed / (taps * taps));
  }
  // Fraction of the key light reaching p: through the hair in front, and 15 % of it behind the
  // head.
  float transmittance(const Vec3& p) const {
    if (!on) return 1;
    const float t = std::exp(-density * in_front(grid(p)));
    return t * (1 - 0.85f * behind_head(p));
  }
};

struct Lighting {
  Vec3 light;  // unit vector towards the key light (world)
  Vec3 fill;   // unit vector towards the fill light
  Vec3 view;   // unit vector towards the camera (world)
  ShadowMap shadow;
};

constexpr float kAmbient = 0.18f, kKey = 0.85f, kFill = 0.35f;

Lighting make_lighting(const Camera& cam, const RenderOptions& o) {
  // Key light above, to the left and in front of the camera: a classic three-quarter light;
  // the fill from the right, lower.
  const Vec3 right = cam.world_to_camera.row(0), up = cam.world_to_camera.row(1);
  Lighting l;
  l.light = o.key_light.norm() > 0
                ? Vec3(o.key_light.normalized())
                : Vec3((-0.5 * right + 0.8 * up - 0.6 * cam.forward()).normalized());
  l.fill = (0.8 * right + 0.1 * up - 0.6 * cam.forward()).normalized();
  l.view = -cam.forward();
  return l;
}

// Every pixel (x, y) of [x_lo, x_hi] × [y_lo, y_hi] whose centre lies in the screen triangle
// a b c (x, y of each; degenerate ones skipped), with its barycentric weights: plot(x, y, w0,
// w1, w2). The head's shadow depth and its shading both rasterise through it.
template <class Plot>
void raster_triangle(const Vec3& a, const Vec3& b, const Vec3& c, int x_lo, int x_hi, int y_lo,
                     int y_hi, Plot plot) {
  const double area = (b.x() - a.x()) * (c.y() - a.y()) - (b.y() - a.y()) * (c.x() - a.x());
  if (std::abs(area) < 1e-12) return;
  const int x0 = std::max(x_lo, int(std::floor(std::min({a.x(), b.x(), c.x()}))));
  const int x1 = std::min(x_hi, int(std::ceil(std::max({a.x(), b.x(), c.x()}))));
  const int y0 = std::max(y_lo, int(std::floor(std::min({a.y(), b.y(), c.y()}))));
  const int y1 = std::min(y_hi, int(std::ceil(std::max({a.y(), b.y(), c.y()}))));
  for (int y = y0; y <= y1; ++y)
    for (int x = x0; x <= x1; ++x) {
      const double px = x + 0.5, py = y + 0.5;
      const double w0 = ((b.x() - px) * (c.y() - py) - (b.y() - py) * (c.x() - px)) / area;
      const double w1 = ((c.x() - px) * (a.y() - py) - (c.y() - py) * (a.x() - px)) / area;
      const double w2 = 1 - w0 - w1;
      if (w0 < 0 || w1 < 0 || w2 < 0) continue;
      plot(x, y, w0, w1, w2);
    }
}

// Slope-scaled depth bias of the head's depth map (the polygon offset of OpenGL's
// glPolygonOffset, factor x the depth's slope + units): a texel stores the nearest depth plus
// kBiasTexels texels plus (kPcfRadius + 1) times the depth's change per texel across the
// triangle (|dz/dx| + |dz/dy|), so that a surface compared with its own depth at the filter's
// farthest taps does not shadow itself (acne: stripes on the lit side of a sphere), capped at
// kMaxBiasTexels texels where the light grazes the surface (there the Lambert term is ~0).
constexpr double kBiasTexels = 1.0, kMaxBiasTexels = 12.0;

// The head's depth map: its triangles rasterised at the texels' centres.
void build_head_depth_map(ShadowMap& m, const TriangleMesh& head) {
  constexpr int n = ShadowMap::head_n;
  std::vector<Vec3> g(head.vertices.size());
  Vec3 lo = Vec3::Constant(1e300), hi = -lo;
  for (std::size_t i = 0; i < g.size(); ++i) {
    g[i] = m.to_light * head.vertices[i];
    lo = lo.cwiseMin(g[i]), hi = hi.cwiseMax(g[i]);
  }
  if (g.empty()) return;
  // Square texels, two of them of margin around the head's extent.
  m.head_cell = std::max({hi.x() - lo.x(), hi.y() - lo.y(), 1e-9}) / (n - 4);
  m.head_lo = lo - Vec3::Constant(2 * m.head_cell);
  for (Vec3& p : g)
    p = Vec3((p.x() - m.head_lo.x()) / m.head_cell, (p.y() - m.head_lo.y()) / m.head_cell, p.z());
  m.head.assign(std::size_t(n) * n, std::numeric_limits<float>::infinity());
  const double slope_factor = ShadowMap::kPcfRadius + 1.0;
  for (const auto& t : head.triangles) {
    const Vec3 &a = g[t[0]], &b = g[t[1]], &c = g[t[2]];
    const double area = (b.x() - a.x()) * (c.y() - a.y()) - (b.y() - a.y()) * (c.x() - a.x());
    if (std::abs(area) < 1e-12) continue;
    const double dzdx =
                     ((b.z() - a.z()) * (c.y() - a.y()) - (c.z() - a.z()) * (b.y() - a.y())) / area,
                 dzdy =
                     ((c.z() - a.z()) * (b.x() - a.x()) - (b.z() - a.z()) * (c.x() - a.x())) / area;
    const double bias =
        std::min(kBiasTexels * m.head_cell + slope_factor * (std::abs(dzdx) + std::abs(dzdy)),
                 kMaxBiasTexels * m.head_cell);
    raster_triangle(a, b, c, 0, n - 1, 0, n - 1,
                    [&](int x, int y, double w0, double w1, double w2) {
                      float& h = m.head[std::size_t(y) * n + x];
                      h = std::min(h, float(w0 * a.z() + w1 * b.z() + w2 * c.z() + bias));
                    });
  }
}

// The shadow maps of the strands and the head for the key light.
void build_shadow_map(ShadowMap& m, const Vec3& light, const StrandSet& s, const TriangleMesh* head,
                      const RenderOptions& o) {
  m.on = o.shadows && (s.point_count() > 0 || (head && !head->vertices.empty()));
  if (!m.on) return;
  m.density = static_cast<float>(o.shadow_density);
  const Vec3 d = -light;  // direction the light travels
  Vec3 u = d.cross(std::abs(d.x()) < 0.9 ? Vec3::UnitX() : Vec3::UnitY()).normalized();
  m.to_light.row(0) = u;
  m.to_light.row(1) = d.cross(u);
  m.to_light.row(2) = d;
  if (head) build_head_depth_map(m, *head);
  if (s.point_count() == 0) return;
  Vec3 lo = Vec3::Constant(1e300), hi = -lo;
  for (const Vec3& p : s.points) lo = lo.cwiseMin(m.to_light * p), hi = hi.cwiseMax(m.to_light * p);
  const Vec3 pad = 0.02 * (hi - lo) + Vec3::Constant(1e-6);
  lo -= pad, hi += pad;
  m.lo = lo;
  m.cell = (hi - lo).cwiseQuotient(Vec3(ShadowMap::n, ShadowMap::n, ShadowMap::layers));
  constexpr int n = ShadowMap::n, layers = ShadowMap::layers;
  m.count.assign(std::size_t(n) * n * layers, 0.0f);
  // A strand counts once in every texel it crosses: each segment is sampled once per texel of
  // its length across the light.
  for (std::size_t i = 0; i < s.strand_count(); ++i) {
    const auto strand = s.strand(i);
    for (std::size_t v = 0; v + 1 < strand.size(); ++v) {
      const Vec3 a = m.grid(strand[v]), b = m.grid(strand[v + 1]);
      const int k = std::clamp(
          int(std::ceil(std::max(std::abs(b.x() - a.x()), std::abs(b.y() - a.y())))), 1, 4 * n);
      for (int q = 0; q < k; ++q) {
        const Vec3 g = a + (q + 0.5) / k * (b - a);
        const int x = std::clamp(int(g.x()), 0, n - 1), y = std::clamp(int(g.y()), 0, n - 1),
                  z = std::clamp(int(g.z()), 0, layers - 1);
        m.count[(std::size_t(y) * n + x) * layers + z] += 1;
      }
    }
  }
  for (std::size_t c = 0; c < std::size_t(n) * n; ++c)  // running sums front to back
    for (int z = 1; z < layers; ++z) m.count[c * layers + z] += m.count[c * layers + z - 1];
}

// Rows [y0, y1) of the supersampled image: the unit a thread rasterises.
struct Band {
  int y0, y1;
};

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
  const int band_rows = 16, bands = (fb.h + band_rows - 1) / band_rows;

#pragma omp parallel for schedule(dynamic, 1)
  for (int band = 0; band < bands; ++band) {
    const int by0 = band * band_rows, by1 = std::min(fb.h, by0 + band_rows);
    for (const auto& t : mesh.triangles) {
      const Vec3 &a = screen[t[0]], &b = screen[t[1]], &c = screen[t[2]];
      if (a.z() <= 0 || b.z() <= 0 || c.z() <= 0) continue;  // behind the camera
      raster_triangle(
          a, b, c, 0, fb.w - 1, by0, by1 - 1, [&](int x, int y, double w0, double w1, double w2) {
            // Perspective-correct depth: 1/z is linear in screen space.
            const double z = 1.0 / (w0 / a.z() + w1 / b.z() + w2 / c.z());
            const std::size_t i = std::size_t(y) * fb.w + x;
            if (!(float(z) < fb.depth[i])) return;
            Vec3 n = (w0 * normals[t[0]] + w1 * normals[t[1]] + w2 * normals[t[2]]).normalized();
            if (n.dot(light.view) < 0) n = -n;  // two-sided
            const Vec3 p =
                z * (w0 / a.z() * mesh.vertices[t[0]] + w1 / b.z() * mesh.vertices[t[1]] +
                     w2 / c.z() * mesh.vertices[t[2]]);
            const double key = std::max(0.0, n.dot(light.light)) * light.shadow.transmittance(p);
            const double fill = std::max(0.0, n.dot(light.fill));
            const float shade = static_cast<float>(kAmbient + kKey * key + kFill * fill);
            fb.depth[i] = static_cast<float>(z);
            fb.color[i] = base * shade;
          });
    }
  }
}

// Kajiya-Kay shading of a segment with unit tangent t: the key light (times its transmittance
// through the hair in front), the fill light and ambient light.
Vec3f hair_shade(const Vec3& t, const Lighting& light, const Vec3f& base, float brightness,
                 float key_transmittance) {
  auto kajiya_kay = [&](const Vec3& l, double& diffuse, double& specular) {
    const double tl = t.dot(l);
    diffuse = std::sqrt(std::max(0.0, 1 - tl * tl));
    const Vec3 half = (l + light.view).normalized();
    const double th = t.dot(half);
    specular = std::pow(std::sqrt(std::max(0.0, 1 - th * th)), 80.0);
  };
  double kd, ks, fd, fs;
  kajiya_kay(light.light, kd, ks);
  kajiya_kay(light.fill, fd, fs);
  const float key = kKey * key_transmittance;
  const Vec3f lit = base * static_cast<float>(kAmbient + key * kd + kFill * fd) * brightness;
  return lit +
         Vec3f::Constant(static_cast<float>(0.3 * (key * ks + 0.3 * kFill * fs)) * brightness);
}

// Segment as a screen-space capsule of half width `hw` supersampled pixels, the rows of `band`:
// the pixels whose centre lies within hw of the segment. Per row the capsule is one interval
// (convex): the slab |px dy − py dx| ≤ hw len cut to 0 ≤ px dx + py dy ≤ len² (both linear in
// the row: no division per row), joined with the end discs on the rows within hw of an end; the
// pixels of that interval are drawn without a test each, their depth interpolated along the
// segment.
void draw_segment(Framebuffer& fb, const Band& band, const Vec3& a, const Vec3& b, double hw,
                  const Vec3f& c) {
  if (a.z() <= 0 || b.z() <= 0) return;
  const int y0 = std::max(band.y0, int(std::floor(std::min(a.y(), b.y()) - hw)));
  const int y1 = std::min(band.y1 - 1, int(std::ceil(std::max(a.y(), b.y()) + hw)));
  if (y0 > y1) return;
  const double dx = b.x() - a.x(), dy = b.y() - a.y();
  const double len2 = dx * dx + dy * dy, len = std::sqrt(len2);
  const double inf = std::numeric_limits<double>::infinity();
  // On row py the slab is py dx/dy ± hw len/|dy| (the whole row when dy = 0 and |py| ≤ hw), the
  // ends' perpendiculars bound −py dy/dx + [0, len²/dx] (ordered by dx's sign).
  const double slab_slope = dy != 0 ? dx / dy : 0.0;
  const double slab_half = dy != 0 ? hw * len / std::abs(dy) : inf;
  const double ends_slope = dx != 0 ? -dy / dx : 0.0;
  const double ends_lo = dx > 0 ? 0.0 : len2 / dx, ends_hi = dx > 0 ? len2 / dx : 0.0;
  // Depth along the segment: s = (px dx + py dy) / len², clamped to [0, 1].
  const float inv_len2 = len2 > 0 ? float(1 / len2) : 0.0f;
  const float az = float(a.z()), dz = float(b.z() - a.z());
  for (int y = y0; y <= y1; ++y) {
    const double py = y + 0.5 - a.y();  // px, py: a pixel centre relative to a
    double lo = inf, hi = -inf;
    if (len2 > 0 && (dy != 0 || std::abs(py) <= hw)) {
      lo = py * slab_slope - slab_half, hi = py * slab_slope + slab_half;
      if (dx != 0)
        lo = std::max(lo, py * ends_slope + ends_lo), hi = std::min(hi, py * ends_slope + ends_hi);
      else if (!(0 <= py * dy && py * dy <= len2))
        lo = inf, hi = -inf;
    }
    if (std::abs(py) <= hw) {  // the end discs, on the rows they reach
      const double r = std::sqrt(hw * hw - py * py);
      lo = std::min(lo, -r), hi = std::max(hi, r);
    }
    if (std::abs(py - dy) <= hw) {
      const double r = std::sqrt(hw * hw - (py - dy) * (py - dy));
      lo = std::min(lo, dx - r), hi = std::max(hi, dx + r);
    }
    if (!(lo <= hi)) continue;
    // Pixels x with a.x + lo ≤ x + 0.5 ≤ a.x + hi.
    const int xa = std::max(0, int(std::ceil(a.x() + lo - 0.5)));
    const int xb = std::min(fb.w - 1, int(std::floor(a.x() + hi - 0.5)));
    const float s_row = float((xa + 0.5 - a.x()) * dx + py * dy) * inv_len2;
    const float s_step = float(dx) * inv_len2;
    for (int x = xa; x <= xb; ++x) {
      const float s = std::clamp(s_row + float(x - xa) * s_step, 0.0f, 1.0f);
      fb.plot(x, y, az + s * dz, c);
    }
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
  // Shading and projection per segment (segment v of strand i at offsets[i] - i + v).
  const std::size_t strands = s.strand_count(), segments = s.point_count() - strands;
  std::vector<Vec3> screen(s.point_count());
  std::vector<Vec3f> color(segments);
#pragma omp parallel for schedule(dynamic, 256)
  for (std::ptrdiff_t ii = 0; ii < std::ptrdiff_t(strands); ++ii) {
    const std::size_t i = std::size_t(ii);
    const auto strand = s.strand(i);
    const float jitter = strand_jitter(i);
    for (std::size_t v = 0; v < strand.size(); ++v)
      screen[s.offsets[i] + v] = cam.project(strand[v]);
    for (std::size_t v = 0; v + 1 < strand.size(); ++v) {
      const Vec3 d = strand[v + 1] - strand[v];
      const Vec3 t = d.norm() > 0 ? Vec3(d.normalized()) : Vec3::UnitY();
      // Without shadows, roots are darkened as a stand-in for the hair above them.
      const float along = static_cast<float>(v + 1) / static_cast<float>(strand.size());
      const float brightness = light.shadow.on ? jitter : jitter * (0.55f + 0.45f * along);
      const float key = light.shadow.transmittance(0.5 * (strand[v] + strand[v + 1]));
      const Vec3f base = s.has_colors() ? s.colors[s.offsets[i] + v] : o.hair_color;
      color[s.offsets[i] - i + v] = hair_shade(t, light, base, brightness, key);
    }
  }
  // Segments binned to bands of rows, in strand order; each band drawn by one thread.
  // Tall bands cost less (a segment repeats its set-up in every band it crosses: 50,000 strands
  // at 2400 x 2400 took 1.38 s in one thread with bands of 16 rows, 1.04 s with 128), but each
  // thread needs about 8 bands to balance.
  const int band_rows = std::max(16, fb.h / (8 * omp_get_max_threads()));
  const int bands = (fb.h + band_rows - 1) / band_rows;
  std::vector<std::vector<std::uint32_t>> binned(static_cast<std::size_t>(bands));
  for (std::size_t i = 0; i < strands; ++i)
    for (std::size_t p = s.offsets[i]; p + 1 < s.offsets[i + 1]; ++p) {
      const Vec3 &a = screen[p], &b = screen[p + 1];
      const int y0 = std::max(0, int(std::floor(std::min(a.y(), b.y()) - hw)) / band_rows);
      const int y1 = std::min(bands - 1, int(std::ceil(std::max(a.y(), b.y()) + hw)) / band_rows);
      for (int k = y0; k <= y1; ++k) binned[std::size_t(k)].push_back(std::uint32_t(p));
    }
  std::vector<std::uint32_t> strand_of(s.point_count());
  for (std::size_t i = 0; i < strands; ++i)
    for (std::size_t p = s.offsets[i]; p < s.offsets[i + 1]; ++p) strand_of[p] = std::uint32_t(i);
#pragma omp parallel for schedule(dynamic, 1)
  for (int k = 0; k < bands; ++k) {
    const Band band{k * band_rows, std::min(fb.h, (k + 1) * band_rows)};
    for (const std::uint32_t p : binned[std::size_t(k)])
      draw_segment(fb, band, screen[p], screen[p + 1], hw, color[p - strand_of[p]]);
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
  if (o.threads < 0 || o.threads > 1024) throw Error("threads", "must be 0 to 1024");
  const int threads_before = omp_get_max_threads();
  if (o.threads > 0) omp_set_num_threads(o.threads);
  Lighting light = make_lighting(cam, o);
  build_shadow_map(light.shadow, light.light, strands, head, o);
  if (head) draw_mesh(fb, cam, light, *head, o.head_color);
  draw_strands(fb, cam, light, strands, o);

  Image img{o.width, o.height, std::vector<std::uint8_t>(std::size_t(3) * o.width * o.height)};
  const float inv = 1.0f / static_cast<float>(ss * ss);
#pragma omp parallel for schedule(static)
  for (int y = 0; y < o.height; ++y)
    for (int x = 0; x < o.width; ++x) {
      Vec3f sum = Vec3f::Zero();
      for (int j = 0; j < ss; ++j)
        for (int i = 0; i < ss; ++i) sum += fb.color[std::size_t(y * ss + j) * fb.w + (x * ss + i)];
      for (int k = 0; k < 3; ++k)
        img.rgb[(std::size_t(y) * o.width + x) * 3 + k] = encode(sum[k] * inv);
    }
  if (o.threads > 0) omp_set_num_threads(threads_before);
  return img;
}

}  // namespace hairsim
