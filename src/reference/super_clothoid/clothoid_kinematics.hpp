#pragma once
// Super Space Clothoids (Casati & Bertails-Descoubes 2013): the kinematics of the CPU reference
// (double, Eigen; docs/models/super-clothoids.md). A rod of N elements between N + 1 nodes; the
// material curvature vector κ = (twist κ0, curvatures κ1, κ2) is given at the nodes (κ̂i, the
// 3(N + 1) generalized coordinates q) and affine on each element (§4.2), so the frame and
// centreline are G2 across the junctions (§6.5). Each element's power series are summed by
// Adaptive Piecewise Summation (kernels/super_clothoid/clothoid_series.hpp).
#include <Eigen/Core>
#include <functional>
#include <vector>

namespace hairsim::super_clothoid {

using Vec3 = Eigen::Vector3d;
using Mat3 = Eigen::Matrix3d;

struct Frame {
  Mat3 R = Mat3::Identity();  // columns n0 (tangent), n1, n2
  Vec3 r = Vec3::Zero();
};

// How an element is summed: M of eq. (14) (the paper's 10 in double; +infinity: one naive sum
// over the whole element, the method of Fig. 3a), and the most terms a sum may take.
struct Summation {
  double M = 10;
  int max_terms = 400;
};

// One element of length ℓ, curvature κ̂a at its start and κ̂b at its end, from frame `start`: its
// APS subintervals [σi, σi+1] (eq. 14) and the frames at their starts, so that a point at any s
// is one series from the nearest σi ≤ s.
class ClothoidElement {
 public:
  ClothoidElement(const Frame& start, double length, const Vec3& kappa_start, const Vec3& kappa_end,
                  const Summation& summation = {});

  Frame at(double s) const;  // s in [0, ℓ]
  // The element's own state from an identity start at rest: E(s) and p(s) (so that the frame at
  // s is R(0) E, r(0) + R(0) p), their derivatives in its six coordinates, κ̂a then κ̂b (eq. 15),
  // and their time derivatives (Ė, ṗ) and velocity-product accelerations (Ë, p̈) when the node
  // curvatures move at rate_start and rate_end (κ̈ = 0).
  struct State {
    Frame local;
    Frame d[6];
    Frame velocity, acceleration;
  };
  State local_state(double s, const Vec3& rate_start = Vec3::Zero(),
                    const Vec3& rate_end = Vec3::Zero()) const;
  // local_state at every arc length of `s` (increasing), in one walk along the element: the
  // same values, each piece before a point summed once instead of once per point.
  std::vector<State> local_states(const std::vector<double>& s,
                                  const Vec3& rate_start = Vec3::Zero(),
                                  const Vec3& rate_end = Vec3::Zero()) const;
  // The centreline's point p(s) and its derivatives ∂p/∂q in the element's six coordinates (a
  // State's local.r and d[c].r) at every arc length of `s` (increasing), at rest; `end` returns
  // the full state at the element's end. Each APS piece is expanded once to its end and its
  // points summed from its scaled terms (kernels' point_of_piece, as the kernels' output
  // points): local_states' values to round-off, one expansion a piece instead of one a point.
  struct LocalPoint {
    Vec3 r;
    Vec3 d[6];
  };
  std::vector<LocalPoint> local_points(const std::vector<double>& s, State& end) const;
  // The centreline's series on one APS piece of the element (§7.1), in the element's own frame:
  // the scaled terms ṽn = vn hⁿ of p, its unit tangent E e0, its six derivatives, ṗ and p̈ about
  // the piece's start, the piece's length h.
  struct PieceSeries {
    double length = 0;
    std::vector<Vec3> r, tangent, velocity, acceleration;
    std::vector<Vec3> d[6];
  };
  // Every piece of the element in turn, handed to `visit`; returns the state at the end.
  State expand(const Vec3& rate_start, const Vec3& rate_end,
               const std::function<void(const PieceSeries&)>& visit) const;
  Frame end() const { return at(length_); }
  double length() const { return length_; }
  int subintervals() const { return int(sigma_.size()); }
  int most_terms() const { return most_terms_; }  // the longest series summed so far

 private:
  // The state at s, piece after piece; with `visit`, each piece's terms handed to it.
  State walk(double s, const Vec3& rate_start, const Vec3& rate_end,
             const std::function<void(const PieceSeries&)>* visit) const;

  double length_;
  Vec3 kappa0_, gamma_;
  Summation summation_;
  std::vector<double> sigma_;  // subinterval starts: 0 = σ0 < σ1 < ... < ℓ
  std::vector<Frame> frames_;  // the frame at each σi
  mutable int most_terms_ = 0;
};

// A rod: nodal curvatures κ̂i (N + 1), element lengths ℓi (N), clamped at `root` (its frame's
// first column the tangent).
struct SuperClothoid {
  std::vector<Vec3> node_curvature;
  std::vector<double> length;
  Frame root;
  Summation summation;

  int elements() const { return int(length.size()); }
};

// The elements chained from the root (each starting at the previous one's end frame, §6.5).
std::vector<ClothoidElement> chain(const SuperClothoid& rod);
// The frame at abscissa s of `element` and its derivatives in all 3(N + 1) coordinates (node
// curvatures, node after node: κ̂0 twist, κ̂0 curvature 1, ...): the element's own through
// local_state, the earlier nodes' through its start frame.
struct FrameJacobian {
  Frame frame;
  std::vector<Mat3> dR;
  std::vector<Vec3> dr;
};
FrameJacobian frame_jacobian(const SuperClothoid& rod, int element, double s);
// The composition along the chain (§6.5) of element i's own frame and derivatives `t` (from an
// identity start) with its start's: R = R0 E, r = r0 + R0 p; d/dq through the start and, for the
// element's six coordinates (nodes i and i + 1), through E and p. And its centreline Jacobian
// alone, as 3 x n columns (without copying the start's), from a state or a local point.
FrameJacobian compose(const FrameJacobian& start, const ClothoidElement::State& t, int element);
void compose_point_jacobian(const FrameJacobian& start, const ClothoidElement::State& t,
                            int element, Eigen::MatrixXd& J);
void compose_point_jacobian(const FrameJacobian& start, const ClothoidElement::LocalPoint& p,
                            int element, Eigen::MatrixXd& J);
// The centreline's points at arc lengths `s` along the whole rod (ascending, in [0, L]) and their
// Jacobians ∂x/∂q (3 x 3(N + 1), the node curvatures), in one walk (local_points).
struct PointJacobian {
  Vec3 x;
  Eigen::MatrixXd J;
};
std::vector<PointJacobian> point_jacobians(const SuperClothoid& rod, const std::vector<double>& s);

// `per_element` + 1 points on each element (ends included), element after element.
std::vector<Vec3> centerline(const SuperClothoid& rod, int per_element);

}  // namespace hairsim::super_clothoid
