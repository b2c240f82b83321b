// Sag-free rest Darboux vectors of a compact inextensible Cosserat rod (cosserat_dynamics.hpp,
// hold_shape).
#include "reference/cosserat/cosserat_dynamics.hpp"

namespace hairsim::cosserat {

namespace {

// ∂(V + G)/∂ω_i of the free segments 1 .. n-2 (blocks 2 .. n-1 of s; N m): the potential's
// gradient alone, from a step start at the configuration itself, so that the inertial terms of
// eqs. (30)-(31) vanish.
VecX free_gradient(const VecX& s, const RestShape& rest, const Vec3& gravity) {
  const Kinematics k = kinematics(s, rest);
  StepStart at;
  at.dt = 1;
  at.predicted = k.x;
  at.q = k.q;
  at.rotation_dt.assign(k.q.size(), Vec3::Zero());
  at.gravity = gravity;
  const VecX g = apply_jt(k, energy_gradient(at, k, rest));
  return g.tail(3 * (rest.vertex_count() - 2));
}

}  // namespace

reference::HeldShape hold_shape(CosseratRod& rod, const Vec3& gravity) {
  const int n = rod.rest.vertex_count();
  if (n < 3) return {};
  double mean_length = 0;
  for (double l : rod.rest.length) mean_length += l / double(rod.rest.length.size());
  const int interior = n - 2;
  Eigen::VectorXd p0(3 * interior);
  for (int v = 1; v + 1 < n; ++v) p0.segment<3>(3 * (v - 1)) = rod.rest.darboux[std::size_t(v)];
  const Eigen::VectorXd scale = Eigen::VectorXd::Constant(p0.size(), 1 / mean_length);  // 1/m
  RestShape probe = rod.rest;
  auto set_rest = [&](RestShape& rest, const Eigen::VectorXd& p) {
    for (int v = 1; v + 1 < n; ++v) rest.darboux[std::size_t(v)] = p.segment<3>(3 * (v - 1));
  };
  reference::HeldShape held = reference::hold_shape(p0, scale, [&](const Eigen::VectorXd& p) {
    set_rest(probe, p);
    return free_gradient(rod.s, probe, gravity);
  });
  // Stable where it is held? The potential's Hessian in the free segments' rotations.
  set_rest(probe, held.rest);
  VecX s = rod.s;
  double noise = 0;
  const Eigen::MatrixXd h = reference::potential_hessian(
      VecX(rod.s.tail(3 * interior)), [&](const VecX& free) { s.tail(3 * interior) = free; },
      [&] { return VecX(-free_gradient(s, probe, gravity)); }, 1.0, &noise);
  held.stiffness = reference::stiffness_range(h, noise);
  held.held = held.stiffness.stable();
  set_rest(rod.rest, held.held ? held.rest : p0);
  return held;
}

}  // namespace hairsim::cosserat
