// The implicit-Euler objective E(x) of eq. (8a) (App. A): bending and twisting (29), the
// kinetic terms (30)-(31) and gravity; its gradient and the Hessian H of eq. (15).
#include <Eigen/Geometry>
#include <algorithm>
#include <limits>

#include "common/friction.hpp"
#include "common/matrix3.hpp"
#include "cosserat/cosserat_kinematics.hpp"
#include "reference/cosserat/cosserat_rod.hpp"
#include "reference/eigen_bridge.hpp"

namespace hairsim::cosserat {

using bridge::to_small;
namespace {

// A frictional contact's term at the vertex's current position (kernels/common/friction.hpp).
kernels::FrictionTerm<double> friction_term(const FrictionContact& c, const Kinematics& k) {
  return kernels::friction_term(c.weight, to_small(c.normal), to_small(c.anchor), c.stick,
                                to_small(k.x[c.vertex]));
}

// f(a, b) = vec(conj(a) ⊗ b) = a_w b_v - b_w a_v - a_v × b_v is bilinear; its derivatives
// ∂f/∂a = [b_v | -b_w I + [b_v]×], ∂f/∂b = [-a_v | a_w I - [a_v]×] are the kernels' (the first
// used through darboux()).
Mat34 d_vec_d_second(const Vec4& a) {
  return bridge::from_small(kernels::cosserat::d_vec_d_second(to_small(a)));
}

// The rotational kinetic term of segment i, ½ (l_i / Δt²) eᵀ J e with
// e = 2 vec(conj(q_t) ⊗ q) - Δt Ω_t = R q - Δt Ω_t (R linear: q_t is fixed during the step): the
// body-frame rotation over the step minus the one the old angular velocity would make.
struct RotationalTerm {
  Mat34 r;     // ∂e/∂q
  Vec3 error;  // e
};
RotationalTerm rotational_term(const StepStart& start, const Vec4& q, int segment) {
  const Vec4& qt = start.q[segment];
  const double sign = qt.dot(q) < 0 ? -1.0 : 1.0;  // the hemisphere of q_t (q and -q agree)
  RotationalTerm t;
  t.r = 2 * sign * d_vec_d_second(qt);
  t.error = relative_rotation(qt, q) - start.rotation_dt[segment];
  return t;
}

}  // namespace

// Eq. (29) with q_k taken on q_{k-1}'s side, in either measure: the kernels' formula
// (kernels/cosserat/cosserat_kinematics.hpp).
Darboux darboux(const Vec4& q_prev, const Vec4& q_next, double voronoi, BendingStrain measure) {
  const kernels::cosserat::Darboux<double> d =
      kernels::cosserat::darboux(to_small(q_prev), to_small(q_next), voronoi, measure);
  Darboux out;
  out.value = bridge::from_small(d.value);
  out.d_prev = bridge::from_small(d.d_prev);
  out.d_next = bridge::from_small(d.d_next);
  return out;
}

EnergyTerms potential_energy(const Kinematics& k, const RestShape& rest, const Vec3& gravity) {
  EnergyTerms e;
  const int n = rest.vertex_count();
  const Vec3& K = rest.stiffness;
  for (int v = 1; v + 1 < n; ++v) {  // eq. (29)
    const Vec3 strain =
        darboux(k.q[v - 1], k.q[v], rest.voronoi[v], rest.bending_strain).value - rest.darboux[v];
    const double w = 0.5 * rest.voronoi[v];
    e.bending += w * (K(0) * strain(0) * strain(0) + K(1) * strain(1) * strain(1));
    e.twist += w * K(2) * strain(2) * strain(2);
  }
  for (int j = 0; j < n; ++j) e.gravity -= rest.mass[j] * gravity.dot(k.x[j]);
  return e;
}

EnergyTerms energy(const StepStart& start, const Kinematics& k, const RestShape& rest) {
  EnergyTerms e = potential_energy(k, rest, start.gravity);
  const int n = rest.vertex_count();
  const double inv_dt2 = 1 / (start.dt * start.dt);
  for (int j = 0; j < n; ++j)  // eq. (30)
    e.translational += 0.5 * rest.mass[j] * inv_dt2 * (k.x[j] - start.predicted[j]).squaredNorm();
  for (std::size_t j = 0; j < start.resistance.size(); ++j) {
    const Vec3 d = k.x[j] - start.start[j];
    e.resistance += 0.5 / start.dt * d.dot(start.resistance[j] * d) - d.dot(start.air_force[j]);
  }
  for (const FrictionContact& c : start.friction) e.friction += friction_term(c, k).energy();
  for (int i = 0; i + 1 < n; ++i) {  // eq. (31)
    const Vec3 err = rotational_term(start, k.q[i], i).error;
    e.rotational += 0.5 * rest.length[i] * inv_dt2 * err.dot(rest.inertia.asDiagonal() * err);
  }
  return e;
}

XVector energy_gradient(const StepStart& start, const Kinematics& k, const RestShape& rest) {
  const int n = rest.vertex_count();
  const double inv_dt2 = 1 / (start.dt * start.dt);
  XVector g;
  g.p.resize(n);
  g.q.assign(n - 1, Vec4::Zero());
  for (int j = 0; j < n; ++j)
    g.p[j] = rest.mass[j] * (inv_dt2 * (k.x[j] - start.predicted[j]) - start.gravity);
  for (std::size_t j = 0; j < start.resistance.size(); ++j)
    g.p[j] += start.resistance[j] * (k.x[j] - start.start[j]) / start.dt - start.air_force[j];
  for (const FrictionContact& c : start.friction) {
    const kernels::Vec<double, 3> f = friction_term(c, k).gradient();
    g.p[c.vertex] += Vec3(f[0], f[1], f[2]);
  }
  for (int v = 1; v + 1 < n; ++v) {
    const Darboux d = darboux(k.q[v - 1], k.q[v], rest.voronoi[v], rest.bending_strain);
    const Vec3 moment = rest.voronoi[v] * rest.stiffness.asDiagonal() * (d.value - rest.darboux[v]);
    g.q[v - 1] += d.d_prev.transpose() * moment;
    g.q[v] += d.d_next.transpose() * moment;
  }
  for (int i = 0; i + 1 < n; ++i) {
    const RotationalTerm t = rotational_term(start, k.q[i], i);
    g.q[i] += rest.length[i] * inv_dt2 * t.r.transpose() * (rest.inertia.asDiagonal() * t.error);
  }
  return g;
}

HessianX hessian(const StepStart& start, const Kinematics& k, const RestShape& rest) {
  const int n = rest.vertex_count();
  const double inv_dt2 = 1 / (start.dt * start.dt);
  HessianX h;
  h.h.resize(n);
  for (int j = 0; j < n; ++j) h.h[j] = rest.mass[j] * inv_dt2;
  for (const Mat3& c : start.resistance) h.vertex_block.push_back(c / start.dt);
  if (!start.friction.empty()) h.vertex_block.resize(n, Mat3::Zero());
  for (const FrictionContact& c : start.friction) {
    const kernels::Mat<double, 3, 3> f = friction_term(c, k).hessian();
    for (int r = 0; r < 3; ++r)
      for (int e = 0; e < 3; ++e) h.vertex_block[c.vertex](r, e) += f(r, e);
  }
  h.mq.resize(n - 1);
  for (int i = 0; i + 1 < n; ++i) {
    const Mat34 r = rotational_term(start, k.q[i], i).r;
    h.mq[i] = rest.length[i] * inv_dt2 * r.transpose() * rest.inertia.asDiagonal() * r;
  }
  h.bend.resize(n);
  for (int v = 1; v + 1 < n; ++v)
    h.bend[v] = darboux(k.q[v - 1], k.q[v], rest.voronoi[v], rest.bending_strain);
  return h;
}

std::vector<Mat3> chain_curvature(const StepStart& start, const VecX& s, const Kinematics& k,
                                  const RestShape& rest, const XVector& gradient) {
  const int segments = rest.segment_count();
  std::vector<Mat3> out(segments);
  // Σ_{j>i} ∂E/∂p_j without friction's terms (the contacts stay Gauss-Newton, as the kernels').
  std::vector<Vec3> smooth = gradient.p;
  for (const FrictionContact& c : start.friction)
    smooth[c.vertex] -= bridge::from_small(friction_term(c, k).gradient());
  Vec3 load = Vec3::Zero();
  for (int i = segments - 1; i >= 0; --i) {
    load += smooth[i + 1];
    const Vec4 y =
        rest.length[i] *
            bridge::from_small(kernels::cosserat::director_jacobian(to_small(k.q[i]))).transpose() *
            load +
        gradient.q[i];
    const Eigen::Matrix4d d2 =
        bridge::from_small(kernels::cosserat::director_curvature(to_small(load)));
    const Vec3 w = s.segment<3>(3 + 3 * i);
    const Mat3 g =
        rest.length[i] * k.dq[i].transpose() * d2 * k.dq[i] +
        bridge::from_small(kernels::cosserat::quaternion_curvature(to_small(w), to_small(y)));
    out[i] = bridge::from_small(kernels::positive_semidefinite_part(to_small(Mat3(g))));
  }
  return out;
}

}  // namespace hairsim::cosserat
