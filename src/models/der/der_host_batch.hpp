#pragma once
// Host storage of a DER strand batch (kernels/der/der_strand.hpp), float or double: the generic
// HostBatch of DER's arrays and how a strand is packed into them. Rest data comes from the
// reference (rest_shape_from_polyline): one source of truth for the rest shape, packed once.
#include <string>
#include <vector>

#include "der/der_batch.hpp"
#include "engine/host_batch.hpp"
#include "engine/parallel.hpp"
#include "hairsim/error.hpp"
#include "hairsim/material.hpp"
#include "hairsim/strands.hpp"
#include "reference/der/der_dynamics.hpp"

namespace hairsim::engine {

// Strand s from the reference's rest shape and state: an open rod of `vertices` vertices whose
// bending matrices are all α Id (the batch is isotropic), vertex masses `mass` (kg), at rest,
// stretching stiffness EA (N; the implicit step's).
template <class T>
void pack_strand(const HostBatch<kernels::der::DerBatch<T>>& batch, int s,
                 const der::RestShape& rest, const der::RodState& state,
                 const std::vector<double>& mass, double stretching_stiffness = 0) {
  const std::string where = "der batch, strand " + std::to_string(s);
  const int n = batch.vertices();
  if (rest.closed || rest.vertex_count() != n || state.x.size() != std::size_t(n))
    throw Error(where, "needs an open rod of " + std::to_string(n) + " vertices");
  const double alpha = rest.bending.front()(0, 0);
  for (const der::Mat2& b : rest.bending)
    if (b(0, 1) != 0 || b(1, 0) != 0 || b(0, 0) != alpha || b(1, 1) != alpha)
      throw Error(where, "bending must be the same isotropic α Id on every edge");
  const kernels::der::DerBatchArrays<T>& a = batch.arrays();
  a.bending[s] = T(alpha);
  a.twist[s] = T(rest.twist_modulus);
  a.stretching[s] = T(stretching_stiffness);
  for (int k = 0; k < 3; ++k) a.u0[k][s] = T(state.u0[k]);
  // The root clamp at t = 0: vertices 0 and 1 and the material vector of edge 0.
  const der::Vec3 root_m1 = der::compute_frames(state).m1.front();
  for (int k = 0; k < 3; ++k) {
    a.root_rest[k][s] = T(state.x[0][k]);
    a.root_rest[3 + k][s] = T(state.x[1][k]);
    a.root_m1[k][s] = T(root_m1[k]);
  }
  for (int i = 0; i < n; ++i) {
    const std::size_t at = batch.index(i, s, n);
    for (int k = 0; k < 3; ++k) {
      a.position[k][at] = T(state.x[i][k]);
      a.velocity[k][at] = T(0);
    }
    a.voronoi_length[at] = T(rest.voronoi_length[i]);
    a.rest_twist[at] = T(rest.twist.empty() ? 0.0 : rest.twist[std::size_t(i)]);
    a.mass[at] = T(mass[i]);
    for (int slot = 0; slot < 2; ++slot)
      for (int k = 0; k < 2; ++k)
        a.rest_curvature[2 * slot + k][at] = T(rest.curvature[i][slot][k]);
  }
  for (int j = 0; j + 1 < n; ++j) {
    a.theta[batch.index(j, s, n - 1)] = T(state.theta[j]);
    a.edge_length[batch.index(j, s, n - 1)] = T(rest.edge_length[j]);
  }
}

template <class T>
class DerHostBatch : public HostBatch<kernels::der::DerBatch<T>> {
 public:
  // `integrator`: a batch for implicit steps also holds their block systems.
  DerHostBatch(int strand_count, int vertex_count, int tile_width = 32,
               kernels::der::Integrator integrator = kernels::der::Integrator::symplectic)
      : HostBatch<kernels::der::DerBatch<T>>(
            layout(strand_count, vertex_count, tile_width, integrator)) {}

  // The arrays' sizes and flags.
  static kernels::der::DerBatchArrays<T> layout(int strand_count, int vertex_count, int tile_width,
                                                kernels::der::Integrator integrator) {
    kernels::der::DerBatchArrays<T> a;
    a.strands = strand_count;
    a.vertices = vertex_count;
    a.tile_width = tile_width;
    a.implicit_system = integrator == kernels::der::Integrator::implicit;
    return a;
  }

  using HostBatch<kernels::der::DerBatch<T>>::arrays;
  using HostBatch<kernels::der::DerBatch<T>>::index;
  using HostBatch<kernels::der::DerBatch<T>>::vertices;
  std::size_t vertex_index(int i, int s) const { return index(i, s, vertices()); }
  std::size_t edge_index(int j, int s) const { return index(j, s, vertices() - 1); }
  Vec3 position(int s, int i) const {
    return this->vector(kernels::der::DerBatch<T>::positions(arrays()), s, i);
  }

  // Strand s from the reference's rest shape and state (pack_strand below).
  void set_strand(int s, const der::RestShape& rest, const der::RodState& state,
                  const std::vector<double>& mass, double stretching_stiffness = 0) {
    pack_strand(*this, s, rest, state, mass, stretching_stiffness);
  }
};

// One rod per strand at rest on its own polyline (a groomed curl is at rest), strand s of
// material `material_of(s)`, vertex masses lumped; nothing clamped yet.
template <class MaterialOf>
std::vector<der::DynamicRod> rods_at_rest(const StrandSet& strands, MaterialOf material_of) {
  std::vector<der::DynamicRod> rods(strands.strand_count());
  parallel_for(int(rods.size()), [&](int s) {
    const auto points = strands.strand(std::size_t(s));
    const RodMaterial& m = material_of(std::size_t(s));
    rods[std::size_t(s)] =
        der::rod_at_rest(std::vector<der::Vec3>(points.begin(), points.end()),
                         m.bending_stiffness(), m.twist_stiffness(), m.linear_density());
    rods[std::size_t(s)].stretching_stiffness = m.stretching_stiffness();
  });
  return rods;
}

// Every strand of a hairstyle (all with the batch's vertex count: resample() first) from its
// rod (rods_at_rest, or held sag-free). The root edge is the clamp (the kernels hold vertices 0
// and 1 and θ⁰).
template <class T>
void load_strands(const HostBatch<kernels::der::DerBatch<T>>& batch,
                  const std::vector<der::DynamicRod>& rods) {
  if (rods.size() != std::size_t(batch.strands()))
    throw Error("der batch", "expected " + std::to_string(batch.strands()) + " strands, got " +
                                 std::to_string(rods.size()));
  for (std::size_t s = 0; s < rods.size(); ++s)
    if (rods[s].state.x.size() != std::size_t(batch.vertices()))
      throw Error("der batch, strand " + std::to_string(s),
                  "has " + std::to_string(rods[s].state.x.size()) + " vertices, the batch " +
                      std::to_string(batch.vertices()) + " (resample first)");
  parallel_for(batch.strands(), [&](int s) {
    const der::DynamicRod& rod = rods[std::size_t(s)];
    pack_strand(batch, s, rod.rest, rod.state, rod.mass, rod.stretching_stiffness);
  });
}

// Every strand at rest on its own polyline, strand s of material `material_of(s)`.
template <class T, class MaterialOf>
void load_strands(const HostBatch<kernels::der::DerBatch<T>>& batch, const StrandSet& strands,
                  MaterialOf material_of) {
  load_strands(batch, rods_at_rest(strands, material_of));
}

// All strands of one material.
template <class T>
void load_strands(const HostBatch<kernels::der::DerBatch<T>>& batch, const StrandSet& strands,
                  const RodMaterial& m) {
  load_strands(batch, strands, [&](std::size_t) -> const RodMaterial& { return m; });
}

// One step of every strand on the host (the generic executor), DER's counts summed.
template <class T>
kernels::der::StepCounts der_step_cpu(const kernels::der::DerBatchArrays<T>& a,
                                      const kernels::der::DerStepParameters<T>& p) {
  long c[kernels::der::DerBatch<T>::kCounters] = {};
  step_on_host<kernels::der::DerBatch<T>>(a, p, c);
  return {c[0], c[1], c[2], c[3]};
}

}  // namespace hairsim::engine
