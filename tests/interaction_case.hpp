#pragma once
// The hair-hair interaction stage's comparison case, shared by the cpu parity test
// (tests/parity/test_interaction_parity.cpp: the batched stage against the reference stage) and
// the gpu test (tests/gpu/test_interaction_gpu.cpp: the cuda stage against the cpu one): 200
// generated wavy strands of 0.2 m on an ellipsoid head with friction, drag, 1 ms steps, the
// stage's defaults (cell 1 cm, friction 20/s, volume 50/s, 20 iterations).
#include <memory>
#include <string>

#include "engine/model.hpp"
#include "hairsim/generate.hpp"
#include "models/cosserat/cosserat_model.hpp"

namespace hairsim::test {

// The stage's two implementations sum in different orders (the cuda splat with atomics in an
// order that varies), so the velocities a step starts from differ by round-off (~1e-16 m/s).
// Cosserat's Newton iterations stop at a tolerance, and where they stop moves with such
// differences by up to that tolerance: with its default, 100 steps reached 3.3e-9 L on the cpu
// (2026-11-25) and 2.0e-8 L on an H200 (2026-11-26). Stopped at 5e-11 N (about 1 % of its
// default, 4e-4 of a strand's weight), the cpu reached 2.0e-11 L: the case then compares the
// stages, not where a solver stopped, within every model's double parity bound (1e-9 L).
// `strands`: fewer for a model whose strands cost more (the same head, the stage's same defaults).
inline engine::HairSetup interaction_setup(const engine::Model& model, int strands = 200) {
  HairstyleParams p;
  p.style = HairStyle::wavy;
  p.strands = strands;
  p.vertices = 12;
  p.length = 0.2;
  engine::HairSetup setup;
  setup.strands = generate_hairstyle(p);
  Collider head;
  head.shape = Collider::Shape::ellipsoid;
  head.radii = {0.075, 0.095, 0.095};
  head.friction = 0.3;
  setup.colliders.push_back(head);
  setup.integrator = model.integrators.front();
  setup.dt = 1e-3;
  setup.drag_normal = 1e-4, setup.drag_tangent = 5e-5;
  setup.head.center = Vec3::Zero();
  setup.interaction.enabled = true;
  if (model.parity_settings) setup.model_settings = model.parity_settings();
  if (model.name == "cosserat") {
    auto s = std::make_shared<models::CosseratSettings>();
    s->pcg_relative_tolerance = 1e-12;
    s->newton_tolerance = 5e-11;
    s->newton_max_iterations = 50;
    setup.model_settings = s;
  }
  return setup;
}

// The longest strand of the case (0.2 m + the waves' share): lengths are reported against it.
inline double longest_strand(const engine::HairSetup& setup) {
  double length = 0;
  for (std::size_t s = 0; s < setup.strands.strand_count(); ++s) {
    const auto p = setup.strands.strand(s);
    double l = 0;
    for (std::size_t i = 1; i < p.size(); ++i) l += (p[i] - p[i - 1]).norm();
    length = length > l ? length : l;
  }
  return length;
}

}  // namespace hairsim::test
