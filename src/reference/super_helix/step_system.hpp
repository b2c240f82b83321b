#pragma once
// The semi-implicit step's linear system, kept factored by the method that solved it, and the
// rod's linear maps between generalized rates and point velocities (which contacts need: a point
// force f at p acts on the coordinates as J_pᵀ f). Internal to the Super-Helix reference.
#include <Eigen/Cholesky>
#include <Eigen/LU>
#include <vector>

#include "reference/super_helix/super_helix_rod.hpp"

namespace hairsim::super_helix::detail {

using Vec6 = Eigen::Matrix<double, 6, 1>;
using Mat6 = Eigen::Matrix<double, 6, 6>;
using Mat36 = Eigen::Matrix<double, 3, 6>;

// Per element: its end's spatial acceleration (α, a) from its start's and its own q̈_Q,
// A_end = Φ A_Q + H q̈_Q + c_end (Φ the rigid shift by the element's chord, H = [R_Q Ψ(ℓ);
// R_Q P(ℓ)] on the active coordinates). The same Φ and H map spatial velocities (ω, v).
struct ElementMap {
  Mat6 phi;
  MatX H;
};
std::vector<ElementMap> element_maps(const SuperHelix& rod,
                                     const std::vector<ElementStart>& starts);

// A point of the rod at abscissa u of an element: its position and the maps of its velocity,
// ṙ = X V_Q + G q̇_Q (V_Q = (ω, v) at the element's start; X = [−[d]×, I], d from the start;
// G = R_Q P(u) on the active coordinates).
struct RodPoint {
  int element = 0;
  Vec3 position;
  Mat36 X;
  MatX G;
};
RodPoint rod_point(const SuperHelix& rod, const std::vector<ElementStart>& starts, int element,
                   double u);

// J_p (3 x n): the point's velocity J_p q̇ with the clamp still, walked from the point's element
// to the root (each ancestor's columns: the point's map composed with the shifts below it, then H).
MatX point_jacobian(const SuperHelix& rod, const std::vector<ElementMap>& maps, const RodPoint& p);

// (M + h ν K + h² K) q̈ = B − K(q − q⁰) − ν K q̇ − h K q̇ at time t, solved by `method` (the
// composite method's dense LDLᵀ, or the recursive method's two passes), and kept factored so
// that `respond` applies the same operator to point forces. With the rod's `implicit_inertia`
// (and h > 0) the matrix carries − h ∂B/∂q̇: the composite method factors it dense by LU, the
// recursive method linearises each element's velocity-product terms in its start's velocity and
// its own rates (docs/models/super-helices.md), O(N) still.
class StepSystem {
 public:
  StepSystem(const SuperHelix& rod, Method method, double h, double t, bool paper_first_pass);

  const VecX& accelerations() const { return qddot_; }
  // The accelerations A⁻¹ J_pᵀ f the force f (N) at point p adds, one column per column of
  // `forces` (3 x c); `jacobian` is J_p (the composite method uses it, the recursive method
  // walks its passes instead: O(N) per column).
  MatX respond(const RodPoint& p, const MatX& jacobian, const MatX& forces) const;

 private:
  // The recursive method's factor, per element: the local system D q̈_Q = u − U A_Q, its D
  // factored as the first pass uses it and as the second does (different only with the paper's
  // explicit first pass), and the end's maps.
  // With the velocity-product terms implicit (non-symmetric: the first pass's cumulated inertia
  // takes L D⁻¹ U, L ≠ Uᵀ; the end's acceleration Φ' A + H' q̈_Q + c'_end), D is factored by LU.
  struct ElementSystem {
    Eigen::LDLT<MatX> first, second;
    Eigen::PartialPivLU<MatX> implicit;
    bool is_implicit = false;
    MatX U, L;         // L: Uᵀ unless implicit
    ElementMap map;    // Φ, H: the end's velocity from the start's and q̇_Q (projections)
    ElementMap ahead;  // Φ', H': the end's acceleration (map unless implicit)
    VecX solve_first(const VecX& x) const {
      return is_implicit ? VecX(implicit.solve(x)) : VecX(first.solve(x));
    }
    VecX solve_second(const VecX& x) const {
      return is_implicit ? VecX(implicit.solve(x)) : VecX(second.solve(x));
    }
  };
  void solve_composite(const SuperHelix& rod, double h, double t);
  void solve_implicit_inertia(const SuperHelix& rod, double h, double t);
  void solve_recursive_implicit(const SuperHelix& rod, double h, double t);
  // Root to tip: q̈_Q = D⁻¹(u_Q − U A_Q), then the children's A from Φ' A + H' q̈_Q + c_end.
  void second_pass(const Vec6& root_acceleration, const std::vector<VecX>& u,
                   const std::vector<Vec6>& c_end);
  void solve_recursive(const SuperHelix& rod, double h, double t, bool paper_first_pass);

  Method method_;
  std::vector<int> parent_;
  int k_ = 0;
  VecX qddot_;
  Eigen::LDLT<MatX> composite_;    // composite: A factored
  bool implicit_inertia_ = false;  // A factored in `implicit_` instead
  Eigen::PartialPivLU<MatX> implicit_;
  std::vector<ElementSystem> systems_;  // recursive
};

}  // namespace hairsim::super_helix::detail

namespace hairsim::super_helix::detail {

// The contacts of one step (docs/models/super-helices.md, "Contacts"): given the unconstrained
// rates q̇ at the step's end (q̇ + h q̈), adds the impulses' A⁻¹ Jᵀ P to them. Points are the
// quadrature points, placed with the clamp at the step's end; a point and obstacle pair enters
// when its gap φ − δ is below what it could close in two steps at its free speed (plus 1 % of
// its element's length).
StepReport resolve_contacts(const SuperHelix& rod, const StepSystem& system, double h, VecX& qdot);

}  // namespace hairsim::super_helix::detail
