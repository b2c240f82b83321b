#pragma once
// Velocity-level contacts of the reduced-coordinate references (the Super-Helix's and the Super
// Space Clothoid's; docs/models/super-helices.md, "Contacts"): after a step's unconstrained
// solve, impulses P at the contact points change the rates by A⁻¹ Jᵀ P (A the step's matrix),
// with, for every contact of gap g = φ − δ,
//   normal:   max(g, −h v_out) + d + h n·(J q̇⁺) ≥ 0,  P_n ≥ 0,  complementary (no pull,
//             inelastic; a point inside comes out at v_out = kernels::kMaxDepenetrationSpeed;
//             d the point's drift, its normal motion beyond h J q̇ at the free rates);
//   friction: the point's slip velocity zero while |P_t| < μ P_n, else P_t = −μ P_n along the
//             slip (Coulomb, maximal dissipation).
// A complementarity problem in the Delassus operator W = J A⁻¹ Jᵀ, solved by projected
// Gauss-Seidel finished by an exact solve on the active set it finds, stopped on the residual in
// velocities. The model supplies its contact points (Jacobian, directions, gap, velocities) and
// A⁻¹ applied to point forces.
#include <Eigen/Core>
#include <Eigen/Geometry>
#include <Eigen/LU>
#include <Eigen/QR>
#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

#include "common/colliders.hpp"
#include "common/point_contacts.hpp"
#include "reference/clamp_state.hpp"
#include "reference/eigen_bridge.hpp"

namespace hairsim::reference {

// A point and obstacle pair: the point's Jacobian J_p (3 x n: its velocity J_p q̇ from the
// rates), the obstacle's outward normal and two tangents (columns), the gap φ − δ (m), the
// Coulomb μ, and the point's velocity relative to the obstacle's surface there, the step's free
// rates and the clamp's motion included (m/s: the normal row's approach, friction's slip).
struct PointContact {
  Eigen::MatrixXd jacobian;
  Eigen::Matrix3d directions;
  double gap = 0, friction = 0;
  // The normal displacement over the step beyond its linearisation, n·(x(q + h q̇) − x(q) − h J q̇)
  // at the free rates (m; kernels::ContactBlock, "the drift"); 0 where x is linear in q.
  double drift = 0;
  Eigen::Vector3d velocity;
  int rows = 1;  // 1 (frictionless: the normal only) or 3
  int first_row = 0;
  // The mass the point stands for (kg; ρS times its quadrature weight): with it, a point whose
  // normal mobility W_nn times it is below kernels::kMinContactMobility is left to the clamp
  // that holds it; 0: always in the problem.
  double mass = 0;
};

// The signed distance of `x` to collider `c`, the collider posed by `pose` (its frame carried
// by a head; null: the world's) and its outward normal in the world.
inline kernels::SignedDistance<double> posed_distance(const kernels::Collider<double>& c,
                                                      const Eigen::Vector3d& x,
                                                      const kernels::RigidPose<double>* pose) {
  if (!pose) return kernels::signed_distance(c, bridge::to_kernel(x));
  kernels::SignedDistance<double> sd =
      kernels::signed_distance(c, pose->apply_inverse(bridge::to_kernel(x)));
  sd.normal = pose->rotate(sd.normal);
  return sd;
}

// A rod's obstacles at time t: static in the world, or carried by a motion (a head's).
class Obstacles {
 public:
  Obstacles(const std::optional<ClampMotion>& motion, double t)
      : motion_(motion), pose_(bridge::obstacle_pose<double>(motion, t)), time_(t) {}
  // (Refers to `motion`, which must outlive it.) The pose to read a point against them in
  // (posed_distance, touching); null when static.
  const kernels::RigidPose<double>* pose() const { return motion_ ? &pose_ : nullptr; }
  // The velocity of their surface at `x` (world): 0 when static, else the rigid motion's at the
  // point it carries there, by the five-point differences of a clamp's (clamp_state), about the
  // pose's centre (the origin when unset).
  Eigen::Vector3d velocity(const Eigen::Vector3d& x) const {
    if (!motion_) return Eigen::Vector3d::Zero();
    ClampMotion carried = *motion_;
    carried.center = motion_->center.value_or(Eigen::Vector3d::Zero());
    carried.twist_rate = carried.twist_amplitude = 0;  // a clamp's own turn; no point's motion
    const Eigen::Vector3d rest = bridge::from_kernel(pose_.apply_inverse(bridge::to_kernel(x)));
    return clamp_state(carried, rest, Eigen::Matrix3d::Identity(), time_).velocity;
  }

 private:
  const std::optional<ClampMotion>& motion_;
  kernels::RigidPose<double> pose_;
  double time_;
};

// The contact of a point at `x`, with Jacobian `jacobian` and velocity `velocity`, with collider
// `c` (posed by `pose` when given), if its gap φ − `thickness` is below `reach` (a speculative
// contact: about what the point could close in the step): the directions from the distance
// field's outward normal.
inline std::optional<PointContact> touching(const kernels::Collider<double>& c,
                                            const Eigen::Vector3d& x, double thickness,
                                            double reach, const Eigen::MatrixXd& jacobian,
                                            const Eigen::Vector3d& velocity,
                                            const kernels::RigidPose<double>* pose = nullptr) {
  const auto sd = posed_distance(c, x, pose);
  const double gap = sd.distance - thickness;
  if (!(gap < reach)) return std::nullopt;
  PointContact contact;
  contact.jacobian = jacobian;
  const Eigen::Vector3d n = bridge::from_kernel(sd.normal), t1 = n.unitOrthogonal();
  contact.directions << n, t1, n.cross(t1);
  contact.gap = gap;
  contact.friction = c.friction;
  contact.velocity = velocity;
  return contact;
}

struct ImpulseReport {
  int contacts = 0, active = 0;  // contacts in the problem, pushed ones (P_n > 0)
  int sweeps = 0;
  bool converged = true;
  double residual = 0;  // m/s
};

namespace impulses {

using MatX = Eigen::MatrixXd;
using VecX = Eigen::VectorXd;
using Contact = PointContact;

// One projected Gauss-Seidel sweep over the contacts: each normal impulse to zero its row's
// velocity, kept ≥ 0; then the tangential pair to stop the slip, projected onto the disc of
// radius μ P_n.
inline void sweep(const std::vector<Contact>& contacts, const MatX& W, const VecX& b, VecX& P) {
  for (const Contact& c : contacts) {
    const int r = c.first_row;
    if (!(W(r, r) > 0)) continue;  // a point the rates cannot move (at the clamp)
    P(r) = std::max(0.0, P(r) - (b(r) + W.row(r).dot(P)) / W(r, r));
    if (c.rows == 1) continue;
    const Eigen::Vector2d slip = b.segment<2>(r + 1) + W.middleRows<2>(r + 1) * P;
    const Eigen::Matrix2d block = W.block<2, 2>(r + 1, r + 1);
    const Eigen::Vector2d old = P.segment<2>(r + 1);
    Eigen::Vector2d stick = old - block.fullPivLu().solve(slip);
    const double limit = c.friction * P(r);
    if (stick.norm() > limit) stick *= limit / stick.norm();
    P.segment<2>(r + 1) = stick;
  }
}

// How far P is from solving the contact problem, in velocities (m/s): per contact, the
// penetrating normal velocity or the complementarity gap min(P_n W_nn, v_n), and the velocity
// the friction impulse would change to reach its projection (its slip while it could stick).
inline double residual(const std::vector<Contact>& contacts, const MatX& W, const VecX& b,
                       const VecX& P) {
  const VecX v = b + W * P;
  double worst = 0;
  for (const Contact& c : contacts) {
    const int r = c.first_row;
    worst = std::max(worst, std::abs(std::min(P(r) * W(r, r), v(r))));
    if (c.rows == 1) continue;
    const Eigen::Matrix2d block = W.block<2, 2>(r + 1, r + 1);
    const Eigen::Vector2d t = P.segment<2>(r + 1);
    Eigen::Vector2d target = t - block.fullPivLu().solve(Eigen::Vector2d(v.segment<2>(r + 1)));
    const double limit = c.friction * std::max(0.0, P(r));
    if (target.norm() > limit) target *= limit / target.norm();
    worst = std::max(worst, (block * (t - target)).norm());
  }
  return worst;
}

// The contact problem solved exactly on a guessed active set, the guess corrected until it
// holds (pivoting). Each contact is free (no impulse), sticking (zero normal velocity and slip)
// or sliding (zero normal velocity, P_t = −μ P_n ŝ along its slip ŝ); the first guess comes from
// P (PGS's). Each round solves the equalities (least squares, minimum norm: the quadrature
// points' rows are nearly dependent), turns every sliding ŝ to its new slip, and moves the one
// contact violating its state most: pulling (P_n < 0) to free, free and penetrating to pushing,
// sticking outside its cone to sliding, sliding against its slip to sticking (moving all at once
// cycles). Replaces P and returns true when a round changes nothing: every condition then holds
// to `tolerance` (m/s); false after 4 rounds per contact (then PGS goes on).
inline bool solve_active_set(const std::vector<Contact>& contacts, const MatX& W, const VecX& b,
                             double tolerance, VecX& P) {
  enum class State { free, stick, slide };
  const std::size_t count = contacts.size();
  std::vector<State> state(count, State::free);
  std::vector<Eigen::Vector2d> slip_direction(count, Eigen::Vector2d::Zero());
  for (std::size_t i = 0; i < count; ++i) {
    const Contact& c = contacts[i];
    const int r = c.first_row;
    if (!(P(r) > 0)) continue;
    const Eigen::Vector2d t =
        c.rows == 3 ? Eigen::Vector2d(P.segment<2>(r + 1)) : Eigen::Vector2d::Zero();
    state[i] =
        c.rows == 3 && t.norm() < (1 - 1e-9) * c.friction * P(r) ? State::stick : State::slide;
    if (t.norm() > 0) slip_direction[i] = -t / t.norm();
  }
  for (int round = 0; round < 4 * int(count) + 10; ++round) {
    // Unknowns z, P = S z: a pushing contact's normal (with −μ ŝ on its tangents if it slides),
    // a sticking contact's two tangents; one equation (zero velocity) per unknown's row.
    std::vector<int> rows;
    for (std::size_t i = 0; i < count; ++i) {
      if (state[i] == State::free) continue;
      rows.push_back(contacts[i].first_row);
      if (state[i] == State::stick && contacts[i].rows == 3) {
        rows.push_back(contacts[i].first_row + 1);
        rows.push_back(contacts[i].first_row + 2);
      }
    }
    VecX candidate = VecX::Zero(P.size());
    if (!rows.empty()) {
      const int m = int(rows.size());
      MatX S = MatX::Zero(P.size(), m);
      for (int j = 0, i = 0; j < m; ++j) S(rows[std::size_t(j)], j) = 1, (void)i;
      for (std::size_t i = 0; i < count; ++i)
        if (state[i] == State::slide && contacts[i].rows == 3) {
          const int r = contacts[i].first_row;
          const int j = int(std::find(rows.begin(), rows.end(), r) - rows.begin());
          S.block<2, 1>(r + 1, j) = -contacts[i].friction * slip_direction[i];
        }
      const MatX WS = W * S;
      MatX A(m, m);
      VecX rhs(m);
      for (int e = 0; e < m; ++e) {
        A.row(e) = WS.row(rows[std::size_t(e)]);
        rhs(e) = -b(rows[std::size_t(e)]);
      }
      candidate = S * Eigen::CompleteOrthogonalDecomposition<MatX>(A).solve(rhs);
      if (!candidate.allFinite()) return false;
    }
    const VecX v = b + W * candidate;
    // Rows the least squares could not zero: this active set has no solution (PGS goes on).
    for (int row : rows)
      if (std::abs(v(row)) > tolerance) return false;
    const double slack = 1e-9 * std::max(1e-300, candidate.cwiseAbs().maxCoeff());
    // Set changes one at a time, the worst violation (in m/s) first: all at once they cycle.
    bool changed = false;
    double worst = 0;
    std::size_t worst_contact = count;
    State worst_next = State::free;
    for (std::size_t i = 0; i < count; ++i) {
      const Contact& c = contacts[i];
      const int r = c.first_row;
      const Eigen::Vector2d t =
          c.rows == 3 ? Eigen::Vector2d(candidate.segment<2>(r + 1)) : Eigen::Vector2d::Zero();
      const Eigen::Vector2d slip =
          c.rows == 3 ? Eigen::Vector2d(v.segment<2>(r + 1)) : Eigen::Vector2d::Zero();
      double violation = 0;
      State next = state[i];
      if (state[i] == State::free) {
        if (v(r) < -tolerance) violation = -v(r), next = c.rows == 3 ? State::stick : State::slide;
      } else if (candidate(r) < -slack) {
        violation = -candidate(r) * W(r, r), next = State::free;
      } else if (state[i] == State::stick && t.norm() > c.friction * candidate(r) + slack) {
        violation = (t.norm() - c.friction * candidate(r)) * W(r + 1, r + 1), next = State::slide;
      } else if (state[i] == State::slide && c.rows == 3) {
        const Eigen::Vector2d& d = slip_direction[i];
        if (slip.dot(d) < -tolerance) {
          violation = -slip.dot(d), next = State::stick;
        } else if ((slip - slip.dot(d) * d).norm() > tolerance) {
          slip_direction[i] = slip / slip.norm();  // ŝ turns with the slip: no set change
          changed = true;
        }
      }
      if (violation > worst) worst = violation, worst_contact = i, worst_next = next;
    }
    if (worst_contact < count) {
      const Contact& c = contacts[worst_contact];
      if (worst_next == State::slide && state[worst_contact] == State::stick) {
        const Eigen::Vector2d t = candidate.segment<2>(c.first_row + 1);
        slip_direction[worst_contact] = -t / t.norm();
      }
      state[worst_contact] = worst_next;
      changed = true;
    }
    if (!changed) {
      P = candidate;
      return true;
    }
  }
  return false;
}

}  // namespace impulses

// Solves the contact problem of `contacts` for rates `qdot` (the unconstrained step's, at its end)
// over a step h and adds the impulses' change to them. `respond(i, forces)` is A⁻¹ J_iᵀ forces
// (n x c for the 3 x c forces at contact i). At most `max_sweeps` sweeps.
template <class Respond>
ImpulseReport apply_contact_impulses(const std::vector<PointContact>& found, double h,
                                     int max_sweeps, Respond&& respond, Eigen::VectorXd& qdot) {
  using impulses::MatX;
  using impulses::VecX;
  ImpulseReport report;
  // Points a clamp holds leave the problem (W_nn = n·J A⁻¹ Jᵀ n, one response each); `source`
  // maps the problem's contacts to `found`'s, which `respond` indexes.
  std::vector<PointContact> contacts;
  std::vector<std::size_t> source;
  for (std::size_t i = 0; i < found.size(); ++i) {
    const PointContact& c = found[i];
    if (c.mass > 0) {
      const Eigen::Vector3d n = c.directions.col(0);
      const double w = n.dot(c.jacobian * respond(i, MatX(n)).col(0));
      if (w * c.mass < kernels::kMinContactMobility) continue;
    }
    contacts.push_back(c);
    source.push_back(i);
  }
  report.contacts = int(contacts.size());
  if (contacts.empty()) return report;
  // The rows (each contact's normal, then its tangents): J (rows x n), Y = A⁻¹ Jᵀ, W = J Y and
  // the free velocities b (the normal's with the gap over h: its row must end ≥ 0).
  int rows = 0;
  for (PointContact& c : contacts) {
    c.rows = c.friction > 0 ? 3 : 1;
    c.first_row = rows, rows += c.rows;
  }
  const int n = int(qdot.size());
  MatX J(rows, n), Y(n, rows);
  VecX b(rows);
  for (std::size_t i = 0; i < contacts.size(); ++i) {
    const PointContact& c = contacts[i];
    const MatX dirs = c.directions.leftCols(c.rows);
    J.middleRows(c.first_row, c.rows) = dirs.transpose() * c.jacobian;
    Y.middleCols(c.first_row, c.rows) = respond(source[i], dirs);
    b(c.first_row) =
        c.directions.col(0).dot(c.velocity) + kernels::normal_closing(c.gap, c.drift, h);
    if (c.rows == 3)
      b.segment<2>(c.first_row + 1) = c.directions.rightCols<2>().transpose() * c.velocity;
  }
  const MatX W = J * Y;

  // Projected Gauss-Seidel; every 10 sweeps the residual, and if it is not yet small the active
  // set PGS has found solved exactly (PGS alone crawls: neighbouring quadrature points give
  // nearly parallel rows). Converged: a residual ≤ 1e-6 of the largest free velocity (at least
  // 1 m/s), in m/s: over a step of 1 ms, a micrometre per metre per second.
  VecX P = VecX::Zero(rows);
  const double tolerance = 1e-6 * std::max(1.0, b.cwiseAbs().maxCoeff());  // m/s
  report.converged = false;
  for (report.sweeps = 1; report.sweeps <= max_sweeps; ++report.sweeps) {
    impulses::sweep(contacts, W, b, P);
    if (report.sweeps % 10 != 0) continue;
    if (impulses::residual(contacts, W, b, P) <= tolerance) {
      report.converged = true;
      break;
    }
    VecX exact = P;
    if (impulses::solve_active_set(contacts, W, b, tolerance, exact) &&
        impulses::residual(contacts, W, b, exact) <= tolerance) {
      P = exact;
      report.converged = true;
      break;
    }
  }
  report.residual = impulses::residual(contacts, W, b, P);
  report.sweeps = std::min(report.sweeps, max_sweeps);
  for (const PointContact& c : contacts) report.active += P(c.first_row) > 0;
  qdot += Y * P;
  return report;
}

}  // namespace hairsim::reference
