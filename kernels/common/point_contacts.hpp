#pragma once
// Velocity-level point contacts of the reduced models' kernels (Super-Helices, Super Space
// Clothoids), as their references' (src/reference/contact_impulses.hpp): per contact point and
// collider, a normal impulse P_n ≥ 0 that keeps the point out at the step's end (its gap over
// the step, a point already inside coming out at kMaxDepenetrationSpeed), complementary, and a
// tangential pair within μ P_n that stops the slip while it can (Coulomb). Solved by projected
// Gauss-Seidel without forming the whole Delassus operator: each contact keeps its own 3 x 3
// block W (its basis' velocity change for a unit impulse along each basis direction), reads its
// velocity from the current rates and applies each impulse change to them at once; stopped on
// the references' residual (1e-6 of max(1 m/s, the largest free velocity), checked every 10
// sweeps) or at a sweep count. The model supplies a point's velocity for the current rates and
// the rates' response to a force there. Arithmetic in double (the models' kernels' choice).
#include <cmath>

#include "common/colliders.hpp"
#include "common/hd.hpp"
#include "common/matrix3.hpp"
#include "common/scalar.hpp"
#include "common/vector3.hpp"

namespace hairsim::kernels {

// A unit vector orthogonal to n (Eigen's unitOrthogonal: from the two largest components).
template <class T>
HS_HD Vector3<T> orthogonal_unit(const Vector3<T>& n) {
  const T ax = abs_of(n.x), ay = abs_of(n.y), az = abs_of(n.z);
  if (ax > az || ay > az) {
    const T s = T(1) / std::sqrt(n.x * n.x + n.y * n.y);
    return {-n.y * s, n.x * s, T(0)};
  }
  const T s = T(1) / std::sqrt(n.y * n.y + n.z * n.z);
  return {T(0), -n.z * s, n.y * s};
}

// The normal row's free term, m/s: the gap the point may close over the step h (a point
// already inside comes out at kMaxDepenetrationSpeed at most) and its drift (ContactBlock: the
// normal motion its linearised velocity leaves out, negative into the collider). The kernels' and
// the references' one formula.
HS_HD inline double normal_closing(double gap, double drift, double h) {
  return (max_of(gap, -h * kMaxDepenetrationSpeed) + drift) / h;
}

// One point and collider pair's part of the problem: the basis (rows: the outward normal, two
// tangents), the gap (m), the drift (m, below), μ, the mass the point stands for (kg; points the
// clamp holds, W_nn times it below kMinContactMobility, leave the problem), its block of W and
// its impulse.
//
// The drift: a reduced model's point is a nonlinear function of its coordinates, so over the
// step q += h q̇ it moves by x(q + h q̇) − x(q) = h J q̇ + ½ h² q̇ᵀ (∂²x/∂q²) q̇ + ..., not by the
// h J q̇ the constraint is written in. The normal part of the rest, at the step's start rates q̇₀
// (each model's add_drifts: its chain walked once more on q + h q̇₀), is added to the gap's
// closing: without it a point of a held wave turned into the head went on in by the second-order
// term, ~0.1 mm a step, while its linearised velocity came out (the soak's jumps: 1.52 mm,
// docs/models/super-helices.md "Contacts", "The drift").
struct ContactBlock {
  Matrix3<double> basis, W;
  double gap = 0, drift = 0, friction = 0, mass = 0;
  Vector3<double> impulse;
  HS_HD Vector3<double> row(int k) const { return {basis(k, 0), basis(k, 1), basis(k, 2)}; }
  // The basis' velocities for the point's velocity v against the collider: the normal's with the
  // gap and the drift over h (≥ 0 keeps it out at the step's end), the slip's two components.
  HS_HD Vector3<double> velocity(const Vector3<double>& v, double h) const {
    return {dot(row(0), v) + normal_closing(gap, drift, h), dot(row(1), v), dot(row(2), v)};
  }
};

// The basis of a contact with outward normal n: (n, t1, t2), t1 = orthogonal_unit(n), t2 = n × t1.
HS_HD inline Matrix3<double> contact_basis(const Vector3<double>& n) {
  const Vector3<double> t1 = orthogonal_unit(n), t2 = cross(n, t1);
  Matrix3<double> b;
  for (int col = 0; col < 3; ++col) b(0, col) = n[col], b(1, col) = t1[col], b(2, col) = t2[col];
  return b;
}

// The head's colliders that a point at x (world, the step's head pose in `in`) comes within
// `reach` of, the gap being its signed distance less the contact thickness: visit(k, gap, basis)
// for each, basis the contact basis of the collider's world normal there. The candidates of both
// reduced models' speculative contacts (in: their StepInput; T its storage precision).
template <class T, class Input, class Visit>
HS_HD void near_colliders(const Input& in, const Vector3<double>& x, double reach, Visit&& visit) {
  const Vector3<T> local = in.head_pose.apply_inverse(Vector3<T>{T(x.x), T(x.y), T(x.z)});
  for (int k = 0; k < in.collider_count; ++k) {
    const SignedDistance<T> sd = signed_distance(in.colliders[k], local);
    const double gap = double(sd.distance) - in.contact_thickness;
    if (!(gap < reach)) continue;
    const Vector3<T> normal = in.head_pose.rotate(sd.normal);
    visit(k, gap,
          contact_basis(Vector3<double>{double(normal.x), double(normal.y), double(normal.z)}));
  }
}

// The 2 x 2 tangential block's inverse times a 2-vector. A block the rates cannot act on
// (det ≤ 0: a point the clamp holds, or round-off of two nearly parallel tangent responses)
// gives 0: no tangential impulse change.
HS_HD inline void solve2(const Matrix3<double>& W, double b1, double b2, double& x1, double& x2) {
  const double det = W(1, 1) * W(2, 2) - W(1, 2) * W(2, 1);
  if (!(det > 0.0)) {
    x1 = x2 = 0.0;
    return;
  }
  x1 = (W(2, 2) * b1 - W(1, 2) * b2) / det;
  x2 = (W(1, 1) * b2 - W(2, 1) * b1) / det;
}

// A contact's part of the residual (m/s), as the reference's: the normal's complementarity gap
// and how far the friction impulse is from its projection, in velocities.
HS_HD inline double contact_residual(const ContactBlock& c, const Vector3<double>& v) {
  double worst = abs_of(min_of(c.impulse.x * c.W(0, 0), v.x));
  if (!(c.friction > 0.0)) return worst;
  double s1, s2;
  solve2(c.W, v.y, v.z, s1, s2);
  double t1 = c.impulse.y - s1, t2 = c.impulse.z - s2;
  const double limit = c.friction * max_of(0.0, c.impulse.x), length = std::sqrt(t1 * t1 + t2 * t2);
  if (length > limit) t1 *= limit / length, t2 *= limit / length;
  const double d1 = c.impulse.y - t1, d2 = c.impulse.z - t2;
  const double r1 = c.W(1, 1) * d1 + c.W(1, 2) * d2, r2 = c.W(2, 1) * d1 + c.W(2, 2) * d2;
  return max_of(worst, std::sqrt(r1 * r1 + r2 * r2));
}

// Projected Gauss-Seidel on m contacts (each a ContactBlock, W filled, impulse 0): `velocity(i)`
// the basis velocities of contact i for the current rates (ContactBlock::velocity of its point's
// velocity), `apply(i, f)` adds the rates' response to a world force f at contact i.
template <class Contact, class Velocity, class Apply>
HS_HD void solve_point_contacts(Contact* contacts, int m, int max_sweeps, Velocity&& velocity,
                                Apply&& apply) {
  // The stop: a residual of 1e-6 of the largest free velocity (at least 1 m/s), as the reference.
  double tolerance = 1.0;
  for (int i = 0; i < m; ++i) {
    const Vector3<double> b = velocity(i);
    tolerance = max_of(
        tolerance,
        max_of(abs_of(b.x), contacts[i].friction > 0.0 ? max_of(abs_of(b.y), abs_of(b.z)) : 0.0));
  }
  tolerance *= 1e-6;
  for (int sweep = 1; sweep <= max_sweeps; ++sweep) {
    for (int i = 0; i < m; ++i) {
      Contact& c = contacts[i];
      if (!(c.W(0, 0) > 0.0)) continue;  // a point the rates cannot move
      Vector3<double> v = velocity(i);
      const double normal = max_of(0.0, c.impulse.x - v.x / c.W(0, 0));
      if (normal != c.impulse.x) apply(i, (normal - c.impulse.x) * c.row(0));
      c.impulse.x = normal;
      if (!(c.friction > 0.0)) continue;
      v = velocity(i);
      double s1, s2;
      solve2(c.W, v.y, v.z, s1, s2);
      double p1 = c.impulse.y - s1, p2 = c.impulse.z - s2;
      const double limit = c.friction * normal, length = std::sqrt(p1 * p1 + p2 * p2);
      if (length > limit) p1 *= limit / length, p2 *= limit / length;
      apply(i, (p1 - c.impulse.y) * c.row(1) + (p2 - c.impulse.z) * c.row(2));
      c.impulse.y = p1, c.impulse.z = p2;
    }
    if (sweep % 10 != 0) continue;
    double worst = 0.0;
    for (int i = 0; i < m; ++i) worst = max_of(worst, contact_residual(contacts[i], velocity(i)));
    if (worst <= tolerance) break;
  }
}

}  // namespace hairsim::kernels
