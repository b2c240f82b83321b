// Batched DER kernels (kernels/der/der_strand.hpp) against the reference (src/reference/der/),
// on the host: frames, energies, ∂E/∂θ and forces of random curly strands, float and double.
// The reference is itself checked by finite differences (test_der_derivatives.cpp), so agreement
// here to round-off makes the kernels exact to the same standard.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>

#include "der_test_support.hpp"
#include "models/der/der_host_batch.hpp"
#include "reference/der/der_dynamics.hpp"

namespace hairsim::der {
namespace {

template <class T>
void expect_kernels_match_reference(double tolerance) {
  const int strands = 37, vertices = 24;  // two tiles, the second partial
  std::mt19937 rng(7);
  std::vector<test::ReferenceStrand> ref;
  engine::DerHostBatch<T> batch(strands, vertices);
  for (int s = 0; s < strands; ++s) {
    ref.push_back(test::random_hair_strand(vertices, rng));
    batch.set_strand(s, ref[s].rest, ref[s].state, ref[s].mass);
  }
  const kernels::der::DerBatchArrays<T>& a = batch.arrays();
  for (int s = 0; s < strands; ++s) {
    const kernels::der::Strand<T> st = kernels::der::strand_of(a, s);
    kernels::der::compute_frames(st);
    const Frames f = compute_frames(ref[s].state);
    // Frames and material curvatures.
    double worst_frame = 0, worst_curvature = 0, curvature_scale = 0;
    for (int j = 0; j < vertices - 1; ++j) {
      const auto m1 = st.vectors(st.a.m1).get(j), m2 = st.vectors(st.a.m2).get(j);
      worst_frame = std::max({worst_frame, (Vec3(m1.x, m1.y, m1.z) - f.m1[j]).norm(),
                              (Vec3(m2.x, m2.y, m2.z) - f.m2[j]).norm()});
    }
    for (int i = 1; i < vertices - 1; ++i)
      for (int k = 0; k < 4; ++k) {
        const double expected = f.curvature[i][k / 2][k % 2];
        worst_curvature = std::max(worst_curvature,
                                   std::abs(double(st.per_row(st.a.curvature[k])[i]) - expected));
        curvature_scale = std::max(curvature_scale, std::abs(expected));
      }
    EXPECT_LT(worst_frame, tolerance) << "strand " << s;
    EXPECT_LT(worst_curvature, tolerance * curvature_scale) << "strand " << s;
    // Energies.
    const double eb = bending_energy(f, ref[s].rest),
                 et = twist_energy(ref[s].state, f, ref[s].rest);
    EXPECT_NEAR(double(kernels::der::bending_energy(st)), eb, tolerance * eb) << "strand " << s;
    EXPECT_NEAR(double(kernels::der::twist_energy(st)), et, tolerance * et) << "strand " << s;
    // ∂E/∂θ.
    const kernels::Strided<T> g = st.per_row(st.a.edge_scratch);
    kernels::der::theta_gradient(st, g);
    const std::vector<double> g_ref = theta_gradient(ref[s].state, f, ref[s].rest);
    const double g_scale = std::abs(*std::max_element(
        g_ref.begin(), g_ref.end(), [](double p, double q) { return std::abs(p) < std::abs(q); }));
    for (int j = 0; j < vertices - 1; ++j)
      EXPECT_NEAR(double(g[j]), g_ref[j], tolerance * g_scale) << "strand " << s << ", edge " << j;
    // Forces at fixed θ, first material frame held, last free (hair).
    kernels::der::elastic_forces(st);
    const std::vector<Vec3> f_ref = elastic_forces(ref[s].state, f, ref[s].rest, {true, false});
    double worst_force = 0, force_scale = 0;
    for (int i = 0; i < vertices; ++i) {
      const auto fk = st.vectors(st.a.force).get(i);
      worst_force = std::max(worst_force, (Vec3(fk.x, fk.y, fk.z) - f_ref[i]).norm());
      force_scale = std::max(force_scale, f_ref[i].norm());
    }
    EXPECT_LT(worst_force, tolerance * force_scale) << "strand " << s;
  }
}

TEST(DerStrandKernels, DoubleMatchesTheReferenceToRoundOff) {
  expect_kernels_match_reference<double>(1e-12);
}

TEST(DerStrandKernels, FloatMatchesTheReferenceToSinglePrecision) {
  // float carries 6e-8 relative per operation; measured: frames within 8.5e-7, curvatures and
  // forces within 1.1e-6 of their largest value (24 vertices). Tolerance 1e-5 of the largest.
  expect_kernels_match_reference<float>(1e-5);
}

}  // namespace
}  // namespace hairsim::der
