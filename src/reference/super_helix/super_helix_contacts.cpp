// Contacts of the Super-Helix reference as velocity-level constraints (docs/models/
// super-helices.md, "Contacts"). The paper (§4.5) names only a tip force as the boundary
// condition; obstacles are this reference's choice, made so that impacts do not depend on a
// penalty stiffness: each step, after the unconstrained semi-implicit solve, impulses P at the
// contact points give the rates q̇⁺ = q̇_free + A⁻¹ Jᵀ P (A the step's matrix M + hνK + h²K,
// applied by the method that solved the step), with, for every contact of gap g = φ − δ,
//   normal:   g + h n·(J q̇⁺) ≥ 0,  P_n ≥ 0,  complementary (no pull, inelastic);
//   friction: the point's slip velocity (the clamp's motion included) zero while
//             |P_t| < μ P_n, else P_t = −μ P_n along the slip (maximal dissipation, Coulomb).
// This is a complementarity problem in the Delassus operator W = J A⁻¹ Jᵀ, solved by projected
// Gauss-Seidel (one contact at a time: the normal row, then the 2 x 2 tangential block projected
// onto the friction disc), finished by an exact solve on the active set it finds, and stopped on
// the residual in velocities (docs/models/super-helices.md, "Contacts").
#include <Eigen/Geometry>  // cross, unitOrthogonal
#include <Eigen/LU>
#include <Eigen/QR>
#include <algorithm>
#include <cmath>

#include "common/colliders.hpp"
#include "reference/eigen_bridge.hpp"
#include "reference/super_helix/step_system.hpp"

namespace hairsim::super_helix::detail {
namespace {

// A point and obstacle pair in the contact problem.
struct Contact {
  RodPoint point;
  MatX jacobian;    // J_p, 3 x n
  Mat3 directions;  // columns: the obstacle's outward normal, then two tangents
  double gap = 0;   // φ − δ at the step's start (the clamp at the step's end), m
  double friction = 0;
  int rows = 1;  // 1 (frictionless: the normal only) or 3
  int first_row = 0;
};

// Spatial velocities (ω, v) at every element's start for rates q̇, the clamp moving as `root`.
std::vector<Vec6> start_velocities(const SuperHelix& rod, const std::vector<ElementMap>& maps,
                                   const RootState& root, const VecX& qdot) {
  const int k = rod.coordinates_per_element();
  std::vector<Vec6> out(rod.elements.size());
  for (std::size_t q = 0; q < rod.elements.size(); ++q) {
    const int parent = rod.elements[q].parent;
    if (parent < 0) {
      out[q] << root.angular_velocity, root.velocity;
      continue;
    }
    const ElementMap& m = maps[std::size_t(parent)];
    out[q] = m.phi * out[std::size_t(parent)] + m.H * qdot.segment(parent * k, k);
  }
  return out;
}

std::vector<Contact> find_contacts(const SuperHelix& rod, double h, const VecX& qdot,
                                   const std::vector<ElementStart>& starts,
                                   const std::vector<ElementMap>& maps,
                                   const std::vector<Vec6>& velocities) {
  const int k = rod.coordinates_per_element();
  const Quadrature& rule = gauss_legendre(rod.quadrature);
  std::vector<Contact> out;
  for (std::size_t q = 0; q < rod.elements.size(); ++q) {
    const double length = rod.elements[q].length;
    for (double node : rule.nodes) {
      const RodPoint p = rod_point(rod, starts, int(q), node * length);
      const double speed = (p.X * velocities[q] + p.G * qdot.segment(int(q) * k, k)).norm();
      for (const kernels::Collider<double>& c : rod.colliders) {
        const auto sd = kernels::signed_distance(c, bridge::to_kernel(p.position));
        const double gap = sd.distance - rod.contact_thickness;
        if (!(gap < 2 * h * speed + 0.01 * length)) continue;
        Contact contact{p, point_jacobian(rod, maps, p), Mat3::Identity(), gap, c.friction};
        const Vec3 n = bridge::from_kernel(sd.normal);
        const Vec3 t1 = n.unitOrthogonal();
        contact.directions << n, t1, n.cross(t1);
        contact.rows = c.friction > 0 ? 3 : 1;
        out.push_back(contact);
      }
    }
  }
  return out;
}

// One projected Gauss-Seidel sweep over the contacts: each normal impulse to zero its row's
// velocity, kept ≥ 0; then the tangential pair to stop the slip, projected onto the disc of
// radius μ P_n.
void sweep(const std::vector<Contact>& contacts, const MatX& W, const VecX& b, VecX& P) {
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
double residual(const std::vector<Contact>& contacts, const MatX& W, const VecX& b, const VecX& P) {
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
bool solve_active_set(const std::vector<Contact>& contacts, const MatX& W, const VecX& b,
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

}  // namespace

StepReport resolve_contacts(const SuperHelix& rod, const StepSystem& system, double h, VecX& qdot) {
  const RootState root = root_state(rod, rod.time + h);
  const std::vector<ElementStart> starts = element_starts(rod, root);
  const std::vector<ElementMap> maps = element_maps(rod, starts);
  const std::vector<Vec6> velocities = start_velocities(rod, maps, root, qdot);
  std::vector<Contact> contacts = find_contacts(rod, h, qdot, starts, maps, velocities);
  StepReport report;
  report.contacts = int(contacts.size());
  if (contacts.empty()) return report;

  // The rows (each contact's normal, then its tangents): J (rows x n), Y = A⁻¹ Jᵀ, W = J Y and
  // the free velocities b (the normal's with the gap over h: its row must end ≥ 0).
  int rows = 0;
  for (Contact& c : contacts) c.first_row = rows, rows += c.rows;
  const int n = int(qdot.size());
  MatX J(rows, n), Y(n, rows);
  VecX b(rows);
  const int k = rod.coordinates_per_element();
  for (const Contact& c : contacts) {
    const MatX dirs = c.directions.leftCols(c.rows);
    J.middleRows(c.first_row, c.rows) = dirs.transpose() * c.jacobian;
    Y.middleCols(c.first_row, c.rows) = system.respond(c.point, c.jacobian, dirs);
    const int q = c.point.element;
    const Vec3 own = c.jacobian * qdot;  // the point's velocity from the rates alone
    const Vec3 full = c.point.X * velocities[std::size_t(q)] + c.point.G * qdot.segment(q * k, k);
    b(c.first_row) = c.directions.col(0).dot(own) + c.gap / h;
    if (c.rows == 3) b.segment<2>(c.first_row + 1) = c.directions.rightCols<2>().transpose() * full;
  }
  const MatX W = J * Y;

  // Projected Gauss-Seidel; every 10 sweeps the residual, and if it is not yet small the active
  // set PGS has found solved exactly (PGS alone crawls: neighbouring quadrature points give
  // nearly parallel rows). Converged: a residual ≤ 1e-6 of the largest free velocity (at least
  // 1 m/s), in m/s: over a step of 1 ms, a micrometre per metre per second.
  VecX P = VecX::Zero(rows);
  const double tolerance = 1e-6 * std::max(1.0, b.cwiseAbs().maxCoeff());  // m/s
  report.converged = false;
  for (report.sweeps = 1; report.sweeps <= rod.contact_sweeps; ++report.sweeps) {
    sweep(contacts, W, b, P);
    if (report.sweeps % 10 != 0) continue;
    if (residual(contacts, W, b, P) <= tolerance) {
      report.converged = true;
      break;
    }
    VecX exact = P;
    if (solve_active_set(contacts, W, b, tolerance, exact) &&
        residual(contacts, W, b, exact) <= tolerance) {
      P = exact;
      report.converged = true;
      break;
    }
  }
  report.residual = residual(contacts, W, b, P);
  report.sweeps = std::min(report.sweeps, rod.contact_sweeps);
  for (const Contact& c : contacts) report.active_contacts += P(c.first_row) > 0;
  qdot += Y * P;
  return report;
}

}  // namespace hairsim::super_helix::detail
