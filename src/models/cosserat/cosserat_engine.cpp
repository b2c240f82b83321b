#include "models/cosserat/cosserat_engine.hpp"

#include <algorithm>
#include <limits>

#include "engine/sag_free.hpp"
#include "hairsim/error.hpp"
#include "reference/eigen_bridge.hpp"

namespace hairsim::models {

using engine::HairSetup;

std::vector<cosserat::CosseratRod> cosserat_rods(const HairSetup& setup,
                                                 engine::SetupMeasures* measures) {
  std::vector<cosserat::CosseratRod> rods;
  const std::vector<kernels::Collider<double>> colliders = engine::kernel_colliders(setup);
  const kernels::WindField<double> wind = engine::kernel_wind(setup.wind);
  for (std::size_t s = 0; s < setup.strands.strand_count(); ++s) {
    const auto points = setup.strands.strand(s);
    const RodMaterial& m = setup.material_of(s);
    // ρI = ρA r²/4 about the bending axes, twice that about the tangent (a round section).
    const double rho_i = m.linear_density() * m.radius * m.radius / 4;
    cosserat::CosseratRod rod = cosserat::rod_at_rest(
        {points.begin(), points.end()},
        cosserat::Vec3(m.bending_stiffness(), m.bending_stiffness(), m.twist_stiffness()),
        cosserat::Vec3(rho_i, rho_i, 2 * rho_i), m.linear_density(), cosserat::Vec3::Zero(),
        engine::settings_of<CosseratSettings>(setup).bending_strain);
    cosserat::clamp_root(rod, setup.head);
    rod.gravity = setup.gravity;
    rod.damping = setup.damping;
    rod.drag_normal = setup.drag_normal;
    rod.drag_tangent = setup.drag_tangent;
    rod.wind = wind;
    // The reference keeps its active set (App. B) against the head's colliders, carried by the
    // head; the batched kernels take them by a penalty (Loads). Contact at the centreline (as DER).
    rod.obstacles = colliders;
    rod.obstacle_motion = setup.head;
    rod.stick_speed = engine::settings_of<CosseratSettings>(setup).stick_speed;
    rods.push_back(std::move(rod));
  }
  engine::hold_groom(
      setup, rods,
      [&](cosserat::CosseratRod& rod) { return cosserat::hold_shape(rod, setup.gravity); },
      measures);
  return rods;
}

cosserat::SolverSettings solver_settings(const HairSetup& setup) {
  const CosseratSettings& settings = engine::settings_of<CosseratSettings>(setup);
  cosserat::SolverSettings s;
  double tolerance = settings.newton_tolerance;
  if (!(tolerance > 0)) {  // 4e-4 of the lightest strand's weight (the paper's 1e-5 N, scaled)
    double lightest = std::numeric_limits<double>::infinity();
    for (std::size_t k = 0; k < setup.strands.strand_count(); ++k) {
      const auto p = setup.strands.strand(k);
      double length = 0;
      for (std::size_t i = 1; i < p.size(); ++i) length += (p[i] - p[i - 1]).norm();
      lightest = std::min(lightest, setup.material_of(k).linear_density() * length);
    }
    const double g = setup.gravity.norm() > 0 ? setup.gravity.norm() : 9.81;
    tolerance = 4e-4 * lightest * g;
  }
  s.newton_tolerance = tolerance;
  s.pcg.tolerance = 1e-2 * tolerance;
  s.pcg.relative_tolerance = settings.pcg_relative_tolerance;
  s.newton_max_iterations = settings.newton_max_iterations;
  s.chain_curvature = settings.chain_curvature;
  s.preconditioner = settings.preconditioner;
  return s;
}

kernels::cosserat::StepSettings kernel_settings(const cosserat::SolverSettings& s, int max_halvings,
                                                bool accept_unconverged) {
  kernels::cosserat::StepSettings k;
  switch (s.preconditioner) {
    case cosserat::PreconditionerKind::diagonal:
      k.preconditioner = kernels::cosserat::Preconditioner::diagonal;
      break;
    case cosserat::PreconditionerKind::block_diagonal:
      k.preconditioner = kernels::cosserat::Preconditioner::block_diagonal;
      break;
    case cosserat::PreconditionerKind::hybrid:
      k.preconditioner = kernels::cosserat::Preconditioner::hybrid;
      break;
    case cosserat::PreconditionerKind::exact:
      k.preconditioner = kernels::cosserat::Preconditioner::exact;
      break;
  }
  k.newton_tolerance = s.newton_tolerance;
  k.newton_max_iterations = s.newton_max_iterations;
  k.max_halvings = max_halvings;
  k.accept_unconverged = accept_unconverged;
  k.chain_curvature = s.chain_curvature ? kernels::cosserat::ChainCurvature::projected
                                        : kernels::cosserat::ChainCurvature::none;
  k.pcg = {s.pcg.tolerance, s.pcg.relative_tolerance, s.pcg.max_iterations};
  return k;
}

double contact_ratio(const HairSetup& setup, bool float_precision) {
  const double ratio = engine::settings_of<CosseratSettings>(setup).contact_ratio;
  if (ratio > 0) return ratio;
  return float_precision ? 300.0 : 1e4;
}

double contact_margin(const HairSetup& setup, bool float_precision) {
  const std::optional<double>& margin = engine::settings_of<CosseratSettings>(setup).contact_margin;
  if (margin) return *margin;
  if (!float_precision) return 0;
  const double arrival_speed = 1.0;  // m/s
  return (arrival_speed * setup.dt + setup.gravity.norm() * setup.dt * setup.dt) /
         contact_ratio(setup, float_precision);
}

template <class T>
kernels::cosserat::Loads<T> cosserat_loads(const HairSetup& setup, double t) {
  kernels::cosserat::Loads<T> loads;
  for (int k = 0; k < 3; ++k) loads.gravity[k] = T(setup.gravity(k));
  loads.damping = T(setup.damping);
  loads.drag_normal = T(setup.drag_normal);
  loads.drag_tangent = T(setup.drag_tangent);
  loads.wind = kernels::convert<T>(engine::kernel_wind(setup.wind));
  loads.time = T(t);
  loads.head = bridge::rigid_pose<T>(setup.head, t + setup.dt);
  loads.head_start = bridge::rigid_pose<T>(setup.head, t);
  loads.stick_speed = T(engine::settings_of<CosseratSettings>(setup).stick_speed);
  const std::vector<kernels::Collider<double>> colliders = engine::kernel_colliders(setup);
  loads.collider_count = int(colliders.size());
  const bool float_precision = sizeof(T) == sizeof(float);
  loads.contact_ratio = T(contact_ratio(setup, float_precision));
  loads.contact_thickness = T(contact_margin(setup, float_precision));
  for (int c = 0; c < loads.collider_count; ++c)
    loads.colliders[c] = engine::convert_collider<T>(colliders[std::size_t(c)]);
  return loads;
}
template kernels::cosserat::Loads<float> cosserat_loads(const HairSetup&, double);
template kernels::cosserat::Loads<double> cosserat_loads(const HairSetup&, double);

}  // namespace hairsim::models
