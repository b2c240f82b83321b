#include "reference/der/der_scene.hpp"

#include <chrono>
#include <cmath>
#include <numbers>

#include "reference/der/der_implicit.hpp"
#include "scene/json_reader.hpp"

namespace hairsim::der {
namespace {

using scene::JsonReader;

struct Stiffness {
  double bending, twist, linear_density, stretching;  // N m², N m², kg/m, N (0: not given)
};

// Either the material of a round rod (E, G, ρ, r: EI with I = πr⁴/4, GJ with J = πr⁴/2, ρπr²)
// or the three stiffnesses directly (for nondimensional validation scenes).
Stiffness parse_material(JsonReader m) {
  Stiffness s{};
  if (m.has("bending_stiffness")) {
    s.bending = m.number("bending_stiffness", std::nullopt, "> 0", scene::positive);
    s.twist = m.number("twist_stiffness", s.bending, "> 0", scene::positive);
    s.linear_density = m.number("linear_density", std::nullopt, "> 0", scene::positive);
    s.stretching = m.number("stretching_stiffness", 0.0, ">= 0", scene::non_negative);
  } else {
    const double r = m.number("radius", 40e-6, "> 0", scene::positive);
    const double e = m.number("youngs_modulus", 3e9, "> 0", scene::positive);
    const double g = m.number("shear_modulus", e / (2 * (1 + 0.3)), "> 0", scene::positive);
    const double rho = m.number("density", 1300, "> 0", scene::positive);
    const double pi = std::numbers::pi;
    s = {e * pi * std::pow(r, 4) / 4, g * pi * std::pow(r, 4) / 2, rho * pi * r * r,
         e * pi * r * r};
  }
  m.finish();
  return s;
}

ClampMotion parse_motion(JsonReader m) {
  ClampMotion motion;
  motion.velocity = m.vec3("velocity", Vec3::Zero());
  motion.angular_velocity = m.vec3("angular_velocity", Vec3::Zero());
  motion.twist_rate = m.number("twist_rate", 0.0);
  motion.translation_amplitude = m.vec3("translation_amplitude", Vec3::Zero());
  motion.rotation_amplitude = m.vec3("rotation_amplitude", Vec3::Zero());
  motion.twist_amplitude = m.number("twist_amplitude", 0.0);
  motion.frequency = m.number("frequency", 0.0, ">= 0", scene::non_negative);
  m.finish();
  return motion;
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

// Rod vertices: a straight rod of `length` from the clamp point along `direction`; with a
// clamped root the clamp point is the midpoint of the first edge (issue 3's convention).
std::vector<Vec3> straight_rod(const Vec3& origin, const Vec3& direction, double length, int edges,
                               bool clamped_root) {
  const double h = length / (clamped_root ? edges - 0.5 : edges);
  const Vec3 start = origin - (clamped_root ? 0.5 * h : 0.0) * direction;
  std::vector<Vec3> x;
  for (int i = 0; i <= edges; ++i) x.push_back(start + i * h * direction);
  return x;
}

// Rest (and initial) vertices of the rod and its length, from rod.shape.
struct RodShape {
  std::vector<Vec3> x;
  double length = 0;
};

RodShape parse_shape(JsonReader& rod, const std::string& shape, const Vec3& origin,
                     const Vec3& direction, int edges, bool clamped_root) {
  RodShape out;
  if (shape == "straight") {
    out.length = rod.number("length", std::nullopt, "> 0", scene::positive);
    out.x = straight_rod(origin, direction, out.length, edges, clamped_root);
    return out;
  }
  if (shape == "helix") {  // a groomed curl: its own rest shape, at rest under no load
    const double radius = rod.number("radius", std::nullopt, "> 0", scene::positive);
    const double pitch = rod.number("pitch", std::nullopt, "> 0", scene::positive);
    const double turns = rod.number("turns", std::nullopt, "> 0", scene::positive);
    out.x = helix_rod(origin, direction, radius, pitch, turns, edges);
  } else if (shape == "polyline") {
    // Any polyline, root first, resampled to `edges` edges by arc length; its own rest shape.
    StrandSet polyline;
    polyline.add_strand(rod.points("points", 2));
    polyline.validate(rod.path_of("points"));
    const StrandSet resampled = resample(polyline, edges + 1);
    out.x.assign(resampled.points.begin(), resampled.points.end());
  } else {
    rod.fail("shape", "must be 'straight', 'helix' or 'polyline'");
  }
  for (std::size_t i = 1; i < out.x.size(); ++i) out.length += (out.x[i] - out.x[i - 1]).norm();
  return out;
}

// loads.tip_force (on the last vertex) and loads.tip_moment (on the last edge).
void parse_loads(JsonReader loads, DynamicRod& r) {
  const Vec3 tip_force = loads.vec3("tip_force", Vec3::Zero());
  r.tip_moment = loads.vec3("tip_moment", Vec3::Zero());
  loads.finish();
  if (tip_force != Vec3::Zero()) {
    r.point_force.assign(r.state.x.size(), Vec3::Zero());
    r.point_force.back() = tip_force;
  }
}

}  // namespace

DerScene parse_der_scene(const nlohmann::json& document) {
  JsonReader top(document, "");
  DerScene sc;
  const std::string model = top.string("model", "der");
  if (model != "der") top.fail("model", "this build runs model 'der' only (got '" + model + "')");
  const std::string backend = top.string("backend", "reference");
  if (backend != "reference")
    top.fail("backend", "this build runs backend 'reference' only (got '" + backend + "')");

  JsonReader rod = top.object("rod");
  const std::string shape = rod.string("shape", "straight");
  const Vec3 direction = rod.vec3("direction", Vec3::UnitX());
  if (direction.norm() == 0) rod.fail("direction", "must be non-zero");
  sc.clamp_point = rod.vec3("origin", Vec3::Zero());
  const int edges = rod.integer("edges", 40, 2, 100000);
  const std::string root = rod.string("root", "clamped"), tip = rod.string("tip", "free");
  for (const auto& [key, value] : {std::pair{"root", root}, std::pair{"tip", tip}})
    if (value != "clamped" && value != "free") rod.fail(key, "must be 'clamped' or 'free'");
  const bool root_clamped = root == "clamped", tip_clamped = tip == "clamped";
  const RodShape rod_shape =
      parse_shape(rod, shape, sc.clamp_point, direction.normalized(), edges, root_clamped);
  const std::vector<Vec3>& x = rod_shape.x;
  sc.length = rod_shape.length;
  JsonReader root_motion = rod.object("root_motion"), tip_motion = rod.object("tip_motion");
  const ClampMotion root_m = parse_motion(root_motion), tip_m = parse_motion(tip_motion);
  if (rod.has("root_motion") && !root_clamped) rod.fail("root_motion", "needs rod.root = clamped");
  if (rod.has("tip_motion") && !tip_clamped) rod.fail("tip_motion", "needs rod.tip = clamped");
  rod.finish();

  const Stiffness k = parse_material(top.object("material"));
  const Vec3 u0 = any_orthogonal((x[1] - x[0]).normalized());
  DynamicRod& r = sc.rod;
  r.rest = rest_shape_from_polyline(x, u0, std::vector<Mat2>(edges, k.bending * Mat2::Identity()),
                                    k.twist);
  r.state = {x, std::vector<double>(edges, 0.0), u0};
  r.velocity.assign(x.size(), Vec3::Zero());
  r.mass = lumped_masses(r.rest, k.linear_density);
  r.fixed.assign(x.size(), false);
  r.twist = {false, false};
  if (root_clamped) clamp_end(r, false, root_m);
  if (tip_clamped) clamp_end(r, true, tip_m);
  parse_loads(top.object("loads"), r);
  r.gravity = top.vec3("gravity", Vec3(0, -9.81, 0));
  r.damping = top.number("damping", 0.0, ">= 0", scene::non_negative);
  r.stretching_stiffness = k.stretching;

  // The beam's own time scale T = sqrt(ρS L⁴ / EI) and the explicit stability limit of the
  // discrete bending operator, about 0.15 h² sqrt(ρS / EI) (measured; docs/models/der.md).
  const double h = r.rest.edge_length.front();
  const double time_scale = std::sqrt(k.linear_density * std::pow(sc.length, 4) / k.bending);
  const double stable_dt = 0.15 * h * h * std::sqrt(k.linear_density / k.bending);
  JsonReader time = top.object("time");
  const std::string integrator = time.string("integrator", "symplectic");
  if (integrator != "symplectic" && integrator != "implicit")
    time.fail("integrator", "must be 'symplectic' or 'implicit'");
  sc.implicit = integrator == "implicit";
  if (sc.implicit && !(k.stretching > 0))
    top.fail("material",
             "the implicit integrator needs material.stretching_stiffness (N) when "
             "the stiffnesses are given directly");
  // Implicit steps are not bound by the explicit limit: default to 1 % of the beam's time.
  sc.dt = time.number("dt", sc.implicit ? 0.01 * time_scale : stable_dt, "> 0", scene::positive);
  sc.steps = time.integer("steps", 1000, 0, 1'000'000'000);
  time.finish();
  JsonReader st = top.object("static");
  sc.static_mode = st.boolean("enabled", false);
  sc.relax_damping = st.number("damping", 8.0 / time_scale, "> 0", scene::positive);
  sc.relax_speed_tolerance =
      st.number("speed_tolerance", 1e-9 * sc.length / time_scale, "> 0", scene::positive);
  sc.relax_max_steps = st.integer("max_steps", 10'000'000, 1, 1'000'000'000);
  st.finish();
  top.finish();
  return sc;
}

namespace {

void check_finite(const DynamicRod& rod, int step) {
  for (std::size_t i = 0; i < rod.state.x.size(); ++i)
    if (!rod.state.x[i].allFinite() || !rod.velocity[i].allFinite())
      throw RunFailure("strand 0, step " + std::to_string(step),
                       "non-finite position or velocity at vertex " + std::to_string(i));
}

}  // namespace

nlohmann::json run_der_scene(DerScene& sc) {
  const auto start = std::chrono::steady_clock::now();
  DynamicRod& rod = sc.rod;
  int steps = 0;
  bool converged = true;
  if (sc.static_mode) {
    const RelaxReport r = sc.implicit
                              ? relax_implicit(rod, sc.dt, sc.relax_damping,
                                               sc.relax_speed_tolerance, sc.relax_max_steps)
                              : relax_to_equilibrium(rod, sc.dt, sc.relax_damping,
                                                     sc.relax_speed_tolerance, sc.relax_max_steps);
    steps = r.steps;
    converged = r.converged;
    check_finite(rod, steps);
    if (!converged)
      throw RunFailure("static", "no equilibrium within " + std::to_string(sc.relax_max_steps) +
                                     " steps (max speed " + std::to_string(r.max_speed) + " m/s)");
  } else {
    for (; steps < sc.steps; ++steps) {
      if (sc.implicit)
        step_linearly_implicit(rod, sc.dt);
      else
        step_symplectic(rod, sc.dt, 1e-12 * sc.length);
      check_finite(rod, steps + 1);
    }
  }
  double max_stretch = 0;  // of the final state (m)
  for (std::size_t j = 0; j + 1 < rod.state.x.size(); ++j)
    max_stretch = std::max(max_stretch, std::abs((rod.state.x[j + 1] - rod.state.x[j]).norm() -
                                                 rod.rest.edge_length[j]));
  const Frames f = compute_frames(rod.state);
  const Vec3 tip = rod.state.x.back();
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return {{"model", "der"},
          {"backend", "reference"},
          {"mode", sc.static_mode ? "static" : "dynamic"},
          {"integrator", sc.implicit ? "implicit" : "symplectic"},
          {"steps", steps},
          {"dt_s", sc.dt},
          {"wall_time_s", wall},
          {"energies_J",
           {{"kinetic", kinetic_energy(rod)},
            {"bending", bending_energy(f, rod.rest)},
            {"twist", twist_energy(rod.state, f, rod.rest)},
            {"stretching", sc.implicit ? stretching_energy(rod) : 0.0},
            {"gravity", gravity_energy(rod)}}},
          {"max_stretch_m", max_stretch},
          {"finite", true},
          {"length_m", sc.length},
          {"clamp_point_m", {sc.clamp_point.x(), sc.clamp_point.y(), sc.clamp_point.z()}},
          {"tip_position_m", {tip.x(), tip.y(), tip.z()}}};
}

StrandSet rod_strands(const DynamicRod& rod) {
  StrandSet s;
  s.add_strand(rod.state.x);
  return s;
}

}  // namespace hairsim::der
