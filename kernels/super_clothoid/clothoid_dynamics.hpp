#pragma once
// Super Space Clothoids (Casati & Bertails-Descoubes 2013) in the kernels: one strand's
// generalized mass matrix M(q) and forces −G − A + drag (eqs. 6-8) by the series themselves
// (§7.1), `__host__ __device__`, in the arithmetic type A. The same method as the reference
// (src/reference/super_clothoid/clothoid_dynamics.cpp, series_dynamics), written for fixed-size
// storage: the chain walked from the clamp, each element's APS pieces expanded
// (clothoid_series.hpp, expand_piece), each piece's terms integrated in pairs through the Hilbert
// matrix (∫₀ʰ a bᵀ = h Σ ãk b̃mᵀ / (k + m + 1)), the element's integrals assembled into M and the
// forces through its start's Jacobian. Generalized coordinates: the node curvatures κ̂i, 3(N + 1).
#include "common/hd.hpp"
#include "common/matrix3.hpp"
#include "common/vector3.hpp"
#include "common/wind.hpp"
#include "super_clothoid/clothoid_series.hpp"

namespace hairsim::kernels::super_clothoid {

constexpr int kMaxElements = 16;
constexpr int kMaxCoordinates = 3 * (kMaxElements + 1);
// Terms a piece's series may take: with M = 10 (double) R's terms fall below 1e-16 by ~55, the
// motion's may take more (measured up to 64); a piece whose series is still going at this count
// is summed again at half its length (expand_piece_within), and counted (`truncated`) only where
// kMaxHalvings halvings did not bring it within.
constexpr int kMaxTerms = 64;
constexpr int kMaxRulePoints = 16;

template <class A>
HS_HD Vector3<A> column(const Matrix3<A>& m, int j) {
  return {m(0, j), m(1, j), m(2, j)};
}
template <class A>
HS_HD bool is_zero(const Vector3<A>& v) {
  return v.x == A(0) && v.y == A(0) && v.z == A(0);
}

// The clamp at the time the forces are read: its frame and point, and the motion the chain
// carries from it (q̈ = 0): Ṙ = [ω]× R, R̈ = ([α]× + [ω]×²) R, ṙ, r̈.
template <class A>
struct ClampMotion {
  Matrix3<A> R, R_dot, R_ddot;
  Vector3<A> r, r_dot, r_ddot;
};

// What the forces take besides the state.
template <class A>
struct Loads {
  Vector3<A> gravity;  // m/s²
  A damping = 0;       // 1/s: −damping ρS ṙ per unit length
  A drag_normal = 0;   // N s/m²
  A drag_tangent = 0;  // N s/m²
  Vector3<A> wind;     // m/s, the mean wind (in the series)
  WindField<A> gusts;  // its travelling modes (mean zero; a quadrature on each piece)
  A time = 0;          // s, the gusts' clock
  // The rod's Gauss-Legendre rule on [0, 1] (solver.quadrature points): the gusts' on each APS
  // piece, the contacts' points on each element.
  int rule_points = 8;
  A rule_nodes[kMaxRulePoints] = {}, rule_weights[kMaxRulePoints] = {};
  A M = 10;  // APS bound λ ≤ M (eq. 14)
  // Where the series stop (expand_piece): the arithmetic's precision unless the results are stored
  // coarser (the engine: a thousandth of float's epsilon for float storage).
  A series_tolerance = series_epsilon<A>();
};

// One strand: N elements of lengths ℓi, node curvatures κ̂i and rates (N + 1 each), ρS.
template <class A>
struct StrandShape {
  int elements = 0;
  const A* length = nullptr;          // N
  const Vector3<A>* kappa = nullptr;  // N + 1
  const Vector3<A>* rate = nullptr;   // N + 1
  A rho = 0;                          // kg/m
};

// The chain's walk: the start of the current element (frame, point), its derivatives in every
// coordinate and its motion.
template <class A>
struct ChainWalk {
  Matrix3<A> R, R_dot, R_ddot;
  Vector3<A> r, r_dot, r_ddot;
  Matrix3<A> dR[kMaxCoordinates];
  Vector3<A> dr[kMaxCoordinates];
};

// An element's integrals in its own frame (p its centreline from an identity start, dc its
// derivatives in its six coordinates, f the world force density): ∫p, ∫p pᵀ, ∫dc, ∫p dcᵀ,
// ∫dc·dd; ∫f, ∫p fᵀ, ∫dc·R0ᵀf.
template <class A>
struct ElementIntegrals {
  Vector3<A> p, d[6], f;
  Matrix3<A> pp, pd[6], pf;
  A dd[6][6], df[6];
  HS_HD void clear() {
    p = f = Vector3<A>{};
    pp = pf = Matrix3<A>::zero();
    for (int c = 0; c < 6; ++c) {
      d[c] = Vector3<A>{};
      pd[c] = Matrix3<A>::zero();
      df[c] = A(0);
      for (int e = 0; e < 6; ++e) dd[c][e] = A(0);
    }
  }
};

// One piece's scaled terms (position, unit tangent, six derivatives, velocity, acceleration).
template <class A>
struct PieceTerms {
  int count = 0;
  Vector3<A> r[kMaxTerms], tangent[kMaxTerms], d[6][kMaxTerms], velocity[kMaxTerms],
      acceleration[kMaxTerms];
};

// The world force density along a piece as a series (scaled terms, N/m; up to 3 count − 2 with
// drag): gravity and the velocity-product inertia ρS (g − r̈), the damping −c ρS ṙ, and the
// air's drag −cn u − (ct − cn) k (k·u) on u = ṙ − wind, its products by Cauchy products.
template <class A>
HS_HD int force_series(const StrandShape<A>& s, const Loads<A>& loads, const ChainWalk<A>& w,
                       const PieceTerms<A>& piece, Vector3<A>* f) {
  const int n = piece.count;
  Vector3<A> velocity[kMaxTerms], tangent[kMaxTerms];
  for (int j = 0; j < n; ++j) {
    f[j] = -s.rho * (w.R_ddot * piece.r[j] + A(2) * (w.R_dot * piece.velocity[j]) +
                     w.R * piece.acceleration[j]);
    velocity[j] = w.R_dot * piece.r[j] + w.R * piece.velocity[j];
    tangent[j] = w.R * piece.tangent[j];
  }
  f[0] += s.rho * (loads.gravity - w.r_ddot);
  velocity[0] += w.r_dot;
  for (int j = 0; j < n; ++j) f[j] -= (loads.damping * s.rho) * velocity[j];
  velocity[0] -= loads.wind;
  if (loads.drag_normal == A(0) && loads.drag_tangent == A(0)) return n;
  A along[2 * kMaxTerms];
  Vector3<A> axial[3 * kMaxTerms];
  multiply_series(tangent, n, velocity, n, along,
                  [](const Vector3<A>& a, const Vector3<A>& b) { return dot(a, b); });
  multiply_series(tangent, n, along, 2 * n - 1, axial,
                  [](const Vector3<A>& a, A b) { return b * a; });
  for (int k = n; k < 3 * n - 2; ++k) f[k] = Vector3<A>{};
  for (int k = 0; k < 3 * n - 2; ++k) {
    f[k] -= (loads.drag_tangent - loads.drag_normal) * axial[k];
    if (k < n) f[k] -= loads.drag_normal * velocity[k];
  }
  return 3 * n - 2;
}

// A piece's share of an element's integrals: the pairs of series through the Hilbert matrix.
// Rows: p (0..2), then d0..d5 (3..20).
template <class A>
HS_HD void add_piece(ElementIntegrals<A>& in, const StrandShape<A>& s, const Loads<A>& loads,
                     const ChainWalk<A>& w, const PieceTerms<A>& piece, A h) {
  const int n = piece.count;
  Vector3<A> f[3 * kMaxTerms];
  const int nf = force_series(s, loads, w, piece, f);
  // X (21 x n): rows p (0..2), then d0..d5, term k in column k.
  A x[21][kMaxTerms];
  for (int k = 0; k < n; ++k)
    for (int a = 0; a < 3; ++a) {
      x[a][k] = piece.r[k][a];
      for (int c = 0; c < 6; ++c) x[3 + 3 * c + a][k] = piece.d[c][k][a];
    }
  auto row = [&](int r, int k) -> A { return x[r][k]; };
  // The Hilbert matrix's entries h / (j + 1), j = k + m: one division each, not one per product
  // (the same values, so the same sums).
  A hilbert[4 * kMaxTerms];
  for (int j = 0; j < n + nf; ++j) hilbert[j] = h / A(j + 1);
  // xh = X H (21 x n), Hkm = h / (k + m + 1), each row of X read once per term.
  A xh[21][kMaxTerms];
  for (int r = 0; r < 21; ++r) {
    for (int m = 0; m < n; ++m) xh[r][m] = A(0);
    for (int k = 0; k < n; ++k) {
      const A xk = row(r, k);
      for (int m = 0; m < n; ++m) xh[r][m] += xk * hilbert[k + m];
    }
  }
  // The force density in the element's frame, R0ᵀ f, and g_k = Σm h (R0ᵀ f̃m) / (k + m + 1), so
  // that ∫ x (R0ᵀ f)ᵀ = Σk x̃k g_kᵀ (21 x 3).
  const Matrix3<A> Rt = transpose(w.R);
  Vector3<A> local[3 * kMaxTerms];
  for (int m = 0; m < nf; ++m) local[m] = Rt * f[m];
  Vector3<A> g[kMaxTerms];
  for (int k = 0; k < n; ++k) {
    Vector3<A> sum{};
    for (int m = 0; m < nf; ++m) sum += hilbert[k + m] * local[m];
    g[k] = sum;
  }
  A with_force[21][3];
  for (int r = 0; r < 21; ++r)
    for (int c = 0; c < 3; ++c) {
      A sum = A(0);
      for (int k = 0; k < n; ++k) sum += row(r, k) * g[k][c];
      with_force[r][c] = sum;
    }
  Vector3<A> f_integral{};
  for (int m = 0; m < nf; ++m) f_integral += hilbert[m] * local[m];
  in.f += w.R * f_integral;
  // ∫ x xᵀ where needed: p pᵀ, p dcᵀ, dc·dd.
  auto gram = [&](int a, int b) {
    A sum = A(0);
    for (int m = 0; m < n; ++m) sum += xh[a][m] * row(b, m);
    return sum;
  };
  for (int a = 0; a < 3; ++a) {
    in.p[a] += xh[a][0];
    for (int b = 0; b < 3; ++b) {
      in.pp(a, b) += gram(a, b);
      // ∫ p fᵀ (world f) = ∫ p (R0ᵀ f)ᵀ R0ᵀ.
      A pf = A(0);
      for (int c = 0; c < 3; ++c) pf += with_force[a][c] * w.R(b, c);
      in.pf(a, b) += pf;
    }
  }
  for (int c = 0; c < 6; ++c) {
    for (int a = 0; a < 3; ++a) {
      in.d[c][a] += xh[3 + 3 * c + a][0];
      for (int b = 0; b < 3; ++b) in.pd[c](a, b) += gram(a, 3 + 3 * c + b);
    }
    for (int a = 0; a < 3; ++a) in.df[c] += with_force[3 + 3 * c + a][a];
    for (int e = 0; e <= c; ++e) {
      A trace = A(0);
      for (int a = 0; a < 3; ++a) trace += gram(3 + 3 * c + a, 3 + 3 * e + a);
      in.dd[c][e] += trace;
    }
  }
}

// The gusts' drag D(k) w(x, t) on a piece by Gauss-Legendre at `loads.rule_points` points (the
// wind field is no polynomial along the rod), the series summed there: Σ ṽn τⁿ.
template <class A>
HS_HD void add_gusts(ElementIntegrals<A>& in, const Loads<A>& loads, const ChainWalk<A>& w,
                     const PieceTerms<A>& piece, A h) {
  if (loads.gusts.modes == 0 || (loads.drag_normal == A(0) && loads.drag_tangent == A(0))) return;
  auto at = [&](const Vector3<A>* terms, A tau) {
    Vector3<A> sum{};
    for (int k = piece.count; k-- > 0;) sum = tau * sum + terms[k];
    return sum;
  };
  const Matrix3<A> Rt = transpose(w.R);
  for (int g = 0; g < loads.rule_points; ++g) {
    const A tau = loads.rule_nodes[g], weight = loads.rule_weights[g] * h;
    const Vector3<A> p = at(piece.r, tau);
    Vector3<A> k = w.R * at(piece.tangent, tau);
    k = (A(1) / std::sqrt(dot(k, k))) * k;
    const Vector3<A> wind = loads.gusts.at(w.r + w.R * p, loads.time);
    const Vector3<A> f =
        loads.drag_normal * wind + ((loads.drag_tangent - loads.drag_normal) * dot(k, wind)) * k;
    in.f += weight * f;
    in.pf += weight * outer(p, f);
    const Vector3<A> local = Rt * f;
    for (int c = 0; c < 6; ++c) in.df[c] += weight * dot(at(piece.d[c], tau), local);
  }
}

// Element i's share of M (n x n, row-major, `stride` per row) and of the forces from its
// integrals, through its start's Jacobian: J(s) = U + Σj pj(s) Vj + R0 D(s) S.
template <class A>
HS_HD void assemble(A* mass, int stride, A* forces, const ElementIntegrals<A>& in,
                    const ChainWalk<A>& w, A length, A rho, int i) {
  const int m = 3 * i + 3;  // the coordinates that move the element's start
  for (int a = 0; a < m; ++a) {
    const Vector3<A> Ua = w.dr[a];
    const Vector3<A> Va[3] = {column(w.dR[a], 0), column(w.dR[a], 1), column(w.dR[a], 2)};
    // Forces: Uᵀ ∫f + Σj Vjᵀ ∫pj f.
    A force = dot(Ua, in.f);
    for (int j = 0; j < 3; ++j)
      force += dot(Va[j], Vector3<A>{in.pf(j, 0), in.pf(j, 1), in.pf(j, 2)});
    forces[a] += force;
    for (int b = 0; b <= a; ++b) {
      const Vector3<A> Ub = w.dr[b];
      const Vector3<A> Vb[3] = {column(w.dR[b], 0), column(w.dR[b], 1), column(w.dR[b], 2)};
      A sum = length * dot(Ua, Ub);
      for (int j = 0; j < 3; ++j) {
        sum += in.p[j] * (dot(Ua, Vb[j]) + dot(Va[j], Ub));
        for (int k = 0; k < 3; ++k) sum += in.pp(j, k) * dot(Va[j], Vb[k]);
      }
      mass[a * stride + b] += rho * sum;
      if (b != a) mass[b * stride + a] += rho * sum;
    }
  }
  // The element's own columns: ∫ J_qᵀ R0 dc = u_q·R0 ∫dc + Σj V_j,q·R0 ∫pj dc.
  for (int c = 0; c < 6; ++c) {
    const int col = 3 * i + c;
    const Vector3<A> Rd = w.R * in.d[c];
    Vector3<A> Rpd[3];
    for (int j = 0; j < 3; ++j)
      Rpd[j] = w.R * Vector3<A>{in.pd[c](j, 0), in.pd[c](j, 1), in.pd[c](j, 2)};
    for (int a = 0; a < m; ++a) {
      A cross = dot(w.dr[a], Rd);
      for (int j = 0; j < 3; ++j) cross += dot(column(w.dR[a], j), Rpd[j]);
      mass[a * stride + col] += rho * cross;
      mass[col * stride + a] += rho * cross;
    }
    for (int e = 0; e < 6; ++e)
      mass[col * stride + 3 * i + e] += rho * (e <= c ? in.dd[c][e] : in.dd[e][c]);
    forces[col] += in.df[c];
  }
}

// The walk at the clamp: its frame, point and motion, no derivative yet in any of the n
// coordinates.
template <class A>
HS_HD void start_walk(ChainWalk<A>& w, const ClampMotion<A>& clamp, int n) {
  for (int a = 0; a < n; ++a) w.dR[a] = Matrix3<A>::zero(), w.dr[a] = Vector3<A>{};
  w.R = clamp.R, w.R_dot = clamp.R_dot, w.R_ddot = clamp.R_ddot;
  w.r = clamp.r, w.r_dot = clamp.r_dot, w.r_ddot = clamp.r_ddot;
}

// Past element i, whose local state at its end is x (from an identity start): the start's
// derivatives and motion composed (R = R0 E, r = r0 + R0 p; Ṙ = Ṙ0 E + R0 Ė, ...).
template <class A>
HS_HD void advance(ChainWalk<A>& w, const ClothoidState<A, 6>& x, int i) {
  const int n = 3 * i + 3;
  for (int a = 0; a < n; ++a) {
    w.dr[a] = w.dr[a] + w.dR[a] * x.frame.r;
    w.dR[a] = w.dR[a] * x.frame.R;
  }
  for (int c = 0; c < 6; ++c) {
    w.dr[3 * i + c] += w.R * x.tangent[c].r;
    w.dR[3 * i + c] += w.R * x.tangent[c].R;
  }
  const Matrix3<A> R_dot = w.R_dot * x.frame.R + w.R * x.velocity.R;
  const Matrix3<A> R_ddot =
      w.R_ddot * x.frame.R + A(2) * (w.R_dot * x.velocity.R) + w.R * x.acceleration.R;
  w.r_dot = w.r_dot + w.R_dot * x.frame.r + w.R * x.velocity.r;
  w.r_ddot =
      w.r_ddot + w.R_ddot * x.frame.r + A(2) * (w.R_dot * x.velocity.r) + w.R * x.acceleration.r;
  w.r = w.r + w.R * x.frame.r;
  w.R = w.R * x.frame.R;
  w.R_dot = R_dot, w.R_ddot = R_ddot;
}

// How a dynamics evaluation went: the most APS pieces an element took, the longest series,
// whether one was cut at kMaxTerms (after kMaxHalvings halvings of its piece), and whether an
// element needed more than kMaxPieces pieces (`diverged`: then M and the forces are not valid).
struct SeriesReport {
  int most_pieces = 0, most_terms = 0;
  bool truncated = false, diverged = false;
};

// Whether every element of a strand fits in kMaxPieces APS pieces (and is finite): the check
// before any walk along it, so that a diverged state fails in microseconds instead of summing
// thousands of pieces an element.
template <class A>
HS_HD bool pieces_within_cap(int elements, const A* length, const Vector3<A>* kappa, A M) {
  for (int i = 0; i < elements; ++i) {
    const Vector3<A> gamma = (A(1) / length[i]) * (kappa[i + 1] - kappa[i]);
    if (aps_pieces(kappa[i], gamma, length[i], M, kMaxPieces) > kMaxPieces) return false;
  }
  return true;
}

// M (n x n, n = 3 (N + 1), row-major with `stride` per row) and the generalized forces of one
// strand from its clamp's motion, all by series (the reference's series_dynamics). `mass` and
// `forces` are overwritten. `walk` and `piece`: the caller's scratch (large: keep them off a GPU
// thread's registers).
template <class A>
HS_HD SeriesReport series_dynamics(const StrandShape<A>& s, const ClampMotion<A>& clamp,
                                   const Loads<A>& loads, A* mass, int stride, A* forces,
                                   ChainWalk<A>& w, PieceTerms<A>& piece) {
  const int n = 3 * (s.elements + 1);
  for (int a = 0; a < n; ++a) {
    forces[a] = A(0);
    for (int b = 0; b < n; ++b) mass[a * stride + b] = A(0);
  }
  SeriesReport report;
  if (!pieces_within_cap(s.elements, s.length, s.kappa, loads.M)) {
    report.diverged = true;
    return report;
  }
  start_walk(w, clamp, n);
  ElementIntegrals<A> in;
  for (int i = 0; i < s.elements; ++i) {
    const A ell = s.length[i];
    const Vector3<A> ka = s.kappa[i], kb = s.kappa[i + 1];
    const Vector3<A> gamma = (A(1) / ell) * (kb - ka);
    const Vector3<A> rate_a = s.rate[i], rate_slope = (A(1) / ell) * (s.rate[i + 1] - rate_a);
    const bool moving = !is_zero(rate_a) || !is_zero(s.rate[i + 1]);
    ClothoidState<A, 6> x = start_state<A, 6>();
    in.clear();
    A sigma = A(0);
    int pieces = 0;
    // At most kMaxPieces pieces (checked above; the bound only guards the loop).
    for (; sigma < ell && pieces < kMaxPieces; ++pieces) {
      const PieceCurvature<A, 6> k = piece_curvature<6>(ka, gamma, rate_a, rate_slope, ell, sigma);
      const A reach = subinterval_length(k.kappa0, gamma, loads.M);
      A h = sigma + reach < ell ? reach : ell - sigma;
      auto record = [&](int t, const Vector3<A>& r, const Vector3<A>& tangent,
                        const Vector3<A>(&d)[6], const Vector3<A>& velocity,
                        const Vector3<A>& acceleration) {
        piece.r[t] = r, piece.tangent[t] = tangent;
        piece.velocity[t] = velocity, piece.acceleration[t] = acceleration;
        for (int c = 0; c < 6; ++c) piece.d[c][t] = d[c];
        piece.count = t + 1;
      };
      int terms = 0;
      const bool within = moving ? expand_piece_within<true>(x, h, k, kMaxTerms, terms, record,
                                                             loads.series_tolerance)
                                 : expand_piece_within<false>(x, h, k, kMaxTerms, terms, record,
                                                              loads.series_tolerance);
      report.most_terms = terms > report.most_terms ? terms : report.most_terms;
      report.truncated = report.truncated || !within;
      add_piece(in, s, loads, w, piece, h);
      add_gusts(in, loads, w, piece, h);
      sigma += h;
    }
    // Halved pieces past kMaxPieces: the element is not summed to its end (as a diverged one).
    if (sigma < ell) {
      report.diverged = true;
      return report;
    }
    report.most_pieces = pieces > report.most_pieces ? pieces : report.most_pieces;
    assemble(mass, stride, forces, in, w, ell, s.rho, i);
    advance(w, x, i);
  }
  return report;
}

}  // namespace hairsim::kernels::super_clothoid
