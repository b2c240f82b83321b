#include "engine/hair_scene.hpp"

#include <Eigen/Geometry>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <numbers>
#include <string_view>

#include "engine/model.hpp"
#include "hairsim/error.hpp"
#include "hairsim/generate.hpp"
#include "hairsim/io.hpp"
#include "hairsim/motion.hpp"
#include "hairsim/sdf.hpp"
#include "hairsim/units.hpp"
#include "scene/json_reader.hpp"
#include "scene/rod_material.hpp"
#include "scene/scene_files.hpp"

namespace hairsim::engine {
namespace {

constexpr int kMaxFrames = 10000000;

// Physical ranges of the loads, beyond anything a head of hair meets, so that a value that
// passes is one the step can take (1e300 passed as "non-negative" and the run failed at its
// first step): gravity up to 1,000 g, damping and drag up to a mass relaxing in 0.1 ms (hair in
// air: 1e-4 N s/m² of drag), wind up to 1,000 m/s (three times the speed of sound, where Stokes
// drag means nothing), head positions and translations within 100 m of the origin (a float
// position there still resolves 8 µm).
constexpr double kMaxGravity = 1e4;       // m/s²
constexpr double kMaxDamping = 1e4;       // 1/s
constexpr double kMaxDrag = 100;          // N s/m²
constexpr double kMaxWind = 1e3;          // m/s
constexpr double kMaxHeadDistance = 100;  // m
constexpr double kMaxAmplitude = 100;     // rad (16 turns), or m for a jump
// A head's and the gusts' frequencies: a vibration rig's, far above a head's few Hz (a frequency
// of 1e30 Hz ran and sampled nothing but round-off of its sine).
constexpr double kMaxFrequency = 1e3;  // Hz
constexpr double kMaxKeyTime = 1e6;    // s, a keyframe's time (11 days)
constexpr double kMaxSize = 100;       // m, a collider's radii (radius 1e300 diverged at step 0)
constexpr double kMaxFriction = 100;   // a Coulomb coefficient
constexpr double kMinGustSize = 1e-3, kMaxGustSize = 1e3;  // m, the gusts' wavelength

using scene::JsonReader;

// A number in an error message: three significant digits ("3e+10", "30").
std::string short_number(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g", x);
  return text;
}

// Every k-th strand so that at most `max` remain (evenly over the scalp: strands are stored in
// root order by the generator and the usual files), with their radii when there are any.
void thin_out(StrandSet& strands, std::vector<double>& radii, std::size_t max) {
  const std::size_t n = strands.strand_count();
  if (max == 0 || n <= max) return;
  StrandSet out;
  std::vector<double> kept;
  for (std::size_t k = 0; k < max; ++k) {
    out.add_strand(strands.strand(k * n / max));
    if (!radii.empty()) kept.push_back(radii[k * n / max]);
  }
  strands = std::move(out);
  radii = std::move(kept);
}

// hair.generate.scalp: the head mesh the style grows on and its scalp region (a cap above a
// plane, or a list of faces), the head's up and face directions.
void parse_scalp(JsonReader m, const std::filesystem::path& dir, HairstyleParams& p,
                 TriangleMesh& mesh) {
  const std::filesystem::path file = scene::resolve(dir, m.string("file", std::nullopt));
  const LengthUnit units = parse_length_unit(m.string("units", "m"), m.path_of("units"));
  mesh = read_mesh(file, {units});
  p.scalp = &mesh;
  p.up = m.vec3("up", Vec3::UnitY());
  p.front = m.vec3("front", Vec3::UnitZ());
  if (!(p.up.norm() > 0)) m.fail("up", "must be a non-zero vector");
  if (!(p.front.cross(p.up).norm() > 1e-6 * p.front.norm() * p.up.norm()))
    m.fail("front", "must be a non-zero vector not along 'up'");
  p.scalp_resolution = m.integer("resolution", 96, 8, 512);
  const bool has_faces = m.has("faces"), has_cap = m.has("cap");
  if (has_faces == has_cap) m.fail("cap", "give either cap or faces");
  if (has_cap) {
    JsonReader cap = m.object("cap");
    p.cap_point = cap.vec3("point", std::nullopt);
    p.cap_normal = cap.vec3("normal", std::nullopt);
    if (!(p.cap_normal.norm() > 0)) cap.fail("normal", "must be a non-zero vector");
    cap.finish();
  } else {
    p.scalp_faces = m.integers("faces", 0, int(mesh.triangles.size()) - 1);
  }
  m.finish();
  try {
    (void)scalp_triangles(p);
  } catch (const Error& e) {
    m.fail(has_cap ? "cap" : "faces", e.why());
  }
}

// The strands, and into `radii` each strand's radius from the file (hair.radius_from_file).
StrandSet parse_hair(JsonReader hair, const std::filesystem::path& dir, HairScene& sc,
                     std::vector<double>& radii) {
  const int vertices = hair.integer("vertices", 24, 3, 1000);
  const bool generated = hair.has("generate");
  if (generated == hair.has("file")) hair.fail("file", "give either hair.file or hair.generate");
  StrandSet strands;
  if (generated) {
    JsonReader g = hair.object("generate");
    HairstyleParams p;
    p.style = parse_hair_style(g.string("style", "wavy"), g.path_of("style"));
    p.strands = g.integer("strands", 1000, 1, 2000000);
    p.vertices = vertices;
    p.length = g.number("length", p.length, "> 0 and <= 10 (m)",
                        [](double x) { return x > 0 && x <= 10; });
    p.seed = std::uint64_t(g.integer("seed", 1, 0, 1 << 30));
    p.wave_amplitude = g.number("wave_amplitude", p.wave_amplitude, ">= 0", scene::non_negative);
    p.wave_length = g.number("wave_length", p.wave_length, "> 0", scene::positive);
    p.curl_radius = g.number("curl_radius", p.curl_radius, ">= 0", scene::non_negative);
    p.curl_pitch = g.number("curl_pitch", p.curl_pitch, "> 0", scene::positive);
    p.head_radii = g.vec3("head_radii", p.head_radii);
    if (!(p.head_radii.minCoeff() > 0)) g.fail("head_radii", "must be > 0");
    if (g.has("density"))
      p.density =
          g.number("density", std::nullopt, "> 0 (strands per m² of scalp)", scene::positive);
    if (g.has("scalp")) parse_scalp(g.object("scalp"), dir, p, sc.scalp_mesh);
    g.finish();
    strands = generate_hairstyle(p);
    if (sc.render.strands > 0)  // exactly on the scalp the guides grow from
      sc.render.roots = sample_scalp_roots(p, sc.render.strands, sc.render.options.seed);
    sc.hair_source = "generated " + std::string(hair.object("generate").string("style", "wavy"));
  } else {
    const std::filesystem::path file = scene::resolve(dir, hair.string("file", std::nullopt));
    const LengthUnit units = parse_length_unit(hair.string("units", "m"), hair.path_of("units"));
    const StrandSet raw = read_strands(file, {units});
    if (hair.boolean("radius_from_file", false)) {  // half the root's thickness
      if (!raw.has_thickness())
        hair.fail("radius_from_file", "the file " + file.string() + " has no thickness");
      for (std::size_t s = 0; s < raw.strand_count(); ++s) {
        radii.push_back(0.5 * double(raw.thickness[raw.offsets[s]]));
        if (!(radii.back() > 0))
          hair.fail("radius_from_file", "strand " + std::to_string(s) + " has no thickness");
      }
    }
    strands = resample(raw, vertices);
    sc.hair_source = file.string();
  }
  sc.push_out = hair.boolean("push_out", true);
  // What a strand's rest shape is: its groom held against gravity unless the scene says not.
  const std::string rest = hair.string("rest", "sag_free");
  if (rest == "sag_free")
    sc.setup.rest = HairRest::sag_free;
  else if (rest == "groomed")
    sc.setup.rest = HairRest::groomed;
  else
    hair.fail("rest", "must be \"sag_free\" or \"groomed\", not \"" + rest + "\"");
  const int max_strands = hair.integer("max_strands", 0, 0, 2000000);
  thin_out(strands, radii, std::size_t(max_strands));
  // Without a GPU the demo scales down so it stays a short run on a few cores.
  const int cpu_max = hair.integer("cpu_max_strands", 0, 0, 2000000);
  if (cpu_max > 0 && sc.options.backend != Backend::cuda &&
      strands.strand_count() > std::size_t(cpu_max)) {
    sc.notice = "no CUDA device in use: simulating " + std::to_string(cpu_max) + " of " +
                std::to_string(strands.strand_count()) +
                " strands on the cpu backend (hair.cpu_max_strands)";
    thin_out(strands, radii, std::size_t(cpu_max));
  }
  if (const auto edge = coincident_points(strands))
    hair.fail(generated ? "generate" : "file",
              "strand " + std::to_string(edge->first) +
                  " has coincident points (a zero-length edge " + std::to_string(edge->second) +
                  " with hair.vertices = " + std::to_string(vertices) + ")");
  hair.finish();
  return strands;
}

// The scene's material, and per-strand radii when the file gives them or `radius_variation`
// spreads them (uniform in r (1 ± variation), deterministic in `seed`).
void parse_material(JsonReader m, const std::vector<double>& file_radii, HairSetup& setup) {
  RodMaterial& mat = setup.material;
  mat = scene::read_round_rod_material(m);
  const double variation =
      m.number("radius_variation", 0.0, ">= 0 and < 1", [](double v) { return v >= 0 && v < 1; });
  std::uint64_t state = std::uint64_t(m.integer("seed", 1, 0, 1 << 30));
  m.finish();
  if (file_radii.empty() && variation == 0) return;
  for (std::size_t s = 0; s < setup.strands.strand_count(); ++s) {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);  // splitmix64
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    const double u = double((z ^ (z >> 31)) >> 11) * 0x1.0p-53;  // [0, 1)
    RodMaterial strand = mat;
    if (!file_radii.empty()) strand.radius = file_radii[s];
    strand.radius *= 1 + variation * (2 * u - 1);
    // A file's radius or a wide variation may leave the range every stiffness is a number in.
    if (!(strand.radius >= scene::kMinRodRadius && strand.radius <= scene::kMaxRodRadius))
      throw Error(file_radii.empty() ? m.path_of("radius_variation") : "hair.radius_from_file",
                  "gives strand " + std::to_string(s) + " a radius of " +
                      short_number(strand.radius) + " m, outside [1e-7, 1] m");
    setup.strand_materials.push_back(strand);
  }
}

bool within_frequency(double f) {
  return f > 0 && f <= kMaxFrequency;
}

void parse_air(JsonReader air, HairSetup& s) {
  // Stokes drag on a hair in air (docs/models/der.md): 1e-4 N s/m² across, half along.
  const auto drag = [](double d) { return d >= 0 && d <= kMaxDrag; };
  s.drag_normal = air.number("drag_normal", 1e-4, ">= 0 and <= 100 (N s/m²)", drag);
  s.drag_tangent =
      air.number("drag_tangent", 0.5 * s.drag_normal, ">= 0 and <= 100 (N s/m²)", drag);
  const Vec3 mean = air.vec3("wind", Vec3::Zero());
  if (!(mean.norm() <= kMaxWind)) air.fail("wind", "must be at most 1000 m/s");
  JsonReader g = air.object("gusts");
  const double strength = g.number("strength", 0.0, ">= 0 and <= 1000 (m/s)",
                                   [](double v) { return v >= 0 && v <= kMaxWind; });
  const double frequency = g.number("frequency", 0.5, "> 0 and <= 1000 (Hz)", within_frequency);
  const double size = g.number("size", 0.3, "within [1e-3, 1e3] (m)",
                               [](double v) { return v >= kMinGustSize && v <= kMaxGustSize; });
  const int modes = g.integer("modes", 6, 1, kernels::kMaxWindModes);
  const int seed = g.integer("seed", 1, 0, 1 << 30);
  g.finish();
  air.finish();
  s.wind = {mean, strength, frequency, size, modes, std::uint64_t(seed)};
}

// Built-in head motions about the head's centre (y up, x to the side): shake (a "no", about
// `axis`, default y), nod (a "yes", about x), turn (once by `amplitude`, eased, over 1/frequency),
// jump (up and down along y), keyframes, still.
ClampMotion parse_head_motion(JsonReader m) {
  ClampMotion motion;
  const std::string type = m.string("type", "still");
  const double pi = std::numbers::pi;
  auto amplitude = [&](double fallback) {  // rad, or m for a jump
    return m.number("amplitude", fallback, ">= 0 and <= 100",
                    [](double a) { return a >= 0 && a <= kMaxAmplitude; });
  };
  auto frequency = [&](double fallback) {
    return m.number("frequency", fallback, "> 0 and <= 1000 (Hz)", within_frequency);
  };
  if (type == "shake") {
    const double a = amplitude(0.5);
    motion.rotation_amplitude = a * m.vec3("axis", Vec3::UnitY()).normalized();
    motion.frequency = frequency(1.5);
  } else if (type == "nod") {
    const double a = amplitude(0.3);
    motion.rotation_amplitude = a * m.vec3("axis", Vec3::UnitX()).normalized();
    motion.frequency = frequency(1.5);
  } else if (type == "jump") {
    motion.translation_amplitude = amplitude(0.05) * Vec3::UnitY();
    motion.frequency = frequency(2.0);
  } else if (type == "turn") {
    const double a = amplitude(pi / 2.5);
    const Vec3 axis = m.vec3("axis", Vec3::UnitY()).normalized();
    Keyframe start, end;
    end.time = 1 / frequency(1.0);
    end.rotation = a * axis;
    motion.keyframes = std::make_shared<KeyframePath>(std::vector{start, end}, m.path_of("type"));
  } else if (type == "keyframes") {
    std::vector<Keyframe> keys;
    for (JsonReader k : m.objects("keyframes")) {
      Keyframe key;
      key.time = k.number("time", std::nullopt, "within [-1e6, 1e6] (s)",
                          [](double t) { return std::abs(t) <= kMaxKeyTime; });
      key.translation = k.vec3("translation", Vec3::Zero());
      if (!(key.translation.norm() <= kMaxHeadDistance))
        k.fail("translation", "must be within 100 m of the origin");
      key.rotation = k.vec3("rotation", Vec3::Zero());
      if (!(key.rotation.norm() <= kMaxAmplitude)) k.fail("rotation", "must turn at most 100 rad");
      k.finish();
      keys.push_back(key);
    }
    motion.keyframes = std::make_shared<KeyframePath>(keys, m.path_of("keyframes"));
  } else if (type != "still") {
    m.fail("type",
           "must be 'still', 'shake', 'nod', 'turn', 'jump' or 'keyframes' (got '" + type + "')");
  }
  if (m.has("duration"))
    motion.duration = m.number("duration", std::nullopt, "> 0", scene::positive);
  m.finish();
  return motion;
}

// A collider; a mesh collider's mesh also goes into `meshes` (previews draw it).
Collider parse_collider(JsonReader c, double default_friction, const std::filesystem::path& dir,
                        std::vector<TriangleMesh>& meshes) {
  Collider out;
  const std::string shape = c.string("shape", std::nullopt);
  // Sizes and places within the scene's 100 m (the head's centre and motion have the same).
  auto point = [&](const char* key, std::optional<Vec3> fallback) {
    const Vec3 p = c.vec3(key, fallback);
    if (!(p.norm() <= kMaxHeadDistance)) c.fail(key, "must be within 100 m of the origin");
    return p;
  };
  auto radius = [&] {
    return c.number("radius", std::nullopt, "> 0 and <= 100 (m)",
                    [](double r) { return r > 0 && r <= kMaxSize; });
  };
  if (shape == "sphere") {
    out.shape = Collider::Shape::sphere;
    out.center = point("center", Vec3::Zero());
    out.radius = radius();
  } else if (shape == "ellipsoid") {
    out.shape = Collider::Shape::ellipsoid;
    out.center = point("center", Vec3::Zero());
    out.radii = c.vec3("radii", std::nullopt);
    if (!(out.radii.minCoeff() > 0 && out.radii.maxCoeff() <= kMaxSize))
      c.fail("radii", "must be > 0 and <= 100 (m)");
  } else if (shape == "capsule") {
    out.shape = Collider::Shape::capsule;
    out.from = point("from", std::nullopt);
    out.to = point("to", std::nullopt);
    out.radius = radius();
  } else if (shape == "mesh") {  // a signed-distance grid, built here once
    out.shape = Collider::Shape::mesh;
    meshes.emplace_back();
    out.mesh = scene::parse_mesh_grid(c, dir, meshes.back());
  } else {
    c.fail("shape", "must be 'sphere', 'ellipsoid', 'capsule' or 'mesh' (got '" + shape + "')");
  }
  out.friction = c.number("friction", default_friction, ">= 0 and <= 100",
                          [](double f) { return f >= 0 && f <= kMaxFriction; });
  c.finish();
  return out;
}

// What previews draw for the head: the mesh file when given, else the sphere and ellipsoid
// colliders as meshes.
TriangleMesh preview_mesh(JsonReader& head, const std::filesystem::path& dir,
                          const std::vector<Collider>& colliders,
                          const std::vector<TriangleMesh>& collider_meshes) {
  if (head.has("mesh")) {
    JsonReader m = head.object("mesh");
    const std::filesystem::path file = scene::resolve(dir, m.string("file", std::nullopt));
    const LengthUnit units = parse_length_unit(m.string("units", "m"), m.path_of("units"));
    m.finish();
    return read_mesh(file, {units});
  }
  TriangleMesh mesh;
  auto append = [&](const TriangleMesh& part, const Vec3& offset) {
    const int base = int(mesh.vertices.size());
    for (const Vec3& p : part.vertices) mesh.vertices.push_back(p + offset);
    for (const auto& t : part.triangles)
      mesh.triangles.push_back({t[0] + base, t[1] + base, t[2] + base});
  };
  for (const TriangleMesh& m : collider_meshes) append(m, Vec3::Zero());
  for (const Collider& c : colliders) {
    if (c.shape != Collider::Shape::sphere && c.shape != Collider::Shape::ellipsoid) continue;
    const Vec3 radii = c.shape == Collider::Shape::sphere ? Vec3::Constant(c.radius) : c.radii;
    append(ellipsoid_mesh(radii, 32), c.center);
  }
  return mesh;
}

void parse_head(JsonReader head, const std::filesystem::path& dir, HairScene& sc) {
  sc.setup.head = parse_head_motion(head.object("motion"));
  const Vec3 center = head.vec3("center", Vec3::Zero());
  if (!(center.norm() <= kMaxHeadDistance))
    head.fail("center", "must be within 100 m of the origin");
  sc.setup.head.center = center;
  const double friction = head.number("friction", 0.3, ">= 0 and <= 100",
                                      [](double f) { return f >= 0 && f <= kMaxFriction; });
  std::vector<TriangleMesh> collider_meshes;
  for (JsonReader c : head.objects("colliders"))
    sc.setup.colliders.push_back(parse_collider(c, friction, dir, collider_meshes));
  if (sc.setup.colliders.size() > std::size_t(kMaxColliders))
    head.fail("colliders", "at most " + std::to_string(kMaxColliders) + " colliders (got " +
                               std::to_string(sc.setup.colliders.size()) + ")");
  sc.preview_head = preview_mesh(head, dir, sc.setup.colliders, collider_meshes);
  head.finish();
}

void parse_time(JsonReader t, const Model& model, HairScene& sc) {
  const std::string integrator = t.string("integrator", to_string(model.integrators.front()));
  if (!steps_with(model, integrator))
    t.fail("integrator", "model '" + model.name + "' steps with " + integrator_names(model) +
                             " (got '" + integrator + "')");
  sc.setup.integrator = integrator == "implicit" ? Integrator::implicit : Integrator::symplectic;
  sc.fps = t.number("fps", 30.0, "> 0", scene::positive);
  // Default step: 1 ms implicit; symplectic, its stability limit.
  const double dt = t.number(
      "dt",
      integrator == "implicit" ? 1e-3 : explicit_step_limit(sc.setup.strands, sc.setup.material),
      "> 0", scene::positive);
  if (t.has("frames") && t.has("duration")) t.fail("duration", "give time.frames or time.duration");
  constexpr int kMaxStepsPerFrame = 1000000;
  if (t.has("frames")) {
    sc.frames = t.integer("frames", std::nullopt, 1, kMaxFrames);
  } else {  // counted in double first: a huge duration must not wrap an int
    const double frames =
        std::ceil(t.number("duration", 2.0, "> 0", scene::positive) * sc.fps - 1e-9);
    if (!(frames <= kMaxFrames))
      t.fail("duration", "gives " + short_number(frames) + " frames at " + short_number(sc.fps) +
                             " fps, more than " + std::to_string(kMaxFrames));
    sc.frames = std::max(1, int(frames));
  }
  // Whole steps per frame: Δt shrinks to divide the frame time.
  const double steps = std::ceil(1 / (sc.fps * dt) - 1e-9);
  if (!(steps <= kMaxStepsPerFrame))
    t.fail("dt", "gives " + short_number(steps) + " steps per frame at " + short_number(sc.fps) +
                     " fps, more than " + std::to_string(kMaxStepsPerFrame));
  sc.steps_per_frame = std::max(1, int(steps));
  sc.setup.dt = 1 / (sc.fps * sc.steps_per_frame);
  t.finish();
}

void parse_output(JsonReader o, int render_strands, HairOutputs& out) {
  out.frames = o.string("frames", "none");
  if (out.frames != "none" && out.frames != "hair" && out.frames != "ply")
    o.fail("frames", "must be 'none', 'hair' or 'ply' (got '" + out.frames + "')");
  if (out.frames == "none") out.frames.clear();
  out.usd = o.boolean("usd", false);
  out.png_every = o.integer("png_every", 0, 0, 1000000);
  out.mp4 = o.boolean("mp4", false);
  out.width = o.integer("width", out.width, 16, 8192);
  out.height = o.integer("height", out.height, 16, 8192);
  out.azimuth_deg = o.number("azimuth", out.azimuth_deg);
  out.elevation_deg = o.number("elevation", out.elevation_deg);
  out.checkpoint_every = o.integer("checkpoint_every", 0, 0, kMaxFrames);
  out.strands = o.string("strands", "guides");
  if (out.strands != "guides" && out.strands != "render" && out.strands != "both")
    o.fail("strands", "must be 'guides', 'render' or 'both' (got '" + out.strands + "')");
  if (out.strands != "guides" && render_strands == 0)
    o.fail("strands", "'" + out.strands + "' needs render.strands >= 1");
  out.contact_sheet = o.boolean("contact_sheet", true);
  if (out.mp4 && out.png_every == 0) o.fail("mp4", "needs output.png_every >= 1");
  o.finish();
}

// render: strands interpolated from the guides (roots are found once the guides are known).
void parse_render(JsonReader r, RenderSettings& out) {
  out.strands = r.integer("strands", 0, 0, 2000000);
  RenderStrandOptions& o = out.options;
  o.interpolation = parse_guide_interpolation(r.string("interpolation", "barycentric"),
                                              r.path_of("interpolation"));
  o.nearest = r.integer("nearest", 4, 1, 4);
  o.clump = r.number("clump", 0.0, "in [0, 1]", [](double x) { return x >= 0 && x <= 1; });
  o.jitter =
      r.number("jitter", 0.0, ">= 0 and <= 0.1 (m)", [](double x) { return x >= 0 && x <= 0.1; });
  o.seed = std::uint64_t(r.integer("seed", 1, 0, 1 << 30));
  out.line_width_px =
      r.number("line_width", 1.0, "> 0 and <= 20 (px)", [](double x) { return x > 0 && x <= 20; });
  r.finish();
}

// The hair-hair interaction stage (docs/scenes.md `interaction`; defaults for human hair).
void parse_interaction(JsonReader in, HairScene& sc) {
  Interaction& i = sc.setup.interaction;
  i.enabled = in.boolean("enabled", false);
  i.cell_size = in.number("cell_size", i.cell_size, "> 0 and <= 1 (m)",
                          [](double v) { return v > 0 && v <= 1; });
  i.friction = in.number("friction", i.friction, ">= 0 (1/s)", scene::non_negative);
  i.volume_stiffness =
      in.number("volume_stiffness", i.volume_stiffness, ">= 0 (1/s)", scene::non_negative);
  i.iterations = in.integer("iterations", i.iterations, 0, 1000);
  sc.output.density_png = in.boolean("density_png", false);
  if (i.enabled && sc.options.backend == Backend::reference)
    in.fail("enabled", "the hair-hair stage runs on the cpu and cuda backends");
  if (sc.output.density_png && !i.enabled) in.fail("density_png", "needs interaction.enabled");
  if (sc.output.density_png && sc.output.png_every == 0)
    in.fail("density_png", "needs output.png_every >= 1 (written beside each preview)");
  in.finish();
}

void parse_guard(JsonReader g, RunGuard& guard) {
  guard.max_strain = g.number("max_strain", guard.max_strain, "> 0", scene::positive);
  guard.max_speed = g.number("max_speed", guard.max_speed, "> 0", scene::positive);
  g.finish();
}

// FNV-1a, 64 bits: a fingerprint that stays the same across builds and machines.
std::string fnv1a_hex(std::string_view text) {
  std::uint64_t h = 0xcbf29ce484222325ull;
  for (const char c : text) h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ull;
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(h));
  return hex;
}

}  // namespace

bool is_hair_scene(const nlohmann::json& doc) {
  return doc.is_object() && doc.contains("hair");
}

HairScene parse_hair_scene(const nlohmann::json& doc, const std::filesystem::path& scene_dir) {
  JsonReader top(doc, "");
  HairScene sc;
  sc.options.model = top.string("model", default_model());
  const Model& model = find_model(sc.options.model, top.path_of("model"));
  sc.backend_asked = top.string("backend", "auto");
  if (sc.backend_asked != "auto" && sc.backend_asked != "reference" && sc.backend_asked != "cpu" &&
      sc.backend_asked != "cuda")
    top.fail("backend",
             "must be 'reference', 'cpu', 'cuda' or 'auto' (got '" + sc.backend_asked + "')");
  sc.options.backend = parse_backend(sc.backend_asked);
  if (!runs_on(model, sc.options.backend))
    top.fail(sc.backend_asked == "auto" && top.has("model") ? "model" : "backend",
             "model '" + model.name + "' simulates hairstyles on: " + backend_names(model) +
                 " (asked: " + to_string(sc.options.backend) + ")");
  const std::string precision = top.string("precision", "float");
  if (precision != "float" && precision != "double")
    top.fail("precision", "must be 'float' or 'double' (got '" + precision + "')");
  sc.options.precision = parse_precision(precision);
  if (sc.options.backend == Backend::reference && sc.options.precision != Precision::float64)
    top.fail("precision", "the reference backend runs in double only");
  parse_render(top.object("render"), sc.render);
  std::vector<double> file_radii;
  sc.setup.strands = parse_hair(top.object("hair"), scene_dir, sc, file_radii);
  if (sc.render.strands > 0 && sc.render.roots.empty())  // a strand file: around its roots
    sc.render.roots =
        scatter_render_roots(sc.setup.strands, sc.render.strands, sc.render.options.seed);
  parse_material(top.object("material"), file_radii, sc.setup);
  sc.setup.gravity = top.vec3("gravity", Vec3(0, -9.81, 0));
  if (!(sc.setup.gravity.norm() <= kMaxGravity))
    top.fail("gravity", "must be at most 1e4 m/s² (1,000 g)");
  sc.setup.damping = top.number("damping", 0.0, ">= 0 and <= 1e4 (1/s)",
                                [](double d) { return d >= 0 && d <= kMaxDamping; });
  parse_air(top.object("air"), sc.setup);
  parse_head(top.object("head"), scene_dir, sc);
  if (sc.push_out) sc.pushed_out = push_out_of_colliders(sc.setup.strands, sc.setup.colliders);
  parse_time(top.object("time"), model, sc);
  sc.setup.model_settings = model.parse_settings(top.object("solver"));  // the model's own
  if (model.check_settings) model.check_settings(*sc.setup.model_settings, sc.options.backend);
  parse_output(top.object("output"), sc.render.strands, sc.output);
  parse_interaction(top.object("interaction"), sc);
  parse_guard(top.object("guard"), sc.guard);
  top.finish();
  sc.fingerprint = scene_fingerprint(doc);
  return sc;
}

std::string scene_fingerprint(const nlohmann::json& doc) {
  nlohmann::json what = doc;  // the run's length may change on --resume
  if (what.contains("time") && what["time"].is_object()) {
    what["time"].erase("frames");
    what["time"].erase("duration");
  }
  return fnv1a_hex(what.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace));
}

}  // namespace hairsim::engine
