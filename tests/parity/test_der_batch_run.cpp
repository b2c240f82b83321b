// Issue 4: 10,000 generated strands (wavy, 32 vertices, human hair: r = 40 µm, E = 3 GPa,
// ρ = 1300 kg/m³) for 100 symplectic steps on the cpu backend: every value finite, every edge
// within 1e-6 L of its rest length (fast projection to 1e-12 m).
#include <gtest/gtest.h>

#include <cmath>
#include <iostream>

#include "hairsim/generate.hpp"
#include "models/der/der_host_batch.hpp"

namespace hairsim {
namespace {

TEST(DerBatchRun, TenThousandStrandsStayFiniteAndInextensible) {
  HairstyleParams style;
  style.style = HairStyle::wavy;
  style.strands = 10000;
  style.vertices = 32;
  const StrandSet hair = generate_hairstyle(style);
  const RodMaterial material;
  engine::DerHostBatch<double> batch(style.strands, style.vertices);
  engine::load_strands(batch, hair, material);

  const double h = 0.9 * style.length / (style.vertices - 1);  // shortest strands' edges
  kernels::der::DerStepParameters<double> p;
  p.dt = 0.1 * h * h * std::sqrt(material.linear_density() / material.bending_stiffness());
  p.gravity = {0, -9.81, 0};
  p.damping = 1;
  p.length_tolerance = 1e-12;
  p.twist_tolerance = 1e-8 * material.bending_stiffness() / h;  // relative to EI/h
  for (int step = 0; step < 100; ++step) engine::der_step_cpu(batch.arrays(), p);

  const auto& a = batch.arrays();
  bool finite = true;
  double worst_strain = 0, moved = 0;
  for (int s = 0; s < batch.strands(); ++s) {
    double length = 0;
    for (int j = 0; j + 1 < batch.vertices(); ++j) length += a.edge_length[batch.edge_index(j, s)];
    for (int j = 0; j + 1 < batch.vertices(); ++j) {
      double d2 = 0;
      for (int k = 0; k < 3; ++k) {
        const double d =
            a.position[k][batch.vertex_index(j + 1, s)] - a.position[k][batch.vertex_index(j, s)];
        finite = finite && std::isfinite(a.position[k][batch.vertex_index(j, s)]);
        d2 += d * d;
      }
      worst_strain = std::max(
          worst_strain, std::abs(std::sqrt(d2) - a.edge_length[batch.edge_index(j, s)]) / length);
    }
    const auto tip = hair.strand(std::size_t(s)).back();
    const std::size_t last = batch.vertex_index(batch.vertices() - 1, s);
    moved = std::max(moved, std::abs(a.position[1][last] - tip.y()));
  }
  std::cout << "dt " << p.dt << " s; largest edge error " << worst_strain << " L; largest tip drop "
            << moved << " m\n";
  EXPECT_TRUE(finite);
  EXPECT_LE(worst_strain, 1e-6);
  // Hair this thin is a string at first: the free tips fall as in free fall, ½ g t².
  const double t = 100 * p.dt, free_fall = 0.5 * 9.81 * t * t;
  EXPECT_NEAR(moved / free_fall, 1.0, 0.1);
}

}  // namespace
}  // namespace hairsim
