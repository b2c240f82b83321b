// DER energies and their derivatives: bending (3), twist (§4.2.2), ∂E/∂θ (7) and its
// tridiagonal Hessian (§5.1), and ∂E/∂x at fixed θ through eqs. (9)-(11).
#include <Eigen/Geometry>

#include "der/der_kinematics.hpp"
#include "reference/der/der_rod.hpp"
#include "reference/eigen_bridge.hpp"

namespace hairsim::der {

namespace {

// J: counter-clockwise rotation by π/2 in the plane (§5.1).
const Mat2 kJ = (Mat2() << 0, -1, 1, 0).finished();

// Edge of bending slot k at vertex i: slot 0 is the edge before i, slot 1 is edge i.
int slot_edge(const RestShape& r, int i, int slot) {
  return slot == 0 ? r.edge_before(i) : i;
}

// ∇ψ_k of eq. (9) at the vertices before, at and after k: the kernels' formula.
struct HolonomyStencil {
  Vec3 before, at, after;
};
HolonomyStencil holonomy_stencil(const Frames& f, const RestShape& r, int k) {
  const kernels::der::HolonomyStencil<double> h = kernels::der::holonomy_stencil(
      bridge::to_kernel(f.kb[k]), f.edge_length[r.edge_before(k)], f.edge_length[k]);
  return {bridge::from_kernel(h.before), bridge::from_kernel(h.at), bridge::from_kernel(h.after)};
}

}  // namespace

double bending_energy(const Frames& f, const RestShape& r) {
  double energy = 0;
  for (int i = r.first_bending_vertex(); i < r.end_bending_vertex(); ++i)
    for (int k = 0; k < 2; ++k) {
      const Vec2 d = f.curvature[i][k] - r.curvature[i][k];
      energy += d.dot(r.bending[slot_edge(r, i, k)] * d) / (2 * r.voronoi_length[i]);
    }
  return energy;
}

double twist_at(const RodState& s, const Frames& f, const RestShape& r, int i) {
  const double rest = r.twist.empty() ? 0.0 : r.twist[std::size_t(i)];  // untwisted by default
  const double m = s.theta[i] - s.theta[r.edge_before(i)] - rest;
  return r.closed && i == 0 ? m - f.closing_holonomy + r.closing_twist : m;
}

double twist_energy(const RodState& s, const Frames& f, const RestShape& r) {
  // Σ β m_i² / l_i with the integrated twist m_i (§4.2.2).
  double energy = 0;
  for (int i = r.first_bending_vertex(); i < r.end_bending_vertex(); ++i) {
    const double m = twist_at(s, f, r, i);
    energy += r.twist_modulus * m * m / r.voronoi_length[i];
  }
  return energy;
}

double elastic_energy(const RodState& s, const Frames& f, const RestShape& r) {
  return bending_energy(f, r) + twist_energy(s, f, r);
}

std::vector<double> theta_gradient(const RodState& s, const Frames& f, const RestShape& r) {
  std::vector<double> g(r.edge_count(), 0.0);
  for (int i = r.first_bending_vertex(); i < r.end_bending_vertex(); ++i) {
    // Bending: ∂W_i/∂θ^j = (1/l_i) (ω^j_i)ᵀ J B^j (ω^j_i - ω̄^j_i), using ∂ω/∂θ = -J ω.
    for (int k = 0; k < 2; ++k) {
      const int j = slot_edge(r, i, k);
      const Vec2& w = f.curvature[i][k];
      g[j] += w.dot(kJ * r.bending[j] * (w - r.curvature[i][k])) / r.voronoi_length[i];
    }
    // Twist: 2β m_i / l_i towards θ^i, and its negative towards the edge before.
    const double torque = 2 * r.twist_modulus * twist_at(s, f, r, i) / r.voronoi_length[i];
    g[i] += torque;
    g[r.edge_before(i)] -= torque;
  }
  return g;
}

Tridiagonal theta_hessian(const RodState&, const Frames& f, const RestShape& r) {
  const int n_edges = r.edge_count();
  Tridiagonal h{std::vector<double>(n_edges, 0.0), std::vector<double>(n_edges, 0.0),
                std::vector<double>(n_edges, 0.0), 0.0};
  for (int i = r.first_bending_vertex(); i < r.end_bending_vertex(); ++i) {
    const double l = r.voronoi_length[i];
    for (int k = 0; k < 2; ++k) {
      const int j = slot_edge(r, i, k);
      const Vec2& w = f.curvature[i][k];
      const Mat2& b = r.bending[j];
      // ∂²W_i/∂θ^j² = (1/l_i) [ωᵀ Jᵀ B J ω - ωᵀ B (ω - ω̄)].
      h.diag[j] += (w.dot(kJ.transpose() * b * kJ * w) - w.dot(b * (w - r.curvature[i][k]))) / l;
    }
    const double c = 2 * r.twist_modulus / l;
    const int before = r.edge_before(i);
    h.diag[i] += c;
    h.diag[before] += c;
    if (before == i - 1) {
      h.lower[i] -= c;      // H(i, i-1)
      h.upper[i - 1] -= c;  // H(i-1, i)
    } else {
      h.corner -= c;  // closing vertex: H(0, n-1) = H(n-1, 0)
    }
  }
  return h;
}

// The kernels' formula (kernels/der/der_kinematics.hpp).
CurvatureBinormalJacobian curvature_binormal_jacobian(const Vec3& a, const Vec3& b,
                                                      const Vec3& kb) {
  const kernels::der::CurvatureBinormalJacobian<double> j =
      kernels::der::curvature_binormal_jacobian(bridge::to_kernel(a), bridge::to_kernel(b),
                                                bridge::to_kernel(kb));
  return {bridge::from_kernel(j.prev_edge), bridge::from_kernel(j.next_edge)};
}

std::vector<Vec3> holonomy_gradient(const Frames& f, const RestShape& r, int edge) {
  // ∇Ψ_j = Σ_{k=1..j} ∇ψ_k (eq. 10).
  std::vector<Vec3> g(f.kb.size(), Vec3::Zero());
  for (int k = 1; k <= edge; ++k) {
    const HolonomyStencil h = holonomy_stencil(f, r, k);
    g[r.vertex_before(k)] += h.before;
    g[k] += h.at;
    g[r.vertex_after(k)] += h.after;
  }
  return g;
}

std::vector<Vec3> closing_holonomy_gradient(const Frames& f, const RestShape& r) {
  // One turn around the ring: every vertex's ψ_k (eq. 9), vertex 0 included.
  std::vector<Vec3> g(f.kb.size(), Vec3::Zero());
  for (int k = 0; k < r.vertex_count(); ++k) {
    const HolonomyStencil h = holonomy_stencil(f, r, k);
    g[r.vertex_before(k)] += h.before;
    g[k] += h.at;
    g[r.vertex_after(k)] += h.after;
  }
  return g;
}

std::vector<Vec3> position_gradient(const RodState& s, const Frames& f, const RestShape& r) {
  const int n_vertices = r.vertex_count();
  const int n_edges = r.edge_count();
  std::vector<Vec3> g(n_vertices, Vec3::Zero());
  // c_j = Σ_i (1/l_i) (ω^j_i - ω̄^j_i)ᵀ B^j (-J ω^j_i): the bending part of ∂E/∂θ^j, which
  // multiplies ∇Ψ_j in eq. (11).
  std::vector<double> c(n_edges, 0.0);
  for (int i = r.first_bending_vertex(); i < r.end_bending_vertex(); ++i) {
    const int p = r.vertex_before(i), q = r.vertex_after(i);
    const Vec3 a = s.x[i] - s.x[p], b = s.x[q] - s.x[i];
    const CurvatureBinormalJacobian jac = curvature_binormal_jacobian(a, b, f.kb[i]);
    Vec3 dE_dkb = Vec3::Zero();
    for (int k = 0; k < 2; ++k) {
      const int j = slot_edge(r, i, k);
      const Vec2 bd = r.bending[j] * (f.curvature[i][k] - r.curvature[i][k]) / r.voronoi_length[i];
      // ∂ω/∂κb = [m2ᵀ; -m1ᵀ] (eq. 11, first term).
      dE_dkb += bd.x() * f.m2[j] - bd.y() * f.m1[j];
      c[j] += bd.dot(-kJ * f.curvature[i][k]);
    }
    const Vec3 ga = jac.d_prev_edge.transpose() * dE_dkb, gb = jac.d_next_edge.transpose() * dE_dkb;
    g[p] -= ga;
    g[i] += ga - gb;
    g[q] += gb;
  }
  // Σ_j c_j ∇Ψ_j = Σ_k ∇ψ_k (Σ_{j>=k} c_j): a suffix sum keeps it O(N).
  double suffix = 0;
  for (int k = n_edges - 1; k >= 1; --k) {
    suffix += c[k];
    const HolonomyStencil h = holonomy_stencil(f, r, k);
    g[r.vertex_before(k)] += suffix * h.before;
    g[k] += suffix * h.at;
    g[r.vertex_after(k)] += suffix * h.after;
  }
  // Closed rods: the closing twist m_0 depends on the centerline through -χ.
  if (r.closed) {
    const double dE_dm0 = 2 * r.twist_modulus * twist_at(s, f, r, 0) / r.voronoi_length[0];
    const std::vector<Vec3> dchi = closing_holonomy_gradient(f, r);
    for (int i = 0; i < n_vertices; ++i) g[i] -= dE_dm0 * dchi[i];
  }
  return g;
}

}  // namespace hairsim::der
