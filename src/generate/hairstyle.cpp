// Procedural hairstyles on an ellipsoid head (y up, face towards +z).
//  1. Root: area-uniform on the ellipsoid by rejection (a uniform direction u on the unit
//     sphere, mapped to (a u_x, b u_y, c u_z), is kept with probability proportional to the
//     area stretch abc * |(u_x/a, u_y/b, u_z/c)|), restricted to the scalp u_y > 0.1 + 0.45 u_z
//     (a hairline that runs from the forehead over the ears to the nape).
//  2. Centerline: leaves the scalp between the normal and a comb direction (down, and backwards
//     for roots in front so the face stays free), bends towards -y, and is pushed radially out
//     of a slightly larger ellipsoid so it drapes over the head.
//  3. Style: a sine across the strand (wavy, waves in phase between neighbours as in combed
//     wavy hair) or a helix (curly, random phase) around the centerline, in a parallel-
//     transported frame, ramped in from zero so the root stays on the scalp.
//  4. The curve is cut at the strand's arc length and resampled to `vertices` points.
// Each strand draws from its own random stream (seed, strand index): results do not depend on
// the thread count.
#include <Eigen/Geometry>
#include <algorithm>
#include <cmath>
#include <numbers>

#include "hairsim/error.hpp"
#include "hairsim/generate.hpp"

namespace hairsim {
namespace {

constexpr double kPi = std::numbers::pi;
constexpr double kFallRate = 40.0;   // 1/m: how fast strands turn towards -y
constexpr double kCombWeight = 2.0;  // comb direction against the normal at the root
constexpr double kStyleRamp = 0.02;  // m: waves and curls grow in over this length
constexpr double kLayerMin = 0.003, kLayerMax = 0.012;  // m: drape offset above the scalp

// Portable, cheap random stream per strand: splitmix64 (Steele, Lea & Flood 2014) started at a
// hash of (seed, strand). The standard distributions are not portable across library
// implementations, and an mt19937_64 per strand costs more to seed than the strand to grow.
class Random {
 public:
  Random(std::uint64_t seed, std::uint64_t stream) : state_(mix(seed) ^ mix(~stream)) {}
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }  // [0, 1)
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }
  Vec3 direction() {  // uniform on the unit sphere (Archimedes: z uniform in [-1, 1])
    const double z = uniform(-1, 1), phi = uniform(0, 2 * kPi), r = std::sqrt(1 - z * z);
    return {r * std::cos(phi), r * std::sin(phi), z};
  }

 private:
  static std::uint64_t mix(std::uint64_t x) {
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
  }
  std::uint64_t next() { return mix(state_ += 0x9E3779B97F4A7C15ull); }
  std::uint64_t state_;
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

// Centerline samples with spacing h, draped over the ellipsoid `radii` + layer.
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
  for (int k = 1; k < samples; ++k) {
    d = (d + h * kFallRate * fall).normalized();
    Vec3 p = c[k - 1] + h * d;
    const double e = p.cwiseQuotient(outer).norm();  // < 1 inside the drape ellipsoid
    if (e < 1) {
      p /= e;  // back onto the drape surface; keep moving along it, not into or off it
      const Vec3 n = p.cwiseQuotient(outer.cwiseProduct(outer)).normalized();
      const Vec3 along = d - d.dot(n) * n;
      if (along.norm() > 1e-9) d = along.normalized();
    }
    c[k] = p;
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

// Adds the style's displacement in a parallel-transported frame (Bishop frame).
void add_style(std::vector<Vec3>& c, const HairstyleParams& p, Random& rng) {
  if (p.style == HairStyle::straight) return;
  const bool wavy = p.style == HairStyle::wavy;
  const double phase = wavy ? rng.uniform(-0.4, 0.4) : rng.uniform(0, 2 * kPi);
  const double radius = p.curl_radius * rng.uniform(0.8, 1.2);
  std::vector<Vec3> out(c.size());
  out[0] = c[0];
  Vec3 t = (c[1] - c[0]).normalized();
  // Waves across the strand, along the scalp (normal x tangent), the same way for neighbours.
  Vec3 d1 = c[0].cross(t);
  d1 = d1.norm() > 1e-12 ? Vec3(d1.normalized()) : t.unitOrthogonal();
  double s = 0;
  for (std::size_t k = 1; k < c.size(); ++k) {
    const Vec3 t_new = (c[k] - c[k - 1]).normalized();
    d1 = transport(d1, t, t_new);
    t = t_new;
    const Vec3 d2 = t.cross(d1);
    s += (c[k] - c[k - 1]).norm();
    const double ramp = std::min(1.0, s / kStyleRamp);
    const double ramp_smooth = ramp * ramp * (3 - 2 * ramp);
    Vec3 offset;
    if (wavy) {
      offset = p.wave_amplitude * std::sin(2 * kPi * s / p.wave_length + phase) * d1;
    } else {
      const double a = 2 * kPi * s / p.curl_pitch + phase;
      offset = radius * (std::cos(a) * d1 + std::sin(a) * d2);
    }
    out[k] = c[k] + ramp_smooth * offset;
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

  // Centerline length that leaves enough curve after curling; the curve is cut at the length.
  double centerline_per_length = 1.0;
  double samples_per_metre = 0;
  if (p.style == HairStyle::curly) {
    const double turn = std::hypot(2 * kPi * p.curl_radius, p.curl_pitch);
    centerline_per_length = p.curl_pitch / turn;
    samples_per_metre = 16 / p.curl_pitch;  // 16 samples a turn
  } else if (p.style == HairStyle::wavy) {
    samples_per_metre = 16 / p.wave_length;
  }

  StrandSet s;
  const auto n = static_cast<std::size_t>(p.strands);
  s.points.resize(n * p.vertices);
  s.offsets.resize(n + 1);
  for (std::size_t i = 0; i <= n; ++i) s.offsets[i] = i * p.vertices;

#pragma omp parallel for schedule(dynamic, 64)
  for (std::ptrdiff_t i = 0; i < static_cast<std::ptrdiff_t>(n); ++i) {
    Random rng(p.seed, static_cast<std::uint64_t>(i));
    const Vec3 root = sample_root(rng, p.head_radii);
    const double length = p.length * rng.uniform(0.9, 1.1);
    const double layer = rng.uniform(kLayerMin, kLayerMax);
    const double grow = 1.3 * length * centerline_per_length;
    const int samples = static_cast<int>(
        std::clamp(std::max(4.0 * p.vertices, grow * samples_per_metre) + 2, 64.0, 200000.0));
    std::vector<Vec3> curve =
        grow_centerline(root, p.head_radii, layer, grow / (samples - 1), samples);
    add_style(curve, p, rng);
    cut_and_resample(curve, length, p.vertices, s.points.data() + i * p.vertices);
  }
  return s;
}

}  // namespace hairsim
