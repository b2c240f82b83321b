#pragma once
// Colliders for hair (sphere, capsule, ellipsoid, and triangle meshes as signed-distance grids),
// defined in head coordinates and carried by the head pose, and the contact response of one vertex:
// pushed out to the surface, its velocity relative to the collider losing the normal approach and,
// by Coulomb friction, up to μ times that much tangential speed. Host and device, float or double;
// shared by the reference and the batched kernels (geometry, not the rod model).
#include <cmath>

#include "common/hd.hpp"
#include "common/sdf_grid.hpp"
#include "common/vector3.hpp"

namespace hairsim::kernels {

enum class ColliderShape : int {
  sphere = 0,
  capsule = 1,
  ellipsoid = 2,
  mesh = 3,
  plane = 4,     // the half-space below a plane (obstacles of single-rod scenes)
  cylinder = 5,  // an infinite round cylinder
};

// Colliders per simulation (step parameters carry them by value).
inline constexpr int kMaxColliders = 8;

// How fast the reduced models' velocity-level contacts (src/reference/contact_impulses.hpp, the
// Super-Helix kernels) push out a point already inside a collider (m/s): its row asks
// g / Δt ≥ −this, not the whole depth g in one step. A point near a clamp cannot leave a
// millimetre-deep penetration in one step without unbounded rates: the Bangs groom's strands,
// fitted by helical elements within 1.2 mm of their polylines along the scalp mesh, start up to
// 1 mm inside near their roots, and diverged with the whole depth and with 0.1 and 0.01 m/s;
// 0.003 m/s runs them, and still lets a falling rod's impact (tests: 3.8e-5 m deep, the bound
// ½ Δt² v² / R = 6.3e-5 m) come back out to 1e-8 m at rest.
inline constexpr double kMaxDepenetrationSpeed = 0.003;

// ... and leave to the clamp the points it holds: a contact point whose normal mobility W_nn
// (the velocity a unit normal impulse gives it through A⁻¹) times the mass it stands for is below
// this takes no contact (a free particle's is 1; near a clamp it falls to 0). Such a point can
// barely move, so its impulse grows without bound and turns the rest of the strand: a shaken
// wavy style's strand (16 elements, 1 ms) diverged at 0.32 s with contacts within two output
// edges of its root, and runs with this floor (0.01, 0.1 and 0.3 measured alike).
inline constexpr double kMinContactMobility = 0.01;

template <class T>
struct Collider {
  ColliderShape shape = ColliderShape::sphere;
  // sphere/ellipsoid: centre; capsule: first end of the axis; plane: a point on it; cylinder: a
  // point on the axis (m, head frame)
  Vector3<T> a;
  // capsule: second end of the axis; plane: unit normal (pointing to the free side); cylinder:
  // unit axis direction
  Vector3<T> b;
  Vector3<T> radii;  // sphere/capsule/cylinder: radius in x; ellipsoid: semi-axes (m)
  T friction = 0;    // Coulomb coefficient μ
  SdfGrid<T> sdf;    // mesh: the signed distances (head frame)
};

template <class T>
struct Contact {
  bool inside = false;
  Vector3<T> surface;  // where the point goes (head frame)
  Vector3<T> normal;   // outward unit normal there
};

// Relative skin outside the surface where contacts put points (1e-12 in double, 1e-5 in float):
// far above the round-off of the frame transforms, so a point just put there tests as outside
// whatever the order of operations (the reference and the batched kernels agree on contacts).
template <class T>
HS_HD constexpr T contact_skin() {
  return sizeof(T) == sizeof(float) ? T(1e-5) : T(1e-12);
}

// The point of a round shape's axis closest to p: the centre of a sphere, the clamped
// projection on a capsule's segment, the projection on a cylinder's line.
template <class T>
HS_HD Vector3<T> closest_axis_point(const Collider<T>& c, const Vector3<T>& p) {
  if (c.shape == ColliderShape::capsule) {
    const Vector3<T> axis = c.b - c.a;
    T s = dot(p - c.a, axis) / dot(axis, axis);
    s = s < T(0) ? T(0) : (s > T(1) ? T(1) : s);
    return c.a + s * axis;
  }
  if (c.shape == ColliderShape::cylinder) return c.a + dot(p - c.a, c.b) * c.b;
  return c.a;
}

template <class T>
struct SignedDistance {
  T distance;         // to the surface, negative inside (m)
  Vector3<T> normal;  // outward unit normal of the surface at the closest point
};

// Signed distance and outward normal at any point p (inside or out): exact for the plane,
// sphere, capsule and cylinder; the sampled field for a mesh; for an ellipsoid the first-order
// estimate (F - 1) / |∇F|, F = Σ (x_k/a_k)², exact on the surface. Used by solvers that
// linearise non-penetration constraints (the Cosserat active set, App. B of Zhao et al. 2022).
template <class T>
HS_HD SignedDistance<T> signed_distance(const Collider<T>& c, const Vector3<T>& p) {
  const Vector3<T> up{T(0), T(1), T(0)};
  if (c.shape == ColliderShape::plane) return {dot(p - c.a, c.b), c.b};
  if (c.shape == ColliderShape::mesh) {
    const Vector3<T> g = c.sdf.gradient(p);
    const T length = norm(g);
    return {c.sdf.distance(p), length > T(0) ? g / length : up};
  }
  if (c.shape == ColliderShape::ellipsoid) {
    const Vector3<T> d = p - c.a;
    const Vector3<T> g{T(2) * d.x / (c.radii.x * c.radii.x), T(2) * d.y / (c.radii.y * c.radii.y),
                       T(2) * d.z / (c.radii.z * c.radii.z)};
    const T f = T(0.5) * dot(g, d), length = norm(g);  // F = ½ ∇F · d for a quadric
    return {length > T(0) ? (f - T(1)) / length : -c.radii.x, length > T(0) ? g / length : up};
  }
  const Vector3<T> d = p - closest_axis_point(c, p);
  const T r = norm(d);
  return {r - c.radii.x, r > T(0) ? d / r : up};
}

// The derivative of signed_distance(c, p).distance in p, for solvers that minimise an energy of
// it (the Cosserat kernels' penalty ½ k φ²): the normal where that distance is exact (and for a
// mesh, whose interpolated field's derivative is only estimated), and for the ellipsoid's
// estimate φ = (F - 1) / |∇F| its exact derivative ∇F/|∇F| - (F - 1) ∇²F ∇F / |∇F|³, ∇²F =
// 2 diag(1/a_k²). The normal alone is off that derivative by O(|φ|/a) relative: under a 3 rad,
// 8 Hz shake it left the Cosserat gradient 1 % off the energy's central differences on strands
// pressed into the head (docs/models/cosserat.md, "What still stops Newton at its cap").
template <class T>
HS_HD Vector3<T> distance_gradient(const Collider<T>& c, const Vector3<T>& p,
                                   const SignedDistance<T>& sd) {
  if (c.shape != ColliderShape::ellipsoid) return sd.normal;
  const Vector3<T> d = p - c.a;
  const Vector3<T> h{T(2) / (c.radii.x * c.radii.x), T(2) / (c.radii.y * c.radii.y),
                     T(2) / (c.radii.z * c.radii.z)};
  const Vector3<T> g{h.x * d.x, h.y * d.y, h.z * d.z};  // ∇F
  const T length = norm(g);
  if (!(length > T(0))) return sd.normal;
  const T excess = T(0.5) * dot(g, d) - T(1);  // F - 1 (F = ½ ∇F · d for a quadric)
  const Vector3<T> hg{h.x * g.x, h.y * g.y, h.z * g.z};
  return g / length - (excess / (length * length * length)) * hg;
}

// Contact of point p (head frame) with collider c. Sphere and capsule: the closest surface
// point. Ellipsoid: the radial projection in the ellipsoid's scaled frame (on the surface, not
// the closest point in general), normal ∇(Σ (x_k/a_k)²) normalised there. The point returned
// lies contact_skin() (relative) outside the surface.
template <class T>
HS_HD Contact<T> contact(const Collider<T>& c, const Vector3<T>& p) {
  Contact<T> k;
  if (c.shape == ColliderShape::mesh) {  // along the distance field's gradient to its zero
    const T d = c.sdf.distance(p);
    if (!(d < T(0))) return k;
    const Vector3<T> g = c.sdf.gradient(p);
    const T length = norm(g);
    if (!(length > T(0))) return k;  // deep inside, beyond the stored band: no direction
    k.inside = true;
    k.normal = g / length;
    k.surface = p + (contact_skin<T>() * c.sdf.spacing - d) * k.normal;
    return k;
  }
  if (c.shape == ColliderShape::ellipsoid) {
    const Vector3<T> d = p - c.a;
    const Vector3<T> y{d.x / c.radii.x, d.y / c.radii.y, d.z / c.radii.z};
    const T r = norm(y);
    if (!(r < T(1))) return k;
    const Vector3<T> u =
        (T(1) + contact_skin<T>()) * (r > T(0) ? y / r : Vector3<T>{T(0), T(1), T(0)});
    const Vector3<T> q{u.x * c.radii.x, u.y * c.radii.y, u.z * c.radii.z};
    const Vector3<T> g{q.x / (c.radii.x * c.radii.x), q.y / (c.radii.y * c.radii.y),
                       q.z / (c.radii.z * c.radii.z)};
    k.inside = true;
    k.surface = c.a + q;
    k.normal = g / norm(g);
    return k;
  }
  if (c.shape == ColliderShape::plane) {
    const T d = dot(p - c.a, c.b);
    if (!(d < T(0))) return k;
    k.inside = true;
    k.normal = c.b;
    k.surface = p + (contact_skin<T>() * (T(1) + norm(p)) - d) * c.b;
    return k;
  }
  const Vector3<T> center = closest_axis_point(c, p);
  const Vector3<T> d = p - center;
  const T distance = norm(d);
  if (!(distance < c.radii.x)) return k;
  k.inside = true;
  k.normal = distance > T(0) ? d / distance : Vector3<T>{T(0), T(1), T(0)};
  k.surface = center + (c.radii.x * (T(1) + contact_skin<T>())) * k.normal;
  return k;
}

// Velocity after contact (inelastic, Coulomb friction): v is the vertex's velocity as it
// penetrated and w the surface's velocity there. Relative to the surface, an approaching normal
// speed is removed and the tangential speed reduced by μ times that removed speed, to zero at
// most (sticking); a separating normal speed is kept.
template <class T>
HS_HD Vector3<T> contact_velocity(const Vector3<T>& v, const Vector3<T>& w, const Vector3<T>& n,
                                  T friction) {
  const Vector3<T> rel = v - w;
  const T vn = dot(rel, n);
  const Vector3<T> tangential = rel - vn * n;
  const T vt = norm(tangential);
  const T removed = vn < T(0) ? -vn : T(0);
  const T keep = vt > T(0) ? T(1) - friction * removed / vt : T(0);
  return w + (keep > T(0) ? keep : T(0)) * tangential + (vn > T(0) ? vn : T(0)) * n;
}

}  // namespace hairsim::kernels
