// DER energies and their derivatives: bending (3), twist (§4.2.2), ∂E/∂θ (7) and its
// tridiagonal Hessian (§5.1), and ∂E/∂x at fixed θ through eqs. (9)-(11).
#include <Eigen/Geometry>

#include "reference/der/der_rod.hpp"

namespace hairsim::der {
namespace {

// J: counter-clockwise rotation by π/2 in the plane (§5.1).
const Mat2 kJ = (Mat2() << 0, -1, 1, 0).finished();

Mat3 skew(const Vec3& a) {  // [a] x = a × x
  Mat3 m;
  m << 0, -a.z(), a.y(), a.z(), 0, -a.x(), -a.y(), a.x(), 0;
  return m;
}

// Edge j of bending slot k at vertex i: slot 0 is edge i-1, slot 1 is edge i.
int slot_edge(int i, int slot) {
  return i - 1 + slot;
}

}  // namespace

double bending_energy(const Frames& f, const RestShape& r) {
  double energy = 0;
  for (int i = 1; i + 1 < r.vertex_count(); ++i)
    for (int k = 0; k < 2; ++k) {
      const Vec2 d = f.curvature[i][k] - r.curvature[i][k];
      energy += d.dot(r.bending[slot_edge(i, k)] * d) / (2 * r.voronoi_length[i]);
    }
  return energy;
}

double twist_energy(const RodState& s, const RestShape& r) {
  // Σ β m_i² / l_i with the integrated twist m_i = θ^i - θ^{i-1} (§4.2.2).
  double energy = 0;
  for (int i = 1; i + 1 < r.vertex_count(); ++i) {
    const double m = s.theta[i] - s.theta[i - 1];
    energy += r.twist_modulus * m * m / r.voronoi_length[i];
  }
  return energy;
}

double elastic_energy(const RodState& s, const Frames& f, const RestShape& r) {
  return bending_energy(f, r) + twist_energy(s, r);
}

std::vector<double> theta_gradient(const RodState& s, const Frames& f, const RestShape& r) {
  const int n_edges = r.vertex_count() - 1;
  std::vector<double> g(n_edges, 0.0);
  for (int i = 1; i < n_edges; ++i) {
    // Bending: ∂W_i/∂θ^j = (1/l_i) (ω^j_i)ᵀ J B^j (ω^j_i - ω̄^j_i), using ∂ω/∂θ = -J ω.
    for (int k = 0; k < 2; ++k) {
      const int j = slot_edge(i, k);
      const Vec2& w = f.curvature[i][k];
      g[j] += w.dot(kJ * r.bending[j] * (w - r.curvature[i][k])) / r.voronoi_length[i];
    }
    // Twist: 2β m_i / l_i towards θ^i, and its negative towards θ^{i-1}.
    const double torque = 2 * r.twist_modulus * (s.theta[i] - s.theta[i - 1]) / r.voronoi_length[i];
    g[i] += torque;
    g[i - 1] -= torque;
  }
  return g;
}

Tridiagonal theta_hessian(const RodState&, const Frames& f, const RestShape& r) {
  const int n_edges = r.vertex_count() - 1;
  Tridiagonal h{std::vector<double>(n_edges, 0.0), std::vector<double>(n_edges, 0.0),
                std::vector<double>(n_edges, 0.0)};
  for (int i = 1; i < n_edges; ++i) {
    const double l = r.voronoi_length[i];
    for (int k = 0; k < 2; ++k) {
      const int j = slot_edge(i, k);
      const Vec2& w = f.curvature[i][k];
      const Mat2& b = r.bending[j];
      // ∂²W_i/∂θ^j² = (1/l_i) [ωᵀ Jᵀ B J ω - ωᵀ B (ω - ω̄)].
      h.diag[j] += (w.dot(kJ.transpose() * b * kJ * w) - w.dot(b * (w - r.curvature[i][k]))) / l;
    }
    const double c = 2 * r.twist_modulus / l;
    h.diag[i] += c;
    h.diag[i - 1] += c;
    h.lower[i] -= c;      // H(i, i-1)
    h.upper[i - 1] -= c;  // H(i-1, i)
  }
  return h;
}

std::vector<Vec3> holonomy_gradient(const Frames& f, int edge) {
  // ∇Ψ_j = Σ_{k=1..j} ∇ψ_k (eq. 10), with eq. (9):
  //   ∇_{k-1} ψ_k = (κb)_k / (2|e^{k-1}|),  ∇_{k+1} ψ_k = -(κb)_k / (2|e^k|),
  //   ∇_k ψ_k = -(∇_{k-1} + ∇_{k+1}) ψ_k.
  std::vector<Vec3> g(f.kb.size(), Vec3::Zero());
  for (int k = 1; k <= edge; ++k) {
    const Vec3 prev = f.kb[k] / (2 * f.edge_length[k - 1]);
    const Vec3 next = -f.kb[k] / (2 * f.edge_length[k]);
    g[k - 1] += prev;
    g[k + 1] += next;
    g[k] -= prev + next;
  }
  return g;
}

std::vector<Vec3> position_gradient(const RodState& s, const Frames& f, const RestShape& r) {
  const int n_vertices = r.vertex_count();
  const int n_edges = n_vertices - 1;
  std::vector<Vec3> g(n_vertices, Vec3::Zero());
  // c_j = Σ_i (1/l_i) (ω^j_i - ω̄^j_i)ᵀ B^j (-J ω^j_i): the bending part of ∂E/∂θ^j, which
  // multiplies ∇Ψ_j in eq. (11).
  std::vector<double> c(n_edges, 0.0);
  for (int i = 1; i + 1 < n_vertices; ++i) {
    const Vec3 a = s.x[i] - s.x[i - 1], b = s.x[i + 1] - s.x[i];
    const double la = a.norm(), lb = b.norm();
    const double denom = la * lb + a.dot(b);
    const Vec3& kb = f.kb[i];
    // Exact gradient of eq. (1) with respect to the two edges (no inextensibility assumed):
    //   ∂κb/∂a = (-2[b] - κb (|b| a/|a| + b)ᵀ) / D,  ∂κb/∂b = (2[a] - κb (|a| b/|b| + a)ᵀ) / D.
    const Mat3 dkb_da = (-2 * skew(b) - kb * (lb * a / la + b).transpose()) / denom;
    const Mat3 dkb_db = (2 * skew(a) - kb * (la * b / lb + a).transpose()) / denom;
    Vec3 dE_dkb = Vec3::Zero();
    for (int k = 0; k < 2; ++k) {
      const int j = slot_edge(i, k);
      const Vec2 bd = r.bending[j] * (f.curvature[i][k] - r.curvature[i][k]) / r.voronoi_length[i];
      // ∂ω/∂κb = [m2ᵀ; -m1ᵀ] (eq. 11, first term).
      dE_dkb += bd.x() * f.m2[j] - bd.y() * f.m1[j];
      c[j] += bd.dot(-kJ * f.curvature[i][k]);
    }
    const Vec3 ga = dkb_da.transpose() * dE_dkb, gb = dkb_db.transpose() * dE_dkb;
    g[i - 1] -= ga;
    g[i] += ga - gb;
    g[i + 1] += gb;
  }
  // Σ_j c_j ∇Ψ_j = Σ_k ∇ψ_k (Σ_{j>=k} c_j): a suffix sum keeps it O(N).
  double suffix = 0;
  for (int k = n_edges - 1; k >= 1; --k) {
    suffix += c[k];
    const Vec3 prev = f.kb[k] / (2 * f.edge_length[k - 1]);
    const Vec3 next = -f.kb[k] / (2 * f.edge_length[k]);
    g[k - 1] += suffix * prev;
    g[k + 1] += suffix * next;
    g[k] -= suffix * (prev + next);
  }
  return g;
}

}  // namespace hairsim::der
