#pragma once
// Host storage of a DER strand batch (kernels/der/der_strand.hpp), float or double: every array
// of DerBatchArrays in the vertex-major layout. Rest data comes from the reference
// (rest_shape_from_polyline): one source of truth for the rest shape, packed once.
#include <array>
#include <string>
#include <vector>

#include "der/der_strand.hpp"
#include "hairsim/error.hpp"
#include "reference/der/der_rod.hpp"

namespace hairsim::engine {

template <class T>
class DerHostBatch {
 public:
  DerHostBatch(int strands, int vertices) : strands_(strands), vertices_(vertices) {
    if (strands < 1 || vertices < 3) throw Error("der batch", "needs >= 1 strand of >= 3 vertices");
    const std::size_t per_vertex = std::size_t(strands) * vertices;
    const std::size_t per_edge = std::size_t(strands) * (vertices - 1);
    for (auto* group : {&position_, &velocity_, &kb_, &force_}) alloc(*group, per_vertex);
    for (auto* group : {&tangent_, &bishop_u_, &m1_, &m2_}) alloc(*group, per_edge);
    alloc(rest_curvature_, per_vertex);
    alloc(curvature_, per_vertex);
    alloc(u0_, std::size_t(strands));
    for (auto* v : {&voronoi_length_, &mass_}) v->assign(per_vertex, T(0));
    for (auto* v : {&theta_, &edge_length_, &length_, &edge_scratch_}) v->assign(per_edge, T(0));
    for (auto* v : {&bending_, &twist_}) v->assign(strands, T(0));
  }

  int strands() const { return strands_; }
  int vertices() const { return vertices_; }

  kernels::der::DerBatchArrays<T> arrays() {
    kernels::der::DerBatchArrays<T> a;
    a.strands = strands_;
    a.vertices = vertices_;
    point(a.position, position_);
    point(a.velocity, velocity_);
    a.theta = theta_.data();
    point(a.u0, u0_);
    a.edge_length = edge_length_.data();
    a.voronoi_length = voronoi_length_.data();
    point(a.rest_curvature, rest_curvature_);
    a.mass = mass_.data();
    a.bending = bending_.data();
    a.twist = twist_.data();
    point(a.tangent, tangent_);
    point(a.bishop_u, bishop_u_);
    point(a.m1, m1_);
    point(a.m2, m2_);
    a.length = length_.data();
    point(a.kb, kb_);
    point(a.curvature, curvature_);
    point(a.force, force_);
    a.edge_scratch = edge_scratch_.data();
    return a;
  }

  // Strand s from the reference's rest shape and state: an open rod of `vertices` vertices whose
  // bending matrices are all α Id (the batch is isotropic), vertex masses `mass` (kg).
  void set_strand(int s, const der::RestShape& rest, const der::RodState& state,
                  const std::vector<double>& mass) {
    const std::string where = "der batch, strand " + std::to_string(s);
    if (rest.closed || rest.vertex_count() != vertices_ || state.x.size() != std::size_t(vertices_))
      throw Error(where, "needs an open rod of " + std::to_string(vertices_) + " vertices");
    const double alpha = rest.bending.front()(0, 0);
    for (const der::Mat2& b : rest.bending)
      if (b(0, 1) != 0 || b(1, 0) != 0 || b(0, 0) != alpha || b(1, 1) != alpha)
        throw Error(where, "bending must be the same isotropic α Id on every edge");
    bending_[s] = T(alpha);
    twist_[s] = T(rest.twist_modulus);
    for (int k = 0; k < 3; ++k) u0_[k][s] = T(state.u0[k]);
    for (int i = 0; i < vertices_; ++i) {
      const std::size_t at = index(i, s);
      for (int k = 0; k < 3; ++k) {
        position_[k][at] = T(state.x[i][k]);
        velocity_[k][at] = T(0);
      }
      voronoi_length_[at] = T(rest.voronoi_length[i]);
      mass_[at] = T(mass[i]);
      for (int slot = 0; slot < 2; ++slot)
        for (int k = 0; k < 2; ++k)
          rest_curvature_[2 * slot + k][at] = T(rest.curvature[i][slot][k]);
    }
    for (int j = 0; j + 1 < vertices_; ++j) {
      theta_[index(j, s)] = T(state.theta[j]);
      edge_length_[index(j, s)] = T(rest.edge_length[j]);
    }
  }

  std::size_t index(int row, int s) const { return std::size_t(row) * strands_ + s; }

 private:
  template <std::size_t N>
  static void alloc(std::array<std::vector<T>, N>& group, std::size_t n) {
    for (auto& v : group) v.assign(n, T(0));
  }
  template <std::size_t N>
  static void point(T* (&p)[N], std::array<std::vector<T>, N>& group) {
    for (std::size_t k = 0; k < N; ++k) p[k] = group[k].data();
  }

  int strands_, vertices_;
  std::array<std::vector<T>, 3> position_, velocity_, u0_, tangent_, bishop_u_, m1_, m2_, kb_,
      force_;
  std::array<std::vector<T>, 4> rest_curvature_, curvature_;
  std::vector<T> theta_, edge_length_, voronoi_length_, mass_, bending_, twist_, length_,
      edge_scratch_;
};

}  // namespace hairsim::engine
