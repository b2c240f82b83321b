#include "reference/super_helix/super_helix_rod.hpp"

#include <Eigen/Cholesky>
#include <Eigen/Geometry>
#include <Eigen/LU>
#include <cmath>
#include <string>

#include "common/drag.hpp"
#include "hairsim/error.hpp"
#include "reference/clamp_state.hpp"
#include "reference/contact_impulses.hpp"
#include "reference/eigen_bridge.hpp"
#include "reference/levenberg_marquardt.hpp"
#include "reference/newton_statics.hpp"
#include "reference/rate_jacobian.hpp"
#include "reference/super_helix/step_system.hpp"
#include "scene/rod_scene.hpp"
#include "super_helix/helix_element.hpp"

namespace hairsim::super_helix {
namespace {

using detail::Mat36;
using detail::Mat6;
using detail::Vec6;

Mat3 cross_matrix(const Vec3& v) {
  Mat3 m;
  m << 0, -v.z(), v.y(), v.z(), 0, -v.x(), -v.y(), v.x(), 0;
  return m;
}

// Rigid motion of a spatial acceleration or wrench from a point to one at offset d from it:
// Φ = [[I, 0], [−[d]×, I]] maps (α, a) at the first point to (α, a + α × d) at the second.
Mat6 shift(const Vec3& d) {
  Mat6 phi = Mat6::Identity();
  phi.block<3, 3>(3, 0) = -cross_matrix(d);
  return phi;
}

// X = [−[d]×, I]: the acceleration a + α × d of a point at offset d, as X (α, a).
Mat36 point_map(const Vec3& d) {
  Mat36 x;
  x.block<3, 3>(0, 0) = -cross_matrix(d);
  x.block<3, 3>(0, 3) = Mat3::Identity();
  return x;
}

// Columns of a 3 x 3 map on κ kept for the active coordinates.
MatX active_columns(const SuperHelix& rod, const Mat3& m) {
  const int k = rod.coordinates_per_element();
  MatX out(3, k);
  for (int j = 0; j < k; ++j) out.col(j) = m.col(rod.component(j));
  return out;
}

// The applied force per unit length at a point moving at `velocity` with tangent `tangent`
// (gravity only when `with_gravity`: the recursive method puts it at the root, §4.6).
// The air's drag per unit length against the wind, as a matrix on the relative velocity.
Mat3 drag_resistance(const SuperHelix& rod, const Vec3& tangent) {
  const kernels::Vector3<double> k = bridge::to_kernel(tangent);
  return bridge::from_kernel(
      kernels::drag_matrix(k, k, 1.0, 1.0, rod.drag_normal, rod.drag_tangent));
}

Vec3 applied_force(const SuperHelix& rod, const Vec3& position, const Vec3& velocity,
                   const Vec3& tangent, double t, bool with_gravity) {
  Vec3 f = with_gravity ? Vec3(rod.linear_density * rod.gravity) : Vec3::Zero();
  f -= rod.damping * rod.linear_density * velocity;
  if (rod.drag_normal > 0 || rod.drag_tangent > 0) {
    const Vec3 wind = rod.wind + bridge::from_kernel(rod.gusts.at(bridge::to_kernel(position), t));
    f -= drag_resistance(rod, tangent) * (velocity - wind);
  }
  return f;
}

// −∂f/∂ṙ of `applied_force` (it is affine in the velocity): the damping and the drag.
Mat3 velocity_resistance(const SuperHelix& rod, const Vec3& tangent) {
  Mat3 out = rod.damping * rod.linear_density * Mat3::Identity();
  if (rod.drag_normal > 0 || rod.drag_tangent > 0) out += drag_resistance(rod, tangent);
  return out;
}

Vec3 end_force(const SuperHelix& rod, int q) {
  return rod.end_force.empty() ? Vec3::Zero() : rod.end_force[std::size_t(q)];
}
Vec3 end_moment(const SuperHelix& rod, int q) {
  return rod.end_moment.empty() ? Vec3::Zero() : rod.end_moment[std::size_t(q)];
}

// Per-element stiffness diagonal K_Q (active components) and the elastic force K_Q (κ − κ⁰).
VecX element_stiffness(const SuperHelix& rod, int q) {
  const int k = rod.coordinates_per_element();
  VecX d(k);
  for (int j = 0; j < k; ++j)
    d(j) = rod.elements[std::size_t(q)].length * rod.stiffness(rod.component(j));
  return d;
}
VecX active(const SuperHelix& rod, const Vec3& v) {
  const int k = rod.coordinates_per_element();
  VecX out(k);
  for (int j = 0; j < k; ++j) out(j) = v(rod.component(j));
  return out;
}

void check_tree(const SuperHelix& rod) {
  for (std::size_t q = 0; q < rod.elements.size(); ++q)
    if (rod.elements[q].parent >= int(q) || rod.elements[q].parent < -1)
      throw Error("elements[" + std::to_string(q) + "].parent",
                  "must name an earlier element or -1 (the root)");
}

}  // namespace

SuperHelix chain(int elements, double length, const Vec3& rest, const Vec3& root_point,
                 const Mat3& root_frame) {
  SuperHelix rod;
  for (int q = 0; q < elements; ++q) rod.elements.push_back({q - 1, length / elements, rest});
  rod.curvature.assign(std::size_t(elements), rest);
  rod.curvature_rate.assign(std::size_t(elements), Vec3::Zero());
  rod.root_point = root_point;
  rod.root_frame = root_frame;
  return rod;
}

namespace {

// The active components of a per-element vector (κ, κ̇ or κ⁰), element after element.
VecX gather(const SuperHelix& rod, const std::vector<Vec3>& per_element) {
  const int k = rod.coordinates_per_element();
  VecX q(rod.coordinate_count());
  for (std::size_t e = 0; e < rod.elements.size(); ++e)
    q.segment(int(e) * k, k) = active(rod, per_element[e]);
  return q;
}

VecX rest_coordinates(const SuperHelix& rod) {
  std::vector<Vec3> rest;
  for (const Element& e : rod.elements) rest.push_back(e.rest_curvature);
  return gather(rod, rest);
}

}  // namespace

VecX coordinates(const SuperHelix& rod) {
  return gather(rod, rod.curvature);
}

VecX rates(const SuperHelix& rod) {
  return gather(rod, rod.curvature_rate);
}

void set_coordinates(SuperHelix& rod, const VecX& q) {
  const int k = rod.coordinates_per_element();
  for (std::size_t e = 0; e < rod.elements.size(); ++e)
    for (int j = 0; j < k; ++j) rod.curvature[e](rod.component(j)) = q(int(e) * k + j);
}

void set_rates(SuperHelix& rod, const VecX& qdot) {
  const int k = rod.coordinates_per_element();
  for (std::size_t e = 0; e < rod.elements.size(); ++e)
    for (int j = 0; j < k; ++j) rod.curvature_rate[e](rod.component(j)) = qdot(int(e) * k + j);
}

RootState root_state(const SuperHelix& rod, double t) {
  const reference::ClampState c =
      reference::clamp_state(rod.motion, rod.root_point, rod.root_frame, t);
  return {c.point, c.velocity, c.acceleration, c.frame, c.angular_velocity, c.angular_acceleration};
}

ElementPoint element_point(const Vec3& kappa, const Vec3& kappa_rate, double u) {
  // The kernels' closed forms (kernels/super_helix/helix_element.hpp), one source for both.
  const kernels::super_helix::ElementPoint<double> k = kernels::super_helix::element_point(
      bridge::to_kernel(kappa), bridge::to_kernel(kappa_rate), u);
  return {bridge::from_kernel(k.E), bridge::from_kernel(k.Psi), bridge::from_kernel(k.P),
          bridge::from_kernel(k.p), bridge::from_kernel(k.p2),  bridge::from_kernel(k.psi2)};
}

std::vector<ElementStart> element_starts(const SuperHelix& rod, const RootState& root) {
  check_tree(rod);
  std::vector<ElementStart> out(rod.elements.size());
  for (std::size_t q = 0; q < rod.elements.size(); ++q) {
    const int parent = rod.elements[q].parent;
    if (parent < 0) {
      out[q] = {root.point, root.velocity, root.angular_velocity, root.frame};
      continue;
    }
    // The parent's end: frame R_P E(ℓ), point r_P + R_P p(ℓ), ω_P + R_P Ψ κ̇,
    // v_P + ω_P × R_P p + R_P P κ̇ (G¹ junction, eq. 3b).
    const ElementStart& s = out[std::size_t(parent)];
    const Element& pe = rod.elements[std::size_t(parent)];
    const Vec3& rate = rod.curvature_rate[std::size_t(parent)];
    const ElementPoint e = element_point(rod.curvature[std::size_t(parent)], rate, pe.length);
    const Vec3 d = s.frame * e.p;
    out[q] = {s.point + d, s.velocity + s.angular_velocity.cross(d) + s.frame * (e.P * rate),
              s.angular_velocity + s.frame * (e.Psi * rate), s.frame * e.E};
  }
  return out;
}

std::vector<Vec3> centerline(const SuperHelix& rod, int per_element, double t) {
  const std::vector<ElementStart> starts = element_starts(rod, root_state(rod, t));
  std::vector<Vec3> points;
  for (std::size_t q = 0; q < rod.elements.size(); ++q)
    for (int i = 0; i <= per_element; ++i) {
      const double u = rod.elements[q].length * i / per_element;
      const ElementPoint e = element_point(rod.curvature[q], Vec3::Zero(), u);
      points.push_back(starts[q].point + starts[q].frame * e.p);
    }
  return points;
}

Vec3 end_point(const SuperHelix& rod, int element, double t) {
  const std::vector<ElementStart> starts = element_starts(rod, root_state(rod, t));
  const std::size_t q = std::size_t(element);
  const ElementPoint e = element_point(rod.curvature[q], Vec3::Zero(), rod.elements[q].length);
  return starts[q].point + starts[q].frame * e.p;
}

VecX stiffness_diagonal(const SuperHelix& rod) {
  const int k = rod.coordinates_per_element();
  VecX d(rod.coordinate_count());
  for (std::size_t q = 0; q < rod.elements.size(); ++q)
    d.segment(int(q) * k, k) = element_stiffness(rod, int(q));
  return d;
}

// --- The composite method: M and B of eq. (9) --------------------------------------------------

CompositeSystem composite_system(const SuperHelix& rod, double t) {
  const RootState root = root_state(rod, t);
  const std::vector<ElementStart> starts = element_starts(rod, root);
  const int k = rod.coordinates_per_element(), n = rod.coordinate_count();
  const std::size_t count = rod.elements.size();
  const Quadrature& rule = gauss_legendre(rod.quadrature);
  // Per element start: the Jacobians of its point and frame rotation in q (3 x n), and its
  // acceleration with q̈ = 0 (the root's, carried through the velocity-product terms).
  std::vector<MatX> j_point(count, MatX::Zero(3, n)), j_rotation(count, MatX::Zero(3, n));
  std::vector<Vec3> a0(count), alpha0(count);
  CompositeSystem sys{MatX::Zero(n, n), VecX::Zero(n)};
  for (std::size_t q = 0; q < count; ++q) {
    const ElementStart& s = starts[q];
    const int parent = rod.elements[q].parent;
    if (parent < 0) {
      a0[q] = root.acceleration, alpha0[q] = root.angular_acceleration;
    }
    const Vec3& kappa = rod.curvature[q];
    const Vec3& rate = rod.curvature_rate[q];
    const double length = rod.elements[q].length;
    // r̈(u) with q̈ = 0: a + α × d + ω × (ω × d) + 2 ω × R P κ̇ + R p2.
    auto point_terms = [&](double u, MatX& jp, Vec3& acc, Vec3& velocity, Vec3& tangent,
                           ElementPoint& e) {
      e = element_point(kappa, rate, u);
      const Vec3 d = s.frame * e.p;
      jp = j_point[q] - cross_matrix(d) * j_rotation[q];
      jp.middleCols(int(q) * k, k) += active_columns(rod, s.frame * e.P);
      const Vec3 w = s.angular_velocity;
      acc = a0[q] + alpha0[q].cross(d) + w.cross(w.cross(d)) + 2 * w.cross(s.frame * (e.P * rate)) +
            s.frame * e.p2;
      velocity = s.velocity + w.cross(d) + s.frame * (e.P * rate);
      tangent = s.frame * e.E.col(0);
    };
    MatX jp;
    Vec3 acc, velocity, tangent;
    ElementPoint e;
    for (std::size_t g = 0; g < rule.nodes.size(); ++g) {
      point_terms(rule.nodes[g] * length, jp, acc, velocity, tangent, e);
      const double weight = rule.weights[g] * length;
      const Vec3 f = applied_force(rod, s.point + s.frame * e.p, velocity, tangent, t, true);
      // Only the columns of this element and the ones before it can be non-zero (parents come
      // first): a rank-3 update of M's lower triangle there.
      const int used = (int(q) + 1) * k;
      sys.mass.topLeftCorner(used, used)
          .selfadjointView<Eigen::Lower>()
          .rankUpdate(jp.leftCols(used).transpose(), weight * rod.linear_density);
      sys.forces.head(used) +=
          weight * jp.leftCols(used).transpose() * (f - rod.linear_density * acc);
    }
    // The end: its force, and what the children start from.
    point_terms(length, jp, acc, velocity, tangent, e);
    sys.forces += jp.transpose() * end_force(rod, int(q));
    MatX jr = j_rotation[q];
    jr.middleCols(int(q) * k, k) += active_columns(rod, s.frame * e.Psi);
    sys.forces += jr.transpose() * end_moment(rod, int(q));
    const Vec3 alpha_end =
        alpha0[q] + s.angular_velocity.cross(s.frame * (e.Psi * rate)) + s.frame * e.psi2;
    for (std::size_t c = q + 1; c < count; ++c)
      if (rod.elements[c].parent == int(q)) {
        j_point[c] = jp, j_rotation[c] = jr;
        a0[c] = acc, alpha0[c] = alpha_end;
      }
  }
  sys.mass = sys.mass.selfadjointView<Eigen::Lower>();
  return sys;
}

// --- The rod's linear maps ----------------------------------------------------------------------

MatX force_rate_jacobian(const SuperHelix& rod, double t) {
  const VecX qdot = rates(rod);
  SuperHelix probe = rod;
  // B is of degree 2 in q̇: a central difference is exact at any step; one of the rates' size
  // keeps the round-off relative to them.
  return reference::rate_jacobian(qdot, std::max(1.0, qdot.cwiseAbs().maxCoeff()),
                                  [&](const VecX& r) {
                                    set_rates(probe, r);
                                    return VecX(composite_system(probe, t).forces);
                                  });
}

namespace detail {

std::vector<ElementMap> element_maps(const SuperHelix& rod,
                                     const std::vector<ElementStart>& starts) {
  const int k = rod.coordinates_per_element();
  std::vector<ElementMap> maps(rod.elements.size());
  for (std::size_t q = 0; q < rod.elements.size(); ++q) {
    const Mat3& frame = starts[q].frame;
    const ElementPoint e = element_point(rod.curvature[q], Vec3::Zero(), rod.elements[q].length);
    maps[q].phi = shift(frame * e.p);
    maps[q].H.resize(6, k);
    maps[q].H.topRows(3) = active_columns(rod, frame * e.Psi);
    maps[q].H.bottomRows(3) = active_columns(rod, frame * e.P);
  }
  return maps;
}

RodPoint rod_point(const SuperHelix& rod, const std::vector<ElementStart>& starts, int element,
                   double u) {
  const ElementStart& s = starts[std::size_t(element)];
  const ElementPoint e = element_point(rod.curvature[std::size_t(element)], Vec3::Zero(), u);
  const Vec3 d = s.frame * e.p;
  return {element, s.point + d, point_map(d), active_columns(rod, s.frame * e.P)};
}

MatX point_jacobian(const SuperHelix& rod, const std::vector<ElementMap>& maps, const RodPoint& p) {
  const int k = rod.coordinates_per_element();
  MatX j = MatX::Zero(3, rod.coordinate_count());
  j.middleCols(p.element * k, k) = p.G;
  Mat36 through = p.X;  // the point's velocity from the spatial velocity at the current start
  for (int q = rod.elements[std::size_t(p.element)].parent; q >= 0;
       q = rod.elements[std::size_t(q)].parent) {
    const ElementMap& m = maps[std::size_t(q)];
    j.middleCols(q * k, k) = through * m.H;
    through = through * m.phi;
  }
  return j;
}

// --- The step's system, solved by either method -------------------------------------------------

StepSystem::StepSystem(const SuperHelix& rod, Method method, double h, double t,
                       bool paper_first_pass)
    : method_(method), k_(rod.coordinates_per_element()) {
  for (const Element& e : rod.elements) parent_.push_back(e.parent);
  if (rod.implicit_inertia && h > 0 && method == Method::composite)
    solve_implicit_inertia(rod, h, t);
  else if (rod.implicit_inertia && h > 0)
    solve_recursive_implicit(rod, h, t);
  else if (method == Method::composite)
    solve_composite(rod, h, t);
  else
    solve_recursive(rod, h, t, paper_first_pass);
}

void StepSystem::solve_composite(const SuperHelix& rod, double h, double t) {
  const CompositeSystem sys = composite_system(rod, t);
  const VecX k = stiffness_diagonal(rod);
  const VecX q = coordinates(rod), qdot = rates(rod);
  const VecX rest = rest_coordinates(rod);
  const double nu = rod.internal_friction;
  MatX a = sys.mass;
  a.diagonal() += (h * nu + h * h) * k;
  const VecX b = sys.forces - k.cwiseProduct(q - rest) - (nu + h) * k.cwiseProduct(qdot);
  composite_.compute(a);
  qddot_ = composite_.solve(b);
}

void StepSystem::solve_implicit_inertia(const SuperHelix& rod, double h, double t) {
  const CompositeSystem sys = composite_system(rod, t);
  const VecX k = stiffness_diagonal(rod);
  const VecX q = coordinates(rod), qdot = rates(rod);
  const double nu = rod.internal_friction;
  // B(q̇ + h q̈) ≈ B(q̇) + h ∂B/∂q̇ q̈ moved to the left.
  MatX a = sys.mass - h * super_helix::force_rate_jacobian(rod, t);
  a.diagonal() += (h * nu + h * h) * k;
  implicit_inertia_ = true;
  implicit_.compute(a);
  qddot_ = implicit_.solve(sys.forces - k.cwiseProduct(q - rest_coordinates(rod)) -
                           (nu + h) * k.cwiseProduct(qdot));
}

// --- The recursive method (§4, App. A) ----------------------------------------------------------

// What both recursions (explicit and implicit) start from: the clamp's state at t, every
// element's start and the maps of its end.
struct RecursionStart {
  RecursionStart(const SuperHelix& rod, double t)
      : root(root_state(rod, t)),
        starts(element_starts(rod, root)),
        maps(element_maps(rod, starts)) {}
  RootState root;
  std::vector<ElementStart> starts;
  std::vector<ElementMap> maps;
};

void StepSystem::solve_recursive(const SuperHelix& rod, double h, double t, bool paper_first_pass) {
  const RecursionStart start(rod, t);
  const RootState& root = start.root;
  const std::vector<ElementStart>& starts = start.starts;
  const std::vector<ElementMap>& maps = start.maps;
  const int k = k_;
  const std::size_t count = rod.elements.size();
  const Quadrature& rule = gauss_legendre(rod.quadrature);
  const double rho = rod.linear_density, nu = rod.internal_friction;
  // Cumulated inertia and bias at each element's end (its children's, summed: §5) and start.
  std::vector<Mat6> inertia_end(count, Mat6::Zero());
  std::vector<Vec6> bias_end(count, Vec6::Zero());
  std::vector<VecX> u_second(count);  // the right-hand side u of each element's second pass
  std::vector<Vec6> c_end(count);
  systems_.assign(count, {});
  for (std::size_t q = count; q-- > 0;) {
    const ElementStart& s = starts[q];
    const Vec3& kappa = rod.curvature[q];
    const Vec3& rate = rod.curvature_rate[q];
    const double length = rod.elements[q].length;
    ElementSystem& es = systems_[q];
    es.map = maps[q];
    MatX D = MatX::Zero(k, k);
    es.U = MatX::Zero(k, 6);
    VecX u = VecX::Zero(k);
    Mat6 inertia = Mat6::Zero();
    Vec6 bias = Vec6::Zero();
    const Vec3 w = s.angular_velocity;
    // Its own mass: r̈ = X A + G q̈ + c at each quadrature point (eqs. 3a, 15).
    for (std::size_t g = 0; g < rule.nodes.size(); ++g) {
      const double at = rule.nodes[g] * length, weight = rule.weights[g] * length;
      const ElementPoint e = element_point(kappa, rate, at);
      const Vec3 d = s.frame * e.p;
      const MatX G = active_columns(rod, s.frame * e.P);
      const Mat36 X = point_map(d);
      const Vec3 c = w.cross(w.cross(d)) + 2 * w.cross(s.frame * (e.P * rate)) + s.frame * e.p2;
      const Vec3 velocity = s.velocity + w.cross(d) + s.frame * (e.P * rate);
      const Vec3 f = applied_force(rod, s.point + d, velocity, s.frame * e.E.col(0), t, false);
      D += weight * rho * G.transpose() * G;
      es.U += weight * rho * G.transpose() * X;
      u += weight * G.transpose() * (f - rho * c);
      inertia += weight * rho * X.transpose() * X;
      bias += weight * X.transpose() * (rho * c - f);
    }
    // Its descendants, through its end (the internal force T_Q(ℓ_Q), App. A, eq. 14; §5).
    const ElementPoint e = element_point(kappa, rate, length);
    const Vec3 d_end = s.frame * e.p;
    const Mat6& phi = es.map.phi;
    const MatX& H = es.map.H;
    c_end[q].head<3>() = w.cross(s.frame * (e.Psi * rate)) + s.frame * e.psi2;
    c_end[q].tail<3>() =
        w.cross(w.cross(d_end)) + 2 * w.cross(s.frame * (e.P * rate)) + s.frame * e.p2;
    Vec6 end_bias = bias_end[q];
    end_bias.head<3>() -= end_moment(rod, int(q));
    end_bias.tail<3>() -= end_force(rod, int(q));
    const Mat6& ie = inertia_end[q];
    const Vec6 transmitted = ie * c_end[q] + end_bias;
    D += H.transpose() * ie * H;
    es.U += H.transpose() * ie * phi;
    u -= H.transpose() * transmitted;
    inertia += phi.transpose() * ie * phi;
    bias += phi.transpose() * transmitted;
    // Elasticity and internal friction, K (κ − κ⁰) + ν K κ̇, with the semi-implicit terms
    // h ν K + h² K (and h K κ̇) in D and u unless the paper's explicit first pass is asked.
    const VecX stiff = element_stiffness(rod, int(q));
    const VecX qq = active(rod, kappa), rest = active(rod, rod.elements[q].rest_curvature),
               qdot = active(rod, rate);
    u -= stiff.cwiseProduct(qq - rest) + nu * stiff.cwiseProduct(qdot);
    MatX D_second = D;
    u_second[q] = u;
    D_second.diagonal() += (h * nu + h * h) * stiff;
    u_second[q] -= h * stiff.cwiseProduct(qdot);
    if (!paper_first_pass) D = D_second, u = u_second[q];
    // q̈_Q = D⁻¹ (u − U A): the cumulated inertia and bias at the start (eq. 16). With the paper's
    // explicit first pass, the second pass solves each element semi-implicitly (§4.3).
    es.first.compute(D);
    es.second.compute(D_second);
    es.L = es.U.transpose();
    es.ahead = es.map;
    inertia -= es.U.transpose() * es.first.solve(es.U);
    bias += es.U.transpose() * es.first.solve(u);
    const int parent = rod.elements[q].parent;
    if (parent >= 0) {
      inertia_end[std::size_t(parent)] += inertia;
      bias_end[std::size_t(parent)] += bias;
    }
  }
  // Second pass, root to tip: A at the root with gravity folded in (a − g, §4.6).
  Vec6 root_acceleration;
  root_acceleration << root.angular_acceleration, root.acceleration - rod.gravity;
  second_pass(root_acceleration, u_second, c_end);
}

void StepSystem::second_pass(const Vec6& root_acceleration, const std::vector<VecX>& u,
                             const std::vector<Vec6>& c_end) {
  const std::size_t count = systems_.size();
  qddot_.resize(Eigen::Index(count) * k_);
  std::vector<Vec6> start_acceleration(count);
  for (std::size_t q = 0; q < count; ++q) {
    const Vec6& a = parent_[q] < 0 ? root_acceleration : start_acceleration[q];
    const ElementSystem& es = systems_[q];
    const VecX x = es.solve_second(u[q] - es.U * a);
    qddot_.segment(int(q) * k_, k_) = x;
    const Vec6 a_end = es.ahead.phi * a + es.ahead.H * x + c_end[q];
    for (std::size_t c = q + 1; c < count; ++c)
      if (parent_[c] == int(q)) start_acceleration[c] = a_end;
  }
}

// The recursion with the velocity-product terms implicit at first order (the composite
// implicit step's system, solved in O(N)). Each point's velocity-product acceleration c and the
// applied force f depend on the element start's spatial velocity V_Q = (ω_Q, v_Q) and on q̇_Q;
// over the step V_Q changes by h (A_Q − A⁰_Q) (A⁰_Q: the start's acceleration with every q̈ = 0)
// and q̇_Q by h q̈_Q, so ρ r̈ − f ≈ MX A_Q + MG q̈_Q + m0 with
//   MX = ρX + h(ρ ∂c/∂V − ∂f/∂V),  MG = ρG + h(ρ ∂c/∂q̇ − ∂f/∂q̇),  m0 = ρc − f − (MX − ρX) A⁰_Q,
// and the end's acceleration Φ' A_Q + H' q̈_Q + c'_end likewise. The element's equations are then
// projected by the unchanged Gᵀ, Xᵀ, Hᵀ, Φᵀ (virtual work), which makes D and the cumulated
// inertias non-symmetric. ∂c/∂q̇ by central differences of c (exact: degree 2), ∂c/∂ω by hand.
void StepSystem::solve_recursive_implicit(const SuperHelix& rod, double h, double t) {
  const RecursionStart start(rod, t);
  const RootState& root = start.root;
  const std::vector<ElementStart>& starts = start.starts;
  const std::vector<ElementMap>& maps = start.maps;
  const int k = k_;
  const std::size_t count = rod.elements.size();
  const Quadrature& rule = gauss_legendre(rod.quadrature);
  const double rho = rod.linear_density, nu = rod.internal_friction;
  // The velocity-product part of an acceleration at offset d (and of the end's angular one) for
  // start angular velocity w and rates r: ω×(ω×d) + 2ω×(R P r) + R p2(r), ω×(R Ψ r) + R ψ2(r).
  auto velocity_terms = [&](std::size_t q, const Vec3& w, const Vec3& r, double at) -> Vec6 {
    const ElementStart& s = starts[q];
    const ElementPoint e = element_point(rod.curvature[q], r, at);
    const Vec3 d = s.frame * e.p;
    Vec6 c;
    c.head<3>() = w.cross(s.frame * (e.Psi * r)) + s.frame * e.psi2;
    c.tail<3>() = w.cross(w.cross(d)) + 2 * w.cross(s.frame * (e.P * r)) + s.frame * e.p2;
    return c;
  };
  // Their derivatives: 6 x 6 in V = (ω, v) (v does not enter) and 6 x k in the active rates.
  auto velocity_term_rates = [&](std::size_t q, double at, Eigen::Matrix<double, 6, 6>& dv,
                                 MatX& dk) {
    const Vec3& w = starts[q].angular_velocity;
    const Vec3& r = rod.curvature_rate[q];
    const double step = std::max(1.0, w.norm() + r.norm());  // any step: exact for degree 2
    dv.setZero();
    for (int i = 0; i < 3; ++i) {
      Vec3 delta = Vec3::Zero();
      delta(i) = step;
      dv.col(i) =
          (velocity_terms(q, w + delta, r, at) - velocity_terms(q, w - delta, r, at)) / (2 * step);
    }
    dk.resize(6, k);
    for (int j = 0; j < k; ++j) {
      Vec3 delta = Vec3::Zero();
      delta(rod.component(j)) = step;
      dk.col(j) =
          (velocity_terms(q, w, r + delta, at) - velocity_terms(q, w, r - delta, at)) / (2 * step);
    }
  };
  // A⁰: the starts' accelerations with every q̈ = 0, gravity folded in (a − g, §4.6).
  Vec6 root_acceleration;
  root_acceleration << root.angular_acceleration, root.acceleration - rod.gravity;
  std::vector<Vec6> c_end(count), rest_acceleration(count);
  for (std::size_t q = 0; q < count; ++q) {
    const int parent = rod.elements[q].parent;
    c_end[q] = velocity_terms(q, starts[q].angular_velocity, rod.curvature_rate[q],
                              rod.elements[q].length);
    rest_acceleration[q] =
        parent < 0 ? root_acceleration
                   : Vec6(maps[std::size_t(parent)].phi * rest_acceleration[std::size_t(parent)] +
                          c_end[std::size_t(parent)]);
  }
  std::vector<Mat6> inertia_end(count, Mat6::Zero());
  std::vector<Vec6> bias_end(count, Vec6::Zero()), c_ahead(count);
  std::vector<VecX> u_of(count);
  systems_.assign(count, {});
  Eigen::Matrix<double, 6, 6> dv;
  MatX dk;
  for (std::size_t q = count; q-- > 0;) {
    const ElementStart& s = starts[q];
    const Vec3& rate = rod.curvature_rate[q];
    const double length = rod.elements[q].length;
    const Vec6& a0 = rest_acceleration[q];
    ElementSystem& es = systems_[q];
    es.map = maps[q];
    es.is_implicit = true;
    MatX D = MatX::Zero(k, k);
    es.U = MatX::Zero(k, 6);
    es.L = MatX::Zero(6, k);
    VecX u = VecX::Zero(k);
    Mat6 inertia = Mat6::Zero();
    Vec6 bias = Vec6::Zero();
    for (std::size_t g = 0; g < rule.nodes.size(); ++g) {
      const double at = rule.nodes[g] * length, weight = rule.weights[g] * length;
      const ElementPoint e = element_point(rod.curvature[q], rate, at);
      const Vec3 d = s.frame * e.p;
      const MatX G = active_columns(rod, s.frame * e.P);
      const Mat36 X = point_map(d);
      const Vec3 c = velocity_terms(q, s.angular_velocity, rate, at).tail<3>();
      const Vec3 velocity = s.velocity + s.angular_velocity.cross(d) + s.frame * (e.P * rate);
      const Vec3 tangent = s.frame * e.E.col(0);
      const Vec3 f = applied_force(rod, s.point + d, velocity, tangent, t, false);
      const Mat3 resist = velocity_resistance(rod, tangent);
      velocity_term_rates(q, at, dv, dk);
      const Mat36 MX = rho * X + h * (rho * dv.bottomRows<3>() + resist * X);
      const MatX MG = rho * G + h * (rho * dk.bottomRows(3) + resist * G);
      const Vec3 m0 = rho * c - f - (MX - rho * X) * a0;
      D += weight * G.transpose() * MG;
      es.U += weight * G.transpose() * MX;
      es.L += weight * X.transpose() * MG;
      u -= weight * G.transpose() * m0;
      inertia += weight * X.transpose() * MX;
      bias += weight * X.transpose() * m0;
    }
    // The end: A_end = Φ' A + H' q̈ + c'_end; its descendants' wrench I_end A_end + z_end.
    velocity_term_rates(q, length, dv, dk);
    es.ahead.phi = es.map.phi + h * dv;
    es.ahead.H = es.map.H + h * dk;
    c_ahead[q] = c_end[q] - h * dv * a0;
    Vec6 end_bias = bias_end[q];
    end_bias.head<3>() -= end_moment(rod, int(q));
    end_bias.tail<3>() -= end_force(rod, int(q));
    const Mat6& ie = inertia_end[q];
    const Vec6 transmitted = ie * c_ahead[q] + end_bias;
    D += es.map.H.transpose() * ie * es.ahead.H;
    es.U += es.map.H.transpose() * ie * es.ahead.phi;
    es.L += es.map.phi.transpose() * ie * es.ahead.H;
    u -= es.map.H.transpose() * transmitted;
    inertia += es.map.phi.transpose() * ie * es.ahead.phi;
    bias += es.map.phi.transpose() * transmitted;
    // Elasticity and internal friction, semi-implicit as in the explicit recursion.
    const VecX stiff = element_stiffness(rod, int(q));
    const VecX qq = active(rod, rod.curvature[q]),
               rest = active(rod, rod.elements[q].rest_curvature), qdot = active(rod, rate);
    u -= stiff.cwiseProduct(qq - rest) + (nu + h) * stiff.cwiseProduct(qdot);
    D.diagonal() += (h * nu + h * h) * stiff;
    es.implicit.compute(D);
    u_of[q] = u;
    inertia -= es.L * es.implicit.solve(es.U);
    bias += es.L * es.implicit.solve(u);
    const int parent = rod.elements[q].parent;
    if (parent >= 0) {
      inertia_end[std::size_t(parent)] += inertia;
      bias_end[std::size_t(parent)] += bias;
    }
  }
  second_pass(root_acceleration, u_of, c_ahead);
}

MatX StepSystem::respond(const RodPoint& p, const MatX& jacobian, const MatX& forces) const {
  if (implicit_inertia_) return implicit_.solve(jacobian.transpose() * forces);
  if (method_ == Method::composite) return composite_.solve(jacobian.transpose() * forces);
  // The recursion's two passes with nothing but the force: no motion, no gravity, no elasticity
  // (those are in accelerations()), the clamp still. A point force f at p enters its element's
  // u as Gᵀ f and its bias as −Xᵀ f (as the applied forces per unit length do).
  const std::size_t count = systems_.size();
  MatX out(qddot_.size(), forces.cols());
  std::vector<Vec6> bias_end(count), start_acceleration(count);
  std::vector<VecX> u(count);
  for (Eigen::Index column = 0; column < forces.cols(); ++column) {
    const Vec3 f = forces.col(column);
    std::fill(bias_end.begin(), bias_end.end(), Vec6::Zero());
    for (std::size_t q = count; q-- > 0;) {
      const ElementSystem& es = systems_[q];
      u[q] = -es.map.H.transpose() * bias_end[q];
      Vec6 bias = es.map.phi.transpose() * bias_end[q];
      if (int(q) == p.element) {
        u[q] += p.G.transpose() * f;
        bias -= p.X.transpose() * f;
      }
      bias += es.L * es.solve_first(u[q]);
      if (parent_[q] >= 0) bias_end[std::size_t(parent_[q])] += bias;
    }
    for (std::size_t q = 0; q < count; ++q) {
      const ElementSystem& es = systems_[q];
      const Vec6 a = parent_[q] < 0 ? Vec6::Zero() : start_acceleration[q];
      const VecX x = es.solve_second(u[q] - es.U * a);
      out.col(column).segment(int(q) * k_, k_) = x;
      const Vec6 a_end = es.ahead.phi * a + es.ahead.H * x;
      for (std::size_t c = q + 1; c < count; ++c)
        if (parent_[c] == int(q)) start_acceleration[c] = a_end;
    }
  }
  return out;
}

}  // namespace detail

VecX accelerations(const SuperHelix& rod, Method method, double h, double t,
                   bool paper_first_pass) {
  return detail::StepSystem(rod, method, h, t, paper_first_pass).accelerations();
}

StepReport step(SuperHelix& rod, double dt, Method method, bool paper_first_pass) {
  const detail::StepSystem system(rod, method, dt, rod.time + dt, paper_first_pass);
  VecX qdot = rates(rod) + dt * system.accelerations();
  StepReport report;
  if (!rod.colliders.empty()) report = detail::resolve_contacts(rod, system, dt, qdot);
  const VecX q = coordinates(rod) + dt * qdot;
  if (!qdot.allFinite() || !q.allFinite())
    throw RunFailure("step",
                     "non-finite curvature or rate (t = " + std::to_string(rod.time) + " s)");
  set_rates(rod, qdot);
  set_coordinates(rod, q);
  rod.time += dt;
  return report;
}

double max_penetration(const SuperHelix& rod) {
  if (rod.colliders.empty()) return 0;
  const std::vector<ElementStart> starts = element_starts(rod, root_state(rod, rod.time));
  const Quadrature& rule = gauss_legendre(rod.quadrature);
  const reference::Obstacles obstacles(rod.obstacle_motion, rod.time);
  const kernels::RigidPose<double>* pose = obstacles.pose();
  double deepest = 0;
  for (std::size_t q = 0; q < rod.elements.size(); ++q)
    for (std::size_t g = 0; g < rule.nodes.size(); ++g) {
      const ElementPoint e =
          element_point(rod.curvature[q], Vec3::Zero(), rule.nodes[g] * rod.elements[q].length);
      const Vec3 x = starts[q].point + starts[q].frame * e.p;
      for (const kernels::Collider<double>& c : rod.colliders)
        deepest = std::max(deepest,
                           rod.contact_thickness - reference::posed_distance(c, x, pose).distance);
    }
  return deepest;
}

Energies energies(const SuperHelix& rod) {
  const std::vector<ElementStart> starts = element_starts(rod, root_state(rod, rod.time));
  const Quadrature& rule = gauss_legendre(rod.quadrature);
  Energies out;
  for (std::size_t q = 0; q < rod.elements.size(); ++q) {
    const ElementStart& s = starts[q];
    const double length = rod.elements[q].length;
    for (std::size_t g = 0; g < rule.nodes.size(); ++g) {
      const double weight = rule.weights[g] * length;
      const ElementPoint e =
          element_point(rod.curvature[q], rod.curvature_rate[q], rule.nodes[g] * length);
      const Vec3 d = s.frame * e.p;
      const Vec3 v =
          s.velocity + s.angular_velocity.cross(d) + s.frame * (e.P * rod.curvature_rate[q]);
      out.kinetic += 0.5 * weight * rod.linear_density * v.squaredNorm();
      out.gravity -= weight * rod.linear_density * rod.gravity.dot(s.point + d);
    }
    const Vec3 strain = rod.curvature[q] - rod.elements[q].rest_curvature;
    out.elastic += 0.5 * length * strain.dot(rod.stiffness.cwiseProduct(strain));
  }
  return out;
}

namespace {

// Generalized static forces Σ Jᵀ f − K (q − q⁰) at rest (gravity and end forces).
VecX static_forces(SuperHelix& rod) {
  std::fill(rod.curvature_rate.begin(), rod.curvature_rate.end(), Vec3::Zero());
  const CompositeSystem sys = composite_system(rod, rod.time);
  const VecX rest = rest_coordinates(rod);
  return sys.forces - stiffness_diagonal(rod).cwiseProduct(coordinates(rod) - rest);
}

double potential(const SuperHelix& rod) {
  const Energies e = energies(rod);
  double v = e.elastic + e.gravity;
  if (!rod.end_force.empty())
    for (std::size_t q = 0; q < rod.elements.size(); ++q)
      v -= rod.end_force[q].dot(end_point(rod, int(q), rod.time));
  return v;
}

}  // namespace

StaticReport solve_static(SuperHelix& rod, double tolerance, int max_iterations) {
  return reference::newton_statics(
      [&] { return coordinates(rod); }, [&](const VecX& q) { set_coordinates(rod, q); },
      [&] { return static_forces(rod); }, [&] { return potential(rod); },
      rod.end_moment.empty(),  // a couple at an end has no potential
      tolerance, max_iterations);
}

reference::HeldShape hold_shape(SuperHelix& rod) {
  // The loads of a still head: gravity alone (the clamp at rest where it is now).
  SuperHelix still = rod;
  still.motion = ClampMotion{};
  still.motion.center = rod.motion.center;
  const RootState root = root_state(rod, rod.time);
  still.root_point = root.point;
  still.root_frame = root.frame;
  still.wind = Vec3::Zero();
  still.gusts = {};
  still.end_force.clear();
  still.end_moment.clear();
  VecX scale(still.coordinate_count());
  const int k = still.coordinates_per_element();
  for (std::size_t e = 0; e < still.elements.size(); ++e)
    scale.segment(int(e) * k, k).setConstant(1 / still.elements[e].length);
  auto set_rest = [&](SuperHelix& r, const VecX& p) {
    for (std::size_t e = 0; e < r.elements.size(); ++e)
      for (int j = 0; j < k; ++j) r.elements[e].rest_curvature(r.component(j)) = p(int(e) * k + j);
  };
  const VecX groomed_rest = rest_coordinates(still);
  reference::HeldShape held = reference::hold_shape(groomed_rest, scale, [&](const VecX& p) {
    set_rest(still, p);
    return static_forces(still);
  });
  // Stable where it is held? (K + ∂²V_g/∂q², the same whatever the rest: the fitted shape's own.)
  set_rest(still, held.rest);
  const VecX q = coordinates(still);
  double noise = 0;
  const Eigen::MatrixXd h = reference::potential_hessian(
      q, [&](const VecX& at) { set_coordinates(still, at); }, [&] { return static_forces(still); },
      1.0, &noise);
  held.stiffness = reference::stiffness_range(h, noise);
  held.held = held.stiffness.stable();
  set_rest(rod, held.held ? held.rest : groomed_rest);
  return held;
}

}  // namespace hairsim::super_helix

namespace hairsim::super_helix {
namespace {

// Every polyline point against the rod at its arc length, all elements' κ at once (all three
// components), by Levenberg-Marquardt: the element-by-element fit lets each element's end
// tangent drift (nothing past its end constrains it), which short elements of a tight curl
// accumulate (27 mm on a 4-turn curl in 12 elements before this polish, docs).
void polish_fit(Fit& fit, const std::vector<Vec3>& points, const std::vector<double>& s) {
  SuperHelix& rod = fit.rod;
  const std::size_t count = rod.elements.size();
  const int n = 3 * int(count) + 3;  // every κ, and the root frame's rotation (its last 3)
  const double ell = rod.elements[0].length;
  const Mat3 base_frame = rod.root_frame;
  auto residual = [&](VecX& r, MatX& jac) {
    const std::vector<ElementStart> starts = element_starts(rod, root_state(rod, 0));
    r.resize(3 * int(points.size()));
    jac = MatX::Zero(r.size(), n);
    // Per element start: the Jacobians of its point and rotation in all κ (3 x n).
    MatX j_point = MatX::Zero(3, n), j_rotation = MatX::Zero(3, n);
    j_rotation.rightCols<3>().setIdentity();
    std::size_t i = 0;
    for (std::size_t q = 0; q < count; ++q) {
      const ElementStart& st = starts[q];
      for (; i < points.size() && (s[i] <= double(q + 1) * ell * (1 + 1e-12) || q + 1 == count);
           ++i) {
        const double u = std::min(std::max(s[i] - double(q) * ell, 0.0), ell);
        const ElementPoint e = element_point(rod.curvature[q], Vec3::Zero(), u);
        const Vec3 d = st.frame * e.p;
        r.segment<3>(3 * int(i)) = st.point + d - points[i];
        jac.middleRows<3>(3 * int(i)) = j_point - cross_matrix(d) * j_rotation;
        jac.block<3, 3>(3 * int(i), 3 * int(q)) += st.frame * e.P;
      }
      const ElementPoint end = element_point(rod.curvature[q], Vec3::Zero(), ell);
      const Vec3 d = st.frame * end.p;
      j_point -= cross_matrix(d) * j_rotation;
      j_point.middleCols<3>(3 * int(q)) += st.frame * end.P;
      j_rotation.middleCols<3>(3 * int(q)) += st.frame * end.Psi;
    }
  };
  VecX root_rotation = Vec3::Zero();
  auto get = [&] {
    VecX k(n);
    for (std::size_t q = 0; q < count; ++q) k.segment<3>(3 * int(q)) = rod.curvature[q];
    k.tail<3>() = root_rotation;
    return k;
  };
  auto set = [&](const VecX& k) {
    for (std::size_t q = 0; q < count; ++q) rod.curvature[q] = k.segment<3>(3 * int(q));
    root_rotation = k.tail<3>();
    const double angle = root_rotation.norm();
    rod.root_frame =
        angle > 0 ? Mat3(Eigen::AngleAxisd(angle, root_rotation / angle) * base_frame) : base_frame;
  };
  const VecX r = reference::levenberg_marquardt(get, set, residual);
  fit.max_error = 0;
  for (std::size_t i = 0; i < points.size(); ++i)
    fit.max_error = std::max(fit.max_error, r.segment<3>(3 * int(i)).norm());
  for (std::size_t q = 0; q < count; ++q) rod.elements[q].rest_curvature = rod.curvature[q];
}

}  // namespace

double longest_chain_length(const SuperHelix& rod) {
  double length = 0;
  for (const Element& e : rod.elements) length += e.length;
  return length;
}

// One level of the fit: the elements one after the other, then polished together.
Fit fit_one_level(const std::vector<Vec3>& points, int elements) {
  const std::vector<double> s = scene::smooth_arc_lengths(points);
  const double length = s.back(), ell = length / elements;
  // Root frame: the polyline's tangent at its first point and any normal (the fit's twist absorbs
  // the choice).
  const Vec3 t0 = scene::root_tangent(points);
  Vec3 n1 = t0.cross(std::abs(t0.x()) < 0.9 ? Vec3::UnitX() : Vec3::UnitY()).normalized();
  Mat3 frame;
  frame << t0, n1, t0.cross(n1);
  Fit fit{chain(elements, length, Vec3::Zero(), points[0], frame), 0};
  SuperHelix& rod = fit.rod;
  Vec3 start = points[0];
  Vec3 kappa = Vec3::Zero();
  if (points.size() >= 3) {  // the first vertex's curvature binormal, in the root frame
    const Vec3 a = points[1] - points[0], b = points[2] - points[1];
    kappa = frame.transpose() *
            (2 * a.cross(b) / (a.norm() * b.norm() + a.dot(b)) / (0.5 * (a.norm() + b.norm())));
  }
  std::size_t first = 0;
  for (int q = 0; q < elements; ++q) {
    // The polyline points over this element's span (its end included).
    std::vector<std::pair<double, Vec3>> targets;
    for (std::size_t i = first; i < points.size() && s[i] <= (q + 1) * ell * (1 + 1e-12); ++i)
      targets.emplace_back(s[i] - q * ell, points[i]);
    auto residual = [&](const Vec3& k, VecX& r, MatX& jac) {
      r.resize(3 * int(targets.size()));
      jac.resize(r.size(), 3);
      for (std::size_t i = 0; i < targets.size(); ++i) {
        const ElementPoint e = element_point(k, Vec3::Zero(), std::max(targets[i].first, 0.0));
        r.segment<3>(3 * int(i)) = start + frame * e.p - targets[i].second;
        jac.middleRows<3>(3 * int(i)) = frame * e.P;
      }
    };
    VecX r;
    MatX jac;
    double lambda = 1e-3;
    residual(kappa, r, jac);
    for (int it = 0; it < 100 && r.norm() > 1e-14 * length; ++it) {
      const MatX jtj = jac.transpose() * jac;
      MatX a = jtj;
      a.diagonal() += lambda * (jtj.diagonal().array() + 1e-12).matrix();
      const Vec3 next = kappa - a.ldlt().solve(jac.transpose() * r);
      VecX r_next;
      MatX jac_next;
      residual(next, r_next, jac_next);
      if (r_next.norm() < r.norm()) {
        kappa = next, r = r_next, jac = jac_next, lambda = std::max(lambda / 4, 1e-12);
      } else {
        lambda *= 8;
        if (lambda > 1e12) break;
      }
    }
    rod.elements[std::size_t(q)].rest_curvature = kappa;
    rod.curvature[std::size_t(q)] = kappa;
    for (std::size_t i = 0; i < targets.size(); ++i)
      fit.max_error = std::max(fit.max_error, r.segment<3>(3 * int(i)).norm());
    const ElementPoint end = element_point(kappa, Vec3::Zero(), ell);
    start += frame * end.p;
    frame = frame * end.E;
    while (first < points.size() && s[first] < (q + 1) * ell) ++first;
  }
  polish_fit(fit, points, s);
  return fit;
}

Fit fit_polyline(const std::vector<Vec3>& points, int elements) {
  if (elements <= 1) return fit_one_level(points, 1);
  // Coarse to fine: the fit with half the elements (down to one, which a helix is exactly)
  // starts this one, each element taking the κ of the coarse element holding its middle; then
  // all elements are polished together. Fitted directly, the elements of a tight curl (4 turns
  // in 12) settled in a local minimum 2e-5 m off, their mean |κ| 0.4 % low.
  const Fit coarse = fit_polyline(points, elements / 2);
  Fit fit{coarse.rod, 0};
  SuperHelix& rod = fit.rod;
  const double length = longest_chain_length(coarse.rod), ell = length / elements;
  rod.elements.clear();
  rod.curvature.clear();
  rod.curvature_rate.assign(std::size_t(elements), Vec3::Zero());
  const double coarse_ell = coarse.rod.elements[0].length;
  for (int q = 0; q < elements; ++q) {
    const std::size_t c =
        std::min(std::size_t((q + 0.5) * ell / coarse_ell), coarse.rod.elements.size() - 1);
    rod.elements.push_back({q - 1, ell, coarse.rod.curvature[c]});
    rod.curvature.push_back(coarse.rod.curvature[c]);
  }
  polish_fit(fit, points, scene::smooth_arc_lengths(points));
  return fit;
}

}  // namespace hairsim::super_helix
