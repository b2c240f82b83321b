#pragma once
// Host storage of a Cosserat strand batch (kernels/cosserat/cosserat_strand.hpp), float or
// double: the generic HostBatch of Cosserat's arrays, strands loaded from reference rods (one
// source of truth for the rest shape: cosserat::rest_shape), and a step of every strand by the
// generic host executor.
#include <string>
#include <vector>

#include "cosserat/cosserat_batch.hpp"
#include "engine/host_batch.hpp"
#include "hairsim/error.hpp"
#include "reference/cosserat/cosserat_dynamics.hpp"

namespace hairsim::engine {

// Strand s from a reference rod with a clamped root (its rest shape, material and state; the
// root clamp's pose at t = 0 as the rest pose the head moves). The rod's bending strain measure
// must be the batch's.
template <class T>
void load_strand(const HostBatch<kernels::cosserat::CosseratBatch<T>>& batch, int s,
                 const cosserat::CosseratRod& rod) {
  const std::string where = "cosserat batch, strand " + std::to_string(s);
  const int n = batch.vertices();
  const kernels::cosserat::CosseratBatchArrays<T>& a = batch.arrays();
  if (rod.rest.vertex_count() != n) throw Error(where, "vertex count differs");
  if (!rod.root.active) throw Error(where, "the engine's strands have clamped roots");
  if (rod.rest.bending_strain != a.bending_strain)
    throw Error(where, "bending strain measure differs from the batch's");
  // Row `row` of strand s in an array of `rows` rows per strand.
  auto put = [&](T* array, int rows, int row, double value) {
    array[batch.index(row, s, rows)] = T(value);
  };
  for (int k = 0; k < 3 * n; ++k) put(a.config, 3 * n, k, rod.s(k));
  for (int v = 0; v < n; ++v)
    for (int c = 0; c < 3; ++c) {
      put(a.velocity, 3 * n, 3 * v + c, rod.velocity[v](c));
      put(a.darboux, 3 * n, 3 * v + c, rod.rest.darboux[v](c));
    }
  for (int i = 0; i + 1 < n; ++i) {
    put(a.length, n - 1, i, rod.rest.length[i]);
    for (int c = 0; c < 3; ++c) put(a.spin, 3 * (n - 1), 3 * i + c, rod.angular_velocity[i](c));
  }
  for (int v = 0; v < n; ++v) put(a.mass, n, v, rod.rest.mass[v]);
  for (int c = 0; c < 3; ++c) {
    put(a.stiffness, 3, c, rod.rest.stiffness(c));
    put(a.inertia, 3, c, rod.rest.inertia(c));
    put(a.root_rest, 3, c, (rod.root.pivot + rod.root.offset)(c));
  }
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) put(a.frame_rest, 9, 3 * r + c, rod.root.frame(r, c));
  kernels::cosserat::compute_kinematics(kernels::cosserat::strand_of(a, s));  // x
}

template <class T>
class CosseratHostBatch : public HostBatch<kernels::cosserat::CosseratBatch<T>> {
 public:
  using Batch = kernels::cosserat::CosseratBatch<T>;
  // `measure`: the bending strain measure of every strand loaded.
  CosseratHostBatch(int strand_count, int vertex_count, int tile_width = 32,
                    cosserat::BendingStrain measure = cosserat::BendingStrain::tangent)
      : HostBatch<Batch>(layout(strand_count, vertex_count, tile_width, measure)) {}

  static kernels::cosserat::CosseratBatchArrays<T> layout(int strand_count, int vertex_count,
                                                          int tile_width,
                                                          cosserat::BendingStrain measure) {
    kernels::cosserat::CosseratBatchArrays<T> a;
    a.strands = strand_count;
    a.vertices = vertex_count;
    a.tile_width = tile_width;
    a.bending_strain = measure;
    return a;
  }
  using HostBatch<Batch>::arrays;
  using HostBatch<Batch>::vertices;
  using HostBatch<Batch>::strands;

  // Strand s from a reference rod with a clamped root (load_strand below).
  void load(int s, const cosserat::CosseratRod& rod) { load_strand(*this, s, rod); }

  // Vertex positions of strand s (eq. 7 of its s: loading and every step end by computing
  // them) and velocities.
  std::vector<cosserat::Vec3> positions(int s) const {
    return vectors(Batch::positions(arrays()), s);
  }
  std::vector<cosserat::Vec3> velocities(int s) const {
    return vectors(Batch::velocities(arrays()), s);
  }

  // One step of every strand on the host (the cpu backend's executor). Returns the summed counts.
  kernels::cosserat::StepCounts step(T dt, const kernels::cosserat::Loads<T>& loads,
                                     const kernels::cosserat::StepSettings& settings) {
    long c[Batch::kCounters] = {};
    step_on_host<Batch>(arrays(), {dt, loads, settings}, c);
    return {int(c[0]), int(c[1]), int(c[2]), int(c[3]), int(c[4])};
  }

 private:
  std::vector<cosserat::Vec3> vectors(const kernels::VertexVectors<T>& f, int s) const {
    std::vector<cosserat::Vec3> out;
    for (int v = 0; v < vertices(); ++v) out.push_back(this->vector(f, s, v));
    return out;
  }
};

}  // namespace hairsim::engine
