#include "models/super_clothoid/super_clothoid_rods.hpp"

#include <numeric>

#include "engine/parallel.hpp"
#include "engine/sag_free.hpp"
#include "engine/strand_copies.hpp"
#include "reference/super_clothoid/clothoid_fit.hpp"

namespace hairsim::models {

std::vector<super_clothoid::ClothoidRod> clothoid_rods(const engine::HairSetup& setup,
                                                       engine::SetupMeasures* measures) {
  const SuperClothoidSettings& settings = engine::settings_of<SuperClothoidSettings>(setup);
  // The mean wind enters the force series exactly; the gusts (no polynomial along a strand) a
  // quadrature on each APS piece (clothoid_dynamics.hpp).
  kernels::WindField<double> gusts = engine::kernel_wind(setup.wind);
  const Vec3 mean_wind(gusts.mean.x, gusts.mean.y, gusts.mean.z);
  gusts.mean = {0, 0, 0};
  const std::vector<kernels::Collider<double>> colliders = engine::kernel_colliders(setup);
  std::vector<super_clothoid::ClothoidRod> rods(setup.strands.strand_count());
  // Each distinct shape fitted once (engine/strand_copies.hpp).
  const engine::ShapeFits<super_clothoid::ClothoidFit> fits =
      engine::fit_each_shape_once<super_clothoid::ClothoidFit>(
          setup.strands, [&](std::span<const Vec3> points) {
            return super_clothoid::fit_polyline({points.begin(), points.end()}, settings.elements,
                                                {}, colliders);
          });
  engine::parallel_for(int(rods.size()), [&](int strand) {
    const std::size_t s = std::size_t(strand);
    const auto points = setup.strands.strand(s);
    super_clothoid::ClothoidRod& rod = rods[s];
    rod.shape = fits.of(s).shape;
    rod.clamp = rod.shape.root;
    rod.motion = setup.head;
    rod.motion.center = setup.head.center.value_or(Vec3::Zero());
    rod.rest_curvature = rod.shape.node_curvature;
    rod.curvature_rate.assign(rod.shape.node_curvature.size(), Vec3::Zero());
    const RodMaterial& m = setup.material_of(s);
    rod.stiffness = Vec3(m.twist_stiffness(), m.bending_stiffness(), m.bending_stiffness());
    rod.linear_density = m.linear_density();
    rod.internal_friction = settings.internal_friction;
    rod.implicit_inertia = settings.implicit_inertia;
    rod.quadrature = settings.quadrature;
    rod.gravity = setup.gravity;
    rod.damping = setup.damping;
    rod.drag_normal = setup.drag_normal;
    rod.drag_tangent = setup.drag_tangent;
    rod.wind = mean_wind;
    rod.gusts = gusts;
    // The head's colliders, carried by it; contact at the centreline (as the other models), none
    // on the first output edge (the span the head holds).
    rod.colliders = colliders;
    rod.obstacle_motion = setup.head;
    rod.contact_thickness = 0;
    const double total = std::accumulate(rod.shape.length.begin(), rod.shape.length.end(), 0.0);
    rod.contact_start = total / double(points.size() - 1);
    rod.contact_sweeps = settings.contact_sweeps;
  });
  if (measures) measures->push_back({"fit_max_error_m", fits.worst});
  engine::hold_groom(
      setup, rods, [](super_clothoid::ClothoidRod& rod) { return super_clothoid::hold_shape(rod); },
      measures);
  return rods;
}

std::vector<double> sample_arcs(const super_clothoid::ClothoidRod& rod, int vertices) {
  const double total = std::accumulate(rod.shape.length.begin(), rod.shape.length.end(), 0.0);
  std::vector<double> s(static_cast<std::size_t>(vertices));
  for (int i = 0; i < vertices; ++i) s[std::size_t(i)] = total * i / (vertices - 1);
  return s;
}

}  // namespace hairsim::models
