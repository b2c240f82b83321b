#pragma once
// Host storage of a Cosserat strand batch (kernels/cosserat/cosserat_strand.hpp), float or
// double: every array of CosseratBatchArrays in its tiled layout, strands loaded from reference
// rods (one source of truth for the rest shape: cosserat::rest_shape), and the cpu backend's
// step: the per-strand kernel over all strands with OpenMP.
#include <string>
#include <vector>

#include "cosserat/cosserat_strand.hpp"
#include "hairsim/error.hpp"
#include "reference/cosserat/cosserat_dynamics.hpp"

namespace hairsim::engine {

template <class T>
class CosseratHostBatch {
 public:
  CosseratHostBatch(int strands, int vertices, int tile_width = 32) {
    if (strands < 1 || vertices < 3 || tile_width < 1)
      throw Error("cosserat batch", "needs >= 1 strand of >= 3 vertices, tiles of >= 1 strand");
    arrays_.strands = strands;
    arrays_.vertices = vertices;
    arrays_.tile_width = tile_width;
    const std::size_t padded = std::size_t(arrays_.tile_count()) * tile_width;
    kernels::cosserat::for_each_array(arrays_, [&](T*& array, int rows) {
      storage_.emplace_back(std::size_t(rows) * padded, T(0));
      array = storage_.back().data();
    });
  }
  CosseratHostBatch(const CosseratHostBatch&) = delete;  // arrays_ points into storage_
  CosseratHostBatch& operator=(const CosseratHostBatch&) = delete;

  int strands() const { return arrays_.strands; }
  int vertices() const { return arrays_.vertices; }
  const kernels::cosserat::CosseratBatchArrays<T>& arrays() const { return arrays_; }

  // Strand s from a reference rod with a clamped root (its rest shape, material and state; the
  // root clamp's pose at t = 0 as the rest pose the head moves).
  void load(int s, const cosserat::CosseratRod& rod) {
    const std::string where = "cosserat batch, strand " + std::to_string(s);
    if (rod.rest.vertex_count() != vertices()) throw Error(where, "vertex count differs");
    if (!rod.root.active) throw Error(where, "the engine's strands have clamped roots");
    const auto measure = rod.rest.bending_strain == cosserat::BendingStrain::sine
                             ? kernels::cosserat::BendingStrain::sine
                             : kernels::cosserat::BendingStrain::tangent;
    if (loaded_ > 0 && measure != arrays_.bending_strain)
      throw Error(where, "bending strain measure differs from the batch's");
    arrays_.bending_strain = measure;
    ++loaded_;
    const int n = vertices();
    for (int k = 0; k < 3 * n; ++k) put(arrays_.config, s, 3 * n, k, rod.s(k));
    for (int v = 0; v < n; ++v)
      for (int c = 0; c < 3; ++c) {
        put(arrays_.velocity, s, 3 * n, 3 * v + c, rod.velocity[v](c));
        put(arrays_.darboux, s, 3 * n, 3 * v + c, rod.rest.darboux[v](c));
      }
    for (int i = 0; i + 1 < n; ++i) {
      put(arrays_.length, s, n - 1, i, rod.rest.length[i]);
      for (int c = 0; c < 3; ++c)
        put(arrays_.spin, s, 3 * (n - 1), 3 * i + c, rod.angular_velocity[i](c));
    }
    for (int v = 0; v < n; ++v) put(arrays_.mass, s, n, v, rod.rest.mass[v]);
    for (int c = 0; c < 3; ++c) {
      put(arrays_.stiffness, s, 3, c, rod.rest.stiffness(c));
      put(arrays_.inertia, s, 3, c, rod.rest.inertia(c));
      put(arrays_.root_rest, s, 3, c, (rod.root.pivot + rod.root.offset)(c));
    }
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) put(arrays_.frame_rest, s, 9, 3 * r + c, rod.root.frame(r, c));
    kernels::cosserat::compute_kinematics(kernels::cosserat::strand_of(arrays_, s));  // x
  }

  // Vertex positions of strand s (eq. 7 of its s: loading and every step end by computing
  // them) and velocities.
  std::vector<cosserat::Vec3> positions(int s) const { return vectors(s, true); }
  std::vector<cosserat::Vec3> velocities(int s) const { return vectors(s, false); }

  // One step of every strand on the host (the cpu backend), the head at `pose` at the end of
  // the step. Returns the summed counts.
  kernels::cosserat::StepCounts step(T dt, const kernels::cosserat::Loads<T>& loads,
                                     const kernels::cosserat::StepSettings& settings) {
    long newton = 0, iterations = 0, solves = 0, failures = 0, contacts = 0;
#pragma omp parallel for schedule(dynamic, 4) \
    reduction(+ : newton, iterations, solves, failures, contacts)
    for (int s = 0; s < strands(); ++s) {
      const kernels::cosserat::StepCounts c =
          kernels::cosserat::step(kernels::cosserat::strand_of(arrays_, s), dt, loads, settings);
      newton += c.newton, iterations += c.pcg_iterations, solves += c.pcg_solves;
      failures += c.failures, contacts += c.contacts;
    }
    return {int(newton), int(iterations), int(solves), int(failures), int(contacts)};
  }

 private:
  std::vector<cosserat::Vec3> vectors(int s, bool positions) const {
    const kernels::cosserat::Strand<T> st = kernels::cosserat::strand_of(arrays_, s);
    std::vector<cosserat::Vec3> out;
    for (int v = 0; v < vertices(); ++v) {
      const auto p = st.template get<3, 1>(positions ? st.a.x : st.a.velocity, v);
      out.emplace_back(double(p[0]), double(p[1]), double(p[2]));
    }
    return out;
  }
  // Row `row` of strand s in an array of `rows` rows per strand (tiled layout).
  void put(T* array, int s, int rows, int row, double value) {
    const int w = arrays_.tile_width;
    array[(std::size_t(s / w) * rows + row) * w + s % w] = T(value);
  }
  kernels::cosserat::CosseratBatchArrays<T> arrays_;
  std::vector<std::vector<T>> storage_;
  int loaded_ = 0;  // strands loaded so far (the first sets the batch's bending strain)
};

}  // namespace hairsim::engine
