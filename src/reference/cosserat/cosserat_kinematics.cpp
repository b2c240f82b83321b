// Compact representation (§2.1): quaternions from rotation vectors, the chain of vertices, and
// the rest shape of a polyline.
#include <Eigen/Geometry>
#include <cmath>
#include <numbers>

#include "reference/cosserat/cosserat_rod.hpp"

#include "hairsim/error.hpp"

namespace hairsim::cosserat {
namespace {

// Below this angle sin(θ/2)/θ and its derivative come from their series (the closed forms
// cancel: (θ/2 cos(θ/2) - sin(θ/2)) / θ³ loses about 1e-16 / θ³ of relative accuracy).
constexpr double kSeriesAngle = 0.1;

// S(θ) = sin(θ/2) / θ = 1/2 - θ²/48 + θ⁴/3840 - θ⁶/645120 + ...
double half_sinc(double theta) {
  if (theta < kSeriesAngle) {
    const double t2 = theta * theta;
    return 0.5 - t2 / 48 + t2 * t2 / 3840 - t2 * t2 * t2 / 645120;
  }
  return std::sin(0.5 * theta) / theta;
}

// S'(θ) / θ = (θ/2 cos(θ/2) - sin(θ/2)) / θ³ = -1/24 + θ²/960 - θ⁴/107520 + θ⁶/23224320 - ...
double half_sinc_derivative_over_theta(double theta) {
  if (theta < kSeriesAngle) {
    const double t2 = theta * theta;
    return -1.0 / 24 + t2 / 960 - t2 * t2 / 107520 + t2 * t2 * t2 / 23224320;
  }
  return (0.5 * theta * std::cos(0.5 * theta) - std::sin(0.5 * theta)) / (theta * theta * theta);
}

}  // namespace

Vec4 quaternion(const Vec3& omega) {
  const double theta = omega.norm();
  Vec4 q;
  q(0) = std::cos(0.5 * theta);
  q.tail<3>() = half_sinc(theta) * omega;
  return q;
}

Mat43 quaternion_jacobian(const Vec3& omega) {
  // q_w = cos(θ/2): ∂/∂ω = -½ sin(θ/2) ωᵀ/θ = -½ S(θ) ωᵀ.
  // q_v = S(θ) ω:   ∂/∂ω = S(θ) I + (S'(θ)/θ) ω ωᵀ.
  const double theta = omega.norm();
  const double s = half_sinc(theta);
  Mat43 j;
  j.row(0) = -0.5 * s * omega.transpose();
  j.bottomRows<3>() =
      s * Mat3::Identity() + half_sinc_derivative_over_theta(theta) * omega * omega.transpose();
  return j;
}

Vec3 director(const Vec4& q) {
  const double w = q(0), x = q(1), y = q(2), z = q(3);
  return {2 * (x * z + w * y), 2 * (y * z - w * x), w * w - x * x - y * y + z * z};
}

Mat34 director_jacobian(const Vec4& q) {
  const double w = q(0), x = q(1), y = q(2), z = q(3);
  Mat34 j;
  j << 2 * y, 2 * z, 2 * w, 2 * x,   //
      -2 * x, -2 * w, 2 * z, 2 * y,  //
      2 * w, -2 * x, -2 * y, 2 * z;
  return j;
}

Mat3 frame(const Vec4& q) {
  return Eigen::Quaterniond(q(0), q(1), q(2), q(3)).toRotationMatrix();
}

Vec3 rotation_vector(const Mat3& r) {
  const Eigen::AngleAxisd a(r);
  return a.angle() * a.axis();
}

Vec3 wrapped(const Vec3& omega) {
  const double theta = omega.norm();
  if (theta <= std::numbers::pi) return omega;
  // exp(ω) = exp(ω (θ - 2π k) / θ): bring θ into [-π, π].
  const double reduced = std::remainder(theta, 2 * std::numbers::pi);
  return omega * (reduced / theta);
}

Vec3 relative_rotation(const Vec4& a, const Vec4& b_in) {
  const Vec4 b = a.dot(b_in) < 0 ? Vec4(-b_in) : b_in;
  // vec(conj(a) ⊗ b) = a_w b_v - b_w a_v - a_v × b_v.
  const Vec3 av = a.tail<3>(), bv = b.tail<3>();
  return 2 * (a(0) * bv - b(0) * av - av.cross(bv));
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
