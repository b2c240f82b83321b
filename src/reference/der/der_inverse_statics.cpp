// Sag-free rest shape of a Discrete Elastic Rod (der_dynamics.hpp, hold_shape).
#include "hairsim/error.hpp"
#include "reference/der/der_dynamics.hpp"

namespace hairsim::der {

namespace {

// The parameters' layout: per interior vertex i = 1 .. n-2, ω̄ of both slots (4) and m̄ (1);
// then a tension per free edge 1 .. n-2 (N).
constexpr int kPerVertex = 5;

void set_rest(RestShape& rest, const Eigen::VectorXd& p) {
  for (int i = 1; i + 1 < rest.vertex_count(); ++i) {
    const int at = kPerVertex * (i - 1);
    rest.curvature[std::size_t(i)][0] = p.segment<2>(at);
    rest.curvature[std::size_t(i)][1] = p.segment<2>(at + 2);
    rest.twist[std::size_t(i)] = p(at + 4);
  }
}

// The stiffness of the rod held at its current shape with rest `rest`: the Hessian of its
// potential E + V in coordinates that keep every edge's length (the inextensible rod's own,
// where the stretching's 1e8-times-stiffer modes do not bury the soft one that buckles): per free
// edge j = 1 .. n-2 its direction d_j = (t_j + a_j u_j + b_j v_j) / |·| (the groom's tangent and
// Bishop vectors) and θʲ; the vertices follow, x_{k+1} = x_k + |e_k| d_k. The gradient by the
// chain rule from eqs. (7) and (11) (the weight beyond each edge turns with it: a suffix sum),
// the Hessian by its differences. Its inertia is the equilibrium's stability (at an equilibrium
// every chart's Hessian has the same).
reference::StiffnessRange held_stiffness(const DynamicRod& rod, const RestShape& rest,
                                         const Vec3& gravity) {
  const int n = rod.rest.vertex_count(), edges = n - 1, free_edges = edges - 1;
  const Frames groom = compute_frames(rod.state);
  const TwistBoundary clamped{.first_clamped = true, .last_clamped = false, .last_torque = 0};
  RodState state = rod.state;
  std::vector<Vec3> direction(static_cast<std::size_t>(edges));  // d_j
  std::vector<Mat3> project(static_cast<std::size_t>(edges));    // (I − d dᵀ) / |t + a u + b v|
  auto set = [&](const Eigen::VectorXd& y) {
    for (int j = 1; j < edges; ++j) {
      const std::size_t e = std::size_t(j);
      const Vec3 w = groom.t[e] + y(2 * (j - 1)) * groom.u[e] + y(2 * (j - 1) + 1) * groom.v[e];
      direction[e] = w.normalized();
      project[e] = (Mat3::Identity() - direction[e] * direction[e].transpose()) / w.norm();
      state.x[e + 1] = state.x[e] + rod.rest.edge_length[e] * direction[e];
      state.theta[e] = y(2 * free_edges + j - 1);
    }
  };
  auto forces = [&] {  // −∂(E + V)/∂y
    const Frames f = compute_frames(state);
    const std::vector<Vec3> elastic = elastic_forces(state, f, rest, clamped);
    const std::vector<double> torque = theta_gradient(state, f, rest);
    Eigen::VectorXd g(3 * free_edges);
    Vec3 beyond = Vec3::Zero();  // Σ_{k>j} (elastic + weight) on the vertices past edge j
    for (int j = edges - 1; j >= 1; --j) {
      const std::size_t e = std::size_t(j);
      beyond += elastic[e + 1] + rod.mass[e + 1] * gravity;
      const Vec3 along = rod.rest.edge_length[e] * (project[e].transpose() * beyond);
      g(2 * (j - 1)) = along.dot(groom.u[e]);
      g(2 * (j - 1) + 1) = along.dot(groom.v[e]);
      g(2 * free_edges + j - 1) = -torque[e];
    }
    return g;
  };
  Eigen::VectorXd y = Eigen::VectorXd::Zero(3 * free_edges);
  for (int j = 1; j < edges; ++j) y(2 * free_edges + j - 1) = rod.state.theta[std::size_t(j)];
  double noise = 0;
  const Eigen::MatrixXd h = reference::potential_hessian(y, set, forces, 1.0, &noise);
  return reference::stiffness_range(h, noise);
}

}  // namespace

reference::HeldShape hold_shape(DynamicRod& rod, const Vec3& gravity) {
  if (rod.rest.closed) throw Error("der", "a ring has no clamped root to hang from");
  const int n = rod.rest.vertex_count(), edges = rod.rest.edge_count();
  if (n < 3) return {};
  if (rod.rest.twist.empty()) rod.rest.twist.assign(std::size_t(n), 0.0);
  const Frames f = compute_frames(rod.state);
  const TwistBoundary clamped{.first_clamped = true, .last_clamped = false, .last_torque = 0};
  double weight = 0, mean_edge = 0;
  for (int i = 0; i < n; ++i) weight += rod.mass[std::size_t(i)] * gravity.norm();
  for (int j = 0; j < edges; ++j) mean_edge += rod.rest.edge_length[std::size_t(j)] / edges;
  const int interior = n - 2, free_edges = edges - 1, tensions = kPerVertex * interior;
  Eigen::VectorXd p0(tensions + free_edges), scale(p0.size());
  for (int i = 1; i + 1 < n; ++i) {
    const int at = kPerVertex * (i - 1);
    p0.segment<2>(at) = rod.rest.curvature[std::size_t(i)][0];
    p0.segment<2>(at + 2) = rod.rest.curvature[std::size_t(i)][1];
    p0(at + 4) = rod.rest.twist[std::size_t(i)];
  }
  // ω̄ (eq. 2: κb of eq. 1 in a material frame) and m̄ are angles: their changes weigh alike;
  // the tensions are the strand's weight's size.
  scale.head(tensions).setOnes();
  p0.tail(free_edges).setZero();
  scale.tail(free_edges).setConstant(weight > 0 ? weight : 1.0);
  RestShape probe = rod.rest;
  // Residual: the force on vertices 2 .. n-1 (N), then ∂E/∂θʲ on edges 1 .. n-2 over the mean
  // edge (N, so that a least-squares remainder weighs both alike).
  auto residual = [&](const Eigen::VectorXd& p) {
    set_rest(probe, p);
    std::vector<Vec3> force = elastic_forces(rod.state, f, probe, clamped);
    for (int j = 1; j < edges; ++j) {
      const Vec3 pull = p(tensions + j - 1) * f.t[std::size_t(j)];
      force[std::size_t(j)] += pull, force[std::size_t(j + 1)] -= pull;
    }
    const std::vector<double> torque = theta_gradient(rod.state, f, probe);
    Eigen::VectorXd r(3 * (n - 2) + free_edges);
    for (int i = 2; i < n; ++i)
      r.segment<3>(3 * (i - 2)) = force[std::size_t(i)] + rod.mass[std::size_t(i)] * gravity;
    for (int j = 1; j < edges; ++j) r(3 * (n - 2) + j - 1) = torque[std::size_t(j)] / mean_edge;
    return r;
  };
  reference::HeldShape held = reference::hold_shape(p0, scale, residual);
  set_rest(probe, held.rest);
  held.stiffness = held_stiffness(rod, probe, gravity);
  held.held = held.stiffness.stable();
  set_rest(rod.rest, held.held ? held.rest : p0);
  return held;
}

}  // namespace hairsim::der
