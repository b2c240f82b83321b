// Compact representation (§2.1): quaternions from rotation vectors, the chain of vertices, and
// the rest shape of a polyline.
#include <Eigen/Geometry>
#include <cmath>

#include "cosserat/cosserat_strand.hpp"
#include "reference/cosserat/cosserat_rod.hpp"
#include "reference/eigen_bridge.hpp"

#include "hairsim/error.hpp"

namespace hairsim::cosserat {
// The rotation maps are the kernels' (kernels/cosserat/cosserat_kinematics.hpp): written once.
using bridge::from_small;
using bridge::to_small;

Vec4 quaternion(const Vec3& omega) {
  return from_small(kernels::cosserat::quaternion(to_small(omega)));
}

Mat43 quaternion_jacobian(const Vec3& omega) {
  return from_small(kernels::cosserat::quaternion_jacobian(to_small(omega)));
}

Vec3 director(const Vec4& q) {
  return from_small(kernels::cosserat::director(to_small(q)));
}

Mat34 director_jacobian(const Vec4& q) {
  return from_small(kernels::cosserat::director_jacobian(to_small(q)));
}

Mat3 frame(const Vec4& q) {
  return Eigen::Quaterniond(q(0), q(1), q(2), q(3)).toRotationMatrix();
}

Vec3 rotation_vector(const Mat3& r) {
  return from_small(kernels::cosserat::rotation_vector(to_small(r)));
}

Vec3 wrapped(const Vec3& omega) {
  return from_small(kernels::cosserat::wrapped(to_small(omega)));
}

bool spin_prediction(const Vec4& qt, const Vec3& rotation_dt, Vec3& omega) {
  kernels::cosserat::V3<double> w;
  if (!kernels::cosserat::spin_prediction(to_small(qt), to_small(rotation_dt), w)) return false;
  omega = from_small(w);
  return true;
}

// 2 vec(conj(a) ⊗ b) = 2 (a_w b_v - b_w a_v - a_v × b_v), b on a's hemisphere.
Vec3 relative_rotation(const Vec4& a, const Vec4& b) {
  return from_small(kernels::cosserat::relative_rotation(to_small(a), to_small(b)));
}

Kinematics kinematics(const VecX& s, const RestShape& rest) {
  const int segments = rest.segment_count();
  Kinematics k;
  k.q.resize(segments);
  k.dq.resize(segments);
  k.dx.resize(segments);
  k.x.resize(segments + 1);
  k.x[0] = root_of(s);
  for (int i = 0; i < segments; ++i) {
    const Vec3 omega = omega_of(s, i);
    k.q[i] = quaternion(omega);
    k.dq[i] = quaternion_jacobian(omega);
    k.x[i + 1] = k.x[i] + rest.length[i] * director(k.q[i]);  // eq. (7)
    k.dx[i] = rest.length[i] * director_jacobian(k.q[i]) * k.dq[i];
  }
  return k;
}

VecX configuration_from_polyline(std::span<const Vec3> polyline, const Vec3& first_d1) {
  const int segments = static_cast<int>(polyline.size()) - 1;
  VecX s(3 * (segments + 1));
  s.head<3>() = polyline[0];
  Vec3 t_prev = (polyline[1] - polyline[0]).normalized();
  Vec3 d1 = first_d1 - first_d1.dot(t_prev) * t_prev;
  d1 = d1.norm() > 1e-12 ? Vec3(d1.normalized()) : Vec3(t_prev.unitOrthogonal());
  for (int i = 0; i < segments; ++i) {
    const Vec3 t = (polyline[i + 1] - polyline[i]).normalized();
    // Parallel transport: the smallest rotation taking the previous tangent to this one.
    d1 = Eigen::Quaterniond::FromTwoVectors(t_prev, t) * d1;
    d1 = (d1 - d1.dot(t) * t).normalized();  // keep the frame orthonormal to round-off
    Mat3 m;
    m.col(0) = d1;
    m.col(1) = t.cross(d1);
    m.col(2) = t;
    s.segment<3>(3 + 3 * i) = rotation_vector(m);
    t_prev = t;
  }
  return s;
}

BendingStrain parse_bending_strain(const std::string& name, const std::string& where) {
  if (name == "sine") return BendingStrain::sine;
  if (name == "tangent") return BendingStrain::tangent;
  throw Error(where, "must be 'tangent' or 'sine' (got '" + name + "')");
}

const char* to_string(BendingStrain measure) {
  return measure == BendingStrain::sine ? "sine" : "tangent";
}

RestShape rest_shape(std::span<const Vec3> polyline, const VecX& s, const Vec3& stiffness,
                     const Vec3& inertia, double linear_density, BendingStrain measure) {
  const int n = static_cast<int>(polyline.size());
  RestShape r;
  r.bending_strain = measure;
  r.stiffness = stiffness;
  r.inertia = inertia;
  r.length.resize(n - 1);
  for (int i = 0; i + 1 < n; ++i) r.length[i] = (polyline[i + 1] - polyline[i]).norm();
  r.voronoi.assign(n, 0.0);
  r.mass.assign(n, 0.0);
  for (int i = 0; i + 1 < n; ++i) {
    r.mass[i] += 0.5 * linear_density * r.length[i];
    r.mass[i + 1] += 0.5 * linear_density * r.length[i];
  }
  for (int k = 1; k + 1 < n; ++k) r.voronoi[k] = 0.5 * (r.length[k - 1] + r.length[k]);
  r.darboux.assign(n, Vec3::Zero());
  const Kinematics k = kinematics(s, r);
  for (int v = 1; v + 1 < n; ++v)
    r.darboux[v] = darboux(k.q[v - 1], k.q[v], r.voronoi[v], measure).value;
  return r;
}

}  // namespace hairsim::cosserat
