#include "models/super_helix/super_helix_engine.hpp"

#include <algorithm>
#include <cmath>

#include "engine/parallel.hpp"
#include "engine/sag_free.hpp"
#include "engine/strand_copies.hpp"
#include "hairsim/error.hpp"
#include "reference/eigen_bridge.hpp"
#include "reference/head_state.hpp"

namespace hairsim::models {

using engine::HairSetup;

std::vector<super_helix::SuperHelix> helix_rods(const HairSetup& setup,
                                                engine::SetupMeasures* measures) {
  const SuperHelixSettings& settings = engine::settings_of<SuperHelixSettings>(setup);
  const kernels::WindField<double> wind = engine::kernel_wind(setup.wind);
  const std::vector<kernels::Collider<double>> colliders = engine::kernel_colliders(setup);
  std::vector<super_helix::SuperHelix> rods(setup.strands.strand_count());
  // Each distinct shape fitted once (engine/strand_copies.hpp).
  const engine::ShapeFits<super_helix::Fit> fits = engine::fit_each_shape_once<super_helix::Fit>(
      setup.strands, [&](std::span<const Vec3> points) {
        return super_helix::fit_polyline({points.begin(), points.end()}, settings.elements);
      });
  engine::parallel_for(int(rods.size()), [&](int strand) {
    const std::size_t s = std::size_t(strand);
    const std::size_t points = setup.strands.strand_size(s);
    super_helix::SuperHelix& rod = rods[s];
    rod = fits.of(s).rod;
    const RodMaterial& m = setup.material_of(s);
    rod.stiffness =
        super_helix::Vec3(m.twist_stiffness(), m.bending_stiffness(), m.bending_stiffness());
    rod.linear_density = m.linear_density();
    rod.internal_friction = settings.internal_friction;
    rod.twist = super_helix::Twist::free;
    rod.implicit_inertia = settings.implicit_inertia;
    rod.quadrature = settings.quadrature;
    rod.gravity = setup.gravity;
    rod.damping = setup.damping;
    rod.drag_normal = setup.drag_normal;
    rod.drag_tangent = setup.drag_tangent;
    rod.wind = super_helix::Vec3::Zero();
    rod.gusts = wind;  // its mean included
    rod.motion = setup.head;
    rod.motion.center = setup.head.center.value_or(Vec3::Zero());
    // The head's colliders, carried by it; contact at the centreline (as the other models).
    rod.colliders = colliders;
    rod.obstacle_motion = setup.head;
    rod.contact_thickness = 0;
    // No contacts on the first output edge (load_strand's samples: the span the head holds).
    double total = 0;
    for (const super_helix::Element& e : rod.elements) total += e.length;
    rod.contact_start = total / double(points - 1);
    rod.contact_sweeps = settings.contact_sweeps;
  });
  if (measures) measures->push_back({"fit_max_error_m", fits.worst});
  engine::hold_groom(
      setup, rods, [](super_helix::SuperHelix& rod) { return super_helix::hold_shape(rod); },
      measures);
  return rods;
}

std::vector<SamplePlace> sample_places(const super_helix::SuperHelix& rod, int vertices) {
  double total = 0;
  for (const super_helix::Element& e : rod.elements) total += e.length;
  std::vector<SamplePlace> out;
  std::size_t q = 0;
  double element_start = 0;
  for (int i = 0; i < vertices; ++i) {
    const double at = total * i / (vertices - 1);
    while (q + 1 < rod.elements.size() && at > element_start + rod.elements[q].length)
      element_start += rod.elements[q++].length;
    out.push_back({int(q), std::clamp(at - element_start, 0.0, rod.elements[q].length)});
  }
  return out;
}

template <class T>
void load_strand(const engine::HostBatch<kernels::super_helix::HelixBatch<T>>& batch, int s,
                 const super_helix::SuperHelix& rod) {
  const kernels::super_helix::HelixBatchArrays<T>& a = batch.arrays();
  const int n = a.elements, v = a.vertices;
  if (int(rod.elements.size()) != n)
    throw Error("super_helix batch, strand " + std::to_string(s), "element count differs");
  auto put = [&](T* array, int rows, int row, double value) {
    array[batch.index(row, s, rows)] = T(value);
  };
  double total = 0;
  for (int q = 0; q < n; ++q) {
    const super_helix::Element& e = rod.elements[std::size_t(q)];
    put(a.length, n, q, e.length);
    total += e.length;
    for (int c = 0; c < 3; ++c) {
      put(a.curvature, 3 * n, 3 * q + c, rod.curvature[std::size_t(q)](c));
      put(a.rate, 3 * n, 3 * q + c, rod.curvature_rate[std::size_t(q)](c));
      put(a.rest, 3 * n, 3 * q + c, e.rest_curvature(c));
    }
  }
  for (int c = 0; c < 3; ++c) put(a.material, 4, c, rod.stiffness(c));
  put(a.material, 4, 3, rod.linear_density);
  for (int c = 0; c < 3; ++c) put(a.root_rest, 3, c, rod.root_point(c));
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) put(a.frame_rest, 9, 3 * r + c, rod.root_frame(r, c));
  // Output points at equal arc lengths; each carries the mass of its share of the centreline.
  const std::vector<SamplePlace> places = sample_places(rod, v);
  for (int i = 0; i < v; ++i) {
    put(a.sample, 2 * v, 2 * i, places[std::size_t(i)].element);
    put(a.sample, 2 * v, 2 * i + 1, places[std::size_t(i)].u);
    put(a.mass, v, i, rod.linear_density * total / (v - 1) * (i == 0 || i == v - 1 ? 0.5 : 1.0));
  }
}

template <class T>
SuperHelixEngine<T>::SuperHelixEngine(const HairSetup& setup, engine::Precision)
    : head_(setup.head),
      dt_(setup.dt),
      elements_(engine::settings_of<SuperHelixSettings>(setup).elements) {
  const SuperHelixSettings& settings = engine::settings_of<SuperHelixSettings>(setup);
  input_.dt = setup.dt;
  input_.gravity = bridge::to_kernel(setup.gravity);
  input_.damping = setup.damping;
  input_.drag_normal = setup.drag_normal;
  input_.drag_tangent = setup.drag_tangent;
  input_.internal_friction = settings.internal_friction;
  input_.wind = kernels::convert<T>(engine::kernel_wind(setup.wind));
  const quadrature::Rule& rule = quadrature::gauss_legendre(settings.quadrature);
  if (int(rule.nodes.size()) > kernels::super_helix::kMaxQuadrature)
    throw Error("solver.quadrature", "at most 16 points per element in the kernels");
  const std::vector<kernels::Collider<double>> colliders = engine::kernel_colliders(setup);
  input_.collider_count = int(colliders.size());
  for (int c = 0; c < input_.collider_count; ++c)
    input_.colliders[c] = engine::convert_collider<T>(colliders[std::size_t(c)]);
  input_.contact_thickness = 0;
  input_.contact_sweeps = settings.contact_sweeps;
  input_.interaction = setup.interaction.enabled;
  input_.quadrature = int(rule.nodes.size());
  for (std::size_t g = 0; g < rule.nodes.size(); ++g) {
    input_.nodes[g] = rule.nodes[g];
    input_.weights[g] = rule.weights[g];
  }
}

template <class T>
typename SuperHelixEngine<T>::Batch::Arrays SuperHelixEngine<T>::layout(int strand_count,
                                                                        int vertex_count,
                                                                        int tile_width) const {
  typename Batch::Arrays a;
  a.strands = strand_count;
  a.vertices = vertex_count;
  a.elements = elements_;
  a.tile_width = tile_width;
  return a;
}

template <class T>
void SuperHelixEngine<T>::load(engine::HostBatch<Batch>& batch, const HairSetup& setup) const {
  const std::vector<super_helix::SuperHelix> rods = helix_rods(setup, &measures_);
  const kernels::HeadState head = reference::head_state(head_, 0.0);
  for (int s = 0; s < batch.strands(); ++s) {
    load_strand(batch, s, rods[std::size_t(s)]);
    const kernels::super_helix::HelixStrand<T> st =
        kernels::super_helix::strand_of(batch.arrays(), s);
    kernels::super_helix::forward_kinematics(st, kernels::super_helix::clamp_of(st, head));
    kernels::super_helix::sample_points(st);
  }
}

template <class T>
const typename SuperHelixEngine<T>::Batch::Parameters& SuperHelixEngine<T>::parameters(double t) {
  input_.time = t;
  input_.head = reference::head_state(head_, t + dt_);
  input_.head_pose = bridge::rigid_pose<T>(head_, t + dt_);
  return input_;
}

template class SuperHelixEngine<float>;
template class SuperHelixEngine<double>;

}  // namespace hairsim::models
