#pragma once
// One helical element's kinematics at abscissa u, in the frame of its start (Bertails 2009 §3.1;
// the reference's super_helix::element_point, src/reference/super_helix/super_helix_rod.hpp):
// for a Darboux vector κ and its rate κ̇, with w = u κ and V(w) = I + f2 [w]× + f3 [w]×²
// (helix_series.hpp),
//   E = exp([w]×) = I + f1 [w]× + f2 [w]×²     the frame;      Ψ = ∫₀ᵘ E = u V(w)
//   p = Ψ e0                                    the centreline; P = ∂p/∂κ
//   p2 = ∂²p/∂κ² [κ̇, κ̇],  psi2 = (d/dt Ψ) κ̇:   the velocity-product terms of r̈ and of α.
// `__host__ __device__`, float or double: the batched Super-Helix step's (helix_strand.hpp).
#include "common/hd.hpp"
#include "common/matrix3.hpp"
#include "common/vector3.hpp"
#include "super_helix/helix_series.hpp"

namespace hairsim::kernels::super_helix {

template <class T>
struct ElementPoint {
  Matrix3<T> E, Psi, P;
  Vector3<T> p, p2, psi2;
};

// First and second directional derivatives, along h, of V(w) x for a fixed x: d/dt and d²/dt²
// of V(w + t h) x at t = 0.
template <class T>
struct VDerivatives {
  Vector3<T> first, second;
};
template <class T>
HS_HD VDerivatives<T> v_derivatives(const Vector3<T>& w, const Vector3<T>& h, const Vector3<T>& x,
                                    const HelixSeries<T>& s) {
  const T b = s.f[2], db = s.df[2], ddb = s.ddf[2];
  const T c = s.f[3], dc = s.df[3], ddc = s.ddf[3];
  const T y1 = T(2) * dot(w, h), y2 = T(2) * dot(h, h);  // dy/dt, d²y/dt²
  const Vector3<T> g = cross(w, x), g1 = cross(h, x);    // w × x and its rate
  const Vector3<T> m = cross(w, g);                      // w × (w × x)
  const Vector3<T> m1 = cross(h, g) + cross(w, g1);      // its rate
  const Vector3<T> m2 = T(2) * cross(h, g1);             // and second rate
  VDerivatives<T> d;
  d.first = (db * y1) * g + b * g1 + (dc * y1) * m + c * m1;
  d.second = (ddb * y1 * y1 + db * y2) * g + (T(2) * db * y1) * g1 + (ddc * y1 * y1 + dc * y2) * m +
             (T(2) * dc * y1) * m1 + c * m2;
  return d;
}

template <class T>
HS_HD ElementPoint<T> element_point(const Vector3<T>& kappa, const Vector3<T>& kappa_rate, T u) {
  const Vector3<T> w = u * kappa;
  const HelixSeries<T> s = helix_series(dot(w, w));
  const Matrix3<T> wx = cross_matrix(w), wx2 = wx * wx, I = identity3<T>();
  ElementPoint<T> e;
  e.E = I + s.f[1] * wx + s.f[2] * wx2;
  e.Psi = u * (I + s.f[2] * wx + s.f[3] * wx2);
  e.p = {e.Psi(0, 0), e.Psi(1, 0), e.Psi(2, 0)};
  // p = u V(uκ) e0: ∂p/∂κ_j = u² D_{e_j}[V e0]; ∂²p [κ̇, κ̇] = u³ D²_{κ̇}[V e0];
  // (d/dt Ψ) κ̇ = u² D_{κ̇}[V x] at x = κ̇.
  const Vector3<T> e0{T(1), T(0), T(0)};
  for (int j = 0; j < 3; ++j) {
    Vector3<T> unit{T(0), T(0), T(0)};
    unit[j] = T(1);
    const Vector3<T> column = (u * u) * v_derivatives(w, unit, e0, s).first;
    for (int r = 0; r < 3; ++r) e.P(r, j) = column[r];
  }
  e.p2 = (u * u * u) * v_derivatives(w, kappa_rate, e0, s).second;
  e.psi2 = (u * u) * v_derivatives(w, kappa_rate, kappa_rate, s).first;
  return e;
}

}  // namespace hairsim::kernels::super_helix
