#pragma once
// Host storage of a DER strand batch (kernels/der/der_strand.hpp), float or double: every array
// of DerBatchArrays in its tiled layout. Rest data comes from the reference
// (rest_shape_from_polyline): one source of truth for the rest shape, packed once.
#include <string>
#include <type_traits>
#include <vector>

#include "der/der_strand.hpp"
#include "hairsim/error.hpp"
#include "hairsim/material.hpp"
#include "hairsim/strands.hpp"
#include "reference/der/der_dynamics.hpp"

namespace hairsim::engine {

template <class T>
class DerHostBatch {
 public:
  // `integrator`: a batch for implicit steps also holds their block systems.
  DerHostBatch(int strands, int vertices, int tile_width = 32,
               kernels::der::Integrator integrator = kernels::der::Integrator::symplectic) {
    if (strands < 1 || vertices < 3 || tile_width < 1)
      throw Error("der batch", "needs >= 1 strand of >= 3 vertices, tiles of >= 1 strand");
    arrays_.strands = strands;
    arrays_.vertices = vertices;
    arrays_.tile_width = tile_width;
    arrays_.implicit_system = integrator == kernels::der::Integrator::implicit;
    const std::size_t padded = std::size_t(arrays_.tile_count()) * tile_width;
    kernels::der::for_each_array(arrays_, [&](auto*& array, int rows) {
      using S = std::remove_reference_t<decltype(*array)>;  // T, or double for the solver's
      storage_.emplace_back(std::size_t(rows) * padded * sizeof(S));  // zeroed: 0.0 as IEEE
      array = reinterpret_cast<S*>(storage_.back().data());
    });
  }
  DerHostBatch(const DerHostBatch&) = delete;  // arrays_ points into storage_
  DerHostBatch& operator=(const DerHostBatch&) = delete;

  int strands() const { return arrays_.strands; }
  int vertices() const { return arrays_.vertices; }
  const kernels::der::DerBatchArrays<T>& arrays() const { return arrays_; }
  // Offset of row `row` of strand s in an array of `rows` rows (tiled layout).
  std::size_t index(int row, int s, int rows) const {
    const int w = arrays_.tile_width;
    return (std::size_t(s / w) * rows + row) * w + s % w;
  }
  std::size_t vertex_index(int i, int s) const { return index(i, s, vertices()); }
  std::size_t edge_index(int j, int s) const { return index(j, s, vertices() - 1); }
  der::Vec3 position(int s, int i) const {
    const std::size_t at = vertex_index(i, s);
    return {double(arrays_.position[0][at]), double(arrays_.position[1][at]),
            double(arrays_.position[2][at])};
  }

  // Strand s from the reference's rest shape and state: an open rod of `vertices` vertices whose
  // bending matrices are all α Id (the batch is isotropic), vertex masses `mass` (kg), at rest,
  // stretching stiffness EA (N; the implicit step's).
  void set_strand(int s, const der::RestShape& rest, const der::RodState& state,
                  const std::vector<double>& mass, double stretching_stiffness = 0) {
    const std::string where = "der batch, strand " + std::to_string(s);
    const int n = vertices();
    if (rest.closed || rest.vertex_count() != n || state.x.size() != std::size_t(n))
      throw Error(where, "needs an open rod of " + std::to_string(n) + " vertices");
    const double alpha = rest.bending.front()(0, 0);
    for (const der::Mat2& b : rest.bending)
      if (b(0, 1) != 0 || b(1, 0) != 0 || b(0, 0) != alpha || b(1, 1) != alpha)
        throw Error(where, "bending must be the same isotropic α Id on every edge");
    const kernels::der::DerBatchArrays<T>& a = arrays_;
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
      const std::size_t at = vertex_index(i, s);
      for (int k = 0; k < 3; ++k) {
        a.position[k][at] = T(state.x[i][k]);
        a.velocity[k][at] = T(0);
      }
      a.voronoi_length[at] = T(rest.voronoi_length[i]);
      a.mass[at] = T(mass[i]);
      for (int slot = 0; slot < 2; ++slot)
        for (int k = 0; k < 2; ++k)
          a.rest_curvature[2 * slot + k][at] = T(rest.curvature[i][slot][k]);
    }
    for (int j = 0; j + 1 < n; ++j) {
      a.theta[edge_index(j, s)] = T(state.theta[j]);
      a.edge_length[edge_index(j, s)] = T(rest.edge_length[j]);
    }
  }

 private:
  kernels::der::DerBatchArrays<T> arrays_;
  std::vector<std::vector<unsigned char>> storage_;  // one allocation per array
};

// Every strand of a hairstyle (all with the batch's vertex count: resample() first) at rest on
// its own polyline (a groomed curl is at rest), strand s of material `material_of(s)`, vertex
// masses lumped. The root edge is the clamp (the kernels hold vertices 0 and 1 and θ⁰).
template <class T, class MaterialOf>
void load_strands(DerHostBatch<T>& batch, const StrandSet& strands, MaterialOf material_of) {
  if (strands.strand_count() != std::size_t(batch.strands()))
    throw Error("der batch", "expected " + std::to_string(batch.strands()) + " strands, got " +
                                 std::to_string(strands.strand_count()));
  for (std::size_t s = 0; s < strands.strand_count(); ++s)
    if (strands.strand_size(s) != std::size_t(batch.vertices()))
      throw Error("der batch, strand " + std::to_string(s),
                  "has " + std::to_string(strands.strand_size(s)) + " vertices, the batch " +
                      std::to_string(batch.vertices()) + " (resample first)");
#pragma omp parallel for schedule(static)
  for (int s = 0; s < batch.strands(); ++s) {
    const auto points = strands.strand(std::size_t(s));
    const RodMaterial& m = material_of(std::size_t(s));
    const der::DynamicRod rod =
        der::rod_at_rest(std::vector<der::Vec3>(points.begin(), points.end()),
                         m.bending_stiffness(), m.twist_stiffness(), m.linear_density());
    batch.set_strand(s, rod.rest, rod.state, rod.mass, m.stretching_stiffness());
  }
}

// All strands of one material.
template <class T>
void load_strands(DerHostBatch<T>& batch, const StrandSet& strands, const RodMaterial& m) {
  load_strands(batch, strands, [&](std::size_t) -> const RodMaterial& { return m; });
}

}  // namespace hairsim::engine
