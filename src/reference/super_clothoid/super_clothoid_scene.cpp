#include "reference/super_clothoid/super_clothoid_scene.hpp"

#include <Eigen/Geometry>  // cross, unitOrthogonal
#include <cmath>
#include <numbers>
#include <optional>

#include "hairsim/error.hpp"
#include "reference/reduced_scene_run.hpp"
#include "reference/super_clothoid/clothoid_fit.hpp"

namespace hairsim::super_clothoid {
namespace {

using scene::JsonReader;

// The rest shape, exactly: a straight rod (κ⁰ = 0), or a helix, whose Frenet frame is a
// material frame with the constant Darboux vector (torsion τ, 0, curvature κ): R' = R[κ]× is
// t' = κ n, n' = −κ t + τ b, b' = −τ n. The helix is the one scene::parse_rod_shape samples for
// the other models: x(a) = origin + r (cos a − 1) side + r sin a other + c a axis, c = pitch/2π,
// side = axis.unitOrthogonal() (rod_scene.cpp's any_orthogonal), other = axis × side.
struct RestShape {
  Frame root;
  Vec3 curvature = Vec3::Zero();
  double length = 0;
};

RestShape rest_shape(JsonReader& rod, const std::string& shape, const Vec3& origin,
                     const Vec3& direction) {
  RestShape out;
  const Vec3 axis = direction.normalized();
  out.root.r = origin;
  if (shape == "straight") {
    out.length = rod.number("length", std::nullopt, "> 0", scene::positive);
    const Vec3 n1 = axis.unitOrthogonal();
    out.root.R << axis, n1, axis.cross(n1);
    return out;
  }
  if (shape != "helix")
    rod.fail("shape", "must be 'straight', 'helix' or 'polyline' for model 'super_clothoid'");
  const double radius = rod.number("radius", std::nullopt, "> 0", scene::positive);
  const double pitch = rod.number("pitch", std::nullopt, "> 0", scene::positive);
  const double turns = rod.number("turns", std::nullopt, "> 0", scene::positive);
  const Vec3 side = axis.unitOrthogonal(), other = axis.cross(side);
  const double c = pitch / (2 * std::numbers::pi), speed2 = radius * radius + c * c;
  const Vec3 t = (radius * other + c * axis) / std::sqrt(speed2), n = -side;
  out.root.R << t, n, t.cross(n);
  out.curvature = Vec3(c / speed2, 0, radius / speed2);
  out.length = 2 * std::numbers::pi * turns * std::sqrt(speed2);
  return out;
}

}  // namespace

SuperClothoidScene parse_super_clothoid_scene(const nlohmann::json& document,
                                              const std::filesystem::path& dir) {
  JsonReader top(document, "");
  SuperClothoidScene sc;
  const std::string model = "super_clothoid";
  top.string("model", std::nullopt);  // the model table sent the scene here
  scene::require_reference_backend(top, model);
  scene::reject_fields(top, {"loads", "damping", "body", "initial"}, model,
                       " (yet: docs/models/super-clothoids.md)");
  JsonReader rod = top.object("rod");
  const std::string shape = rod.string("shape", "straight");
  const Vec3 direction = rod.vec3("direction", Vec3::UnitX());
  if (!(direction.norm() > 0)) rod.fail("direction", "must be non-zero");
  const Vec3 origin = rod.vec3("origin", Vec3::Zero());
  const std::string root = rod.string("root", "clamped"), tip = rod.string("tip", "free");
  if (root != "clamped") rod.fail("root", "model 'super_clothoid' takes a clamped root only");
  if (tip != "free") rod.fail("tip", "model 'super_clothoid' takes a free tip only");
  const int elements = rod.integer("elements", 4, 1, kMaxFitElements);
  // Points a `polyline` is resampled to before the fit (straight and helix are exact).
  const int edges = scene::fitted_rod_edges(rod, elements);
  RestShape rest;
  std::optional<ClothoidFit> fit;
  if (shape == "polyline") {  // fitted by the elements (clothoid_fit.hpp)
    const scene::RodShape line =
        scene::parse_rod_shape(rod, shape, origin, direction.normalized(), edges, false, false);
    fit = fit_polyline(line.x, elements);
  } else {
    rest = rest_shape(rod, shape, origin, direction);
  }
  JsonReader root_motion = rod.object("root_motion");
  const ClampMotion motion = scene::parse_clamp_motion(root_motion);
  const Vec3 tip_force = rod.vec3("tip_force", Vec3::Zero());
  rod.finish();
  if (fit) {
    sc.length = 0;
    for (double l : fit->shape.length) sc.length += l;
    sc.rod = straight_rod(elements, sc.length, Vec3::Zero(), fit->shape.root);
    sc.rod.shape = fit->shape;
    sc.rod.rest_curvature = fit->shape.node_curvature;
    sc.fit_error = fit->max_error;
  } else {
    sc.length = rest.length;
    sc.rod = straight_rod(elements, rest.length, rest.curvature, rest.root);
  }
  sc.rod.motion = motion;
  sc.rod.tip_force = tip_force;

  const scene::Stiffness k = scene::parse_rod_material(top.object("material"));
  sc.rod.stiffness = Vec3(k.twist, k.bending, k.bending);
  sc.rod.linear_density = k.linear_density;
  sc.rod.gravity = top.vec3("gravity", Vec3(0, -9.81, 0));
  JsonReader air = top.object("air");
  sc.rod.drag_normal = air.number("drag_normal", 0.0, ">= 0", scene::non_negative);
  sc.rod.drag_tangent =
      air.number("drag_tangent", sc.rod.drag_normal / 2, ">= 0", scene::non_negative);
  sc.rod.wind = air.vec3("wind", Vec3::Zero());
  air.finish();

  JsonReader solver = top.object("solver");
  const std::string integration = solver.string("integration", "series");
  if (integration == "quadrature")
    sc.rod.integration = Integration::quadrature;
  else if (integration != "series")
    solver.fail("integration", "must be \"series\" (§7.1) or \"quadrature\"");
  sc.rod.quadrature = solver.integer("quadrature", 8, 1, 64);
  sc.rod.internal_friction = solver.number("internal_friction", 0.0, ">= 0", scene::non_negative);
  sc.rod.shape.summation.M = solver.number("aps_bound", 10.0, "> 0", scene::positive);
  sc.rod.contact_sweeps = solver.integer("contact_sweeps", 1000, 1, 1'000'000);
  sc.rod.implicit_inertia = solver.boolean("implicit_inertia", false);
  solver.finish();

  // Time, statics, obstacles (velocity-level contacts: clothoid_dynamics.hpp) and output.
  sc.run =
      scene::parse_reduced_run(top, "super_clothoid", "§7.2", sc.length, k, sc.rod.gravity, dir,
                               sc.obstacle_grids, sc.rod.colliders, sc.rod.contact_thickness);
  top.finish();
  return sc;
}

namespace {

nlohmann::json summary(const SuperClothoidScene& sc, const reference::ReducedOutcome& outcome) {
  int subintervals = 0, terms = 0;
  for (const ClothoidElement& element : chain(sc.rod.shape)) {
    subintervals = std::max(subintervals, element.subintervals());
    element.end();
    terms = std::max(terms, element.most_terms());
  }
  nlohmann::json out =
      reference::reduced_summary("super_clothoid", sc.run, outcome, energies(sc.rod), sc.length,
                                 sc.rod.shape.root.r, tip(sc.rod), sc.rod.colliders.size());
  out["solver"] = {
      {"elements", sc.rod.shape.elements()},
      {"coordinates", 3 * int(sc.rod.shape.node_curvature.size())},
      {"integration", sc.rod.integration == Integration::series ? "series" : "quadrature"},
      {"quadrature_points_per_element", sc.rod.quadrature},
      {"aps_bound", sc.rod.shape.summation.M},
      {"max_subintervals_per_element", subintervals},
      {"max_series_terms", terms},
      {"fit_max_error_m", sc.fit_error},
      {"implicit_inertia", sc.rod.implicit_inertia}};
  return out;
}

}  // namespace

scene::SceneRun run_super_clothoid_scene(SuperClothoidScene& sc) {
  ClothoidRod& rod = sc.rod;
  const reference::ReducedOutcome outcome = reference::run_reduced_scene(
      sc.run, [&] { return step(rod, sc.run.dt); }, [&] { return max_penetration(rod); },
      [&] { return rod.time; }, [&] { return tip(rod); }, [&] { return energies(rod); },
      [&](double tolerance) { return solve_static(rod, tolerance); });
  return {summary(sc, outcome), outcome.trace_csv};
}

StrandSet rod_strands(const SuperClothoidScene& sc) {
  StrandSet out;
  out.add_strand(centerline(sc.rod.shape, sc.samples_per_element));
  return out;
}

}  // namespace hairsim::super_clothoid
