#include "scene/rod_scene.hpp"

#include <Eigen/Geometry>  // cross, unitOrthogonal
#include <cmath>
#include <limits>
#include <numbers>

#include "core/sdf_view.hpp"
#include "hairsim/material.hpp"
#include "hairsim/strands.hpp"
#include "reference/eigen_bridge.hpp"
#include "scene/rod_material.hpp"
#include "scene/scene_files.hpp"

namespace hairsim::scene {

RodMaterial read_round_rod_material(JsonReader& m) {
  RodMaterial mat;
  mat.radius = m.number("radius", mat.radius, "> 0 and within [1e-7, 1] (m)",
                        [](double r) { return r >= kMinRodRadius && r <= kMaxRodRadius; });
  const char* modulus_range = "> 0 and within [1, 1e13] (Pa)";
  const auto modulus = [](double e) { return e >= 1 && e <= 1e13; };
  mat.youngs_modulus = m.number("youngs_modulus", mat.youngs_modulus, modulus_range, modulus);
  mat.shear_modulus =  // Poisson ratio 0.3 by default
      m.number("shear_modulus", mat.youngs_modulus / (2 * (1 + 0.3)), modulus_range, modulus);
  mat.density = m.number("density", mat.density, "> 0 and within [1e-3, 1e5] (kg/m³)",
                         [](double d) { return d >= 1e-3 && d <= 1e5; });
  return mat;
}

Stiffness parse_rod_material(JsonReader m) {
  Stiffness s{};
  if (m.has("bending_stiffness")) {
    s.bending = m.number("bending_stiffness", std::nullopt, "> 0", scene::positive);
    s.twist = m.number("twist_stiffness", s.bending, "> 0", scene::positive);
    s.linear_density = m.number("linear_density", std::nullopt, "> 0", scene::positive);
    s.stretching = m.number("stretching_stiffness", 0.0, ">= 0", scene::non_negative);
    s.radius = m.number("radius", 0.0, ">= 0", scene::non_negative);
  } else {
    const RodMaterial mat = read_round_rod_material(m);
    s = {mat.bending_stiffness(), mat.twist_stiffness(), mat.linear_density(),
         mat.stretching_stiffness(), mat.radius};
  }
  m.finish();
  return s;
}

ClampMotion parse_clamp_motion(JsonReader m) {
  ClampMotion motion;
  motion.velocity = m.vec3("velocity", Vec3::Zero());
  motion.angular_velocity = m.vec3("angular_velocity", Vec3::Zero());
  motion.twist_rate = m.number("twist_rate", 0.0);
  motion.translation_amplitude = m.vec3("translation_amplitude", Vec3::Zero());
  motion.rotation_amplitude = m.vec3("rotation_amplitude", Vec3::Zero());
  motion.twist_amplitude = m.number("twist_amplitude", 0.0);
  motion.frequency = m.number("frequency", 0.0, ">= 0", scene::non_negative);
  motion.duration =
      m.number("duration", std::numeric_limits<double>::infinity(), "> 0", scene::positive);
  m.finish();
  return motion;
}

namespace {

// The DER reference's default Bishop vector (der::any_orthogonal): helix_axis depends on it.
Vec3 any_orthogonal(const Vec3& t) {
  return t.unitOrthogonal();
}

// A helix around `direction` starting at the origin: radius, pitch (rise per turn), turns;
// `edges` edges equally spaced in angle.
std::vector<Vec3> helix_rod(const Vec3& origin, const Vec3& direction, double radius, double pitch,
                            double turns, int edges) {
  const Vec3 axis = direction.normalized();
  const Vec3 side = any_orthogonal(axis), other = axis.cross(side);
  std::vector<Vec3> x;
  for (int i = 0; i <= edges; ++i) {
    const double a = 2 * std::numbers::pi * turns * i / edges;
    x.push_back(origin + radius * (std::cos(a) - 1) * side + radius * std::sin(a) * other +
                pitch * turns * i / edges * axis);
  }
  return x;
}

// A circle of `edges` vertices (one edge per vertex) around `direction` through `origin`.
std::vector<Vec3> ring_rod(const Vec3& origin, const Vec3& direction, double radius, int edges) {
  const Vec3 axis = direction.normalized();
  const Vec3 side = any_orthogonal(axis), other = axis.cross(side);
  std::vector<Vec3> x;
  for (int i = 0; i < edges; ++i) {
    const double a = 2 * std::numbers::pi * i / edges;
    x.push_back(origin + radius * (std::cos(a) * side + std::sin(a) * other));
  }
  return x;
}

// Rod vertices: a straight rod of `length` from the clamp point along `direction`. A clamped end
// counts from the midpoint of its edge (issue 3's convention): with a clamped root the rod starts
// half an edge behind the origin; with both ends clamped, `length` is the distance between the
// two clamped edges' midpoints.
std::vector<Vec3> straight_rod(const Vec3& origin, const Vec3& direction, double length, int edges,
                               bool clamped_root, bool clamped_tip) {
  const double h = length / (edges - (clamped_root ? 0.5 : 0.0) - (clamped_tip ? 0.5 : 0.0));
  const Vec3 start = origin - (clamped_root ? 0.5 * h : 0.0) * direction;
  std::vector<Vec3> x;
  for (int i = 0; i <= edges; ++i) x.push_back(start + i * h * direction);
  return x;
}

}  // namespace

// obstacles[i]: static, in world coordinates; optional Coulomb friction μ (0, the papers'
// frictionless contacts, by default).
kernels::Collider<double> parse_obstacle(JsonReader o, const std::filesystem::path& dir,
                                         ObstacleGrids& grids) {
  kernels::Collider<double> c;
  const std::string type = o.string("type", std::nullopt);
  auto unit = [&](const char* key) {
    const Vec3 v = o.vec3(key, std::nullopt);
    if (!(v.norm() > 0)) o.fail(key, "must be non-zero");
    return bridge::to_kernel(v.normalized());
  };
  auto radius = [&] { return o.number("radius", std::nullopt, "> 0", scene::positive); };
  if (type == "plane") {
    c.shape = kernels::ColliderShape::plane;
    c.a = bridge::to_kernel(o.vec3("point", std::nullopt));
    c.b = unit("normal");
  } else if (type == "sphere") {
    c.shape = kernels::ColliderShape::sphere;
    c.a = bridge::to_kernel(o.vec3("center", std::nullopt));
    c.radii = {radius(), 0, 0};
  } else if (type == "ellipsoid") {
    c.shape = kernels::ColliderShape::ellipsoid;
    c.a = bridge::to_kernel(o.vec3("center", std::nullopt));
    const Vec3 radii = o.vec3("radii", std::nullopt);
    if (!(radii.minCoeff() > 0)) o.fail("radii", "must be > 0");
    c.radii = bridge::to_kernel(radii);
  } else if (type == "mesh") {
    c.shape = kernels::ColliderShape::mesh;
    TriangleMesh mesh;
    grids.push_back(parse_mesh_grid(o, dir, mesh));
    c.sdf = sdf_view(*grids.back());
  } else if (type == "capsule") {
    c.shape = kernels::ColliderShape::capsule;
    c.a = bridge::to_kernel(o.vec3("a", std::nullopt));
    c.b = bridge::to_kernel(o.vec3("b", std::nullopt));
    if (!(kernels::norm(c.b - c.a) > 0)) o.fail("b", "must differ from a");
    c.radii = {radius(), 0, 0};
  } else if (type == "cylinder") {
    c.shape = kernels::ColliderShape::cylinder;
    c.a = bridge::to_kernel(o.vec3("point", std::nullopt));
    c.b = unit("axis");
    c.radii = {radius(), 0, 0};
  } else {
    o.fail("type",
           "must be 'plane', 'sphere', 'ellipsoid', 'capsule', 'cylinder' or 'mesh' (got '" + type +
               "')");
  }
  c.friction = o.number("friction", 0.0, ">= 0", scene::non_negative);
  o.finish();
  return c;
}

// Arc length of the smooth curve through the points: a chord of a curve of curvature κ spans
// the arc |e| (1 + (κ|e|)²/24 + ...), κ from the turning angles at the chord's two ends
// (2 tan(φ/2) over the mean edge length); the chords alone shorten a tight curl by L θ²/24.
std::vector<double> smooth_arc_lengths(const std::vector<Vec3>& points) {
  const std::size_t count = points.size();
  std::vector<double> turning(count, 0.0);
  for (std::size_t i = 1; i + 1 < count; ++i) {
    const Vec3 a = points[i] - points[i - 1], b = points[i + 1] - points[i];
    const double phi = std::atan2(a.cross(b).norm(), a.dot(b));
    turning[i] = 2 * std::tan(phi / 2) / (0.5 * (a.norm() + b.norm()));
  }
  std::vector<double> s(count, 0.0);
  for (std::size_t i = 1; i < count; ++i) {
    const double chord = (points[i] - points[i - 1]).norm();
    const double ends = (i >= 2 ? 1 : 0) + (i + 1 < count ? 1 : 0);
    const double kappa = ends > 0 ? (turning[i - 1] + turning[i]) / ends : 0.0;
    // The arc's turn over the chord at most half a turn: at a hairpin (a vertex turning nearly
    // π) tan(φ/2) diverges, and one 5 mm chord of a generated curl counted 56 cm of arc.
    const double turn = std::min(kappa * chord, std::numbers::pi);
    s[i] = s[i - 1] + chord * (1 + turn * turn / 24);
  }
  return s;
}

Vec3 root_tangent(const std::vector<Vec3>& points) {
  Vec3 t0 = (points[1] - points[0]).normalized();
  if (points.size() >= 3) {
    const Vec3 t1 = (points[2] - points[1]).normalized(), b = t0.cross(t1);
    if (b.norm() > 1e-12)
      t0 = Eigen::AngleAxisd(-0.5 * std::atan2(b.norm(), t0.dot(t1)), b.normalized()) * t0;
  }
  return t0;
}

ReducedRun parse_reduced_run(JsonReader& top, const std::string& model, const std::string& scheme,
                             double length, const Stiffness& k, const Vec3& gravity,
                             const std::filesystem::path& dir, ObstacleGrids& grids,
                             std::vector<kernels::Collider<double>>& colliders,
                             double& contact_thickness) {
  ReducedRun run;
  // The rod's time scale T = sqrt(ρS L⁴ / EI) and force scale (its weight, or EI / L).
  const double time_scale = std::sqrt(k.linear_density * std::pow(length, 4) / k.bending);
  const double weight = k.linear_density * length * gravity.norm();
  const double moment_scale = weight > 0 ? weight * length : k.bending / length;
  JsonReader time = top.object("time");
  const std::string integrator = time.string("integrator", "semi_implicit");
  if (integrator != "semi_implicit")
    time.fail("integrator",
              "model '" + model + "' steps semi-implicit Euler only (" + scheme + ")");
  JsonReader st = top.object("static");
  run.static_mode = st.boolean("enabled", false);
  run.dt = time.number("dt", 1e-3 * time_scale, "> 0", scene::positive);
  run.steps = time.integer("steps", run.static_mode ? 0 : 1000, 0, 1'000'000'000);
  time.finish();
  run.static_tolerance = st.number("tolerance", 1e-12 * moment_scale, "> 0", scene::positive);
  st.finish();
  for (JsonReader& o : top.objects("obstacles")) colliders.push_back(parse_obstacle(o, dir, grids));
  if (run.static_mode && !colliders.empty())
    top.fail("obstacles", "static mode does not take obstacles with model '" + model +
                              "' (run the dynamics with internal friction to rest instead)");
  contact_thickness = top.number("contact_thickness", k.radius, ">= 0", scene::non_negative);
  JsonReader output = top.object("output");
  run.trace_every = output.integer("trace_every", 0, 0, 1'000'000'000);
  output.finish();
  return run;
}

void require_reference_backend(JsonReader& top, const std::string& model) {
  const std::string backend = top.string("backend", "reference");
  if (backend != "reference")
    top.fail("backend", "model '" + model + "' runs on the reference backend only so far (got '" +
                            backend + "')");
}

void reject_fields(JsonReader& r, std::initializer_list<const char*> keys, const std::string& model,
                   const std::string& detail) {
  for (const char* key : keys)
    if (r.has(key)) r.fail(key, "is not supported by model '" + model + "'" + detail);
}

RodShape parse_rod_shape(JsonReader& rod, const std::string& shape, const Vec3& origin,
                         const Vec3& direction, int edges, bool clamped_root, bool clamped_tip) {
  RodShape out;
  if (shape == "straight") {
    out.length = rod.number("length", std::nullopt, "> 0", scene::positive);
    out.x = straight_rod(origin, direction, out.length, edges, clamped_root, clamped_tip);
    return out;
  }
  if (shape == "helix") {  // a groomed curl: its own rest shape, at rest under no load
    const double radius = rod.number("radius", std::nullopt, "> 0", scene::positive);
    const double pitch = rod.number("pitch", std::nullopt, "> 0", scene::positive);
    const double turns = rod.number("turns", std::nullopt, "> 0", scene::positive);
    out.x = helix_rod(origin, direction, radius, pitch, turns, edges);
    out.helix_axis = {origin - radius * any_orthogonal(direction), direction};  // as helix_rod
  } else if (shape == "polyline") {
    // Any polyline, root first, resampled to `edges` edges by arc length; its own rest shape.
    StrandSet polyline;
    polyline.add_strand(rod.points("points", 2));
    polyline.validate(rod.path_of("points"));
    const StrandSet resampled = resample(polyline, edges + 1);
    out.x.assign(resampled.points.begin(), resampled.points.end());
  } else if (shape == "ring") {  // a naturally straight rod closed into a circle (Michell)
    const double radius = rod.number("radius", std::nullopt, "> 0", scene::positive);
    out.x = ring_rod(origin, direction, radius, edges);
    for (std::size_t i = 0; i < out.x.size(); ++i)
      out.length += (out.x[(i + 1) % out.x.size()] - out.x[i]).norm();
    return out;
  } else {
    rod.fail("shape", "must be 'straight', 'helix', 'polyline' or 'ring'");
  }
  for (std::size_t i = 1; i < out.x.size(); ++i) out.length += (out.x[i] - out.x[i - 1]).norm();
  return out;
}

}  // namespace hairsim::scene
