#pragma once
// Compact inextensible Cosserat rods (Zhao, Lin, Wang, Bao, Huang 2022), reference backend:
// double precision, Eigen, one rod at a time, written to be read next to the paper
// (../shared/papers/compact-inextensible-cosserat-rods-2022.txt). Equation numbers are the
// paper's; choices it leaves open are in docs/models/cosserat.md.
//
// Indexing (0-based; the paper counts segments from 1): vertices p_0 .. p_{n-1}; segment i runs
// from p_i to p_{i+1}, i = 0 .. n-2, with rest length l_i and material frame exp(ω_i). Bending
// and twisting live at the interior vertices k = 1 .. n-2, between segments k-1 and k.
//
// The unknowns (§2.1): s = [p_c, ω_0, ..., ω_{n-2}], 3n values, stored as one vector; block 0
// is the root vertex p_c = p_0, block 1 + i is ω_i. No length, unit-quaternion or alignment
// constraint exists: the vertices follow from s by the chain of eq. (7).
#include <Eigen/Core>
#include <span>
#include <string>
#include <vector>

#include "cosserat/cosserat_arrays.hpp"

namespace hairsim::cosserat {

using Vec3 = Eigen::Vector3d;
using Vec4 = Eigen::Vector4d;  // a quaternion (w, x, y, z)
using Mat3 = Eigen::Matrix3d;
using Mat4 = Eigen::Matrix4d;
using Mat34 = Eigen::Matrix<double, 3, 4>;
using Mat43 = Eigen::Matrix<double, 4, 3>;
using VecX = Eigen::VectorXd;

// How eq. (29)'s Darboux vector measures a relative rotation θ about n between adjacent frames:
// `sine`, the printed formula, 2 sin(θ/2) n / l̄ (it saturates at θ = π and jumps there as the
// quaternion hemisphere flips); `tangent`, 2 tan(θ/2) n / l̄ (DER's curvature binormal; the energy
// grows without bound towards θ = π). Both are second-order accurate; docs/models/cosserat.md.
// The kernels' enum: one definition.
using BendingStrain = kernels::cosserat::BendingStrain;
// "sine" or "tangent"; throws Error(where, ...) on anything else.
BendingStrain parse_bending_strain(const std::string& name, const std::string& where);
const char* to_string(BendingStrain measure);

// What the rod keeps of its undeformed shape and material.
struct RestShape {
  std::vector<double> length;   // l_i per segment (m)
  std::vector<double> voronoi;  // l̄_k = (l_{k-1} + l_k) / 2 at interior vertex k; 0 at the ends
  std::vector<Vec3> darboux;    // ε̄_k at interior vertex k (1/m), eq. (29); 0 at the ends
  BendingStrain bending_strain = BendingStrain::tangent;  // the measure of ε̄_k and Ω_k
  std::vector<double> mass;       // lumped vertex masses m_j = ρA (l_{j-1} + l_j) / 2 (kg)
  Vec3 stiffness = Vec3::Zero();  // K_11 = K_22 = EI, K_33 = GJ (N m²), eq. (29)
  Vec3 inertia = Vec3::Zero();    // J_11 = J_22 = ρI, J_33 = 2ρI per unit length (kg m), eq. (31)

  int vertex_count() const { return static_cast<int>(mass.size()); }
  int segment_count() const { return static_cast<int>(length.size()); }
  int dof_count() const { return 3 * vertex_count(); }
};

// Blocks of s: the root vertex and the rotation vector of segment i.
inline Vec3 root_of(const VecX& s) {
  return s.head<3>();
}
inline Vec3 omega_of(const VecX& s, int segment) {
  return s.segment<3>(3 + 3 * segment);
}

// --- Kinematics (§2.1) ------------------------------------------------------------------------
// Eqs. (4)-(5): the unit quaternion of rotation vector ω. Near ω = 0 the series of sin(θ/2)/θ
// replaces eq. (5)'s first-order limit, so the quaternion and its derivative stay exact.
Vec4 quaternion(const Vec3& omega);
// ∂q/∂ω (4 x 3), from the same series near 0.
Mat43 quaternion_jacobian(const Vec3& omega);
// The segment-aligned director d(q) = R(q) e_3 (eq. 7), written as a quadratic form in q (equal
// to R(q) e_3 for unit q), and its derivative ∂d/∂q (3 x 4).
Vec3 director(const Vec4& q);
Mat34 director_jacobian(const Vec4& q);
// The material frame [d_1 d_2 d_3] = R(q) (eq. 6 through the quaternion).
Mat3 frame(const Vec4& q);
// The rotation vector ω with exp(ω) = R, |ω| <= π.
Vec3 rotation_vector(const Mat3& r);
// The same rotation with |ω| <= π: the representation the step starts from, away from |ω| = 2π
// where ∂q/∂ω loses rank.
Vec3 wrapped(const Vec3& omega);
// ω of the frame q_t reaches turning on at its spin, Δt Ω (kernels' spin_prediction); false when
// |Δt Ω / 2| >= 1 (no rotation has that measure).
bool spin_prediction(const Vec4& qt, const Vec3& rotation_dt, Vec3& omega);
// 2 vec(conj(a) ⊗ b): the rotation taking frame a to frame b, in a's body frame, to first order
// (the exact rotation vector's 2 sin(θ/2) for θ), with b's sign chosen so that a . b >= 0.
Vec3 relative_rotation(const Vec4& a, const Vec4& b);

// Everything derived from s: one place computes it, everything else reads it.
struct Kinematics {
  std::vector<Vec4> q;    // B(ω_i), eq. (4)
  std::vector<Mat43> dq;  // ∂q_i/∂ω_i: the block-diagonal J_{q,s} of eq. (17)
  std::vector<Vec3> x;    // vertices, eq. (7)
  std::vector<Mat3> dx;  // J^i_{p,s} = l_i ∂d(q_i)/∂ω_i: every vertex beyond segment i moves by it
};
Kinematics kinematics(const VecX& s, const RestShape& rest);

// --- Rest shape --------------------------------------------------------------------------------
// s of a polyline: the root vertex and, per segment, the frame whose d_3 is the segment's
// tangent, d_1 of segment 0 = `first_d1` projected off that tangent (any unit orthogonal vector
// when zero), later frames by parallel transport (no rest twist).
VecX configuration_from_polyline(std::span<const Vec3> polyline, const Vec3& first_d1);
// The rest shape of that configuration: lengths, lumped masses, and ε̄ computed from it by the
// same formula as the energy, so the polyline is at rest under no load (curly or straight).
RestShape rest_shape(std::span<const Vec3> polyline, const VecX& s, const Vec3& stiffness,
                     const Vec3& inertia, double linear_density,
                     BendingStrain measure = BendingStrain::tangent);

// --- Energies (App. A) -------------------------------------------------------------------------
// Eq. (29): the discrete Darboux vector at interior vertex k,
//   Ω_k = (2 / ‖q‖²) (B_k (q_{k-1} + q_k))ᵀ (q_k - q_{k-1}) / (l_{k-1} + l_k),
// which for unit quaternions is 2 vec(conj(q_{k-1}) ⊗ q_k) / l̄_k (relative_rotation / l̄_k), in
// the body frame of segment k-1 (`sine`); `tangent` divides it by q_{k-1} · q_k = cos(θ/2).
// With its derivatives with respect to the two quaternions.
struct Darboux {
  Vec3 value;
  Mat34 d_prev, d_next;  // ∂Ω/∂q_{k-1}, ∂Ω/∂q_k
};
Darboux darboux(const Vec4& q_prev, const Vec4& q_next, double voronoi, BendingStrain measure);

// One frictional contact of a step: the vertex, the surface's normal at the step's start, the
// surface point it touched then, carried to the step's end (m), μ λ (N), λ the normal force,
// and its stick length (m; kernels::stick_length).
struct FrictionContact {
  int vertex = 0;
  Vec3 normal = Vec3::Zero();
  Vec3 anchor = Vec3::Zero();
  double weight = 0;
  double stick = 0;
};

// What implicit Euler remembers of the last step: the kinetic terms of eqs. (30)-(31).
struct StepStart {
  double dt = 0;                // Δt (s)
  std::vector<Vec3> predicted;  // p_t + Δt ṗ_t per vertex (m)
  // Linear resistance per vertex (damping and air drag, implicit): force -C_j ṗ_j + D_j w_j,
  // C_j = D_j + d m_j I (drag D_j, damping d), w_j the wind, as the energy term
  // (1/2Δt) |p - p_t|²_C - (p - p_t) . D_j w_j. Empty: none.
  std::vector<Vec3> start;        // p_t per vertex (m)
  std::vector<Mat3> resistance;   // C_j (N s/m)
  std::vector<Vec3> air_force;    // D_j w_j (N)
  std::vector<Vec4> q;            // q_t per segment
  std::vector<Vec3> rotation_dt;  // Δt Ω_t: body angular velocity times Δt per segment (rad)
  Vec3 gravity = Vec3::Zero();    // m/s²
  // Coulomb friction of the contacts at the step's start, lagged (kernels/common/friction.hpp):
  // μ λ f0(|(I - n nᵀ)(p_vertex - anchor)|) each, with its stick length. Empty: none.
  std::vector<FrictionContact> friction;
};

struct EnergyTerms {
  double bending = 0, twist = 0;  // eq. (29): K_11, K_22 terms and the K_33 term (J)
  double translational = 0;       // eq. (30) (J)
  double rotational = 0;          // eq. (31), per segment (docs/models/cosserat.md) (J)
  double gravity = 0;             // -Σ m_j g . p_j (J)
  double resistance = 0;          // the damping and drag term (J)
  double friction = 0;            // Σ μ λ f0(|u|) (J)
  double total() const {
    return bending + twist + translational + rotational + gravity + resistance + friction;
  }
};
EnergyTerms energy(const StepStart& start, const Kinematics& k, const RestShape& rest);
// The potential part alone (bending, twist, gravity; kinetic terms 0).
EnergyTerms potential_energy(const Kinematics& k, const RestShape& rest, const Vec3& gravity);

// A vector in the conventional coordinates x = (p, q) of eq. (8a): 3 per vertex, 4 per segment.
struct XVector {
  std::vector<Vec3> p;
  std::vector<Vec4> q;
};
// ∂E/∂x.
XVector energy_gradient(const StepStart& start, const Kinematics& k, const RestShape& rest);

// H = ∂²E/∂x² of eq. (15): H_p = M_p / Δt² (lumped: h_j I) and H_q = M_q / Δt² + K_q, with
// K_q the Gauss-Newton part of the bending and twisting Hessian, Σ_k l̄_k G_kᵀ K G_k, G_k the
// Darboux vector's derivative (positive semi-definite; the paper assumes H positive definite).
struct HessianX {
  std::vector<double> h;           // m_j / Δt² per vertex
  std::vector<Mat3> vertex_block;  // C_j / Δt + friction's ∇² per vertex (empty without either)
  std::vector<Mat4> mq;            // M_q,i / Δt² per segment (block diagonal)
  std::vector<Darboux> bend;       // G_k per interior vertex (entries 0 and n-1 unused)
  // Per segment, the part of ∂²E/∂ω_i² that A = Jᵀ H J leaves out because p and q_i are
  // nonlinear in ω_i (docs/models/cosserat.md, "Newton's Hessian"), projected onto the positive
  // semi-definite blocks; empty: the paper's Gauss-Newton A.
  std::vector<Mat3> chain;
};
HessianX hessian(const StepStart& start, const Kinematics& k, const RestShape& rest);
// HessianX::chain at s with the x-space gradient y = ∂E/∂x: G_i = ∂q/∂ωᵀ (l_i Σ_r F_r ∂²d_r/∂q²)
// ∂q/∂ω + Σ_c y_c ∂²q_c/∂ω², F_i = Σ_{j>i} y_p,j without friction's terms, y_c the total ∂E/∂q_i
// (the kernels' formulas, kernels/cosserat/cosserat_energy.hpp), and its positive part
// (kernels::positive_semidefinite_part, tested against Eigen's eigendecomposition).
std::vector<Mat3> chain_curvature(const StepStart& start, const VecX& s, const Kinematics& k,
                                  const RestShape& rest, const XVector& gradient);

}  // namespace hairsim::cosserat
