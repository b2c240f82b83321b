// Cosserat reference, issue 6, validation 1 and 2: the O(n) products with J, Jᵀ and A against
// the densely assembled matrices, the kinematics, the Darboux vector (both measures) and the
// energy gradient against finite differences, and the positive definiteness of the hybrid
// preconditioner (§3.3).
#include <gtest/gtest.h>

#include <Eigen/Cholesky>
#include <Eigen/Dense>
#include <cmath>
#include <numbers>
#include <random>

#include "common/friction.hpp"
#include "cosserat_test_support.hpp"
#include "reference/cosserat/cosserat_solver.hpp"

namespace hairsim::cosserat {
namespace {

using testing::random_rod;
using testing::RandomRod;
using MatX = Eigen::MatrixXd;

int x_size(int n) {
  return 3 * n + 4 * (n - 1);
}

VecX flatten(const XVector& y) {
  const int n = static_cast<int>(y.p.size());
  VecX out(x_size(n));
  for (int j = 0; j < n; ++j) out.segment<3>(3 * j) = y.p[j];
  for (int i = 0; i + 1 < n; ++i) out.segment<4>(3 * n + 4 * i) = y.q[i];
  return out;
}

XVector unflatten(const VecX& v, int n) {
  XVector y;
  for (int j = 0; j < n; ++j) y.p.push_back(v.segment<3>(3 * j));
  for (int i = 0; i + 1 < n; ++i) y.q.push_back(v.segment<4>(3 * n + 4 * i));
  return y;
}

// J of eqs. (16)-(18) entry by entry: vertex j depends on p_c (identity) and on every segment
// i < j through J^i_{p,s}; quaternion i on ω_i alone.
MatX dense_j(const Kinematics& k) {
  const int n = static_cast<int>(k.x.size());
  MatX j = MatX::Zero(x_size(n), 3 * n);
  for (int v = 0; v < n; ++v) {
    j.block<3, 3>(3 * v, 0) = Mat3::Identity();
    for (int i = 0; i < v; ++i) j.block<3, 3>(3 * v, 3 + 3 * i) = k.dx[i];
  }
  for (int i = 0; i + 1 < n; ++i) j.block<4, 3>(3 * n + 4 * i, 3 + 3 * i) = k.dq[i];
  return j;
}

// H of eq. (15) assembled: h_j I, M_q/Δt² blocks, and Σ_k l̄_k G_kᵀ K G_k with G_k = ∂Ω_k/∂q.
MatX dense_h(const HessianX& h, const RestShape& rest) {
  const int n = rest.vertex_count();
  MatX m = MatX::Zero(x_size(n), x_size(n));
  for (int j = 0; j < n; ++j)
    m.block<3, 3>(3 * j, 3 * j) =
        h.h[j] * Mat3::Identity() + (h.vertex_block.empty() ? Mat3::Zero() : h.vertex_block[j]);
  for (int i = 0; i + 1 < n; ++i) m.block<4, 4>(3 * n + 4 * i, 3 * n + 4 * i) += h.mq[i];
  for (int v = 1; v + 1 < n; ++v) {
    MatX g = MatX::Zero(3, x_size(n));
    g.block<3, 4>(0, 3 * n + 4 * (v - 1)) = h.bend[v].d_prev;
    g.block<3, 4>(0, 3 * n + 4 * v) = h.bend[v].d_next;
    m += rest.voronoi[v] * g.transpose() * rest.stiffness.asDiagonal() * g;
  }
  return m;
}

double relative_error(const VecX& a, const VecX& b) {
  return (a - b).norm() / b.norm();
}

TEST(CosseratLinear, ProductsEqualTheDenselyAssembledMatrices) {
  // Validation 1: J v, Jᵀ y and A v = JᵀHJ v through prefix sums against the dense matrices,
  // 1e-12 relative (round-off of sums over up to 200 terms).
  std::mt19937 rng(7);
  for (int n : {2, 3, 10, 200}) {
    for (unsigned seed : {1u, 2u}) {
      const RandomRod r = random_rod(n, 6e-9, 0.8, seed);
      const Kinematics k = kinematics(r.s, r.rest);
      const HessianX h = hessian(r.start, k, r.rest);
      const MatX j = dense_j(k), hd = dense_h(h, r.rest);
      const VecX v = VecX::Random(3 * n), y = VecX::Random(x_size(n));
      EXPECT_LT(relative_error(flatten(apply_j(k, v)), j * v), 1e-12) << "J v, n = " << n;
      EXPECT_LT(relative_error(apply_jt(k, unflatten(y, n)), j.transpose() * y), 1e-12)
          << "Jᵀ y, n = " << n;
      const NewtonSystem system(k, h, r.rest, std::vector<bool>(n, false));
      const VecX a = j.transpose() * hd * j * v;
      EXPECT_LT(relative_error(system.apply(v), a), 1e-12) << "A v, n = " << n;
    }
  }
}

TEST(CosseratLinear, JacobianBlocksAreDerivativesOfTheChain) {
  // J^i_{p,s} and ∂q/∂ω against central differences of eqs. (4) and (7), including rotation
  // vectors below the series threshold (0.1 rad) and at |ω| near π. Truncation ~ ε² ~ 1e-12.
  for (double spread : {0.02, 1.5}) {
    const RandomRod r = random_rod(12, 6e-9, spread, 3);
    const Kinematics k = kinematics(r.s, r.rest);
    const MatX j = dense_j(k);
    const double eps = 1e-6;
    for (int c = 0; c < r.s.size(); ++c) {
      VecX plus = r.s, minus = r.s;
      plus(c) += eps;
      minus(c) -= eps;
      const Kinematics kp = kinematics(plus, r.rest), km = kinematics(minus, r.rest);
      XVector fd;
      for (std::size_t v = 0; v < k.x.size(); ++v) fd.p.push_back((kp.x[v] - km.x[v]) / (2 * eps));
      for (std::size_t i = 0; i < k.q.size(); ++i) fd.q.push_back((kp.q[i] - km.q[i]) / (2 * eps));
      EXPECT_LT((flatten(fd) - j.col(c)).norm(), 1e-8 * (1 + j.col(c).norm()))
          << "column " << c << ", spread " << spread;
    }
  }
}

TEST(CosseratLinear, QuaternionSeriesMatchesTheClosedForm) {
  // Eq. (4) with sin(θ/2)/θ from its series below 0.1 rad: continuous across the switch, and
  // eq. (5)'s limit [1, ω/2] at ω -> 0.
  const Vec3 axis = Vec3(0.3, -0.5, 0.8).normalized();
  const Vec4 below = quaternion((0.1 - 1e-12) * axis), above = quaternion((0.1 + 1e-12) * axis);
  const Vec4 step = quaternion_jacobian(0.1 * axis) * (2e-12 * axis);
  EXPECT_LT((above - below - step).norm(), 1e-16);
  const Mat43 jb = quaternion_jacobian((0.1 - 1e-12) * axis),
              ja = quaternion_jacobian((0.1 + 1e-12) * axis);
  EXPECT_LT((jb - ja).norm(), 1e-12);
  const Vec3 tiny = 1e-9 * axis;
  EXPECT_LT((quaternion(tiny) - Vec4(1, tiny.x() / 2, tiny.y() / 2, tiny.z() / 2)).norm(), 1e-17);
  EXPECT_NEAR(quaternion(2.5 * axis).norm(), 1.0, 1e-15);
}

// Quaternion product a ⊗ b, (w, x, y, z).
Vec4 multiply(const Vec4& a, const Vec4& b) {
  const Vec3 av = a.tail<3>(), bv = b.tail<3>();
  Vec4 out;
  out(0) = a(0) * b(0) - av.dot(bv);
  out.tail<3>() = a(0) * bv + b(0) * av + av.cross(bv);
  return out;
}

TEST(CosseratLinear, DarbouxVectorMeasuresTheRelativeRotation) {
  // Eq. (29) for frames q_k = q_{k-1} ⊗ exp(θ n): l̄ Ω = 2 sin(θ/2) n (sine, the printed
  // formula) or 2 tan(θ/2) n (tangent), in q_{k-1}'s body frame, whichever sign q_k carries,
  // for θ up to 3.1 rad: to 1e-15 (a few ulps of the unit quaternions' entries) for the sine,
  // 1e-15 / cos²(θ/2) for the tangent (dividing by c = cos(θ/2) amplifies the round-off of the
  // quaternion product by 1/c²: measured 1e-12 at 3.1 rad, bound 2.3e-12). Past π the sine's
  // value jumps (it measures the same frame pair as a 2π - θ turn about -n).
  const Vec4 q_prev = quaternion(Vec3(0.4, -1.1, 0.7));
  const Vec3 n = Vec3(0.2, 0.9, -0.4).normalized();
  const double voronoi = 0.01;
  for (double theta : {1e-3, 0.5, 1.5, 2.5, 3.1}) {
    const Vec4 q_next = multiply(q_prev, quaternion(theta * n));
    for (const Vec4& q : {q_next, Vec4(-q_next)}) {
      const Vec3 sine = darboux(q_prev, q, voronoi, BendingStrain::sine).value * voronoi;
      const Vec3 tangent = darboux(q_prev, q, voronoi, BendingStrain::tangent).value * voronoi;
      const double c = std::cos(theta / 2);
      EXPECT_LT((sine - 2 * std::sin(theta / 2) * n).norm(), 1e-15) << theta;
      EXPECT_LT((tangent - 2 * std::tan(theta / 2) * n).norm(), 1e-15 / (c * c)) << theta;
    }
  }
  const Vec4 past = multiply(q_prev, quaternion((std::numbers::pi + 0.1) * n));
  const Vec3 jump = darboux(q_prev, past, voronoi, BendingStrain::sine).value * voronoi;
  EXPECT_LT((jump + 2 * std::cos(0.05) * n).norm(), 1e-14);  // -2 sin((π - 0.1)/2) n
}

TEST(CosseratLinear, DarbouxDerivativesMatchFiniteDifferences) {
  // ∂Ω/∂q_{k-1} and ∂Ω/∂q_k of both measures against central differences in each quaternion
  // entry (4-vectors off the unit sphere too: eq. 29 is a function of the raw entries), for
  // relative rotations of 0.3 to 2.8 rad and both signs of q_k: relative error at most 1e-7.
  const Vec4 q_prev = quaternion(Vec3(-0.3, 0.8, 0.5));
  const Vec3 n = Vec3(0.6, -0.2, 0.7).normalized();
  for (BendingStrain measure : {BendingStrain::sine, BendingStrain::tangent})
    for (double theta : {0.3, 1.7, 2.8})
      for (double sign : {1.0, -1.0}) {
        const Vec4 q_next = sign * multiply(q_prev, quaternion(theta * n));
        const Darboux d = darboux(q_prev, q_next, 0.02, measure);
        Mat34 fd_prev, fd_next;
        const double eps = 1e-6;
        for (int c = 0; c < 4; ++c) {
          const Vec4 e = eps * Vec4::Unit(c);
          fd_prev.col(c) = (darboux(q_prev + e, q_next, 0.02, measure).value -
                            darboux(q_prev - e, q_next, 0.02, measure).value) /
                           (2 * eps);
          fd_next.col(c) = (darboux(q_prev, q_next + e, 0.02, measure).value -
                            darboux(q_prev, q_next - e, 0.02, measure).value) /
                           (2 * eps);
        }
        EXPECT_LT((fd_prev - d.d_prev).norm(), 1e-7 * d.d_prev.norm())
            << to_string(measure) << " θ " << theta << " sign " << sign;
        EXPECT_LT((fd_next - d.d_next).norm(), 1e-7 * d.d_next.norm())
            << to_string(measure) << " θ " << theta << " sign " << sign;
      }
}

TEST(CosseratLinear, GradientMatchesFiniteDifferencesOfTheEnergy) {
  // Validation 1: b = Jᵀ ∂E/∂x against central differences of E(T(s)), relative to ‖b‖: at
  // most 1e-6. Stiff and soft rods, configurations near and far from the last step, both
  // bending strain measures.
  for (BendingStrain measure : {BendingStrain::sine, BendingStrain::tangent})
    for (double stiffness : {6e-9, 1e-3}) {
      for (double spread : {0.05, 0.6}) {
        const RandomRod r = random_rod(10, stiffness, spread, 5, 1e-3, measure);
        const Kinematics k = kinematics(r.s, r.rest);
        const VecX b = apply_jt(k, energy_gradient(r.start, k, r.rest));
        VecX fd(b.size());
        for (int c = 0; c < r.s.size(); ++c) {
          const double eps = 1e-6 * (c < 3 ? 0.01 : 1.0);  // metres for p_c, radians for ω
          VecX plus = r.s, minus = r.s;
          plus(c) += eps;
          minus(c) -= eps;
          fd(c) = (energy(r.start, kinematics(plus, r.rest), r.rest).total() -
                   energy(r.start, kinematics(minus, r.rest), r.rest).total()) /
                  (2 * eps);
        }
        EXPECT_LT((fd - b).norm(), 1e-6 * b.norm())
            << to_string(measure) << ", stiffness " << stiffness << ", spread " << spread;
      }
    }
}

TEST(CosseratLinear, FrictionProfileIsCoulombBeyondTheStickLength) {
  // kernels/common/friction.hpp: f0(y) = y beyond the stick length s, f0' = f1 and f1' as
  // central differences (1e-8 relative) on both sides of s, f0 and f1 continuous at s (1e-12),
  // f1 rising from 0 to 1 on [0, s], and f1/y = 2/s at y = 0 (the stick's stiffness).
  const double s = 1e-6;
  for (double y : {0.1 * s, 0.5 * s, 0.9 * s, 1.5 * s, 10 * s}) {
    const double h = 1e-5 * s;
    const auto f = [&](double v) { return kernels::friction_profile(v, s); };
    EXPECT_NEAR(f(y).force_per_slip * y, (f(y + h).value - f(y - h).value) / (2 * h), 1e-8)
        << "f0' = f1 at y/s = " << y / s;
    EXPECT_NEAR(
        f(y).along_slip * s,
        s * (f(y + h).force_per_slip * (y + h) - f(y - h).force_per_slip * (y - h)) / (2 * h), 1e-8)
        << "f1' at y/s = " << y / s;
    EXPECT_GE(f(y).force_per_slip * y, 0.0);
    EXPECT_LE(f(y).force_per_slip * y, 1.0 + 1e-15);
    if (y > s) {
      EXPECT_DOUBLE_EQ(f(y).value, y);
    }
  }
  const kernels::FrictionProfile<double> below = kernels::friction_profile(s * (1 - 1e-12), s),
                                         at = kernels::friction_profile(s, s);
  EXPECT_NEAR(below.value, at.value, 2e-12 * s);  // y differs by 1e-12 s
  EXPECT_NEAR(below.force_per_slip * s, at.force_per_slip * s, 1e-11);
  EXPECT_DOUBLE_EQ(kernels::friction_profile(0.0, s).force_per_slip, 2 / s);
  EXPECT_DOUBLE_EQ(kernels::friction_profile(0.0, s).value, s / 3);
}

TEST(CosseratLinear, StickLengthBoundsTheFrictionStiffness) {
  // kernels::stick_length: ε_v Δt for resting hair (μ λ = μ m g: stick stiffness 2 μ λ / s =
  // 5.9 m/Δt² at Δt = 1 ms, μ = 0.3, ε_v = 1 mm/s), and lengthened so that 2 μ λ / s is exactly
  // kStickStiffnessLimit m/Δt² under large normal forces (an impact at 1 m/s, λ = m v/Δt: 6e-6 m).
  const double m = 2e-7, dt = 1e-3, eps_v = 1e-3, g = 9.81, mu = 0.3;
  EXPECT_DOUBLE_EQ(kernels::stick_length(eps_v, dt, mu * m * g, m), eps_v * dt);
  const double impact = mu * m * 1.0 / dt;
  const double s = kernels::stick_length(eps_v, dt, impact, m);
  EXPECT_NEAR(s, 6e-6, 1e-18);
  EXPECT_NEAR(2 * impact / s, kernels::kStickStiffnessLimit * m / (dt * dt), 1e-9 * m / (dt * dt));
}

TEST(CosseratLinear, FrictionGradientAndHessianMatchFiniteDifferences) {
  // The friction term of E (StepStart::friction) at vertices slipping less and more than the
  // stick length, and not at all: ∂E/∂p_j against central differences of E (1e-7 relative), its
  // Hessian block (HessianX::vertex_block) against central differences of the gradient (1e-6
  // relative), positive semi-definite.
  RandomRod r = random_rod(10, 6e-9, 0.3, 11);
  const Kinematics k = kinematics(r.s, r.rest);
  const double stick = 2e-5;
  const Vec3 n = Vec3(0.3, 1, -0.2).normalized();
  const double slips[] = {0.3e-5, 1.5e-5, 4e-5, 0.0};
  for (int c = 0; c < 4; ++c) {
    const int v = 2 + 2 * c;
    const Vec3 tangent = n.cross(Vec3(c, 1, 0.5)).normalized();
    // The anchor: off along the normal (which the slip ignores) and by the slip along the plane.
    r.start.friction.push_back(
        {v, n, k.x[v] - slips[c] * tangent + 1e-4 * n, 3e-6 * (1 + c), stick});
  }
  const auto friction_energy = [&](const Kinematics& at) {
    return energy(r.start, at, r.rest).friction;
  };
  StepStart frictionless = r.start;  // the same step without the friction terms
  frictionless.friction.clear();
  const XVector g = energy_gradient(r.start, k, r.rest);
  const HessianX h = hessian(r.start, k, r.rest), h_free = hessian(frictionless, k, r.rest);
  const XVector g_free = energy_gradient(frictionless, k, r.rest);
  for (const FrictionContact& c : r.start.friction) {
    const Vec3 grad = g.p[c.vertex] - g_free.p[c.vertex];
    Vec3 fd;
    Mat3 hd;
    // Steps of 5e-7 s: at zero slip f1/y has a kink (the |y| in f1/y = (2 - y/s)/s), so a
    // difference quotient over ±ε is off by ε/(2s) there.
    const double eps = 5e-7 * stick;
    for (int e = 0; e < 3; ++e) {
      Kinematics plus = k, minus = k;
      plus.x[c.vertex](e) += eps;
      minus.x[c.vertex](e) -= eps;
      fd(e) = (friction_energy(plus) - friction_energy(minus)) / (2 * eps);
      const auto friction_gradient = [&](const Kinematics& at) -> Vec3 {
        return energy_gradient(r.start, at, r.rest).p[c.vertex] -
               energy_gradient(frictionless, at, r.rest).p[c.vertex];
      };
      hd.col(e) = (friction_gradient(plus) - friction_gradient(minus)) / (2 * eps);
    }
    const Mat3 block = h.vertex_block[c.vertex] - h_free.vertex_block[c.vertex];
    // (No slip, no force: then relative to the largest force, μ λ.)
    EXPECT_LT((fd - grad).norm(), 1e-7 * std::max(grad.norm(), c.weight)) << c.vertex;
    EXPECT_NEAR(grad.dot(c.normal), 0, 1e-12 * c.weight) << "no normal force from friction";
    EXPECT_LT((hd - block).norm(), 1e-6 * block.norm()) << c.vertex;
    EXPECT_GE(Eigen::SelfAdjointEigenSolver<Mat3>(block).eigenvalues().minCoeff(),
              -1e-12 * block.norm());
  }
}

TEST(CosseratLinear, HybridPreconditionerIsPositiveDefinite) {
  // Validation 2 (§3.3, eqs. 23-26): P is symmetric positive definite for any state; dense
  // Cholesky of the assembled P succeeds for stiff (EI 1e3 N m²), hair-like and soft
  // (1e-12 N m²) rods, far from rest, at 0.1 ms and 1 s steps. The states: every rotation
  // vector moved by up to 1.2 rad (adjacent frames up to 168° apart) for the sine measure; for
  // the tangent one by up to 1.0 rad (145°): its stiffness grows as 1/cos⁴(θ/2), and at 168°
  // the stiff rod's P at 1 s steps has a condition number of 2e18 (eigenvalues measured
  // 6.8e-10 to 1.3e9), beyond what double resolves: Cholesky fails there on round-off.
  int checked = 0;
  for (BendingStrain measure : {BendingStrain::sine, BendingStrain::tangent})
    for (double stiffness : {1e3, 6e-9, 1e-12})
      for (double dt : {1e-4, 1.0})
        for (unsigned seed : {11u, 12u, 13u}) {
          const double spread = measure == BendingStrain::sine ? 1.2 : 1.0;
          const RandomRod r = random_rod(40, stiffness, spread, seed, dt, measure);
          const Kinematics k = kinematics(r.s, r.rest);
          const HessianX h = hessian(r.start, k, r.rest);
          const NewtonSystem system(k, h, r.rest, std::vector<bool>(40, false));
          const BlockTridiagonal p = build_preconditioner(system, PreconditionerKind::hybrid);
          MatX dense = MatX::Zero(120, 120);
          for (int b = 0; b < 40; ++b) {
            dense.block<3, 3>(3 * b, 3 * b) = p.diag[b];
            if (b + 1 < 40) {
              dense.block<3, 3>(3 * b, 3 * b + 3) = p.upper[b];
              dense.block<3, 3>(3 * b + 3, 3 * b) = p.upper[b].transpose();
            }
          }
          EXPECT_LT((dense - dense.transpose()).norm(), 1e-14 * dense.norm());
          const Eigen::LLT<MatX> llt(dense);
          EXPECT_EQ(llt.info(), Eigen::Success)
              << to_string(measure) << ", EI " << stiffness << ", dt " << dt;
          // P⁻¹ by block Thomas is backward stable: ‖P x - r‖ <= 1e-13 ‖P‖ ‖x‖ (condition
          // numbers here reach 1e16, so forward errors say nothing).
          const VecX rhs = VecX::Random(120);
          const VecX x = apply_inverse(p, rhs);
          EXPECT_LT((dense * x - rhs).norm(), 1e-13 * dense.norm() * x.norm());
          ++checked;
        }
  EXPECT_EQ(checked, 36);
}

TEST(CosseratLinear, PcgSolvesTheNewtonSystemWithEveryPreconditioner) {
  // PCG on A from the three preconditioners reaches the dense solution of A x = b (Eigen LDLT
  // of the assembled JᵀHJ) to 1e-8 relative; the hybrid one in the fewest iterations.
  const int n = 60;
  const RandomRod r = random_rod(n, 1e-3, 0.3, 21, 1e-2);
  const Kinematics k = kinematics(r.s, r.rest);
  const HessianX h = hessian(r.start, k, r.rest);
  const NewtonSystem system(k, h, r.rest, std::vector<bool>(n, false));
  const MatX j = dense_j(k);
  const MatX a = j.transpose() * dense_h(h, r.rest) * j;
  const VecX rhs = VecX::Random(3 * n);
  const VecX exact = a.ldlt().solve(rhs);
  int iterations[3];
  for (PreconditionerKind kind : {PreconditionerKind::diagonal, PreconditionerKind::block_diagonal,
                                  PreconditionerKind::hybrid}) {
    const BlockTridiagonal p = build_preconditioner(system, kind);
    VecX x = VecX::Zero(3 * n);
    const PcgResult res = pcg([&](const VecX& v) { return system.apply(v); },
                              [&](const VecX& v) { return apply_inverse(p, v); }, rhs, x,
                              {1e-13 * rhs.norm(), 1e-13, 100000});
    EXPECT_TRUE(res.converged) << to_string(kind);
    EXPECT_LT(relative_error(x, exact), 1e-8) << to_string(kind);
    iterations[static_cast<int>(kind)] = res.iterations;
  }
  std::cout << "PCG iterations (diagonal, block-diagonal, hybrid): " << iterations[0] << ", "
            << iterations[1] << ", " << iterations[2] << "\n";
  EXPECT_LT(iterations[2], iterations[1]);
}

}  // namespace
}  // namespace hairsim::cosserat
