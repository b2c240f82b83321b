#include "reference/cosserat/cosserat_scene.hpp"
#include "reference/eigen_bridge.hpp"

#include <Eigen/Geometry>  // cross
#include <chrono>
#include <cmath>
#include <sstream>

#include "core/random.hpp"
#include "hairsim/error.hpp"

namespace hairsim::cosserat {

using bridge::to_kernel;
namespace {

using scene::JsonReader;

// solver.*: the paper's solver settings (§4). Tolerances default to the paper's values scaled to
// this rod (docs/models/cosserat.md): the paper's 1e-5 is 4e-4 of its Fig. 11 rod's weight, so
// Newton stops at 4e-4 of this rod's weight (or of EI / L² without gravity), 1e-10 of it in
// static mode; PCG at 1e-2 of Newton's (the paper's 1e-7 / 1e-5). And the discrete Darboux
// vector's measure (it shapes the rest curvature, so it is read before the rod is built) and
// friction's stick speed ε_v, which are the rod's.
struct RodChoices {
  BendingStrain measure = BendingStrain::tangent;
  double stick_speed = 1e-3;  // m/s
};
SolverSettings parse_solver(JsonReader s, double force_scale, bool static_mode, RodChoices& rod) {
  SolverSettings out;
  rod.measure =
      parse_bending_strain(s.string("bending_strain", "tangent"), s.path_of("bending_strain"));
  rod.stick_speed = s.number("stick_speed", rod.stick_speed, "> 0", scene::positive);
  out.preconditioner =
      parse_preconditioner(s.string("preconditioner", "hybrid"), s.path_of("preconditioner"));
  out.newton_tolerance = s.number("newton_tolerance", (static_mode ? 1e-10 : 4e-4) * force_scale,
                                  "> 0", scene::positive);
  out.newton_max_iterations = s.integer("newton_max_iterations", 5, 1, 1000);
  out.pcg.tolerance =
      s.number("pcg_tolerance", 1e-2 * out.newton_tolerance, "> 0", scene::positive);
  out.pcg.relative_tolerance = s.number("pcg_relative_tolerance", 1e-2, "> 0", scene::positive);
  out.pcg.max_iterations = s.integer("pcg_max_iterations", 0, 0, 100'000'000);
  out.active_set_max_iterations = s.integer("active_set_max_iterations", 200, 1, 100000);
  s.finish();
  return out;
}

// Fields of DER scenes this model does not take (yet): a clear error, not "unknown field".
void reject_der_only_fields(JsonReader& top, JsonReader& rod) {
  scene::reject_fields(top, {"loads", "air", "damping", "body", "initial"}, "cosserat");
  scene::reject_fields(rod, {"tip_motion", "tip_twist", "closing_twist"}, "cosserat",
                       " (free tip only)");
}

}  // namespace

CosseratScene parse_cosserat_scene(const nlohmann::json& document,
                                   const std::filesystem::path& dir) {
  JsonReader top(document, "");
  CosseratScene sc;
  top.string("model", std::nullopt);  // "cosserat": the model table sent the scene here
  scene::require_reference_backend(top, "cosserat");
  JsonReader rod = top.object("rod");
  reject_der_only_fields(top, rod);
  const std::string shape = rod.string("shape", "straight");
  if (shape == "ring") rod.fail("shape", "model 'cosserat' takes open rods only");
  const Vec3 direction = rod.vec3("direction", Vec3::UnitX());
  if (direction.norm() == 0) rod.fail("direction", "must be non-zero");
  sc.clamp_point = rod.vec3("origin", Vec3::Zero());
  const int edges = rod.integer("edges", 40, 2, 100000);
  const std::string root = rod.string("root", "clamped"), tip = rod.string("tip", "free");
  if (root != "clamped" && root != "free") rod.fail("root", "must be 'clamped' or 'free'");
  if (tip != "free") rod.fail("tip", "model 'cosserat' takes a free tip only");
  const bool clamped = root == "clamped";
  const scene::RodShape rod_shape = scene::parse_rod_shape(
      rod, shape, sc.clamp_point, direction.normalized(), edges, clamped, false);
  JsonReader root_motion = rod.object("root_motion");
  const ClampMotion motion = scene::parse_clamp_motion(root_motion);
  if (rod.has("root_motion") && !clamped) rod.fail("root_motion", "needs rod.root = clamped");
  rod.finish();

  const scene::Stiffness k = scene::parse_rod_material(top.object("material"));
  // Rotational inertia per unit length: ρI = ρA r²/4 about the bending axes, twice that about
  // the tangent (a solid round section). Without a radius it is 0, which only a clamped root
  // makes well posed (the rigid twist of a free rod would have no inertia).
  const double rho_i = k.linear_density * k.radius * k.radius / 4;
  if (!(rho_i > 0) && !clamped)
    top.fail("material", "a rod with a free root needs material.radius (rotational inertia)");
  sc.rest_positions = rod_shape.x;
  sc.length = rod_shape.length;
  const Vec3 gravity = top.vec3("gravity", Vec3(0, -9.81, 0));

  // The rod's own time scale T = sqrt(ρA L⁴ / EI) and force scale: its weight, or EI / L².
  const double time_scale = std::sqrt(k.linear_density * std::pow(sc.length, 4) / k.bending);
  const double weight = k.linear_density * sc.length * gravity.norm();
  const double force_scale = weight > 0 ? weight : k.bending / (sc.length * sc.length);
  JsonReader time = top.object("time");
  const std::string integrator = time.string("integrator", "implicit");
  if (integrator != "implicit")
    time.fail("integrator", "model 'cosserat' steps implicit Euler only (§3)");
  JsonReader st = top.object("static");
  sc.static_mode = st.boolean("enabled", false);
  sc.dt =
      time.number("dt", sc.static_mode ? time_scale : 0.01 * time_scale, "> 0", scene::positive);
  sc.steps = time.integer("steps", sc.static_mode ? 0 : 1000, 0, 1'000'000'000);
  time.finish();
  sc.static_tolerance = st.number("tolerance", 1e-12 * sc.length, "> 0", scene::positive);
  sc.static_max_steps = st.integer("max_steps", 100000, 1, 1'000'000'000);
  st.finish();
  RodChoices choices;
  sc.solver = parse_solver(top.object("solver"), force_scale, sc.static_mode, choices);
  sc.rod =
      rod_at_rest(rod_shape.x, Vec3(k.bending, k.bending, k.twist), Vec3(rho_i, rho_i, 2 * rho_i),
                  k.linear_density, Vec3::Zero(), choices.measure);
  sc.rod.stick_speed = choices.stick_speed;
  if (clamped) clamp_root(sc.rod, motion);
  sc.rod.gravity = gravity;
  for (JsonReader& o : top.objects("obstacles"))
    sc.rod.obstacles.push_back(scene::parse_obstacle(o, dir, sc.obstacle_grids));
  sc.rod.contact_thickness = top.number("contact_thickness", k.radius, ">= 0", scene::non_negative);
  JsonReader output = top.object("output");
  sc.trace_every = output.integer("trace_every", 0, 0, 1'000'000'000);
  output.finish();
  top.finish();
  return sc;
}

namespace {

// Running sums of the solver's work, for the summary.
struct SolverTotals {
  long newton = 0, pcg_iterations = 0, pcg_solves = 0, kkt = 0, unconverged = 0, steps = 0;
  double max_penetration = 0;
  void add(const StepReport& r) {
    newton += r.newton_iterations;
    pcg_iterations += r.pcg_iterations;
    pcg_solves += r.pcg_solves;
    kkt += r.kkt_systems;
    unconverged += r.converged ? 0 : 1;
    max_penetration = std::max(max_penetration, r.max_penetration);
    ++steps;
  }
};

double ratio(long a, long b) {
  return b > 0 ? static_cast<double>(a) / static_cast<double>(b) : 0.0;
}

double max_deviation(const std::vector<Vec3>& x, const std::vector<Vec3>& rest) {
  double d = 0;
  for (std::size_t i = 0; i < x.size(); ++i) d = std::max(d, (x[i] - rest[i]).norm());
  return d;
}

nlohmann::json summary(const CosseratScene& sc, const SolverTotals& totals, double wall) {
  const CosseratRod& rod = sc.rod;
  const Kinematics k = kinematics(rod.s, rod.rest);
  const EnergyTerms e = potential_energy(k, rod.rest, rod.gravity);
  double max_stretch = 0, max_rotation = 0;
  for (int i = 0; i < rod.rest.segment_count(); ++i) {
    max_stretch =
        std::max(max_stretch, std::abs((k.x[i + 1] - k.x[i]).norm() - rod.rest.length[i]));
    const Vec3 t = (k.x[i + 1] - k.x[i]).normalized(),
               t_rest = (sc.rest_positions[i + 1] - sc.rest_positions[i]).normalized();
    max_rotation = std::max(max_rotation, std::atan2(t.cross(t_rest).norm(), t.dot(t_rest)));
  }
  auto array = [](const Vec3& v) { return nlohmann::json::array({v.x(), v.y(), v.z()}); };
  nlohmann::json out = {
      {"model", "cosserat"},
      {"backend", "reference"},
      {"mode", sc.static_mode ? "static" : "dynamic"},
      {"integrator", "implicit"},
      {"steps", totals.steps},
      {"dt_s", sc.dt},
      {"wall_time_s", wall},
      {"energies_J",
       {{"kinetic", kinetic_energy(rod)},
        {"bending", e.bending},
        {"twist", e.twist},
        {"gravity", e.gravity}}},
      {"max_stretch_m", max_stretch},
      {"inextensibility", inextensibility_violation(k, rod.rest)},
      {"alignment", alignment_violation(k)},
      {"max_deviation_from_rest_m", max_deviation(k.x, sc.rest_positions)},
      {"max_tangent_rotation_rad", max_rotation},
      {"finite", true},
      {"length_m", sc.length},
      {"clamp_point_m", array(sc.clamp_point)},
      {"tip_position_m", array(k.x.back())},
      {"solver",
       {{"preconditioner", to_string(sc.solver.preconditioner)},
        {"bending_strain", to_string(sc.rod.rest.bending_strain)},
        {"stick_speed_m_per_s", sc.rod.stick_speed},
        {"newton_iterations_per_step", ratio(totals.newton, totals.steps)},
        {"pcg_iterations_per_solve", ratio(totals.pcg_iterations, totals.pcg_solves)},
        {"pcg_solves_per_step", ratio(totals.pcg_solves, totals.steps)},
        {"kkt_systems_per_step", ratio(totals.kkt, totals.steps)},
        {"steps_not_converged", totals.unconverged}}},
      {"contacts",
       {{"obstacles", rod.obstacles.size()},
        {"active_at_end", rod.active.size()},
        {"max_penetration_m", totals.max_penetration}}}};
  if (sc.static_check) out["static"] = reference::stability_summary(*sc.static_check);
  return out;
}

void trace_row(std::ostream& out, const CosseratScene& sc, int step, const StepReport& r) {
  const Kinematics k = kinematics(sc.rod.s, sc.rod.rest);
  const EnergyTerms e = potential_energy(k, sc.rod.rest, sc.rod.gravity);
  const Vec3& tip = k.x.back();
  out << step << "," << sc.rod.time << "," << tip.x() << "," << tip.y() << "," << tip.z() << ","
      << kinetic_energy(sc.rod) << "," << e.bending + e.twist << ","
      << max_deviation(k.x, sc.rest_positions) << "," << r.newton_iterations << ","
      << r.pcg_iterations << "," << r.active_contacts << "\n";
}

}  // namespace

scene::SceneRun run_cosserat_scene(CosseratScene& sc) {
  const auto start = std::chrono::steady_clock::now();
  std::ostringstream trace;
  trace.precision(10);
  SolverTotals totals;
  if (sc.trace_every > 0) {
    trace << "step,time_s,tip_x_m,tip_y_m,tip_z_m,kinetic_J,elastic_J,max_deviation_m,"
             "newton_iterations,pcg_iterations,contacts\n";
    trace_row(trace, sc, 0, StepReport{});
  }
  auto record = [&](const StepReport& r) {
    totals.add(r);
    if (sc.trace_every > 0 && totals.steps % sc.trace_every == 0)
      trace_row(trace, sc, static_cast<int>(totals.steps), r);
  };
  try {
    while (totals.steps < sc.steps) record(step(sc.rod, sc.dt, sc.solver));
    // Static mode: after the dynamic phase, proximal steps from rest until nothing moves; then
    // whether that equilibrium is stable: every segment after the clamped first turned by a
    // random 1e-6 rad and settled again (reference/static_stability.hpp).
    if (sc.static_mode) {
      auto settle = [&] {
        if (!relax(sc.rod, sc.dt, sc.solver, sc.static_tolerance, sc.static_max_steps, record)
                 .converged)
          throw RunFailure(
              "static", "no equilibrium within " + std::to_string(sc.static_max_steps) + " steps");
      };
      settle();
      auto kick = [&](int round) {
        RandomStream random(1, std::uint64_t(round));
        for (Eigen::Index i = 6; i < sc.rod.s.size(); ++i)
          sc.rod.s(i) += 1e-6 * random.uniform(-1, 1);
      };
      sc.static_check = reference::check_stability(1e-6 * sc.length, kick, settle,
                                                   [&] { return vertices(sc.rod); });
    }
  } catch (const RunFailure& e) {
    if (e.where() == "static") throw;
    throw RunFailure("strand 0, step " + std::to_string(totals.steps + 1), e.why());
  }
  const double wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return {summary(sc, totals, wall), sc.trace_every > 0 ? trace.str() : std::string()};
}

StrandSet rod_strands(const CosseratRod& rod) {
  StrandSet s;
  s.add_strand(vertices(rod));
  return s;
}

}  // namespace hairsim::cosserat
