#pragma once
// Running a reduced model's single-rod scene (super_helix, super_clothoid): the steps with the
// trace and the contacts' tally, then, in static mode, Newton to equilibrium, and the summary
// fields every such model writes. The model supplies its step, tip, energies and statics.
#include <chrono>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <string>

#include "hairsim/error.hpp"
#include "reference/newton_statics.hpp"
#include "scene/rod_scene.hpp"

namespace hairsim::reference {

struct ReducedOutcome {
  int steps = 0;
  scene::ContactTally touch;
  std::optional<StaticReport> statics;  // static mode
  std::string trace_csv;                // empty without output.trace_every
  double wall = 0;                      // s
};

// `step()` returns the step's report (contacts, active_contacts, sweeps, converged, residual),
// `depth()` the deepest point after it (m; 0 without obstacles), `time()`, `tip()` and `energies()`
// (kinetic, elastic, gravity) the trace row's, `solve(tolerance)` the statics' StaticReport. A
// RunFailure in a step is rethrown naming it; statics that do not converge fail naming them.
template <class Step, class Depth, class Time, class Tip, class Energies, class Solve>
ReducedOutcome run_reduced_scene(const scene::ReducedRun& run, Step&& step, Depth&& depth,
                                 Time&& time, Tip&& tip, Energies&& energies, Solve&& solve) {
  const auto start = std::chrono::steady_clock::now();
  ReducedOutcome out;
  std::ostringstream trace;
  trace.precision(10);
  auto trace_row = [&](int s) {
    const auto e = energies();
    const auto t = tip();
    trace << s << "," << time() << "," << t.x() << "," << t.y() << "," << t.z() << "," << e.kinetic
          << "," << e.elastic << "," << e.gravity << "\n";
  };
  if (run.trace_every > 0) {
    trace << "step,time_s,tip_x_m,tip_y_m,tip_z_m,kinetic_J,elastic_J,gravity_J\n";
    trace_row(0);
  }
  try {
    for (; out.steps < run.steps; ++out.steps) {
      const auto report = step();
      out.touch.add(report, depth());
      if (run.trace_every > 0 && (out.steps + 1) % run.trace_every == 0) trace_row(out.steps + 1);
    }
  } catch (const RunFailure& e) {
    throw RunFailure("strand 0, step " + std::to_string(out.steps + 1), e.why());
  }
  if (run.static_mode) {
    out.statics = solve(run.static_tolerance);
    if (!out.statics->converged)
      throw RunFailure("static", "no equilibrium after " + std::to_string(out.statics->iterations) +
                                     " Newton iterations (generalized force " +
                                     std::to_string(out.statics->residual) + " N m)");
  }
  out.wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (run.trace_every > 0) out.trace_csv = trace.str();
  return out;
}

// The summary fields shared by the reduced models (docs/scenes.md); the model adds "solver" and
// its own. `obstacles`: how many the scene has (the "contacts" block when any).
template <class Energies, class Vec>
nlohmann::json reduced_summary(const std::string& model, const scene::ReducedRun& run,
                               const ReducedOutcome& outcome, const Energies& e, double length,
                               const Vec& clamp, const Vec& tip, std::size_t obstacles) {
  auto array = [](const Vec& v) { return nlohmann::json::array({v.x(), v.y(), v.z()}); };
  nlohmann::json out = {
      {"model", model},
      {"backend", "reference"},
      {"mode", run.static_mode ? "static" : "dynamic"},
      {"integrator", "semi_implicit"},
      {"steps", outcome.steps},
      {"dt_s", run.dt},
      {"wall_time_s", outcome.wall},
      {"energies_J", {{"kinetic", e.kinetic}, {"elastic", e.elastic}, {"gravity", e.gravity}}},
      {"finite", true},
      {"length_m", length},
      {"clamp_point_m", array(clamp)},
      {"tip_position_m", array(tip)}};
  if (obstacles > 0) out["contacts"] = outcome.touch.summary(obstacles);
  if (outcome.statics)
    out["static"] = {{"converged", outcome.statics->converged},
                     {"newton_iterations", outcome.statics->iterations},
                     {"residual_N_m", outcome.statics->residual},
                     {"stable", outcome.statics->stable()},
                     {"min_stiffness_eigenvalue", outcome.statics->min_stiffness}};
  return out;
}

}  // namespace hairsim::reference
