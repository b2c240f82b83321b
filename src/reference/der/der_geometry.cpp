// DER kinematics (§4.2): curvature binormal, parallel transport, Bishop and material frames,
// material curvatures, and the rest shape of a polyline.
#include <Eigen/Geometry>
#include <cmath>

#include "der/der_kinematics.hpp"
#include "hairsim/error.hpp"
#include "reference/der/der_rod.hpp"
#include "reference/eigen_bridge.hpp"

namespace hairsim::der {

Vec3 curvature_binormal(const Vec3& e_prev, const Vec3& e_next) {  // eq. (1), the kernels'
  return bridge::from_kernel(
      kernels::der::curvature_binormal(bridge::to_kernel(e_prev), bridge::to_kernel(e_next)));
}

// Rotation about b = t1 x t2 by the angle between t1 and t2 (Rodrigues with the half-angle form
// 1 / (1 + cos)): the kernels' formula (kernels/der/der_kinematics.hpp), written once.
Vec3 parallel_transport(const Vec3& u, const Vec3& t1, const Vec3& t2) {
  return bridge::from_kernel(kernels::der::parallel_transport(
      bridge::to_kernel(u), bridge::to_kernel(t1), bridge::to_kernel(t2)));
}

Vec3 any_orthogonal(const Vec3& t) {
  return t.unitOrthogonal();
}

namespace {

using bridge::from_kernel;
using bridge::to_kernel;

// Eq. (2): ω^j_i = ((κb)_i . m2^j, -(κb)_i . m1^j), the kernels' formula.
Vec2 material_curvature(const Vec3& kb, const Vec3& m1, const Vec3& m2) {
  const kernels::der::MaterialCurvature<double> w =
      kernels::der::material_curvature(to_kernel(kb), {to_kernel(m1), to_kernel(m2)});
  return {w.first, w.second};
}

}  // namespace

Frames compute_frames(const RodState& s) {
  const int n_vertices = static_cast<int>(s.x.size());
  const int n_edges = s.closed ? n_vertices : n_vertices - 1;
  auto next = [&](int i) { return i + 1 == n_vertices ? 0 : i + 1; };
  Frames f;
  f.t.resize(n_edges);
  f.u.resize(n_edges);
  f.v.resize(n_edges);
  f.m1.resize(n_edges);
  f.m2.resize(n_edges);
  f.edge_length.resize(n_edges);
  for (int j = 0; j < n_edges; ++j) {
    const Vec3 e = s.x[next(j)] - s.x[j];
    f.edge_length[j] = e.norm();
    f.t[j] = e / f.edge_length[j];
  }
  // Bishop frame: u^0 given, u^j = P_j(u^{j-1}), v^j = t^j x u^j (§4.2.2).
  f.u[0] = s.u0;
  for (int j = 1; j < n_edges; ++j) f.u[j] = parallel_transport(f.u[j - 1], f.t[j - 1], f.t[j]);
  for (int j = 0; j < n_edges; ++j) {
    f.v[j] = f.t[j].cross(f.u[j]);
    const kernels::der::MaterialFrame<double> m =  // §5, the kernels' formula
        kernels::der::material_frame(to_kernel(f.t[j]), to_kernel(f.u[j]), s.theta[j]);
    f.m1[j] = from_kernel(m.m1);
    f.m2[j] = from_kernel(m.m2);
  }
  if (s.closed) {  // one more transport, from the last edge back onto edge 0
    const Vec3 w = parallel_transport(f.u[n_edges - 1], f.t[n_edges - 1], f.t[0]);
    f.closing_holonomy = std::atan2(f.t[0].dot(f.u[0].cross(w)), f.u[0].dot(w));
  }
  f.kb.assign(n_vertices, Vec3::Zero());
  f.curvature.assign(n_vertices, {Vec2::Zero(), Vec2::Zero()});
  const int first = s.closed ? 0 : 1, end = s.closed ? n_vertices : n_vertices - 1;
  for (int i = first; i < end; ++i) {
    const int before = i == 0 ? n_edges - 1 : i - 1;  // edge before vertex i
    const int prev_vertex = i == 0 ? n_vertices - 1 : i - 1;
    f.kb[i] = curvature_binormal(s.x[i] - s.x[prev_vertex], s.x[next(i)] - s.x[i]);
    f.curvature[i][0] = material_curvature(f.kb[i], f.m1[before], f.m2[before]);
    f.curvature[i][1] = material_curvature(f.kb[i], f.m1[i], f.m2[i]);
  }
  return f;
}

RodState moved_to(const RodState& s, std::span<const Vec3> new_x) {
  RodState out = s;
  out.x.assign(new_x.begin(), new_x.end());
  const Vec3 t_old = (s.x[1] - s.x[0]).normalized();
  const Vec3 t_new = (out.x[1] - out.x[0]).normalized();
  out.u0 =
      from_kernel(kernels::der::transport_u0(to_kernel(s.u0), to_kernel(t_old), to_kernel(t_new)));
  return out;
}

RestShape rest_shape_from_polyline(std::span<const Vec3> polyline, const Vec3& u0,
                                   std::span<const Mat2> bending, double twist_modulus,
                                   bool closed) {
  const int n_vertices = static_cast<int>(polyline.size());
  const int n_edges = closed ? n_vertices : n_vertices - 1;
  if (n_vertices < (closed ? 3 : 2))
    throw Error("der rest shape",
                closed ? "a ring needs at least 3 vertices" : "a rod needs at least 2 vertices");
  if (static_cast<int>(bending.size()) != n_edges)
    throw Error("der rest shape", "one bending matrix per edge is required");
  const Vec3 t0 = (polyline[1] - polyline[0]).normalized();
  if (std::abs(u0.norm() - 1) > 1e-9 || std::abs(u0.dot(t0)) > 1e-9)
    throw Error("der rest shape", "u0 must be a unit vector orthogonal to the first edge");
  RodState rest{{polyline.begin(), polyline.end()}, std::vector<double>(n_edges, 0.0), u0, closed};
  const Frames f = compute_frames(rest);
  RestShape r;
  r.closed = closed;
  r.edge_length = f.edge_length;
  for (double l : r.edge_length)
    if (!(l > 0)) throw Error("der rest shape", "zero-length edge in the rest polyline");
  r.voronoi_length.assign(n_vertices, 0.0);
  for (int i = r.first_bending_vertex(); i < r.end_bending_vertex(); ++i)
    r.voronoi_length[i] = r.edge_length[r.edge_before(i)] + r.edge_length[i];
  r.curvature = f.curvature;
  r.bending.assign(bending.begin(), bending.end());
  r.twist_modulus = twist_modulus;
  r.twist.assign(std::size_t(n_vertices), 0.0);
  r.closing_twist = f.closing_holonomy;  // rest twist 0 at the closing vertex too
  return r;
}

}  // namespace hairsim::der
