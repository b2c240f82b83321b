#include "models/super_clothoid/super_clothoid_engine.hpp"

#include <algorithm>
#include <numeric>

#include "common/constants.hpp"
#include "hairsim/error.hpp"
#include "models/super_clothoid/super_clothoid_rods.hpp"
#include "reference/eigen_bridge.hpp"
#include "reference/gauss_legendre.hpp"
#include "reference/head_state.hpp"

namespace hairsim::models {
namespace {

namespace ks = kernels::super_clothoid;

// Strand s of a batch from its reference rod; the output points at sample_arcs.
template <class T>
void load_strand(const engine::HostBatch<ks::ClothoidBatch<T>>& batch, int s,
                 const super_clothoid::ClothoidRod& rod) {
  const ks::ClothoidBatchArrays<T>& a = batch.arrays();
  const int n = a.elements, nodes = n + 1, v = a.vertices;
  if (rod.shape.elements() != n)
    throw Error("super_clothoid batch, strand " + std::to_string(s), "element count differs");
  auto put = [&](T* array, int rows, int row, double value) {
    array[batch.index(row, s, rows)] = T(value);
  };
  for (int i = 0; i < n; ++i) put(a.length, n, i, rod.shape.length[std::size_t(i)]);
  for (int i = 0; i < nodes; ++i)
    for (int c = 0; c < 3; ++c) {
      put(a.curvature, 3 * nodes, 3 * i + c, rod.shape.node_curvature[std::size_t(i)](c));
      put(a.rate, 3 * nodes, 3 * i + c, rod.curvature_rate[std::size_t(i)](c));
      put(a.rest, 3 * nodes, 3 * i + c, rod.rest_curvature[std::size_t(i)](c));
    }
  for (int c = 0; c < 3; ++c) put(a.material, 4, c, rod.stiffness(c));
  put(a.material, 4, 3, rod.linear_density);
  for (int c = 0; c < 3; ++c) put(a.root_rest, 3, c, rod.clamp.r(c));
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) put(a.frame_rest, 9, 3 * r + c, rod.clamp.R(r, c));
  // Output points at equal arc lengths; each carries the mass of its share of the centreline.
  const std::vector<double> arcs = sample_arcs(rod, v);
  const double total = arcs.back();
  for (int i = 0; i < v; ++i) {
    put(a.sample, v, i, arcs[std::size_t(i)]);
    put(a.mass, v, i, rod.linear_density * total / (v - 1) * (i == 0 || i == v - 1 ? 0.5 : 1.0));
  }
}

}  // namespace

void check_kernel_settings(const SuperClothoidSettings& settings) {
  if (settings.elements > ks::kMaxElements)
    throw Error("solver.elements", "at most " + std::to_string(ks::kMaxElements) +
                                       " on the cpu and cuda backends (got " +
                                       std::to_string(settings.elements) + ")");
  // Every contact point (a quadrature point of an element) must fit the kernels' list: a full
  // one drops pairs (counted), which let hair through the head on the soak. (A point near two
  // colliders at once takes two places: that rare overflow is still counted, not refused.)
  if (settings.elements * settings.quadrature > ks::kMaxContacts)
    throw Error("solver.quadrature", std::to_string(settings.elements) + " elements x " +
                                         std::to_string(settings.quadrature) +
                                         " points is more contact points than the kernels hold (" +
                                         std::to_string(ks::kMaxContacts) +
                                         "): fewer elements or points");
}

template <class T>
SuperClothoidEngine<T>::SuperClothoidEngine(const engine::HairSetup& setup, engine::Precision)
    : head_(setup.head),
      dt_(setup.dt),
      elements_(engine::settings_of<SuperClothoidSettings>(setup).elements) {
  const SuperClothoidSettings& settings = engine::settings_of<SuperClothoidSettings>(setup);
  check_kernel_settings(settings);
  input_.dt = setup.dt;
  input_.internal_friction = settings.internal_friction;
  ks::Loads<double>& loads = input_.loads;
  loads.gravity = bridge::to_kernel(setup.gravity);
  loads.damping = setup.damping;
  loads.drag_normal = setup.drag_normal;
  loads.drag_tangent = setup.drag_tangent;
  // The mean wind in the series, its gusts on each piece's rule (as the reference's rods).
  loads.gusts = engine::kernel_wind(setup.wind);
  loads.wind = loads.gusts.mean;
  loads.gusts.mean = {0, 0, 0};
  const quadrature::Rule& rule = quadrature::gauss_legendre(settings.quadrature);
  loads.rule_points = int(rule.nodes.size());
  for (std::size_t g = 0; g < rule.nodes.size(); ++g)
    loads.rule_nodes[g] = rule.nodes[g], loads.rule_weights[g] = rule.weights[g];
  loads.M = super_clothoid::Summation{}.M;  // the reference's (double arithmetic)
  // The series stop a thousandth of the storage's epsilon down (float: 1.2e-10, 6 fewer terms of
  // ~20 on a hair's pieces; double: double's): what they leave out never reaches a stored digit.
  loads.series_tolerance = std::max(ks::series_epsilon<double>(), 1e-3 * kernels::epsilon<T>());
  const std::vector<kernels::Collider<double>> colliders = engine::kernel_colliders(setup);
  input_.collider_count = int(colliders.size());
  for (int c = 0; c < input_.collider_count; ++c)
    input_.colliders[c] = engine::convert_collider<T>(colliders[std::size_t(c)]);
  input_.contact_thickness = 0;
  input_.contact_sweeps = settings.contact_sweeps;
  input_.interaction = setup.interaction.enabled;
}

template <class T>
typename SuperClothoidEngine<T>::Batch::Arrays SuperClothoidEngine<T>::layout(
    int strand_count, int vertex_count, int tile_width) const {
  typename Batch::Arrays a;
  a.strands = strand_count;
  a.vertices = vertex_count;
  a.elements = elements_;
  a.tile_width = tile_width;
  return a;
}

template <class T>
void SuperClothoidEngine<T>::load(engine::HostBatch<Batch>& batch,
                                  const engine::HairSetup& setup) const {
  const std::vector<super_clothoid::ClothoidRod> rods = clothoid_rods(setup, &measures_);
  const kernels::HeadState head = reference::head_state(head_, 0.0);
  for (int s = 0; s < batch.strands(); ++s) {
    load_strand(batch, s, rods[std::size_t(s)]);
    const ks::ClothoidStrand<T> st = ks::strand_of(batch.arrays(), s);
    const kernels::Clamp clamp =
        kernels::clamp_at(head, st.vec(st.a.root_rest, 0), st.frame_rest());
    ks::sample_points(st, st.load(), ks::clamp_motion(clamp), input_.loads);
  }
}

template <class T>
const typename SuperClothoidEngine<T>::Batch::Parameters& SuperClothoidEngine<T>::parameters(
    double t) {
  input_.time = t;
  input_.head = reference::head_state(head_, t + dt_);
  input_.head_pose = bridge::rigid_pose<T>(head_, t + dt_);
  return input_;
}

template class SuperClothoidEngine<float>;
template class SuperClothoidEngine<double>;

}  // namespace hairsim::models
