#pragma once
// Single-rod scene fields shared by the rod models (docs/scenes.md, "Single-rod scenes"): the
// rod's shape (rod.*), its material (material.*) and clamp motions (rod.root_motion, ...).
#include <Eigen/Core>
#include <algorithm>
#include <filesystem>
#include <initializer_list>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/colliders.hpp"
#include "hairsim/motion.hpp"
#include "hairsim/sdf.hpp"
#include "scene/json_reader.hpp"

namespace hairsim::scene {

using Vec3 = Eigen::Vector3d;

// What `hairsim run` writes for a single-rod scene, whatever the model.
struct SceneRun {
  nlohmann::json summary;  // summary.json
  std::string trace_csv;   // trace.csv, empty without output.trace_every
};

// Stiffnesses of a round rod, or given directly (nondimensional validation scenes).
struct Stiffness {
  double bending, twist, linear_density, stretching;  // N m², N m², kg/m, N (0: not given)
  double radius = 0;  // m; optional with direct stiffnesses (rotational inertia, contact)
};

// Either the material of a round rod (E, G, ρ, r: EI with I = πr⁴/4, GJ with J = πr⁴/2, ρπr²)
// or the three stiffnesses directly (with an optional `radius`, 0 when absent).
Stiffness parse_rod_material(JsonReader m);

ClampMotion parse_clamp_motion(JsonReader m);

// Mesh obstacles' distance grids: a scene keeps them as long as its colliders, which point at
// their samples.
using ObstacleGrids = std::vector<std::shared_ptr<const SignedDistanceGrid>>;

// obstacles[i] of a single-rod scene: plane (point, normal), sphere (center, radius), ellipsoid
// (center, radii: axis-aligned), capsule (a, b, radius), cylinder (point, axis, radius;
// infinite), mesh (file relative to the scene's folder `dir`, units, resolution: its grid goes
// into `grids`); static, world frame, with an optional Coulomb friction μ (default 0).
kernels::Collider<double> parse_obstacle(JsonReader o, const std::filesystem::path& dir,
                                         ObstacleGrids& grids);

// Polylines fitted by reduced models (super_helix, super_clothoid): the arc length at each point
// of the smooth curve through them (each chord lengthened by (κ|e|)²/24, κ from the turning
// angles at its ends: chords alone shorten a tight curl by L θ²/24), and the tangent at the first
// point (the first edge turned back by half its angle to the second: exact on a circle).
std::vector<double> smooth_arc_lengths(const std::vector<Vec3>& points);
Vec3 root_tangent(const std::vector<Vec3>& points);

// A model's single-rod scene that runs on the reference only: reads "backend" (default
// "reference") and refuses any other, naming the model.
void require_reference_backend(JsonReader& top, const std::string& model);
// Refuses any of `keys` present in `r` (fields another model takes): "<key>: is not supported by
// model '<model>'<detail>".
void reject_fields(JsonReader& r, std::initializer_list<const char*> keys, const std::string& model,
                   const std::string& detail = "");

// The run fields of a reduced model's single-rod scene (super_helix, super_clothoid): "time"
// (semi-implicit Euler only, `scheme` naming its source in the error; dt default 1e-3 T with
// T = √(ρS L⁴ / EI); steps default 1000, 0 in static mode), "static" (enabled; tolerance on the
// generalized forces, default 1e-12 W L, W the weight or EI / L² without gravity), "obstacles"
// (any type, into `colliders`; refused in static mode), "contact_thickness" (default the
// material's radius) and "output.trace_every". Reads and finishes "time", "static" and "output".
struct ReducedRun {
  double dt = 0;
  int steps = 0;
  bool static_mode = false;
  double static_tolerance = 0;  // N m
  int trace_every = 0;
};
ReducedRun parse_reduced_run(JsonReader& top, const std::string& model, const std::string& scheme,
                             double length, const Stiffness& k, const Vec3& gravity,
                             const std::filesystem::path& dir, ObstacleGrids& grids,
                             std::vector<kernels::Collider<double>>& colliders,
                             double& contact_thickness);

// The contacts over a run of a model with velocity-level contacts (super_helix, super_clothoid):
// the deepest point after any step (m) and the largest contact problem, as summary.json's
// "contacts" block. `add` takes a step's report (contacts, active_contacts, sweeps, converged,
// residual).
struct ContactTally {
  double max_depth = 0;
  int max_points = 0, max_active = 0, max_sweeps = 0, unconverged = 0;
  double max_residual = 0;  // m/s, of the contact problems at their last sweep
  template <class StepReport>
  void add(const StepReport& r, double depth) {
    max_depth = std::max(max_depth, depth);
    max_points = std::max(max_points, r.contacts);
    max_active = std::max(max_active, r.active_contacts);
    max_sweeps = std::max(max_sweeps, r.sweeps);
    unconverged += !r.converged;
    max_residual = std::max(max_residual, r.residual);
  }
  nlohmann::json summary(std::size_t obstacles) const {
    return {{"obstacles", obstacles},
            {"max_penetration_m", max_depth},
            {"max_contact_points", max_points},
            {"max_active_contact_points", max_active},
            {"max_sweeps", max_sweeps},
            {"unconverged_steps", unconverged},
            {"max_residual_m_per_s", max_residual}};
  }
};

// Rest (and initial) vertices of the rod and its length, from rod.shape.
struct RodShape {
  std::vector<Vec3> x;
  double length = 0;
  std::optional<std::pair<Vec3, Vec3>> helix_axis;  // a point on it and its direction (helix)
};

// rod.edges of a reduced model's rod (Super-Helix, Super Space Clothoid): the points of the rest
// polyline its `elements` are fitted to, max(200, 8 × elements) by default, at most 10,000 (the
// fit's Levenberg-Marquardt has 3 dense rows a point).
inline int fitted_rod_edges(JsonReader& rod, int elements) {
  return rod.integer("edges", std::max(200, 8 * elements), 2, 10000);
}

// rod.shape: straight, helix, polyline or ring, with its own fields read from `rod`.
RodShape parse_rod_shape(JsonReader& rod, const std::string& shape, const Vec3& origin,
                         const Vec3& direction, int edges, bool clamped_root, bool clamped_tip);

}  // namespace hairsim::scene
