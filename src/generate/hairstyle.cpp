// Procedural hairstyles on an ellipsoid head (y up, face towards +z).
//  1. Root: area-uniform on the ellipsoid by rejection (a uniform direction u on the unit
//     sphere, mapped to (a u_x, b u_y, c u_z), is kept with probability proportional to the
//     area stretch abc * |(u_x/a, u_y/b, u_z/c)|), restricted to the scalp u_y > 0.1 + 0.45 u_z
//     (a hairline that runs from the forehead over the ears to the nape).
//  2. Centerline: leaves the scalp between the normal and a comb direction (down, and backwards
//     for roots in front so the face stays free), bends towards -y, and rises smoothly to a
//     drape layer a few millimetres above the head, which it then follows (on the ellipsoid: its
//     rise along the normal held at no less than the root's times the fraction of the layer
//     still to climb; on a mesh: pushed out along the distance field's gradient).
//  3. Style: a sine across the strand (wavy, waves in phase between neighbours as in combed
//     wavy hair, ramped in from zero so the root stays on the scalp) or a helix (curly) whose
//     axis runs a curl radius above the centerline, starting at the root at the innermost point
//     of its turn, in a parallel-transported frame.
//  4. The curve is cut at the strand's arc length and resampled to `vertices` points.
// Each strand draws from its own random stream (seed, strand index): results do not depend on
// the thread count.
#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <optional>
#include <string>
#include <tuple>

#include "common/sdf_grid.hpp"
#include "core/memory.hpp"
#include "core/random.hpp"
#include "hairsim/error.hpp"
#include "hairsim/generate.hpp"
#include "hairsim/sdf.hpp"

namespace hairsim {
namespace {

constexpr double kPi = std::numbers::pi;
constexpr double kFallRate = 40.0;   // 1/m: how fast strands turn towards -y
constexpr double kCombWeight = 2.0;  // comb direction against the normal at the root
constexpr double kStyleRamp = 0.02;  // m: waves and curls grow in over this length
constexpr double kLayerMin = 0.003, kLayerMax = 0.012;  // m: drape offset above the scalp
constexpr double kHug = 0.01;  // m: mesh scalps: within this of the drape layer, strands slide

// Portable, cheap random stream per strand: splitmix64 (Steele, Lea & Flood 2014) started at a
// hash of (seed, strand). The standard distributions are not portable across library
// implementations, and an mt19937_64 per strand costs more to seed than the strand to grow.
class Random : public RandomStream {
 public:
  using RandomStream::RandomStream;
  Vec3 direction() {  // uniform on the unit sphere (Archimedes: z uniform in [-1, 1])
    const double z = uniform(-1, 1), phi = uniform(0, 2 * kPi), r = std::sqrt(1 - z * z);
    return {r * std::cos(phi), r * std::sin(phi), z};
  }
};

bool on_scalp(const Vec3& u) {
  return u.y() > 0.1 + 0.45 * u.z();
}

Vec3 sample_root(Random& rng, const Vec3& radii) {
  const double min_radius = radii.minCoeff();
  while (true) {
    const Vec3 u = rng.direction();
    if (!on_scalp(u)) continue;
    const double stretch = u.cwiseQuotient(radii).norm() * min_radius;  // in (0, 1]
    if (rng.uniform() < stretch) return u.cwiseProduct(radii);
  }
}

// Direction a strand falls towards: down, and backwards (-z) for roots on the front half of the
// head, so that front hair is combed back over the head and the face stays free.
Vec3 fall_direction(const Vec3& root, const Vec3& radii) {
  const double front = std::max(0.0, root.z() / radii.z() + 0.2);
  return Vec3(0, -1, -2.5 * front).normalized();
}

// How far p has climbed from the scalp (0) to the drape layer (1), along the ray from the
// head's centre: the scalp meets the ray at p / |p / radii|, the layer at p / |p / outer|.
double layer_fraction(const Vec3& p, const Vec3& radii, const Vec3& outer) {
  const double in = 1 / p.cwiseQuotient(radii).norm(), out = 1 / p.cwiseQuotient(outer).norm();
  return (1 - in) / (out - in);
}

// Bends d towards `normal` just enough that it rises at least `floor` along it (a unit
// direction; d keeps its part along the scalp's tangent plane).
Vec3 rise_at_least(const Vec3& d, const Vec3& normal, double floor) {
  if (d.dot(normal) >= floor) return d;
  const Vec3 along = d - d.dot(normal) * normal;
  if (along.norm() <= 1e-12) return normal;
  return along.normalized() * std::sqrt(1 - floor * floor) + floor * normal;
}

// Centerline samples with spacing h, draped over the ellipsoid `radii` + layer: a smooth rise.
// The direction's rise along the normal (of the ellipsoid through the point) is held at no less
// than its rise at the root times the fraction of the layer still to climb, so the strand climbs
// to the layer as 1 - exp(-s rise / layer) and settles on it without a corner; outside the layer
// the same bound (negative) lets it come back down as gently.
std::vector<Vec3> grow_centerline(const Vec3& root, const Vec3& radii, double layer, double h,
                                  int samples) {
  const Vec3 outer = radii + Vec3::Constant(layer);
  const Vec3 fall = fall_direction(root, radii);
  std::vector<Vec3> c(samples);
  c[0] = root;
  const Vec3 normal = root.cwiseQuotient(radii.cwiseProduct(radii)).normalized();
  const Vec3 comb = fall - fall.dot(normal) * normal;  // the fall direction along the scalp
  Vec3 d =
      comb.norm() > 1e-9 ? Vec3((normal + kCombWeight * comb.normalized()).normalized()) : normal;
  const double rise = d.dot(normal);  // > 0: the root's elevation off the scalp
  for (int k = 1; k < samples; ++k) {
    const Vec3& q = c[k - 1];
    const Vec3 n = q.cwiseQuotient(radii.cwiseProduct(radii)).normalized();
    d = (d + h * kFallRate * fall).normalized();
    d = rise_at_least(d, n, std::min(rise, rise * (1 - layer_fraction(q, radii, outer))));
    c[k] = q + h * d;
  }
  return c;
}

// Parallel transport of d from unit tangent t to unit tangent t_new: the minimal rotation
// about t x t_new (Rodrigues' formula with the half-angle form 1 / (1 + cos)).
Vec3 transport(const Vec3& d, const Vec3& t, const Vec3& t_new) {
  const Vec3 axis = t.cross(t_new);
  const double c = t.dot(t_new);
  if (c <= -1 + 1e-12) return -d;  // reversal: any half turn will do
  return c * d + axis.cross(d) + axis * (axis.dot(d) / (1 + c));
}

// A strand's draws for its style: wavy, the waves' phase; curly, the curl's radius and pitch.
struct StyleDraw {
  double phase = 0, radius = 0, pitch = 0;
};

StyleDraw draw_style(const HairstyleParams& p, Random& rng) {
  if (p.style == HairStyle::straight) return {};
  StyleDraw s;
  if (p.style == HairStyle::wavy)
    s.phase = rng.uniform(-0.4, 0.4);
  else
    s.pitch = p.curl_pitch * rng.uniform(0.9, 1.1);
  s.radius = p.curl_radius * rng.uniform(0.8, 1.2);
  return s;
}

// Adds the style's displacement in a parallel-transported frame (Bishop frame: d1 along the
// scalp across the strand, d2 = t x d1 away from the scalp); `outward`: the scalp's outward side
// at the root.
//  - Wavy: a sine along d1 (across the strand, along the scalp, the same way for neighbours),
//    ramped in over kStyleRamp so the root stays on the scalp.
//  - Curly: a helix of radius R whose axis runs R above the centreline (along d2), started at
//    the innermost point of its turn, offset R (cos a d1 + sin a d2 + d2) with a = -pi/2 at the
//    root: zero there, so no ramp is needed and the curl is a helix around a (gently curved)
//    axis from its first point, the shape a rod's helical or clothoid elements hold; and never
//    below the centreline (the offset's part along d2 is R (1 + sin a) >= 0), so a curl keeps out
//    of the head wherever its centreline does.
void add_style(std::vector<Vec3>& c, const HairstyleParams& p, const StyleDraw& draw,
               const Vec3& outward) {
  if (p.style == HairStyle::straight) return;
  const bool wavy = p.style == HairStyle::wavy;
  std::vector<Vec3> out(c.size());
  out[0] = c[0];
  Vec3 t = (c[1] - c[0]).normalized();
  Vec3 d1 = outward.cross(t);
  d1 = d1.norm() > 1e-12 ? Vec3(d1.normalized()) : t.unitOrthogonal();
  double s = 0;
  for (std::size_t k = 1; k < c.size(); ++k) {
    const Vec3 t_new = (c[k] - c[k - 1]).normalized();
    d1 = transport(d1, t, t_new);
    t = t_new;
    const Vec3 d2 = t.cross(d1);
    s += (c[k] - c[k - 1]).norm();
    if (wavy) {
      const double ramp = std::min(1.0, s / kStyleRamp);
      const double ramp_smooth = ramp * ramp * (3 - 2 * ramp);
      out[k] = c[k] + ramp_smooth * p.wave_amplitude *
                          std::sin(2 * kPi * s / p.wave_length + draw.phase) * d1;
    } else {
      const double a = 2 * kPi * s / draw.pitch - kPi / 2;
      out[k] = c[k] + draw.radius * (std::cos(a) * d1 + (std::sin(a) + 1) * d2);
    }
  }
  c = std::move(out);
}

// `count` points equally spaced in arc length along the first `length` of the polyline.
void cut_and_resample(const std::vector<Vec3>& c, double length, int count, Vec3* out) {
  std::vector<double> cum(c.size(), 0.0);
  for (std::size_t k = 1; k < c.size(); ++k) cum[k] = cum[k - 1] + (c[k] - c[k - 1]).norm();
  length = std::min(length, cum.back());
  std::size_t seg = 0;
  for (int i = 0; i < count; ++i) {
    const double s = length * i / (count - 1);
    while (seg + 2 < c.size() && cum[seg + 1] < s) ++seg;
    const double span = cum[seg + 1] - cum[seg];
    const double t = span > 0 ? std::clamp((s - cum[seg]) / span, 0.0, 1.0) : 0.0;
    out[i] = c[seg] + t * (c[seg + 1] - c[seg]);
  }
  out[0] = c[0];
}

void check(bool ok, const char* field, const char* why) {
  if (!ok) throw Error(field, why);
}

// A head mesh's scalp: its triangles with their cumulative areas (roots area-uniform by
// choosing a triangle with probability proportional to its area, then a uniform point in it),
// smooth vertex normals, and a distance grid of the whole mesh to drape strands over.
struct MeshScalp {
  const TriangleMesh& mesh;
  std::vector<int> faces;
  std::vector<double> cumulative;  // m², running sum of the faces' areas
  std::vector<Vec3> normals;       // per vertex, area-weighted, unit
  SignedDistanceGrid grid;
  kernels::SdfGrid<double> field;
  Eigen::Matrix3d to_head;  // rows: side, up, front (world to the generator's y-up, z-front)
  Vec3 center, half;        // the scalp's box in head coordinates

  MeshScalp(const HairstyleParams& p, std::vector<int> selected, bool drape = true)
      : mesh(*p.scalp), faces(std::move(selected)) {
    double sum = 0;
    for (int f : faces) {
      const auto& t = mesh.triangles[std::size_t(f)];
      const Vec3 &a = mesh.vertices[t[0]], &b = mesh.vertices[t[1]], &c = mesh.vertices[t[2]];
      sum += 0.5 * (b - a).cross(c - a).norm();
      cumulative.push_back(sum);
    }
    normals.assign(mesh.vertices.size(), Vec3::Zero());
    for (const auto& t : mesh.triangles) {
      const Vec3 n = (mesh.vertices[t[1]] - mesh.vertices[t[0]])
                         .cross(mesh.vertices[t[2]] - mesh.vertices[t[0]]);
      for (int i : t) normals[i] += n;
    }
    for (Vec3& n : normals) n = n.norm() > 0 ? Vec3(n.normalized()) : Vec3::Zero();
    if (drape) {  // only growing strands needs the field
      grid = make_sdf_grid(mesh, p.scalp_resolution, "hair.generate.scalp");
      field.values = grid.values.data();
      field.nx = grid.nx, field.ny = grid.ny, field.nz = grid.nz;
      field.origin = {grid.origin.x(), grid.origin.y(), grid.origin.z()};
      field.spacing = grid.spacing;
      field.outside = grid.band;
    }
    const Vec3 up = p.up.normalized();
    const Vec3 front = (p.front - p.front.dot(up) * up).normalized();
    to_head.row(0) = up.cross(front);
    to_head.row(1) = up;
    to_head.row(2) = front;
    Vec3 lo = Vec3::Constant(1e300), hi = -lo;  // the scalp's box (a bust's would be larger)
    for (int f : faces)
      for (int i : mesh.triangles[std::size_t(f)])
        lo = lo.cwiseMin(to_head * mesh.vertices[i]), hi = hi.cwiseMax(to_head * mesh.vertices[i]);
    center = 0.5 * (lo + hi);
    half = (0.5 * (hi - lo)).cwiseMax(1e-9);
  }
  MeshScalp(const MeshScalp&) = delete;  // `field` points into `grid`
  double area() const { return cumulative.empty() ? 0.0 : cumulative.back(); }

  // A root and the scalp's outward normal there.
  std::pair<Vec3, Vec3> sample(Random& rng) const {
    const double u = rng.uniform() * area();
    const std::size_t k = std::min<std::size_t>(
        faces.size() - 1, std::size_t(std::upper_bound(cumulative.begin(), cumulative.end(), u) -
                                      cumulative.begin()));
    const auto& t = mesh.triangles[std::size_t(faces[k])];
    const double r = std::sqrt(rng.uniform()), s = rng.uniform();
    const double wa = 1 - r, wb = r * (1 - s), wc = r * s;  // uniform in the triangle
    const Vec3 p = wa * mesh.vertices[t[0]] + wb * mesh.vertices[t[1]] + wc * mesh.vertices[t[2]];
    Vec3 n = wa * normals[t[0]] + wb * normals[t[1]] + wc * normals[t[2]];
    if (!(n.norm() > 1e-9))
      n = (mesh.vertices[t[1]] - mesh.vertices[t[0]])
              .cross(mesh.vertices[t[2]] - mesh.vertices[t[0]]);
    return {p, n.normalized()};
  }

  kernels::Vector3<double> k(const Vec3& v) const { return {v.x(), v.y(), v.z()}; }

  // As grow_centerline, over the mesh: falls down (and backwards in front, in head coordinates)
  // and is pushed out to `layer` above the surface along the distance field's gradient.
  std::vector<Vec3> grow(const Vec3& root, const Vec3& normal, double layer, double h,
                         int samples) const {
    // Down, and backwards while in front of the head's middle (combed back, then falling).
    auto fall_at = [&](const Vec3& q) {
      const double in_front = std::max(0.0, (to_head * q - center).z() / half.z() + 0.2);
      return Vec3(to_head.transpose() * Vec3(0, -1, -2.5 * in_front).normalized());
    };
    const Vec3 fall = fall_at(root);
    std::vector<Vec3> c(static_cast<std::size_t>(samples));
    c[0] = root;
    // The comb direction along the scalp: the fall's part across the normal, plus a part away
    // from the scalp's middle (at the crown the fall is along the normal: hair radiates from
    // the whorl instead of standing up).
    const Vec3 middle = to_head.transpose() * center;
    Vec3 radial = (root - middle) - (root - middle).dot(normal) * normal;
    radial = radial.norm() > 1e-9 ? Vec3(radial.normalized()) : Vec3::Zero();
    Vec3 comb = fall - fall.dot(normal) * normal;
    comb += 0.5 * radial;
    Vec3 d =
        comb.norm() > 1e-9 ? Vec3((normal + kCombWeight * comb.normalized()).normalized()) : normal;
    for (int i = 1; i < samples; ++i) {
      d = (d + h * kFallRate * fall_at(c[std::size_t(i) - 1])).normalized();
      Vec3 q = c[std::size_t(i) - 1] + h * d;
      // The grid is exact only within its band (beyond, it reads +band with no gradient): the
      // layer and the sliding zone stay inside it.
      const double reach = 0.9 * grid.band, lay = std::min(layer, reach);
      const double dist = field.distance(k(q));
      const kernels::Vector3<double> g =
          dist < reach ? field.gradient(k(q)) : kernels::Vector3<double>{};
      const Vec3 gradient(g.x, g.y, g.z);
      if (dist < std::min(lay + kHug, reach) && gradient.norm() > 0.5) {
        const Vec3 n = gradient.normalized();
        if (dist < lay) q += (lay - dist) * n;
        // Pushed out, or near the scalp and leaving it: slide along it (combed hair lies on
        // the head until it falls past it).
        const Vec3 along = d - d.dot(n) * n;
        if ((dist < lay || d.dot(n) > 0) && along.norm() > 1e-9) d = along.normalized();
      }
      c[std::size_t(i)] = q;
    }
    return c;
  }
};

}  // namespace

HairStyle parse_hair_style(std::string_view text, const std::string& where) {
  if (text == "straight") return HairStyle::straight;
  if (text == "wavy") return HairStyle::wavy;
  if (text == "curly") return HairStyle::curly;
  throw Error(where,
              "unknown style '" + std::string(text) + "' (expected straight, wavy or curly)");
}

StrandSet generate_hairstyle(const HairstyleParams& p) {
  check(p.strands >= 1 && p.strands <= 10'000'000, "strands", "must be between 1 and 10000000");
  check(p.vertices >= 2 && p.vertices <= 100'000, "vertices", "must be between 2 and 100000");
  // Longer than 10 m the generator's sampling of the curve breaks down (1e300 m gave 4-17 mm).
  check(std::isfinite(p.length) && p.length > 0 && p.length <= 10, "length",
        "must be positive and at most 10 m");
  check(p.head_radii.allFinite() && p.head_radii.minCoeff() > 0, "head_radii", "must be positive");
  check(std::isfinite(p.wave_amplitude) && p.wave_amplitude >= 0, "wave_amplitude", "must be >= 0");
  check(std::isfinite(p.wave_length) && p.wave_length > 0, "wave_length", "must be positive");
  check(std::isfinite(p.curl_radius) && p.curl_radius > 0, "curl_radius", "must be positive");
  check(std::isfinite(p.curl_pitch) && p.curl_pitch > 0, "curl_pitch", "must be positive");
  // The points and one copy of them (a file's or an array's): 1e7 strands of 1e5 vertices passed
  // the checks above and died in std::bad_alloc.
  const std::uint64_t points = std::uint64_t(p.strands) * std::uint64_t(p.vertices);
  require_memory(
      2 * points * sizeof(Vec3), "strands",
      std::to_string(p.strands) + " strands of " + std::to_string(p.vertices) + " vertices");

  const double wavy_samples_per_metre = 16 / p.wave_length;  // 16 samples a wave

  std::optional<MeshScalp> mesh;
  if (p.scalp) mesh.emplace(p, scalp_triangles(p));
  std::size_t n = static_cast<std::size_t>(p.strands);
  if (p.density > 0) {
    check(std::isfinite(p.density), "density", "must be a finite number");
    const double area = mesh ? mesh->area() : scalp_area(p);
    n = static_cast<std::size_t>(std::llround(p.density * area));
    check(n >= 1 && n <= 10'000'000, "density",
          "gives fewer than 1 or more than 10000000 strands on the scalp");
  }

  StrandSet s;
  s.points.resize(n * p.vertices);
  s.offsets.resize(n + 1);
  for (std::size_t i = 0; i <= n; ++i) s.offsets[i] = i * p.vertices;

#pragma omp parallel for schedule(dynamic, 64)
  for (std::ptrdiff_t i = 0; i < static_cast<std::ptrdiff_t>(n); ++i) {
    Random rng(p.seed, static_cast<std::uint64_t>(i));
    Vec3 root, outward;
    if (mesh) {
      std::tie(root, outward) = mesh->sample(rng);
    } else {
      root = sample_root(rng, p.head_radii);
      outward = root.cwiseQuotient(p.head_radii.cwiseProduct(p.head_radii));  // the normal
    }
    const double length = p.length * rng.uniform(0.9, 1.1);
    const double layer = rng.uniform(kLayerMin, kLayerMax);
    const StyleDraw draw = draw_style(p, rng);
    // Centerline length that leaves enough curve after curling (a turn of the helix is
    // hypot(2 pi R, pitch) of strand to a pitch of centreline); the curve is cut at the length.
    double centerline_per_length = 1.0, samples_per_metre = 0;
    if (p.style == HairStyle::curly) {
      centerline_per_length = draw.pitch / std::hypot(2 * kPi * draw.radius, draw.pitch);
      samples_per_metre = 16 / draw.pitch;  // 16 samples a turn
    } else if (p.style == HairStyle::wavy) {
      samples_per_metre = wavy_samples_per_metre;
    }
    const double grow = 1.3 * length * centerline_per_length;
    const int samples = static_cast<int>(
        std::clamp(std::max(4.0 * p.vertices, grow * samples_per_metre) + 2, 64.0, 200000.0));
    std::vector<Vec3> curve =
        mesh ? mesh->grow(root, outward, layer, grow / (samples - 1), samples)
             : grow_centerline(root, p.head_radii, layer, grow / (samples - 1), samples);
    add_style(curve, p, draw, outward);
    cut_and_resample(curve, length, p.vertices, s.points.data() + i * p.vertices);
  }
  return s;
}

std::vector<int> scalp_triangles(const HairstyleParams& p) {
  check(p.scalp != nullptr, "scalp", "no mesh");
  const TriangleMesh& m = *p.scalp;
  std::vector<int> faces;
  if (!p.scalp_faces.empty()) {
    for (int f : p.scalp_faces) {
      if (f < 0 || std::size_t(f) >= m.triangles.size())
        throw Error("scalp_faces", "face " + std::to_string(f) + " is not in the mesh (" +
                                       std::to_string(m.triangles.size()) + " triangles)");
      faces.push_back(f);
    }
    return faces;
  }
  check(p.cap_normal.allFinite() && p.cap_point.allFinite(), "cap", "must be finite");
  for (std::size_t f = 0; f < m.triangles.size(); ++f) {
    bool inside = true;
    for (int v : m.triangles[f])
      inside = inside && p.cap_normal.dot(m.vertices[v] - p.cap_point) >= 0;
    if (inside) faces.push_back(int(f));
  }
  check(!faces.empty(), "cap", "no triangle of the mesh lies wholly above the cap plane");
  return faces;
}

double scalp_area(const HairstyleParams& p) {
  if (!p.scalp) {  // the ellipsoid's scalp: by midpoint quadrature over the unit sphere
    const int rings = 400;
    double area = 0;
    const Vec3& r = p.head_radii;
    for (int i = 0; i < rings; ++i)
      for (int j = 0; j < 2 * rings; ++j) {
        const double th = kPi * (i + 0.5) / rings, ph = kPi * (j + 0.5) / rings;
        const Vec3 u(std::sin(th) * std::sin(ph), std::cos(th), std::sin(th) * std::cos(ph));
        if (!on_scalp(u)) continue;
        const Vec3 dth(r.x() * std::cos(th) * std::sin(ph), -r.y() * std::sin(th),
                       r.z() * std::cos(th) * std::cos(ph));
        const Vec3 dph(r.x() * std::sin(th) * std::cos(ph), 0,
                       -r.z() * std::sin(th) * std::sin(ph));
        area += dth.cross(dph).norm();
      }
    return area * (kPi / rings) * (kPi / rings);
  }
  double area = 0;
  for (int f : scalp_triangles(p)) {
    const auto& t = p.scalp->triangles[std::size_t(f)];
    const auto& v = p.scalp->vertices;
    area += 0.5 * (v[t[1]] - v[t[0]]).cross(v[t[2]] - v[t[0]]).norm();
  }
  return area;
}

std::vector<Vec3> sample_scalp_roots(const HairstyleParams& p, int count, std::uint64_t seed) {
  check(count >= 0, "count", "must be >= 0");
  std::optional<MeshScalp> mesh;
  if (p.scalp) mesh.emplace(p, scalp_triangles(p), false);
  std::vector<Vec3> roots(static_cast<std::size_t>(count));
#pragma omp parallel for schedule(static)
  for (int i = 0; i < count; ++i) {
    Random rng(seed, (std::uint64_t(1) << 62) | std::uint64_t(i));  // not the strands' streams
    roots[std::size_t(i)] = mesh ? mesh->sample(rng).first : sample_root(rng, p.head_radii);
  }
  return roots;
}

}  // namespace hairsim
