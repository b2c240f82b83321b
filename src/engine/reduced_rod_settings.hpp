#pragma once
// What the reduced-coordinate models (Super-Helices, Super Space Clothoids) share in the model
// table: their hairstyles' solver settings (each strand fitted by a number of elements, a
// Gauss-Legendre rule per element, internal friction, the contacts' sweeps), how a scene's
// "solver" object sets them, their bench column and their summary.json "solver" fields.
#include <nlohmann/json.hpp>
#include <vector>

#include "engine/model.hpp"
#include "hairsim/error.hpp"
#include "scene/json_reader.hpp"

namespace hairsim::engine {

struct ReducedRodSettings : ModelSettings {
  int elements = 8;              // elements each strand is fitted by
  int quadrature = 8;            // Gauss-Legendre points per element (mass, forces, contacts)
  double internal_friction = 0;  // ν, s: the generalized force −ν K q̇
  int contact_sweeps = 1000;     // projected Gauss-Seidel sweeps of a strand's contacts at most
  // The velocity-product forces implicit at first order in q̇ (the references' option for
  // violent motion; dense and slow: the reference backend only, the kernels keep them explicit).
  bool implicit_inertia = false;
};

// solver.* into `out` (its values the defaults): elements in 1 .. max_elements, quadrature in
// 1 .. max_quadrature.
inline void parse_reduced_rod_settings(scene::JsonReader s, ReducedRodSettings& out,
                                       int max_elements, int max_quadrature) {
  out.elements = s.integer("elements", out.elements, 1, max_elements);
  out.quadrature = s.integer("quadrature", out.quadrature, 1, max_quadrature);
  out.internal_friction =
      s.number("internal_friction", out.internal_friction, ">= 0", scene::non_negative);
  out.contact_sweeps = s.integer("contact_sweeps", out.contact_sweeps, 1, 1'000'000);
  out.implicit_inertia = s.boolean("implicit_inertia", out.implicit_inertia);
  s.finish();
}

// What only the reference backend does (the models' check_settings): exit 2 naming the field.
inline void check_reduced_rod_backend(const ReducedRodSettings& settings, Backend backend) {
  if (settings.implicit_inertia && backend != Backend::reference)
    throw Error("solver.implicit_inertia",
                "true only on the reference backend (the " + to_string(backend) +
                    " kernels keep the velocity-product terms explicit)");
}

// The bench's column: contact pairs per strand and step.
inline std::vector<BenchColumn> reduced_rod_bench_values(const HairSetup&, Backend,
                                                         const StepCounters& c,
                                                         double strand_steps) {
  return {{"contacts", double(c["contacts"]) / strand_steps}};
}

// summary.json's "solver": the fit and the contact problems (every counter past
// solver_failures and contacts under its own name).
inline nlohmann::json reduced_rod_summary(const ReducedRodSettings& settings, const StepCounters& c,
                                          double strand_steps) {
  nlohmann::json out = {
      {"elements", settings.elements},
      {"quadrature", settings.quadrature},
      {"implicit_inertia", settings.implicit_inertia},
      {"contacts_per_strand_step", strand_steps > 0 ? double(c["contacts"]) / strand_steps : 0.0},
      {"failures", c["solver_failures"]}};
  for (std::size_t k = 2; k < c.names.size(); ++k) out[c.names[k]] = c.values[k];
  return out;
}

}  // namespace hairsim::engine
