#include "reference/super_helix/super_helix_scene.hpp"

#include <Eigen/Geometry>  // cross
#include <cmath>

#include "hairsim/error.hpp"
#include "reference/reduced_scene_run.hpp"

namespace hairsim::super_helix {
namespace {

using scene::JsonReader;

// rod.shape "tree": rod.tree = [{"parent": index or -1, "length": m, "curvature": [κ0, κ1, κ2]}]
// in order (a parent before its children), the root frame from rod.direction.
SuperHelix parse_tree(JsonReader& rod, const Vec3& origin, const Vec3& direction) {
  SuperHelix out;
  const Vec3 t0 = direction.normalized();
  const Vec3 n1 = t0.cross(std::abs(t0.x()) < 0.9 ? Vec3::UnitX() : Vec3::UnitY()).normalized();
  out.root_point = origin;
  out.root_frame << t0, n1, t0.cross(n1);
  std::vector<JsonReader> items = rod.objects("tree");
  if (items.empty()) rod.fail("tree", "needs at least one element");
  for (std::size_t i = 0; i < items.size(); ++i) {
    JsonReader& e = items[i];
    Element element;
    element.parent = e.integer("parent", int(i) - 1, -1, int(i) - 1);
    element.length = e.number("length", std::nullopt, "> 0", scene::positive);
    element.rest_curvature = e.vec3("curvature", Vec3::Zero());
    e.finish();
    out.elements.push_back(element);
    out.curvature.push_back(element.rest_curvature);
    out.curvature_rate.push_back(Vec3::Zero());
  }
  return out;
}

// The longest root-to-leaf path (m).
double longest_path(const SuperHelix& rod) {
  std::vector<double> reach(rod.elements.size());
  double longest = 0;
  for (std::size_t q = 0; q < rod.elements.size(); ++q) {
    const int p = rod.elements[q].parent;
    reach[q] = (p < 0 ? 0 : reach[std::size_t(p)]) + rod.elements[q].length;
    longest = std::max(longest, reach[q]);
  }
  return longest;
}

}  // namespace

SuperHelixScene parse_super_helix_scene(const nlohmann::json& document,
                                        const std::filesystem::path& dir) {
  JsonReader top(document, "");
  SuperHelixScene sc;
  top.string("model", std::nullopt);  // "super_helix": the model table sent the scene here
  scene::require_reference_backend(top, "super_helix");
  scene::reject_fields(top, {"loads", "damping", "body", "initial"}, "super_helix");
  JsonReader rod = top.object("rod");
  const std::string shape = rod.string("shape", "straight");
  const Vec3 direction = rod.vec3("direction", Vec3::UnitX());
  if (!(direction.norm() > 0)) rod.fail("direction", "must be non-zero");
  const Vec3 origin = rod.vec3("origin", Vec3::Zero());
  const std::string root = rod.string("root", "clamped"), tip = rod.string("tip", "free");
  if (root != "clamped") rod.fail("root", "model 'super_helix' takes a clamped root only");
  if (tip != "free") rod.fail("tip", "model 'super_helix' takes free tips only");
  if (shape == "tree") {
    sc.rod = parse_tree(rod, origin, direction);
  } else {
    if (shape == "ring") rod.fail("shape", "model 'super_helix' takes open rods only");
    const int elements = rod.integer("elements", 10, 1, kMaxFitElements);
    const int edges = scene::fitted_rod_edges(rod, elements);
    const scene::RodShape rod_shape =
        scene::parse_rod_shape(rod, shape, origin, direction.normalized(), edges, false, false);
    Fit fit = fit_polyline(rod_shape.x, elements);
    sc.rod = std::move(fit.rod);
    sc.fit_error = fit.max_error;
  }
  JsonReader root_motion = rod.object("root_motion");
  sc.rod.motion = scene::parse_clamp_motion(root_motion);
  const Vec3 tip_force = rod.vec3("tip_force", Vec3::Zero());
  rod.finish();
  sc.length = longest_path(sc.rod);
  if (!tip_force.isZero()) {  // on every leaf
    sc.rod.end_force.assign(sc.rod.elements.size(), Vec3::Zero());
    for (std::size_t q = 0; q < sc.rod.elements.size(); ++q) {
      bool leaf = true;
      for (const Element& e : sc.rod.elements) leaf = leaf && e.parent != int(q);
      if (leaf) sc.rod.end_force[q] = tip_force;
    }
  }

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
  const std::string method = solver.string("method", "recursive");
  if (method != "recursive" && method != "composite")
    solver.fail("method", "must be 'recursive' or 'composite' (got '" + method + "')");
  sc.method = method == "recursive" ? Method::recursive : Method::composite;
  sc.paper_first_pass = solver.boolean("paper_first_pass", false);
  // The twist: "free" by default (solved with the curvatures; without rotational inertia the
  // semi-implicit step makes it quasistatic, as DER's), or frozen at its rest value as §4.4 does,
  // which the paper's explicit first pass needs (its 2 x 2 systems must be invertible). Frozen, a
  // hanging curl sags far less (docs/models/super-helices.md).
  const std::string twist = solver.string("twist", sc.paper_first_pass ? "frozen" : "free");
  if (twist != "frozen" && twist != "free")
    solver.fail("twist", "must be 'frozen' or 'free' (got '" + twist + "')");
  sc.rod.twist = twist == "frozen" ? Twist::frozen : Twist::free;
  if (sc.paper_first_pass && sc.rod.twist == Twist::free)
    solver.fail("twist",
                "must be 'frozen' with paper_first_pass (its mass matrices are "
                "singular in the twist)");
  sc.rod.quadrature = solver.integer("quadrature", 8, 1, 64);
  sc.rod.internal_friction = solver.number("internal_friction", 0.0, ">= 0", scene::non_negative);
  sc.rod.implicit_inertia = solver.boolean("implicit_inertia", false);
  sc.rod.contact_sweeps = solver.integer("contact_sweeps", 1000, 1, 1'000'000);
  solver.finish();

  // Time, statics, obstacles (velocity-level contacts: super_helix_rod.hpp) and output.
  sc.run =
      scene::parse_reduced_run(top, "super_helix", "[BAC*06]", sc.length, k, sc.rod.gravity, dir,
                               sc.obstacle_grids, sc.rod.colliders, sc.rod.contact_thickness);
  top.finish();
  return sc;
}

namespace {

nlohmann::json array(const Vec3& v) {
  return nlohmann::json::array({v.x(), v.y(), v.z()});
}

// The last point of every leaf element.
std::vector<Vec3> tips(const SuperHelix& rod) {
  std::vector<Vec3> out;
  for (std::size_t q = 0; q < rod.elements.size(); ++q) {
    bool leaf = true;
    for (const Element& e : rod.elements) leaf = leaf && e.parent != int(q);
    if (leaf) out.push_back(end_point(rod, int(q), rod.time));
  }
  return out;
}

nlohmann::json summary(const SuperHelixScene& sc, const reference::ReducedOutcome& outcome) {
  const std::vector<Vec3> leaf_tips = tips(sc.rod);
  nlohmann::json out =
      reference::reduced_summary("super_helix", sc.run, outcome, energies(sc.rod), sc.length,
                                 sc.rod.root_point, leaf_tips.back(), sc.rod.colliders.size());
  nlohmann::json tip_list = nlohmann::json::array();
  for (const Vec3& t : leaf_tips) tip_list.push_back(array(t));
  out["tips_m"] = tip_list;
  out["solver"] = {{"method", sc.method == Method::recursive ? "recursive" : "composite"},
                   {"paper_first_pass", sc.paper_first_pass},
                   {"implicit_inertia", sc.rod.implicit_inertia},
                   {"twist", sc.rod.twist == Twist::frozen ? "frozen" : "free"},
                   {"elements", sc.rod.elements.size()},
                   {"coordinates", sc.rod.coordinate_count()},
                   {"quadrature_points_per_element", sc.rod.quadrature},
                   {"fit_max_error_m", sc.fit_error}};
  return out;
}

}  // namespace

scene::SceneRun run_super_helix_scene(SuperHelixScene& sc) {
  SuperHelix& rod = sc.rod;
  const reference::ReducedOutcome outcome = reference::run_reduced_scene(
      sc.run, [&] { return step(rod, sc.run.dt, sc.method, sc.paper_first_pass); },
      [&] { return max_penetration(rod); }, [&] { return rod.time; },
      [&] { return tips(rod).back(); }, [&] { return energies(rod); },
      [&](double tolerance) { return solve_static(rod, tolerance); });
  return {summary(sc, outcome), outcome.trace_csv};
}

StrandSet rod_strands(const SuperHelixScene& sc) {
  // One strand per leaf: its path from the root, `samples_per_element` segments per element.
  const SuperHelix& rod = sc.rod;
  const int m = sc.samples_per_element;
  const std::vector<Vec3> points = centerline(rod, m, rod.time);
  StrandSet out;
  for (std::size_t q = 0; q < rod.elements.size(); ++q) {
    bool leaf = true;
    for (const Element& e : rod.elements) leaf = leaf && e.parent != int(q);
    if (!leaf) continue;
    std::vector<int> path;
    for (int e = int(q); e >= 0; e = rod.elements[std::size_t(e)].parent)
      path.insert(path.begin(), e);
    std::vector<Vec3> strand;
    for (std::size_t i = 0; i < path.size(); ++i)
      for (int j = (i == 0 ? 0 : 1); j <= m; ++j)
        strand.push_back(points[std::size_t(path[i]) * std::size_t(m + 1) + std::size_t(j)]);
    out.add_strand(strand);
  }
  return out;
}

}  // namespace hairsim::super_helix
