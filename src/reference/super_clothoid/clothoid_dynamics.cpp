#include "reference/super_clothoid/clothoid_dynamics.hpp"

#include <Eigen/Cholesky>
#include <Eigen/LU>
#include <algorithm>
#include <cmath>
#include <numeric>

#include "common/drag.hpp"
#include "hairsim/error.hpp"
#include "reference/clamp_state.hpp"
#include "reference/contact_impulses.hpp"
#include "reference/eigen_bridge.hpp"
#include "reference/gauss_legendre.hpp"
#include "reference/newton_statics.hpp"
#include "reference/rate_jacobian.hpp"
#include "super_clothoid/clothoid_series.hpp"

namespace hairsim::super_clothoid {
namespace {

// The motion the chain carries from element to element, with q̈ = 0: the frame's velocity and
// acceleration and the centreline's (the clamp's and the velocity products).
struct ChainMotion {
  Mat3 R_dot = Mat3::Zero(), R_ddot = Mat3::Zero();
  Vec3 r_dot = Vec3::Zero(), r_ddot = Vec3::Zero();
};

// Element i's motion at a point from its start's (R0, the start's motion `s`) and its own (E, p
// and their local motion in `local`): differentiating R = R0 E and r = r0 + R0 p twice in time,
// Ṙ = Ṙ0 E + R0 Ė, R̈ = R̈0 E + 2 Ṙ0 Ė + R0 Ë, ṙ = ṙ0 + Ṙ0 p + R0 ṗ, r̈ = r̈0 + R̈0 p + 2 Ṙ0 ṗ + R0 p̈.
ChainMotion compose_motion(const Mat3& R0, const ChainMotion& s, const ClothoidElement::State& m) {
  return {s.R_dot * m.local.R + R0 * m.velocity.R,
          s.R_ddot * m.local.R + 2 * s.R_dot * m.velocity.R + R0 * m.acceleration.R,
          s.r_dot + s.R_dot * m.local.r + R0 * m.velocity.r,
          s.r_ddot + s.R_ddot * m.local.r + 2 * s.R_dot * m.velocity.r + R0 * m.acceleration.r};
}

// The chain walked from the clamp at `time`: before each element, its start's frame, Jacobian
// and motion (q̈ = 0).
struct ChainWalk {
  FrameJacobian start;
  ChainMotion motion;
};
ChainWalk chain_start(const ClothoidRod& rod, double time) {
  const std::size_t n = 3 * rod.shape.node_curvature.size();
  // R0, r0 of the clamp, Ṙ0 = [ω]× R0, R̈0 = ([α]× + [ω]×²) R0, ṙ0, r̈0.
  const reference::ClampState clamp =
      reference::clamp_state(rod.motion, rod.clamp.r, rod.clamp.R, time);
  const Mat3 w = bridge::cross_matrix(clamp.angular_velocity);
  return {
      {{clamp.frame, clamp.point},
       std::vector<Mat3>(n, Mat3::Zero()),
       std::vector<Vec3>(n, Vec3::Zero())},
      {w * clamp.frame, (bridge::cross_matrix(clamp.angular_acceleration) + w * w) * clamp.frame,
       clamp.velocity, clamp.acceleration}};
}
// Past element i, whose local state at its end is `end`.
void advance(ChainWalk& walk, const ClothoidElement::State& end, int i) {
  walk.motion = compose_motion(walk.start.frame.R, walk.motion, end);
  walk.start = compose(walk.start, end, i);
}

// What a quadrature point gives: its weight (m), position, Jacobian J (3 x n), velocity, unit
// tangent and acceleration with q̈ = 0 (the clamp's and the velocity products, q̇ ∂²r/∂q² q̇).
struct Point {
  double arc;  // m from the clamp
  double weight;
  Vec3 x;
  const MatX& J;
  Vec3 velocity, tangent, acceleration;
};

// Visits every quadrature point of every element with the clamp at `time`; returns the tip's
// Jacobian.
template <class Visit>
MatX visit_points(const ClothoidRod& rod, double time, Visit&& visit) {
  const std::vector<ClothoidElement> elements = chain(rod.shape);
  const quadrature::Rule& rule = quadrature::gauss_legendre(rod.quadrature);
  ChainWalk walk = chain_start(rod, time);
  MatX J;
  double arc = 0;
  for (int i = 0; i < rod.shape.elements(); arc += elements[std::size_t(i)].length(), ++i) {
    const ClothoidElement& e = elements[std::size_t(i)];
    const Vec3 &rate_a = rod.curvature_rate[std::size_t(i)],
               &rate_b = rod.curvature_rate[std::size_t(i) + 1];
    const Mat3& R0 = walk.start.frame.R;
    std::vector<double> at;  // the quadrature points, then the element's end
    for (const double node : rule.nodes) at.push_back(node * e.length());
    at.push_back(e.length());
    const std::vector<ClothoidElement::State> states = e.local_states(at, rate_a, rate_b);
    for (std::size_t g = 0; g < rule.nodes.size(); ++g) {
      const ClothoidElement::State& m = states[g];
      compose_point_jacobian(walk.start, m, i, J);
      const ChainMotion pm = compose_motion(R0, walk.motion, m);
      visit(Point{arc + rule.nodes[g] * e.length(), rule.weights[g] * e.length(),
                  walk.start.frame.r + R0 * m.local.r, J, pm.r_dot, R0 * m.local.R.col(0),
                  pm.r_ddot});
    }
    const ClothoidElement::State& end = states.back();
    if (i + 1 == rod.shape.elements()) compose_point_jacobian(walk.start, end, i, J);
    advance(walk, end, i);
  }
  return J;
}

// The world force density along a piece as a series (scaled terms, N/m): gravity and the
// velocity-product inertia ρS (g − r̈), the damping −c ρS ṙ, and the air's drag
// −cn u − (ct − cn) k (k·u) on u = ṙ − wind, k the unit tangent (resistive force theory:
// kernels/common/drag.hpp), its products by Cauchy products (§7.1). (The gusts: add_gusts.)
std::vector<Vec3> force_series(const ClothoidRod& rod, const Mat3& R0, const ChainMotion& start,
                               const ClothoidElement::PieceSeries& piece) {
  const std::size_t n = piece.r.size();
  const double rho = rod.linear_density;
  std::vector<Vec3> f(n), velocity(n), tangent(n);
  for (std::size_t j = 0; j < n; ++j) {
    // r̈ = r̈0 + R̈0 p + 2 Ṙ0 ṗ + R0 p̈ and ṙ = ṙ0 + Ṙ0 p + R0 ṗ, term by term.
    f[j] = -rho * (start.R_ddot * piece.r[j] + 2 * start.R_dot * piece.velocity[j] +
                   R0 * piece.acceleration[j]);
    velocity[j] = start.R_dot * piece.r[j] + R0 * piece.velocity[j];
    tangent[j] = R0 * piece.tangent[j];
  }
  f[0] += rho * (rod.gravity - start.r_ddot);
  velocity[0] += start.r_dot;
  for (std::size_t j = 0; j < n; ++j) f[j] -= rod.damping * rho * velocity[j];
  velocity[0] -= rod.wind;
  if (rod.drag_normal == 0 && rod.drag_tangent == 0) return f;
  auto dot = [](const Vec3& a, const Vec3& b) -> double { return a.dot(b); };
  auto scale = [](const Vec3& a, double b) -> Vec3 { return a * b; };
  const int terms = int(n);
  std::vector<double> along(2 * n - 1);
  std::vector<Vec3> axial(3 * n - 2);
  kernels::super_clothoid::multiply_series(tangent.data(), terms, velocity.data(), terms,
                                           along.data(), dot);
  kernels::super_clothoid::multiply_series(tangent.data(), terms, along.data(), 2 * terms - 1,
                                           axial.data(), scale);
  f.resize(axial.size(), Vec3::Zero());
  for (std::size_t k = 0; k < axial.size(); ++k) {
    f[k] -= (rod.drag_tangent - rod.drag_normal) * axial[k];
    if (k < velocity.size()) f[k] -= rod.drag_normal * velocity[k];
  }
  return f;
}

// An element's integrals (§7.1) in its own frame, p its centreline from an identity start,
// dc = ∂p/∂(its six coordinates), f the world force density: ∫ p, ∫ p pᵀ, ∫ dc, ∫ p dcᵀ,
// ∫ dc·dd; ∫ f, ∫ p fᵀ, ∫ dc·R0ᵀ f.
struct ElementIntegrals {
  Vec3 p = Vec3::Zero();
  Mat3 pp = Mat3::Zero();
  Vec3 d[6];
  Mat3 pd[6];
  Eigen::Matrix<double, 6, 6> dd = Eigen::Matrix<double, 6, 6>::Zero();
  Vec3 f = Vec3::Zero();
  Mat3 pf = Mat3::Zero();
  Eigen::Matrix<double, 6, 1> df = Eigen::Matrix<double, 6, 1>::Zero();
  ElementIntegrals() {
    for (int c = 0; c < 6; ++c) d[c].setZero(), pd[c].setZero();
  }
};

// The gusts' drag D(k) w(x, t) on a piece (D = cn I + (ct − cn) k kᵀ, k the unit tangent): the
// wind field is no polynomial along the rod, so its integrals take `rod.quadrature`
// Gauss-Legendre points on the piece, where the series give p, k and the derivatives (the scaled
// terms summed at the fraction τ: Σ ṽn τⁿ). r0, R0: the element's start.
void add_gusts(ElementIntegrals& in, const ClothoidRod& rod, const Vec3& r0, const Mat3& R0,
               const ClothoidElement::PieceSeries& piece, double t) {
  if (rod.gusts.still() || (rod.drag_normal == 0 && rod.drag_tangent == 0)) return;
  const quadrature::Rule& rule = quadrature::gauss_legendre(rod.quadrature);
  auto at = [](const std::vector<Vec3>& terms, double tau) {
    Vec3 sum = Vec3::Zero();
    for (std::size_t k = terms.size(); k-- > 0;) sum = sum * tau + terms[k];
    return sum;
  };
  for (std::size_t g = 0; g < rule.nodes.size(); ++g) {
    const double tau = rule.nodes[g], weight = rule.weights[g] * piece.length;
    const Vec3 p = at(piece.r, tau), k = (R0 * at(piece.tangent, tau)).normalized();
    const Vec3 w = bridge::from_kernel(rod.gusts.at(bridge::to_kernel(Vec3(r0 + R0 * p)), t));
    const Vec3 f = rod.drag_normal * w + (rod.drag_tangent - rod.drag_normal) * k * k.dot(w);
    in.f += weight * f;
    in.pf += weight * p * f.transpose();
    const Vec3 local = R0.transpose() * f;
    for (int c = 0; c < 6; ++c) in.df(c) += weight * at(piece.d[c], tau).dot(local);
  }
}

// A piece's share. Every integral is one of a product of two series, the Cauchy product
// integrated term by term: ∫₀ʰ a bᵀ = h Σk,m ãk b̃mᵀ / (k + m + 1) (§7.1, Fig. 7), for all pairs
// at once as h X H Yᵀ with X, Y the series' terms as columns and H the Hilbert matrix
// Hkm = 1/(k + m + 1). Without `with_mass`, the forces' integrals alone.
void add_piece(ElementIntegrals& in, const ClothoidRod& rod, const Mat3& R0,
               const ChainMotion& start, const ClothoidElement::PieceSeries& piece,
               bool with_mass) {
  const double h = piece.length;
  const Eigen::Index n = Eigen::Index(piece.r.size());
  const std::vector<Vec3> f = force_series(rod, R0, start, piece);
  const Eigen::Index nf = Eigen::Index(f.size());
  // Rows: p, then d0..d5 (21 scalar series); the force density in the element's frame R0ᵀ f.
  MatX x(21, n), force(3, nf);
  for (Eigen::Index k = 0; k < n; ++k) {
    x.col(k).head<3>() = piece.r[std::size_t(k)];
    for (int c = 0; c < 6; ++c) x.col(k).segment<3>(3 + 3 * c) = piece.d[c][std::size_t(k)];
  }
  for (Eigen::Index k = 0; k < nf; ++k) force.col(k) = R0.transpose() * f[std::size_t(k)];
  const Eigen::Index wide = std::max(n, nf);
  MatX hilbert(n, wide);
  for (Eigen::Index k = 0; k < n; ++k)
    for (Eigen::Index m = 0; m < wide; ++m) hilbert(k, m) = h / double(k + m + 1);
  // lazyProduct: small products, kept out of Eigen's OpenMP-parallel GEMM (which, on a loaded
  // 2-core machine, spent 65 % of a hairstyle step's time spinning and dispatching).
  // ∫ x (R0ᵀ f)ᵀ = X (H Fᵀ), H Fᵀ first (n x 3): a fifth of (X H) Fᵀ's products.
  const MatX with_force = x.lazyProduct(MatX(hilbert.leftCols(nf).lazyProduct(force.transpose())));
  in.f += R0 * (force * hilbert.row(0).head(nf).transpose());
  in.pf += with_force.topRows<3>() * R0.transpose();
  for (int c = 0; c < 6; ++c) in.df(c) += with_force.block<3, 3>(3 + 3 * c, 0).trace();
  if (!with_mass) return;
  const MatX xh = x.lazyProduct(hilbert.leftCols(n));
  const MatX gram = xh.lazyProduct(x.transpose());  // ∫ x xᵀ
  in.p += xh.topRows<3>().col(0);                   // ∫ x = h Σ x̃k/(k + 1): H's first column
  in.pp += gram.topLeftCorner<3, 3>();
  for (int c = 0; c < 6; ++c) {
    in.d[c] += xh.middleRows<3>(3 + 3 * c).col(0);
    in.pd[c] += gram.block<3, 3>(0, 3 + 3 * c);
    for (int e = 0; e <= c; ++e) in.dd(c, e) += gram.block<3, 3>(3 + 3 * c, 3 + 3 * e).trace();
  }
}

// Element i's share of M and of the generalized forces from its integrals: with J(s) = U +
// Σj pj(s) Vj + R0 D(s) S (U: the start's ∂r0/∂q, Vj: column j of its ∂R0/∂q, D the element's
// own derivatives placed at its six coordinates by S),
//   ∫ Jᵀ J = ℓ UᵀU + Σj ∫pj (UᵀVj + VjᵀU) + Σjk ∫pj pk VjᵀVk + the element's rows and columns,
//   ∫ Jᵀ f = Uᵀ∫f + Σj Vjᵀ ∫pj f + S ∫ D·R0ᵀ f.
// Without `with_mass`, the forces alone.
void assemble(Dynamics& d, const ElementIntegrals& in, const FrameJacobian& start, double length,
              double rho, int i, bool with_mass) {
  const int m = 3 * i + 3;  // the coordinates that move the element's start: nodes 0..i
  MatX U(3, m), V[3];
  for (int j = 0; j < 3; ++j) V[j].resize(3, m);
  for (int q = 0; q < m; ++q) {
    U.col(q) = start.dr[std::size_t(q)];
    for (int j = 0; j < 3; ++j) V[j].col(q) = start.dR[std::size_t(q)].col(j);
  }
  MatX force = U.transpose() * in.f;
  for (int j = 0; j < 3; ++j) force += V[j].transpose() * in.pf.row(j).transpose();
  d.forces.head(m) += force;
  for (int c = 0; c < 6; ++c) d.forces(3 * i + c) += in.df(c);
  if (!with_mass) return;
  MatX mass = length * U.transpose() * U;
  for (int j = 0; j < 3; ++j) {
    const MatX uv = U.transpose() * V[j];
    mass += in.p(j) * (uv + uv.transpose());
    for (int k = 0; k < 3; ++k) mass += in.pp(j, k) * V[j].transpose() * V[k];
  }
  d.mass.topLeftCorner(m, m) += rho * mass;
  // The element's own columns: ∫ J_qᵀ R0 dc = u_q·R0 ∫dc + Σj V_j,q·R0 ∫pj dc.
  const Mat3& R0 = start.frame.R;
  for (int c = 0; c < 6; ++c) {
    VecX cross = U.transpose() * (R0 * in.d[c]);
    for (int j = 0; j < 3; ++j) cross += V[j].transpose() * (R0 * in.pd[c].row(j).transpose());
    const int col = 3 * i + c;
    d.mass.col(col).head(m) += rho * cross;
    d.mass.row(col).head(m) += rho * cross.transpose();
    for (int e = 0; e < 6; ++e)
      d.mass(col, 3 * i + e) += rho * (e <= c ? in.dd(c, e) : in.dd(e, c));
  }
}

// M and the forces by the series (§7.1): each element's integrals from its pieces' terms; without
// `with_mass`, the forces alone (M left empty).
Dynamics series_dynamics(const ClothoidRod& rod, double t, bool with_mass) {
  const int n = 3 * int(rod.shape.node_curvature.size());
  Dynamics d{with_mass ? MatX::Zero(n, n) : MatX(), VecX::Zero(n)};
  const std::vector<ClothoidElement> elements = chain(rod.shape);
  ChainWalk walk = chain_start(rod, t);
  for (int i = 0; i < rod.shape.elements(); ++i) {
    const ClothoidElement& e = elements[std::size_t(i)];
    ElementIntegrals in;
    const ClothoidElement::State end =
        e.expand(rod.curvature_rate[std::size_t(i)], rod.curvature_rate[std::size_t(i) + 1],
                 [&](const ClothoidElement::PieceSeries& piece) {
                   add_piece(in, rod, walk.start.frame.R, walk.motion, piece, with_mass);
                   add_gusts(in, rod, walk.start.frame.r, walk.start.frame.R, piece, t);
                 });
    assemble(d, in, walk.start, e.length(), rod.linear_density, i, with_mass);
    if (i + 1 == rod.shape.elements()) {
      MatX J;
      compose_point_jacobian(walk.start, end, i, J);
      d.forces += J.transpose() * rod.tip_force;
    }
    advance(walk, end, i);
  }
  return d;
}

VecX gather(const std::vector<Vec3>& nodes) {
  VecX q(3 * Eigen::Index(nodes.size()));
  for (std::size_t i = 0; i < nodes.size(); ++i) q.segment<3>(3 * Eigen::Index(i)) = nodes[i];
  return q;
}
void scatter(const VecX& q, std::vector<Vec3>& nodes) {
  for (std::size_t i = 0; i < nodes.size(); ++i) nodes[i] = q.segment<3>(3 * Eigen::Index(i));
}

}  // namespace

ClothoidRod straight_rod(int elements, double length, const Vec3& rest, const Frame& root) {
  ClothoidRod rod;
  rod.shape.root = root;
  rod.clamp = root;
  rod.shape.length.assign(std::size_t(elements), length / elements);
  rod.shape.node_curvature.assign(std::size_t(elements) + 1, rest);
  rod.rest_curvature = rod.shape.node_curvature;
  rod.curvature_rate.assign(std::size_t(elements) + 1, Vec3::Zero());
  return rod;
}

VecX coordinates(const ClothoidRod& rod) {
  return gather(rod.shape.node_curvature);
}
VecX rates(const ClothoidRod& rod) {
  return gather(rod.curvature_rate);
}
void set_coordinates(ClothoidRod& rod, const VecX& q) {
  scatter(q, rod.shape.node_curvature);
}
void set_rates(ClothoidRod& rod, const VecX& qdot) {
  scatter(qdot, rod.curvature_rate);
}

MatX stiffness_matrix(const ClothoidRod& rod) {
  // Element i (nodes i, i + 1): ∫ ((1 − u) δa + u δb)ᵀ K3 (...) ds = ℓ (1/3, 1/6; 1/6, 1/3) ⊗ K3.
  const int n = 3 * int(rod.shape.node_curvature.size());
  MatX k = MatX::Zero(n, n);
  const Mat3 k3 = rod.stiffness.asDiagonal();
  for (int i = 0; i < rod.shape.elements(); ++i) {
    const double l = rod.shape.length[std::size_t(i)];
    k.block<3, 3>(3 * i, 3 * i) += l / 3 * k3;
    k.block<3, 3>(3 * i + 3, 3 * i + 3) += l / 3 * k3;
    k.block<3, 3>(3 * i, 3 * i + 3) += l / 6 * k3;
    k.block<3, 3>(3 * i + 3, 3 * i) += l / 6 * k3;
  }
  return k;
}

Dynamics dynamics(const ClothoidRod& rod, double t) {
  if (rod.integration == Integration::series) return series_dynamics(rod, t, true);
  // The same integrals by Gauss-Legendre quadrature.
  const int n = 3 * int(rod.shape.node_curvature.size());
  Dynamics d{MatX::Zero(n, n), VecX::Zero(n)};
  const double rho = rod.linear_density;
  const MatX tip = visit_points(rod, t, [&](const Point& p) {
    d.mass.selfadjointView<Eigen::Lower>().rankUpdate(p.J.transpose(), p.weight * rho);
    Vec3 f = rho * (rod.gravity - p.acceleration) - rod.damping * rho * p.velocity;
    if (rod.drag_normal > 0 || rod.drag_tangent > 0) {
      const kernels::Vector3<double> k = bridge::to_kernel(p.tangent);
      const Vec3 gust = bridge::from_kernel(rod.gusts.at(bridge::to_kernel(p.x), t));
      f -= bridge::from_kernel(
               kernels::drag_matrix(k, k, 1.0, 1.0, rod.drag_normal, rod.drag_tangent)) *
           (p.velocity - rod.wind - gust);
    }
    d.forces += p.weight * p.J.transpose() * f;
  });
  d.forces += tip.transpose() * rod.tip_force;
  d.mass = d.mass.selfadjointView<Eigen::Lower>();
  return d;
}

VecX generalized_forces(const ClothoidRod& rod, double t) {
  if (rod.integration == Integration::series) return series_dynamics(rod, t, false).forces;
  return dynamics(rod, t).forces;
}

namespace {

// ∂A/∂q̇ (n x n) at time t: the inertial forces −G − A are a polynomial of degree 2 in q̇ (the
// velocity products, and the clamp's Coriolis terms), so central differences of them are exact
// to round-off; the drag's dependence on q̇ is included (it is linear).
MatX inertia_jacobian(const ClothoidRod& rod, double t) {
  const VecX qdot = rates(rod);
  ClothoidRod probe = rod;
  const double step = 1e-3 * std::max(1.0, qdot.cwiseAbs().maxCoeff());
  // ∂(G + A − drag)/∂q̇: the forces' derivative, negated.
  return -reference::rate_jacobian(qdot, step, [&](const VecX& r) {
    set_rates(probe, r);
    return generalized_forces(probe, t);
  });
}

// The step's matrix A = M + h ν K + h² K (and h ∂A/∂q̇ with `implicit_inertia`) factored, and q̈.
struct StepSolve {
  Eigen::PartialPivLU<MatX> a;
  VecX qddot;
};
StepSolve solve_step(const ClothoidRod& rod, double h) {
  const Dynamics d = dynamics(rod, rod.time + h);
  const MatX k = stiffness_matrix(rod);
  const VecX q = coordinates(rod), qdot = rates(rod), rest = gather(rod.rest_curvature);
  const double nu = rod.internal_friction;
  MatX a = d.mass + (h * nu + h * h) * k;
  // §7.2's option: A at first order in q̇, A(q̇ + h q̈) ≈ A(q̇) + h ∂A/∂q̇ q̈.
  if (rod.implicit_inertia && h > 0) a += h * inertia_jacobian(rod, rod.time + h);
  StepSolve out;
  out.a.compute(a);
  out.qddot = out.a.solve(d.forces - k * (q - rest) - (nu + h) * (k * qdot));
  return out;
}

// The contacts at the quadrature points for the rates `qdot` (the step's free ones), the clamp at
// the step's end; their impulses added to qdot through A⁻¹.
StepReport resolve_contacts(const ClothoidRod& rod, const Eigen::PartialPivLU<MatX>& a, double h,
                            VecX& qdot) {
  ClothoidRod moving = rod;
  set_rates(moving, qdot);
  std::vector<reference::PointContact> contacts;
  std::vector<int> point_of;            // each contact's quadrature point, in visiting order
  std::vector<Vec3> linear_end;         // and where its linearised motion takes it: x + h J q̇₀
  const VecX start_rates = rates(rod);  // q̇₀, the step's start rates (the drift's)
  const double margin = 0.01 * *std::min_element(rod.shape.length.begin(), rod.shape.length.end());
  // The obstacles where their motion puts them at the step's end (a head's colliders).
  const reference::Obstacles obstacles(rod.obstacle_motion, rod.time + h);
  int point = 0;
  visit_points(moving, rod.time + h, [&](const Point& p) {
    const int index = point++;
    if (p.arc < rod.contact_start) return;
    // The velocity against the obstacles' surfaces (they move together: one rigid motion).
    const Vec3 relative = p.velocity - obstacles.velocity(p.x);
    const double reach = 2 * h * relative.norm() + margin;
    for (const kernels::Collider<double>& c : rod.colliders)
      if (auto contact = reference::touching(c, p.x, rod.contact_thickness, reach, p.J, relative,
                                             obstacles.pose())) {
        contact->mass = rod.linear_density * p.weight;
        contacts.push_back(*contact);
        point_of.push_back(index);
        linear_end.push_back(p.x + h * (p.J * start_rates));
      }
  });
  // Each contact's drift (kernels::ContactBlock): its point on the coordinates q + h q̇₀ against
  // its linearised motion (at the step's start rates: at the free ones a rod resting on a ball,
  // whose free rates fall through it, drifted by micrometres that no rate change could meet at
  // every one of its nearly dependent contact points, and PGS ran into its sweep cap).
  if (!contacts.empty()) {
    ClothoidRod reached = rod;
    set_coordinates(reached, coordinates(rod) + h * start_rates);
    std::vector<Vec3> at;
    visit_points(reached, rod.time + h, [&](const Point& p) { at.push_back(p.x); });
    for (std::size_t i = 0; i < contacts.size(); ++i)
      contacts[i].drift =
          contacts[i].directions.col(0).dot(at[std::size_t(point_of[i])] - linear_end[i]);
  }
  const reference::ImpulseReport r = reference::apply_contact_impulses(
      contacts, h, rod.contact_sweeps,
      [&](std::size_t i, const MatX& forces) -> MatX {
        return a.solve(contacts[i].jacobian.transpose() * forces);
      },
      qdot);
  return {r.contacts, r.active, r.sweeps, r.converged, r.residual};
}

}  // namespace

VecX accelerations(const ClothoidRod& rod, double h) {
  return solve_step(rod, h).qddot;
}

StepReport step(ClothoidRod& rod, double dt) {
  const StepSolve solve = solve_step(rod, dt);
  VecX qdot = rates(rod) + dt * solve.qddot;
  StepReport report;
  if (!rod.colliders.empty()) report = resolve_contacts(rod, solve.a, dt, qdot);
  const VecX q = coordinates(rod) + dt * qdot;
  if (!qdot.allFinite() || !q.allFinite()) throw RunFailure("step", "non-finite curvature or rate");
  set_rates(rod, qdot);
  set_coordinates(rod, q);
  rod.time += dt;
  place_root(rod);
  return report;
}

void place_root(ClothoidRod& rod) {
  const reference::ClampState clamp =
      reference::clamp_state(rod.motion, rod.clamp.r, rod.clamp.R, rod.time);
  rod.shape.root = {clamp.frame, clamp.point};
}

double max_penetration(const ClothoidRod& rod) {
  if (rod.colliders.empty()) return 0;
  const reference::Obstacles obstacles(rod.obstacle_motion, rod.time);
  const kernels::RigidPose<double>* pose = obstacles.pose();
  double deepest = 0;
  visit_points(rod, rod.time, [&](const Point& p) {
    for (const kernels::Collider<double>& c : rod.colliders)
      deepest = std::max(deepest,
                         rod.contact_thickness - reference::posed_distance(c, p.x, pose).distance);
  });
  return deepest;
}

Energies energies(const ClothoidRod& rod) {
  Energies e;
  const double rho = rod.linear_density;
  visit_points(rod, rod.time, [&](const Point& p) {
    e.kinetic += 0.5 * p.weight * rho * p.velocity.squaredNorm();
    e.gravity -= p.weight * rho * rod.gravity.dot(p.x);
  });
  const VecX strain = coordinates(rod) - gather(rod.rest_curvature);
  e.elastic = 0.5 * strain.dot(stiffness_matrix(rod) * strain);
  return e;
}

Vec3 tip(const ClothoidRod& rod) {
  return chain(rod.shape).back().end().r;
}

std::vector<PointMotion> point_motions(const ClothoidRod& rod, const std::vector<double>& s) {
  const std::vector<ClothoidElement> elements = chain(rod.shape);
  ChainWalk walk = chain_start(rod, rod.time);
  std::vector<PointMotion> out;
  std::size_t k = 0;
  double element_start = 0;
  for (int i = 0; i < rod.shape.elements(); ++i) {
    const ClothoidElement& e = elements[std::size_t(i)];
    const Vec3 &rate_a = rod.curvature_rate[std::size_t(i)],
               &rate_b = rod.curvature_rate[std::size_t(i) + 1];
    const bool last = i + 1 == rod.shape.elements();
    std::vector<double> at;  // the element's points, then its end
    for (; k < s.size() && (s[k] <= element_start + e.length() || last); ++k)
      at.push_back(std::clamp(s[k] - element_start, 0.0, e.length()));
    at.push_back(e.length());
    const std::vector<ClothoidElement::State> states = e.local_states(at, rate_a, rate_b);
    for (std::size_t j = 0; j + 1 < states.size(); ++j) {
      const ChainMotion pm = compose_motion(walk.start.frame.R, walk.motion, states[j]);
      out.push_back({walk.start.frame.r + walk.start.frame.R * states[j].local.r, pm.r_dot});
    }
    advance(walk, states.back(), i);
    element_start += e.length();
  }
  return out;
}

namespace {

VecX static_forces(ClothoidRod rod) {
  std::fill(rod.curvature_rate.begin(), rod.curvature_rate.end(), Vec3::Zero());
  return generalized_forces(rod, rod.time) -
         stiffness_matrix(rod) * (coordinates(rod) - gather(rod.rest_curvature));
}

double potential(const ClothoidRod& rod) {
  const Energies e = energies(rod);
  return e.elastic + e.gravity - rod.tip_force.dot(tip(rod));
}

}  // namespace

reference::HeldShape hold_shape(ClothoidRod& rod) {
  // The loads of a still head: gravity alone (the clamp at rest where it is now).
  ClothoidRod still = rod;
  still.motion = ClampMotion{};
  still.clamp = rod.shape.root;
  still.wind = Vec3::Zero();
  still.gusts = {};
  still.tip_force = Vec3::Zero();
  VecX scale(3 * Eigen::Index(still.rest_curvature.size()));
  const double mean_length =
      std::accumulate(still.shape.length.begin(), still.shape.length.end(), 0.0) /
      double(still.shape.length.size());
  scale.setConstant(1 / mean_length);
  const VecX groomed_rest = gather(still.rest_curvature);
  reference::HeldShape held = reference::hold_shape(groomed_rest, scale, [&](const VecX& p) {
    scatter(p, still.rest_curvature);
    return static_forces(still);
  });
  // Stable where it is held? (K + ∂²V_g/∂q², the same whatever the rest: the fitted shape's own.)
  scatter(held.rest, still.rest_curvature);
  double noise = 0;
  const MatX h = reference::potential_hessian(
      coordinates(still), [&](const VecX& at) { set_coordinates(still, at); },
      [&] { return static_forces(still); }, 1.0, &noise);
  held.stiffness = reference::stiffness_range(h, noise);
  held.held = held.stiffness.stable();
  scatter(held.held ? held.rest : groomed_rest, rod.rest_curvature);
  return held;
}

StaticReport solve_static(ClothoidRod& rod, double tolerance, int max_iterations) {
  std::fill(rod.curvature_rate.begin(), rod.curvature_rate.end(), Vec3::Zero());
  // The wind's drag turns with the rod: no potential.
  const bool conservative = rod.wind.isZero() || (rod.drag_normal == 0 && rod.drag_tangent == 0);
  return reference::newton_statics(
      [&] { return coordinates(rod); }, [&](const VecX& q) { set_coordinates(rod, q); },
      [&] { return static_forces(rod); }, [&] { return potential(rod); }, conservative, tolerance,
      max_iterations);
}

}  // namespace hairsim::super_clothoid
