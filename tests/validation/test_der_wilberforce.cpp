// DER reference, issue 3 validation case 8: the Wilberforce pendulum (paper §9.4, Fig. 11): a
// helical spring clamped at the top, a rigid bob welded to its lower end.
//
// Linear theory of a helical spring (Love, "A Treatise on the Mathematical Theory of Elasticity",
// 4th ed., §271; Wahl, "Mechanical Springs", ch. 4), derived here by Castigliano's theorem. Coil
// radius R, helix angle ψ (tangent to the plane normal to the axis), wire length L, bending
// stiffness A = EI, twist stiffness C = GJ. An axial force F and an axial couple M on the end,
// both on the axis, load every section of the wire with the moment F R e_φ + M e_z, whose
// component along the tangent t = cos ψ e_φ + sin ψ e_z twists the wire and whose component
// along b = -sin ψ e_φ + cos ψ e_z bends it:
//   U = L [ (F R cos ψ + M sin ψ)² / (2C) + (-F R sin ψ + M cos ψ)² / (2A) ].
// The extension δ = ∂U/∂F and the end's rotation about the axis ϕ = ∂U/∂M give the compliance
//   c_FF = L R² (cos²ψ/C + sin²ψ/A),  c_MM = L (sin²ψ/C + cos²ψ/A),
//   c_FM = L R sin ψ cos ψ (1/C - 1/A),
// and the stiffness K = c⁻¹. The bob (mass M_b, axial inertia I_b) plus a third of the spring's
// mass m_s and of its axial inertia m_s R² (Rayleigh: the coils move in proportion to their
// distance along the wire; with m_s = M_b / 2 this is within 0.1 % of the exact longitudinal
// frequency) oscillate with the normal modes of  diag(M_b + m_s/3, I_b + m_s R²/3) q̈ + K q = 0.
// c_FM couples the vertical and the torsional motion unless A = C; when the two uncoupled
// frequencies are equal, energy beats between them with period 2π/(ω₂ - ω₁) (Sommerfeld,
// "Mechanics", §20; the paper's Fig. 11).
//
// No gravity: the linear theory is about the unloaded helix (gravity only shifts the equilibrium
// of a linear spring). Nondimensional units: R = 1, A = 1.5, C = 1 (Poisson ratio 0.5), ρS = 1,
// ψ = 20°. The spring's length is counted between the midpoints of the clamped and the welded
// edges (the convention of the cantilever, case 2).
#include <gtest/gtest.h>

#include <Eigen/Dense>
#include <cmath>
#include <iostream>
#include <numbers>

#include "reference/der/der_rigid.hpp"
#include "test_support.hpp"

namespace hairsim::der {
namespace {

constexpr double kRadius = 1, kBending = 1.5, kTwist = 1, kLinearDensity = 1;
constexpr double kHelixAngle = 20 * std::numbers::pi / 180;
constexpr double kBobMassRatio = 2;  // bob mass / spring mass: Rayleigh's third within 0.1 %

struct SpringTheory {
  Eigen::Matrix2d stiffness;  // (δ, ϕ) <- (F, M)⁻¹
  Eigen::Vector2d inertia;    // effective mass and axial inertia, Rayleigh's third included
  double omega1 = 0, omega2 = 0;
};

SpringTheory spring_theory(double wire_length, double bob_mass, double bob_inertia) {
  const double c = std::cos(kHelixAngle), s = std::sin(kHelixAngle), L = wire_length;
  Eigen::Matrix2d compliance;
  compliance << L * kRadius * kRadius * (c * c / kTwist + s * s / kBending),
      L * kRadius * s * c * (1 / kTwist - 1 / kBending),
      L * kRadius * s * c * (1 / kTwist - 1 / kBending), L * (s * s / kTwist + c * c / kBending);
  SpringTheory t;
  t.stiffness = compliance.inverse();
  const double spring_mass = kLinearDensity * L;
  t.inertia = {bob_mass + spring_mass / 3, bob_inertia + spring_mass * kRadius * kRadius / 3};
  Eigen::GeneralizedSelfAdjointEigenSolver<Eigen::Matrix2d> modes(
      t.stiffness, Eigen::Matrix2d(t.inertia.asDiagonal()));
  t.omega1 = std::sqrt(modes.eigenvalues()[0]);
  t.omega2 = std::sqrt(modes.eigenvalues()[1]);
  return t;
}

struct Spring {
  RodWithBody system;
  double wire_length = 0, spring_mass = 0, bob_height = 0;
};

// A helix about the z axis going down, `per_turn` edges per turn; the top edge clamped, a bob of
// mass `bob_mass` and inertia `bob_inertia` (about every axis) welded to the last edge with its
// centre on the axis. The bob starts with velocity -v0 e_z and angular velocity w0 e_z, the coils
// with the same rates scaled by their fraction of the way down (the Rayleigh mode shape).
Spring make_spring(int per_turn, int turns, double bob_mass_ratio, double bob_inertia, double v0,
                   double w0) {
  const int edges = per_turn * turns;
  const double step = 2 * std::numbers::pi / per_turn, rise = kRadius * std::tan(kHelixAngle);
  std::vector<Vec3> x;
  for (int i = 0; i <= edges; ++i)
    x.emplace_back(kRadius * std::cos(step * i), kRadius * std::sin(step * i), -rise * step * i);
  Spring spring;
  spring.wire_length = (edges - 1) * step * kRadius / std::cos(kHelixAngle);
  spring.spring_mass = kLinearDensity * spring.wire_length;
  DynamicRod rod = rod_at_rest(x, kBending, kTwist, kLinearDensity);
  clamp_end(rod, false);
  const double top = 0.5 * (x[0].z() + x[1].z());
  spring.bob_height = 0.5 * (x[edges - 1].z() + x[edges].z());
  for (int i = 2; i <= edges; ++i) {
    const double fraction = (x[i].z() - top) / (spring.bob_height - top);
    rod.velocity[i] = fraction * (Vec3(0, 0, -v0) + w0 * Vec3(-x[i].y(), x[i].x(), 0));
  }
  RigidBody bob;
  bob.mass = bob_mass_ratio * spring.spring_mass;
  bob.inertia = bob_inertia * Mat3::Identity();
  bob.position = Vec3(0, 0, spring.bob_height);
  bob.velocity = Vec3(0, 0, -v0);
  bob.angular_velocity = Vec3(0, 0, w0);
  spring.system = weld_to_tip(rod, bob);
  return spring;
}

// The bob's extension δ (down), rotation ϕ about the axis, and their rates, sampled in time.
struct Trace {
  std::vector<double> time, extension, rotation, extension_rate, rotation_rate;
};

Trace simulate(Spring& spring, double duration, int sample_every) {
  RodWithBody& s = spring.system;
  const double h = s.rod.rest.edge_length[0];
  const double dt = 0.15 * h * h * std::sqrt(kLinearDensity / kBending);  // explicit limit
  Trace trace;
  double rotation = 0;
  const int steps = static_cast<int>(duration / dt);
  for (int k = 0; k <= steps; ++k) {
    if (k % sample_every == 0) {
      trace.time.push_back(k * dt);
      trace.extension.push_back(spring.bob_height - s.body.position.z());
      trace.rotation.push_back(rotation);
      trace.extension_rate.push_back(-s.body.velocity.z());
      trace.rotation_rate.push_back(s.body.angular_velocity.z());
    }
    step_with_body(s, dt, 1e-12 * h);
    rotation += s.body.angular_velocity.z() * dt;  // accumulated: the signal of the torsional mode
  }
  return trace;
}

// Least-squares fit of y(t) = Σ_k a_k cos ω_k t + b_k sin ω_k t + c to every signal at once, the
// two frequencies shared: the amplitudes are linear (solved exactly for given ω), the frequencies
// found by alternating golden-section searches on the residual, each within ±15 % of the start.
double residual(const std::vector<double>& t, const std::vector<std::vector<double>>& signals,
                double w1, double w2) {
  Eigen::MatrixXd basis(t.size(), 5);
  for (std::size_t i = 0; i < t.size(); ++i)
    basis.row(i) << std::cos(w1 * t[i]), std::sin(w1 * t[i]), std::cos(w2 * t[i]),
        std::sin(w2 * t[i]), 1.0;
  const auto qr = basis.colPivHouseholderQr();
  double sum = 0;
  for (const auto& y : signals) {
    const Eigen::VectorXd v = Eigen::Map<const Eigen::VectorXd>(y.data(), y.size());
    const Eigen::VectorXd scaled = v / v.cwiseAbs().maxCoeff();
    sum += (basis * qr.solve(scaled) - scaled).squaredNorm();
  }
  return sum;
}

std::pair<double, double> fit_two_frequencies(const Trace& trace, double w1, double w2) {
  const std::vector<std::vector<double>> signals{trace.extension, trace.rotation};
  auto golden = [&](auto&& f, double lo, double hi) {
    const double g = (std::sqrt(5.0) - 1) / 2;
    double a = hi - g * (hi - lo), b = lo + g * (hi - lo), fa = f(a), fb = f(b);
    while (hi - lo > 1e-9 * hi) {
      if (fa < fb) {
        hi = b, b = a, fb = fa, a = hi - g * (hi - lo), fa = f(a);
      } else {
        lo = a, a = b, fa = fb, b = lo + g * (hi - lo), fb = f(b);
      }
    }
    return 0.5 * (lo + hi);
  };
  for (int sweep = 0; sweep < 6; ++sweep) {
    w1 = golden([&](double w) { return residual(trace.time, signals, w, w2); }, 0.85 * w1,
                1.15 * w1);
    w2 = golden([&](double w) { return residual(trace.time, signals, w1, w); }, 0.85 * w2,
                1.15 * w2);
  }
  return {w1, w2};
}

// The bob (kBobMassRatio times the spring's mass) whose axial inertia sets the uncoupled
// torsional frequency to `ratio` times the vertical one, and the theory of that spring.
struct TunedBob {
  double inertia;
  SpringTheory theory;
};
TunedBob bob_for_frequency_ratio(int per_turn, int turns, double ratio) {
  const Spring probe = make_spring(per_turn, turns, kBobMassRatio, 1.0, 0, 0);  // wire length
  const double bob_mass = kBobMassRatio * probe.spring_mass;
  const SpringTheory any = spring_theory(probe.wire_length, bob_mass, 1.0);
  const double vertical = std::sqrt(any.stiffness(0, 0) / any.inertia[0]);
  const double inertia = any.stiffness(1, 1) / std::pow(ratio * vertical, 2) -
                         probe.spring_mass * kRadius * kRadius / 3;
  return {inertia, spring_theory(probe.wire_length, bob_mass, inertia)};
}

TEST(DerWilberforce, NormalModeFrequenciesMatchTheHelicalSpringTheory) {
  // Detuned (uncoupled torsional frequency 1.5 x the vertical one), so that one mode is mostly
  // vertical and the other mostly torsional; both excited at once. 3 turns, 32 edges per turn.
  const int per_turn = 32, turns = 3;
  const auto [bob_inertia, theory] = bob_for_frequency_ratio(per_turn, turns, 1.5);

  Spring spring = make_spring(per_turn, turns, kBobMassRatio, bob_inertia, 1e-3, 1e-3);
  const double energy0 = total_energy(spring.system);
  const Trace trace = simulate(spring, 3 * 2 * std::numbers::pi / theory.omega1, 200);
  const auto [w1, w2] =
      fit_two_frequencies(trace, test::crossing_frequency(trace.time, trace.extension),
                          test::crossing_frequency(trace.time, trace.rotation));
  std::cout << "Wilberforce, detuned: ω₁ = " << w1 << " (theory " << theory.omega1
            << "), ω₂ = " << w2 << " (theory " << theory.omega2 << "); energy "
            << total_energy(spring.system) - energy0 << " of " << energy0 << "\n";
  EXPECT_NEAR(w1 / theory.omega1, 1.0, 0.02);  // issue 3: within 2 %
  EXPECT_NEAR(w2 / theory.omega2, 1.0, 0.02);
  // Fast projection only removes energy (paper §10); none may appear.
  EXPECT_LE(total_energy(spring.system), energy0 * (1 + 1e-9));
  EXPECT_GT(total_energy(spring.system), 0.99 * energy0);
}

TEST(DerWilberforce, EnergyBeatsBetweenVerticalAndTorsionalMotion) {
  // Tuned: the bob's inertia makes the uncoupled torsional frequency equal the vertical one.
  // Started moving vertically only, the bob hands its energy to the torsional mode and takes it
  // back with the beat period 2π/(ω₂ - ω₁) (Fig. 11). 3 turns, 24 edges per turn.
  const int per_turn = 24, turns = 3;
  const auto [bob_inertia, theory] = bob_for_frequency_ratio(per_turn, turns, 1.0);
  const double beat = 2 * std::numbers::pi / (theory.omega2 - theory.omega1);

  Spring spring = make_spring(per_turn, turns, kBobMassRatio, bob_inertia, 1e-3, 0);
  const Trace trace = simulate(spring, 1.1 * beat, 20);
  // Energy of each motion, from the theory's diagonal terms (the coupling term is small).
  std::vector<double> torsional_share;
  for (std::size_t i = 0; i < trace.time.size(); ++i) {
    const double ev = 0.5 * (theory.inertia[0] * std::pow(trace.extension_rate[i], 2) +
                             theory.stiffness(0, 0) * std::pow(trace.extension[i], 2));
    const double et = 0.5 * (theory.inertia[1] * std::pow(trace.rotation_rate[i], 2) +
                             theory.stiffness(1, 1) * std::pow(trace.rotation[i], 2));
    torsional_share.push_back(et / (ev + et));
  }
  const auto peak = std::max_element(torsional_share.begin(), torsional_share.end());
  const double peak_time = trace.time[static_cast<std::size_t>(peak - torsional_share.begin())];
  double back_to_vertical = 1;  // the smallest torsional share after the peak
  for (auto it = peak; it != torsional_share.end(); ++it)
    back_to_vertical = std::min(back_to_vertical, *it);
  std::cout << "Wilberforce, tuned: torsional share peaks at " << *peak << " at t = " << peak_time
            << " (half beat " << beat / 2 << "), falls back to " << back_to_vertical << "\n";
  EXPECT_LT(torsional_share.front(), 0.01);
  EXPECT_GT(*peak, 0.9);                           // nearly all the energy turns torsional
  EXPECT_NEAR(peak_time / (beat / 2), 1.0, 0.05);  // after half a beat period (measured 1.4 %)
  EXPECT_LT(back_to_vertical, 0.1);                // and comes back
}

}  // namespace
}  // namespace hairsim::der
