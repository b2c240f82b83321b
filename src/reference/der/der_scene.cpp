#include "reference/der/der_scene.hpp"

#include <chrono>
#include <cmath>
#include <numbers>
#include <random>
#include <sstream>

#include "core/random.hpp"
#include "hairsim/material.hpp"
#include "reference/der/der_implicit.hpp"
#include "scene/json_reader.hpp"
#include "scene/rod_scene.hpp"

namespace hairsim::der {
namespace {

using scene::JsonReader;
using scene::RodShape;
using scene::Stiffness;

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

// Air drag (drag_matrix): ζ⊥ and ζ∥ per unit length, and the wind.
void parse_air(JsonReader air, DynamicRod& r) {
  r.drag_normal = air.number("drag_normal", 0.0, ">= 0", scene::non_negative);
  r.drag_tangent = air.number("drag_tangent", 0.5 * r.drag_normal, ">= 0", scene::non_negative);
  const Vec3 wind = air.vec3("wind", Vec3::Zero());
  r.wind.mean = {wind.x(), wind.y(), wind.z()};
  air.finish();
}

}  // namespace

namespace {

// Shape of the n-th bending mode of a clamped-free Euler–Bernoulli beam at arc length s from the
// clamp, normalised to 1 at the tip: cosh βs − cos βs − σ (sinh βs − sin βs),
// σ = (cosh βL + cos βL) / (sinh βL + sin βL), βL the n-th root of cos βL cosh βL = −1.
double cantilever_mode(int n, double s, double length) {
  static constexpr double roots[] = {1.8751040687, 4.6940911330, 7.8547574382, 10.9955407349};
  const double bl = n <= 4 ? roots[n - 1] : (n - 0.5) * std::numbers::pi;
  const double b = bl / length;
  const double sigma = (std::cosh(bl) + std::cos(bl)) / (std::sinh(bl) + std::sin(bl));
  auto shape = [&](double z) {
    return std::cosh(b * z) - std::cos(b * z) - sigma * (std::sinh(b * z) - std::sin(b * z));
  };
  return shape(s) / shape(length);
}

// After moving vertices by hand: back onto the constraints, frames carried along, twist settled.
void settle(DynamicRod& r) {
  project_inextensible(r.state.x, r.rest, r.mass, r.fixed, 1e-13 * r.rest.edge_length.front());
  r.state = moved_to(r.state, r.state.x);
  solve_quasistatic_twist(r.state, r.rest, r.twist);
}

// initial: the rod starts in a bending mode of the clamped-free beam (mode, amplitude,
// direction), and/or with every free vertex displaced at random (perturbation, seed).
void parse_initial(JsonReader in, DerScene& sc, const std::string& shape, bool cantilever) {
  DynamicRod& r = sc.rod;
  const int mode = in.integer("mode", 0, 0, 50);
  const double amplitude = in.number("amplitude", 0.0, ">= 0", scene::non_negative);
  const Vec3 direction = in.vec3("direction", Vec3::UnitY());
  const double perturbation = in.number("perturbation", 0.0, ">= 0", scene::non_negative);
  const int seed = in.integer("seed", 1, 0, std::numeric_limits<int>::max());
  in.finish();
  if (mode > 0) {
    if (shape != "straight" || !cantilever)
      in.fail("mode", "needs a straight rod with a clamped root and a free tip");
    const Vec3 axis = (r.state.x.back() - r.state.x.front()).normalized();
    const Vec3 across = direction - direction.dot(axis) * axis;
    if (across.norm() == 0) in.fail("direction", "must not be along the rod");
    for (std::size_t i = 0; i < r.state.x.size(); ++i) {
      if (r.fixed[i]) continue;
      const double s = (r.state.x[i] - sc.clamp_point).dot(axis);
      r.state.x[i] += amplitude * cantilever_mode(mode, s, sc.length) * across.normalized();
    }
  }
  if (perturbation > 0) {
    std::mt19937 rng(static_cast<unsigned>(seed));
    std::uniform_real_distribution<double> u(-1, 1);
    for (std::size_t i = 0; i < r.state.x.size(); ++i)
      if (!r.fixed[i]) r.state.x[i] += perturbation * Vec3(u(rng), u(rng), u(rng));
  }
  if (mode > 0 || perturbation > 0) settle(r);
}

// body: a rigid body welded to the last edge (paper §8), its centre of mass at `position`: a
// point, or "helix_axis" (on a helix's axis, level with the last edge's midpoint: a spring's
// bob); the default is the last vertex.
RigidBody parse_body(JsonReader b, const DerScene& sc,
                     const std::optional<Vec3>& helix_axis_point) {
  RigidBody body;
  body.mass = b.number("mass", std::nullopt, "> 0", scene::positive);
  const Vec3 inertia = b.vec3("inertia", std::nullopt);
  if (!(inertia.minCoeff() > 0)) b.fail("inertia", "principal moments (kg m^2) must be > 0");
  body.inertia = inertia.asDiagonal();
  if (b.is_string("position")) {
    if (b.string("position", std::nullopt) != "helix_axis")
      b.fail("position", "must be [x, y, z] or \"helix_axis\"");
    if (!helix_axis_point) b.fail("position", "\"helix_axis\" needs rod.shape = helix");
    body.position = *helix_axis_point;
  } else {
    body.position = b.vec3("position", sc.rod.state.x.back());
  }
  body.velocity = b.vec3("velocity", Vec3::Zero());
  body.angular_velocity = b.vec3("angular_velocity", Vec3::Zero());
  b.finish();
  return body;
}

}  // namespace

DerScene parse_der_scene(const nlohmann::json& document) {
  JsonReader top(document, "");
  DerScene sc;
  top.string("model", "der");  // "der": the model table sent the scene here
  sc.backend = top.string("backend", "reference");
  if (sc.backend != "reference" && sc.backend != "cpu" && sc.backend != "cuda" &&
      sc.backend != "auto")
    top.fail("backend", "must be 'reference', 'cpu', 'cuda' or 'auto' (got '" + sc.backend + "')");

  JsonReader rod = top.object("rod");
  const std::string shape = rod.string("shape", "straight");
  const bool ring = shape == "ring";
  const Vec3 direction = rod.vec3("direction", Vec3::UnitX());
  if (direction.norm() == 0) rod.fail("direction", "must be non-zero");
  sc.clamp_point = rod.vec3("origin", Vec3::Zero());
  const int edges = rod.integer("edges", 40, ring ? 3 : 2, 100000);
  if (ring)
    for (const char* key : {"root", "tip", "root_motion", "tip_motion", "tip_twist"})
      if (rod.has(key)) rod.fail(key, "a ring has no ends");
  const std::string root = rod.string("root", ring ? "free" : "clamped"),
                    tip = rod.string("tip", "free");
  for (const auto& [key, value] : {std::pair{"root", root}, std::pair{"tip", tip}})
    if (value != "clamped" && value != "free") rod.fail(key, "must be 'clamped' or 'free'");
  const bool root_clamped = root == "clamped", tip_clamped = tip == "clamped";
  const RodShape rod_shape = scene::parse_rod_shape(
      rod, shape, sc.clamp_point, direction.normalized(), edges, root_clamped, tip_clamped);
  const std::vector<Vec3>& x = rod_shape.x;
  sc.length = rod_shape.length;
  JsonReader root_motion = rod.object("root_motion"), tip_motion = rod.object("tip_motion");
  const ClampMotion root_m = scene::parse_clamp_motion(root_motion),
                    tip_m = scene::parse_clamp_motion(tip_motion);
  if (rod.has("root_motion") && !root_clamped) rod.fail("root_motion", "needs rod.root = clamped");
  if (rod.has("tip_motion") && !tip_clamped) rod.fail("tip_motion", "needs rod.tip = clamped");
  const double tip_twist = rod.number("tip_twist", 0.0);
  if (rod.has("tip_twist") && !tip_clamped) rod.fail("tip_twist", "needs rod.tip = clamped");
  const double closing_twist = rod.number("closing_twist", 0.0);
  if (rod.has("closing_twist") && !ring) rod.fail("closing_twist", "needs rod.shape = ring");
  rod.finish();

  const Stiffness k = scene::parse_rod_material(top.object("material"));
  sc.rod = rod_at_rest(x, k.bending, k.twist, k.linear_density, ring);
  DynamicRod& r = sc.rod;
  const int edge_count = r.rest.edge_count();
  if (ring) {  // naturally straight, closed with the twist Θ on top of the circle's holonomy
    r.rest.curvature.assign(edge_count, {Vec2::Zero(), Vec2::Zero()});
    r.rest.closing_twist += closing_twist;
  }
  sc.rest_positions = x;
  if (root_clamped) clamp_end(r, false, root_m);
  if (tip_clamped) {
    clamp_end(r, true, tip_m);
    // The tip clamp turned about its edge before the run (accumulated turns are kept).
    const int last = edge_count - 1;
    const Vec3 t = (x[last + 1] - x[last]).normalized();
    r.tip_clamp.material_vector = Eigen::AngleAxisd(tip_twist, t) * r.tip_clamp.material_vector;
    r.state.theta[last] += tip_twist;
  }
  solve_quasistatic_twist(r.state, r.rest, r.twist);
  parse_loads(top.object("loads"), r);
  r.gravity = top.vec3("gravity", Vec3(0, -9.81, 0));
  r.damping = top.number("damping", 0.0, ">= 0", scene::non_negative);
  parse_air(top.object("air"), r);
  r.stretching_stiffness = k.stretching;
  parse_initial(top.object("initial"), sc, shape, root_clamped && !tip_clamped);

  if (top.has("body")) {
    if (tip_clamped || ring) top.fail("body", "is welded to the tip: needs rod.tip = free");
    std::optional<Vec3> helix_axis_point;
    if (rod_shape.helix_axis) {
      const Vec3 last_mid = 0.5 * (x[x.size() - 2] + x.back());
      const auto& [point, axis] = *rod_shape.helix_axis;
      helix_axis_point = point + (last_mid - point).dot(axis) * axis;
    }
    sc.body = parse_body(top.object("body"), sc, helix_axis_point);
  }

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
  if (sc.implicit && sc.body) time.fail("integrator", "bodies run with 'symplectic' only");
  // Implicit steps are not bound by the explicit limit: default to 1 % of the beam's time.
  sc.dt = time.number("dt", sc.implicit ? 0.01 * time_scale : stable_dt, "> 0", scene::positive);
  JsonReader st = top.object("static");
  sc.static_mode = st.boolean("enabled", false);
  sc.steps = time.integer("steps", sc.static_mode ? 0 : 1000, 0, 1'000'000'000);
  time.finish();
  sc.relax_damping = st.number("damping", 8.0 / time_scale, "> 0", scene::positive);
  sc.relax_speed_tolerance =
      st.number("speed_tolerance", 1e-9 * sc.length / time_scale, "> 0", scene::positive);
  sc.relax_max_steps = st.integer("max_steps", 10'000'000, 1, 1'000'000'000);
  st.finish();
  if (sc.static_mode && sc.body) top.fail("static", "static mode does not take bodies yet");
  JsonReader output = top.object("output");
  sc.trace_every = output.integer("trace_every", 0, 0, 1'000'000'000);
  output.finish();
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

// How far the rod is from its rest shape: the largest vertex displacement (m) and the largest
// rotation of an edge's tangent (rad).
struct Deviation {
  double distance = 0, tangent_angle = 0;
};
Deviation deviation_from_rest(const DynamicRod& rod, const std::vector<Vec3>& rest) {
  Deviation d;
  for (std::size_t i = 0; i < rest.size(); ++i)
    d.distance = std::max(d.distance, (rod.state.x[i] - rest[i]).norm());
  for (int j = 0; j < rod.rest.edge_count(); ++j) {
    const int b = rod.rest.vertex_after(j);
    const Vec3 t = (rod.state.x[b] - rod.state.x[j]).normalized(),
               t_rest = (rest[b] - rest[j]).normalized();
    d.tangent_angle = std::max(d.tangent_angle, std::atan2(t.cross(t_rest).norm(), t.dot(t_rest)));
  }
  return d;
}

// One step of the scene's integrator, on the rod alone or on the rod welded to its body.
class SceneStepper {
 public:
  explicit SceneStepper(DerScene& sc) : sc_(sc) {
    if (sc.body) welded_ = weld_to_tip(sc.rod, *sc.body);
  }
  DynamicRod& rod() { return welded_ ? welded_->rod : sc_.rod; }
  void step() {
    if (welded_) {
      step_with_body(*welded_, sc_.dt, 1e-12 * sc_.length);
      body_rotation_ += sc_.dt * welded_->body.angular_velocity;
    } else if (sc_.implicit) {
      step_linearly_implicit(sc_.rod, sc_.dt);
    } else {
      step_symplectic(sc_.rod, sc_.dt, 1e-12 * sc_.length);
    }
  }
  double kinetic() const {
    return welded_ ? kinetic_energy(welded_->rod) + welded_->body.kinetic_energy()
                   : kinetic_energy(sc_.rod);
  }
  void trace_header(std::ostream& out) const {
    out << "step,time_s,tip_x_m,tip_y_m,tip_z_m,kinetic_J,elastic_J,max_deviation_m,"
           "stretching_J,gravity_J";
    if (welded_)
      out << ",body_x_m,body_y_m,body_z_m,body_rotation_x_rad,body_rotation_y_rad,"
             "body_rotation_z_rad";
    out << "\n";
  }
  void trace_row(std::ostream& out, int step) {
    const DynamicRod& r = rod();
    const Vec3& tip = r.state.x.back();
    const double elastic = elastic_energy(r.state, compute_frames(r.state), r.rest);
    out << step << "," << r.time << "," << tip.x() << "," << tip.y() << "," << tip.z() << ","
        << kinetic() << "," << elastic << "," << deviation_from_rest(r, sc_.rest_positions).distance
        << "," << (sc_.implicit ? stretching_energy(r) : 0.0) << "," << gravity_energy(r);
    if (welded_) {
      const Vec3& p = welded_->body.position;
      out << "," << p.x() << "," << p.y() << "," << p.z() << "," << body_rotation_.x() << ","
          << body_rotation_.y() << "," << body_rotation_.z();
    }
    out << "\n";
  }
  void finish() {  // the final state back into the scene
    if (!welded_) return;
    sc_.rod = welded_->rod;
    sc_.body = welded_->body;
  }

 private:
  DerScene& sc_;
  std::optional<RodWithBody> welded_;
  Vec3 body_rotation_ = Vec3::Zero();  // accumulated ∫ω dt (rad)
};

}  // namespace

SceneRun run_der_scene(DerScene& sc) {
  const auto start = std::chrono::steady_clock::now();
  SceneStepper stepper(sc);
  std::ostringstream trace;
  trace.precision(10);
  if (sc.trace_every > 0) stepper.trace_header(trace);
  int steps = 0;
  auto advance = [&] {
    stepper.step();
    ++steps;
    check_finite(stepper.rod(), steps);
    if (sc.trace_every > 0 && steps % sc.trace_every == 0) stepper.trace_row(trace, steps);
  };
  if (sc.trace_every > 0) stepper.trace_row(trace, 0);
  while (steps < sc.steps) advance();
  if (sc.static_mode) {  // after the dynamic phase (clamp motions included), settle
    auto settle = [&] {
      const RelaxReport r = relax(sc.rod, sc.relax_damping, sc.relax_speed_tolerance,
                                  sc.relax_max_steps, [&](DynamicRod&) { advance(); });
      if (!r.converged)
        throw RunFailure("static", "no equilibrium within " + std::to_string(sc.relax_max_steps) +
                                       " steps (max speed " + std::to_string(r.max_speed) +
                                       " m/s)");
    };
    settle();
    // The kick: every free vertex at a random velocity that the relaxation's damping would
    // turn into a displacement of 1e-6 of the rod's length.
    DynamicRod& rod = sc.rod;
    const double kick_m = 1e-6 * sc.length;
    auto kick = [&](int round) {
      RandomStream random(1, std::uint64_t(round));
      for (std::size_t i = 0; i < rod.velocity.size(); ++i) {
        const Vec3 d(random.uniform(-1, 1), random.uniform(-1, 1), random.uniform(-1, 1));
        if (!rod.fixed[i]) rod.velocity[i] = kick_m * sc.relax_damping * d.normalized();
      }
    };
    sc.static_check = reference::check_stability(kick_m, kick, settle, [&] { return rod.state.x; });
  }
  stepper.finish();
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return {scene_summary(sc, steps, wall), sc.trace_every > 0 ? trace.str() : std::string()};
}

nlohmann::json scene_summary(const DerScene& sc, int steps, double wall) {
  const DynamicRod& rod = sc.rod;
  double max_stretch = 0;  // of the final state (m)
  for (int j = 0; j < rod.rest.edge_count(); ++j)
    max_stretch = std::max(
        max_stretch, std::abs((rod.state.x[rod.rest.vertex_after(j)] - rod.state.x[j]).norm() -
                              rod.rest.edge_length[j]));
  const Frames f = compute_frames(rod.state);
  double twist_residual = 0;  // max |∂E/∂θ| over the free θ (issue 3, case 7)
  const std::vector<double> dE = theta_gradient(rod.state, f, rod.rest);
  for (std::size_t j = 0; j < dE.size(); ++j) {
    const bool held =
        (j == 0 && rod.twist.first_clamped) || (j + 1 == dE.size() && rod.twist.last_clamped);
    if (!held) twist_residual = std::max(twist_residual, std::abs(dE[j]));
  }
  const Deviation dev = deviation_from_rest(rod, sc.rest_positions);
  const Vec3 tip = rod.state.x.back();
  auto array = [](const Vec3& v) { return nlohmann::json::array({v.x(), v.y(), v.z()}); };
  nlohmann::json summary = {{"model", "der"},
                            {"backend", sc.backend},
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
                            {"twist_residual_N_m", twist_residual},
                            {"max_deviation_from_rest_m", dev.distance},
                            {"max_tangent_rotation_rad", dev.tangent_angle},
                            {"finite", true},
                            {"length_m", sc.length},
                            {"clamp_point_m", array(sc.clamp_point)},
                            {"tip_position_m", array(tip)}};
  if (sc.static_check) summary["static"] = reference::stability_summary(*sc.static_check);
  if (sc.body)
    summary["body"] = {{"position_m", array(sc.body->position)},
                       {"velocity_m_s", array(sc.body->velocity)},
                       {"angular_velocity_rad_s", array(sc.body->angular_velocity)},
                       {"kinetic_energy_J", sc.body->kinetic_energy()}};
  return summary;
}

StrandSet rod_strands(const DynamicRod& rod) {
  StrandSet s;
  s.add_strand(rod.state.x);
  return s;
}

}  // namespace hairsim::der
