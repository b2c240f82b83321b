#pragma once
// Discrete Elastic Rods (Bergou, Wardetzky, Robinson, Audoly, Grinspun 2008), reference
// backend: double precision, Eigen, one rod at a time, written to be read next to the paper
// (../shared/papers/discrete-elastic-rods-2008*.txt). Equation numbers are the paper's.
//
// Indexing (paper §4.2): vertices x_0 .. x_{N-1}; edges e^j = x_{j+1} - x_j, j = 0 .. N-2;
// curvature, bending and twist live at the interior vertices i = 1 .. N-2, between edges i-1
// and i. Frames and the angles theta^j live on edges.
// Closed rods (rings): N edges, e^{N-1} = x_0 - x_{N-1}, and every vertex bends and twists;
// vertex 0 sits between edges N-1 and 0.
#include <Eigen/Core>
#include <Eigen/Geometry>  // cross products throughout
#include <array>
#include <span>
#include <vector>

namespace hairsim::der {

using Vec2 = Eigen::Vector2d;
using Vec3 = Eigen::Vector3d;
using Mat2 = Eigen::Matrix2d;
using Mat3 = Eigen::Matrix3d;

// Barred quantities of the undeformed rod (Algorithm 1, line 1): precomputed, then fixed.
struct RestShape {
  std::vector<double> edge_length;     // |ē^j|
  std::vector<double> voronoi_length;  // l̄_i = |ē^{i-1}| + |ē^i| (interior i; 0 elsewhere)
  std::vector<std::array<Vec2, 2>> curvature;  // ω̄^j_i, slot 0: j = i-1, slot 1: j = i (eq. 2)
  std::vector<Mat2> bending;                   // B^j, symmetric positive definite, per edge (eq. 3)
  double twist_modulus = 0;                    // β
  // m̄_i per vertex (rad): the undeformed integrated twist, so that the twist energy is
  // Σ β (m_i − m̄_i)² / l̄_i. The paper's rods are untwisted at rest (m̄ = 0, what a polyline's
  // rest shape has); a naturally twisted rod (Bergou et al. 2010, "Discrete viscous threads",
  // §4) or a groom held sag-free (where a straight stretch carries a twisting moment) has m̄ ≠ 0.
  std::vector<double> twist;
  bool closed = false;
  // Closed rods: twist added at the closing vertex 0 (rad), e.g. a ring twisted before its ends
  // were joined (Michell's instability, §9.1). The rest shape of a closed polyline sets it to
  // the rest configuration's closing holonomy, so that the polyline is at rest.
  double closing_twist = 0;

  int edge_count() const { return static_cast<int>(edge_length.size()); }
  int vertex_count() const { return closed ? edge_count() : edge_count() + 1; }
  // Vertices that carry bending and twist, and the edges and vertices around them.
  int first_bending_vertex() const { return closed ? 0 : 1; }
  int end_bending_vertex() const { return closed ? vertex_count() : vertex_count() - 1; }
  int edge_before(int i) const { return closed && i == 0 ? edge_count() - 1 : i - 1; }
  int vertex_before(int i) const { return closed && i == 0 ? vertex_count() - 1 : i - 1; }
  int vertex_after(int i) const { return closed && i == vertex_count() - 1 ? 0 : i + 1; }
};

// Dynamic state: centerline and material-frame angles relative to the Bishop frame.
struct RodState {
  std::vector<Vec3> x;        // vertex positions
  std::vector<double> theta;  // θ^j per edge
  Vec3 u0;                    // Bishop vector of edge 0, unit and orthogonal to t^0 (§4.2.2)
  bool closed = false;        // a ring: one edge per vertex
};

// Everything derived from a state: one place computes it (compute_frames), all else reads it.
struct Frames {
  std::vector<Vec3> t, u, v;  // tangent and Bishop frame per edge (§4.2.2)
  std::vector<Vec3> m1, m2;   // material frame per edge: Bishop frame turned by θ^j
  std::vector<Vec3> kb;       // curvature binormal (κb)_i per vertex (eq. 1); 0 at the ends
  std::vector<std::array<Vec2, 2>> curvature;  // ω^j_i (eq. 2), slots as in RestShape
  std::vector<double> edge_length;             // current |e^j|
  // Closed rods: the angle about t^0 from u^0 to the Bishop vector of the last edge parallel
  // transported onto edge 0, i.e. the holonomy of one turn around the ring (mod 2π).
  double closing_holonomy = 0;
};

// --- Kinematics -------------------------------------------------------------------------
// Eq. (1): (κb)_i = 2 e^{i-1} x e^i / (|e^{i-1}| |e^i| + e^{i-1} . e^i); |κb| = 2 tan(φ_i / 2).
Vec3 curvature_binormal(const Vec3& e_prev, const Vec3& e_next);
// Discrete parallel transport P (§4.2.2): the rotation about t1 x t2 that takes unit t1 to
// unit t2, applied to u. Identity when t1 = t2; undefined for t1 = -t2.
Vec3 parallel_transport(const Vec3& u, const Vec3& t1, const Vec3& t2);
// Bishop frames by parallel transport of u0 along the rod, material frames from θ, κb and ω.
Frames compute_frames(const RodState& state);
// The state at new positions, with u0 parallel transported in time from the old to the new
// first tangent (§4.2.2, "Bishop frame update").
RodState moved_to(const RodState& state, std::span<const Vec3> new_x);

// --- Rest shape ---------------------------------------------------------------------------
// The rest shape of a polyline: ω̄ from its Bishop frame with θ = 0, so the undeformed material
// frame is a Bishop frame (§4.1.1) and the polyline is at rest under no load. B^j = α_j Id
// when `bending` holds one modulus per edge.
RestShape rest_shape_from_polyline(std::span<const Vec3> polyline, const Vec3& u0,
                                   std::span<const Mat2> bending, double twist_modulus,
                                   bool closed = false);
// A unit vector orthogonal to t (the default u0).
Vec3 any_orthogonal(const Vec3& t);

// --- Energies and derivatives (reference: plain loops, O(N)) ---------------------------------
double bending_energy(const Frames& f, const RestShape& rest);                   // eq. (3)
double twist_energy(const RodState& s, const Frames& f, const RestShape& rest);  // §4.2.2
// Integrated twist m_i at a bending vertex, from its rest value: θ^i - θ^{i-1} - m̄_i; at the
// closing vertex of a ring θ^0 - θ^{N-1} - χ + Θ - m̄_0 (χ: closing holonomy, Θ: closing twist).
double twist_at(const RodState& s, const Frames& f, const RestShape& rest, int vertex);
double elastic_energy(const RodState& s, const Frames& f, const RestShape& rest);

// ∂E/∂θ^j, eq. (7).
std::vector<double> theta_gradient(const RodState& s, const Frames& f, const RestShape& rest);
// ∂²E/∂θ², tridiagonal (§5.1): lower[j] = H(j, j-1), diag[j], upper[j] = H(j, j+1).
struct Tridiagonal {
  std::vector<double> lower, diag, upper;
  double corner = 0;  // closed rods: H(0, n-1) = H(n-1, 0)
};
Tridiagonal theta_hessian(const RodState& s, const Frames& f, const RestShape& rest);

// ∂E/∂x_i at fixed θ, with the Bishop frame moving with the centerline: gradient of the
// material curvatures (eq. 11) through ∇κb and the holonomy gradient ∇Ψ_j (eqs. 9-10).
std::vector<Vec3> position_gradient(const RodState& s, const Frames& f, const RestShape& rest);
// Exact Jacobian of eq. (1) with respect to its two edges a = e^{i-1}, b = e^i (no
// inextensibility assumed), D = |a||b| + a.b:
//   ∂κb/∂a = (-2[b] - κb (|b| a/|a| + b)ᵀ) / D,  ∂κb/∂b = (2[a] - κb (|a| b/|b| + a)ᵀ) / D.
struct CurvatureBinormalJacobian {
  Mat3 d_prev_edge, d_next_edge;
};
CurvatureBinormalJacobian curvature_binormal_jacobian(const Vec3& a, const Vec3& b, const Vec3& kb);

// ∇_i Ψ_j for all vertices i (eq. 10): the rotation of edge j's Bishop frame about t^j.
std::vector<Vec3> holonomy_gradient(const Frames& f, const RestShape& rest, int edge);
// Closed rods: ∇_i χ, the gradient of the closing holonomy (the sum of eq. 9 around the ring).
std::vector<Vec3> closing_holonomy_gradient(const Frames& f, const RestShape& rest);

}  // namespace hairsim::der

namespace hairsim::der {

// Which material-frame angles are prescribed (§5): a clamped end keeps its material frame.
struct TwistBoundary {
  bool first_clamped = true;  // θ^0 held (its edge's material frame is prescribed)
  bool last_clamped = false;  // θ^{N-2} held
  // Twisting moment applied to a free last edge about its tangent (N m): adds -τ θ^{N-2} to the
  // energy the quasistatic solve minimises.
  double last_torque = 0;
};

struct TwistSolveReport {
  int iterations = 0;
  double residual = 0;  // max |∂E/∂θ^j| over the free angles after the solve
  bool converged = false;
  bool closed_form = false;  // solved by the uniform twist of eqs. (5)-(6), no Newton step
};

// Quasistatic material frame (§5.1, eq. 4). Naturally straight rods with isotropic bending
// (every B^j a multiple of the identity, ω̄ = 0) take the closed form of eqs. (5)-(6): the
// bending energy does not depend on θ, and the twist is uniform, m_i / l̄_i the same at every
// vertex. Otherwise, and whenever the closed form does not meet `tolerance` (a free rod under a
// tip torque has no equilibrium), Newton's method with a backtracking line search on
// ∂E/∂θ^j = 0 for every free angle, the tridiagonal Hessian solved by the Thomas algorithm,
// starting from the current θ (a good guess between time steps). Stops when the residual is at
// most `tolerance` (energy units) or after `max_iterations`.
TwistSolveReport solve_quasistatic_twist(RodState& s, const RestShape& rest,
                                         const TwistBoundary& bc, double tolerance = 1e-10,
                                         int max_iterations = 50);

// Elastic force on every vertex of a rod whose material frame is quasistatic (§7.1):
// F = -∂E/∂x at fixed θ, plus (∂E/∂θ^n) ∇Ψ_n when the last edge's material frame is clamped
// (its θ^n must follow the Bishop frame's rotation by Ψ_n).
std::vector<Vec3> elastic_forces(const RodState& s, const Frames& f, const RestShape& rest,
                                 const TwistBoundary& bc);

// Energy the quasistatic solve minimises: the elastic energy minus the work of the applied
// torque, E - τ θ^n.
double twist_problem_energy(const RodState& s, const RestShape& rest, const TwistBoundary& bc);

// θ^edge that turns the edge's Bishop frame onto the prescribed material vector `m1` (unit,
// orthogonal to the edge's tangent): of the angles 2π apart, the one nearest to `near`, so a
// clamp that has been turned many times keeps its accumulated twist.
double angle_to_material_vector(const Frames& f, int edge, const Vec3& m1, double near);

}  // namespace hairsim::der
