#include "reference/super_clothoid/clothoid_kinematics.hpp"

#include <algorithm>
#include <cmath>
#include <string>

#include "hairsim/error.hpp"
#include "reference/eigen_bridge.hpp"
#include "super_clothoid/clothoid_series.hpp"

namespace hairsim::super_clothoid {
namespace {

kernels::super_clothoid::ClothoidFrame<double> to_kernel(const Frame& f) {
  return {bridge::to_small(Eigen::Matrix<double, 3, 3>(f.R)), bridge::to_kernel(f.r)};
}
Frame from_kernel(const kernels::super_clothoid::ClothoidFrame<double>& f) {
  return {bridge::from_kernel(f.R), bridge::from_kernel(f.r)};
}

ClothoidElement::State state_of(const kernels::super_clothoid::ClothoidState<double, 6>& x) {
  ClothoidElement::State out;
  out.local = from_kernel(x.frame);
  for (int c = 0; c < 6; ++c) out.d[c] = from_kernel(x.tangent[c]);
  out.velocity = from_kernel(x.velocity);
  out.acceleration = from_kernel(x.acceleration);
  return out;
}

}  // namespace

ClothoidElement::ClothoidElement(const Frame& start, double length, const Vec3& kappa_start,
                                 const Vec3& kappa_end, const Summation& summation)
    : length_(length),
      kappa0_(kappa_start),
      gamma_((kappa_end - kappa_start) / length),
      summation_(summation) {
  if (!(length > 0)) throw Error("element length", "must be > 0");
  sigma_.push_back(0);
  frames_.push_back(start);
  // σi+1 = σi + s_max(σi) (eq. 14), the curvature at σi being κ̂0 + γ σi.
  for (;;) {
    const double sigma = sigma_.back();
    const double reach = kernels::super_clothoid::subinterval_length(
        bridge::to_kernel(Vec3(kappa0_ + sigma * gamma_)), bridge::to_kernel(gamma_), summation_.M);
    if (!(sigma + reach < length_)) break;
    frames_.push_back(at(sigma + reach));
    sigma_.push_back(sigma + reach);
    // λ ≈ 10⁴ over one element: the curvature has diverged (kMaxPieces gives the reason).
    if (sigma_.size() > std::size_t(kernels::super_clothoid::kMaxPieces))
      throw RunFailure("element", "the curvature diverged (an element needs more than " +
                                      std::to_string(kernels::super_clothoid::kMaxPieces) +
                                      " APS subintervals)");
  }
}

Frame ClothoidElement::at(double s) const {
  s = std::clamp(s, 0.0, length_);
  const std::size_t i =
      std::size_t(std::upper_bound(sigma_.begin(), sigma_.end(), s) - sigma_.begin()) - 1;
  const double sigma = sigma_[i];
  int terms = 0;
  const auto f = kernels::super_clothoid::sum_series(
      to_kernel(frames_[i]), s - sigma, bridge::to_kernel(Vec3(kappa0_ + sigma * gamma_)),
      bridge::to_kernel(gamma_), summation_.max_terms, terms);
  most_terms_ = std::max(most_terms_, terms);
  return from_kernel(f);
}

ClothoidElement::State ClothoidElement::walk(
    double s, const Vec3& rate_start, const Vec3& rate_end,
    const std::function<void(const PieceSeries&)>* visit) const {
  s = std::clamp(s, 0.0, length_);
  using KV = kernels::Vector3<double>;
  kernels::super_clothoid::ClothoidState<double, 6> x =
      kernels::super_clothoid::start_state<double, 6>();
  const Vec3 rate_slope = (rate_end - rate_start) / length_;
  const bool moving = !rate_start.isZero(0) || !rate_end.isZero(0);
  PieceSeries piece;
  auto record = [&](int n, const KV& r, const KV& tangent, const KV(&d)[6], const KV& velocity,
                    const KV& acceleration) {
    if (!visit) return;
    if (n == 0) {
      piece.r.clear(), piece.tangent.clear(), piece.velocity.clear(), piece.acceleration.clear();
      for (std::vector<Vec3>& v : piece.d) v.clear();
    }
    piece.r.push_back(bridge::from_kernel(r));
    piece.tangent.push_back(bridge::from_kernel(tangent));
    piece.velocity.push_back(bridge::from_kernel(velocity));
    piece.acceleration.push_back(bridge::from_kernel(acceleration));
    for (int c = 0; c < 6; ++c) piece.d[c].push_back(bridge::from_kernel(d[c]));
  };
  // Each APS piece [σi, σi+1] from the state at σi; on it δκ for coordinate c of κ̂a is
  // (1 − (σ + t)/ℓ) e_c, of κ̂b (σ + t)/ℓ e_c: a + b t; the rate κ̇ likewise.
  for (std::size_t i = 0; i < sigma_.size() && sigma_[i] < s; ++i) {
    const double sigma = sigma_[i];
    const double h = std::min(i + 1 < sigma_.size() ? sigma_[i + 1] : length_, s) - sigma;
    const kernels::super_clothoid::PieceCurvature<double, 6> k =
        kernels::super_clothoid::piece_curvature<6>(
            bridge::to_kernel(kappa0_), bridge::to_kernel(gamma_), bridge::to_kernel(rate_start),
            bridge::to_kernel(rate_slope), length_, sigma);
    int terms = 0;
    if (moving)
      kernels::super_clothoid::expand_piece<true>(x, h, k, summation_.max_terms, terms, record);
    else
      kernels::super_clothoid::expand_piece<false>(x, h, k, summation_.max_terms, terms, record);
    most_terms_ = std::max(most_terms_, terms);
    if (visit) {
      piece.length = h;
      (*visit)(piece);
    }
  }
  return state_of(x);
}

ClothoidElement::State ClothoidElement::local_state(double s, const Vec3& rate_start,
                                                    const Vec3& rate_end) const {
  return walk(s, rate_start, rate_end, nullptr);
}

std::vector<ClothoidElement::State> ClothoidElement::local_states(const std::vector<double>& s,
                                                                  const Vec3& rate_start,
                                                                  const Vec3& rate_end) const {
  if (!std::is_sorted(s.begin(), s.end()))
    throw Error("local_states", "needs the arc lengths in increasing order");
  using Kernel = kernels::super_clothoid::ClothoidState<double, 6>;
  Kernel x = kernels::super_clothoid::start_state<double, 6>();
  const Vec3 rate_slope = (rate_end - rate_start) / length_;
  const bool moving = !rate_start.isZero(0) || !rate_end.isZero(0);
  auto no_record = [](int, const auto&, const auto&, const auto&, const auto&, const auto&) {};
  // x advanced by h along the piece of curvature k (local_state's walk, piece by piece).
  auto advance = [&](Kernel& state, double h,
                     const kernels::super_clothoid::PieceCurvature<double, 6>& k) {
    int terms = 0;
    if (moving)
      kernels::super_clothoid::expand_piece<true>(state, h, k, summation_.max_terms, terms,
                                                  no_record);
    else
      kernels::super_clothoid::expand_piece<false>(state, h, k, summation_.max_terms, terms,
                                                   no_record);
    most_terms_ = std::max(most_terms_, terms);
  };
  std::vector<State> out;
  out.reserve(s.size());
  std::size_t next = 0;
  // Each point is the piece holding it expanded from the piece's start: the same sums in the
  // same order as local_state's walk to that point, the pieces before it walked once for all.
  for (std::size_t i = 0; i < sigma_.size() && next < s.size(); ++i) {
    const double sigma = sigma_[i];
    const double piece_end = i + 1 < sigma_.size() ? sigma_[i + 1] : length_;
    const kernels::super_clothoid::PieceCurvature<double, 6> k =
        kernels::super_clothoid::piece_curvature<6>(
            bridge::to_kernel(kappa0_), bridge::to_kernel(gamma_), bridge::to_kernel(rate_start),
            bridge::to_kernel(rate_slope), length_, sigma);
    const bool last = i + 1 == sigma_.size();
    for (; next < s.size(); ++next) {
      const double at = std::clamp(s[next], 0.0, length_);
      if (!last && at > piece_end) break;
      Kernel point = x;
      if (at > sigma) advance(point, at - sigma, k);
      out.push_back(state_of(point));
    }
    if (next < s.size()) advance(x, piece_end - sigma, k);
  }
  return out;
}

std::vector<ClothoidElement::LocalPoint> ClothoidElement::local_points(const std::vector<double>& s,
                                                                       State& end) const {
  if (!std::is_sorted(s.begin(), s.end()))
    throw Error("local_points", "needs the arc lengths in increasing order");
  namespace ks = kernels::super_clothoid;
  using KV = kernels::Vector3<double>;
  ks::ClothoidState<double, 6> x = ks::start_state<double, 6>();
  // The piece's scaled centreline terms, as expand_piece records them.
  std::vector<ks::ClothoidPoint<double, 6>> term(std::size_t(summation_.max_terms));
  auto record = [&](int n, const KV& r, const KV&, const KV(&d)[6], const KV& v, const KV&) {
    ks::ClothoidPoint<double, 6>& t = term[std::size_t(n)];
    t.r = r, t.v = v;
    for (int c = 0; c < 6; ++c) t.d[c] = d[c];
  };
  std::vector<LocalPoint> out;
  out.reserve(s.size());
  std::size_t next = 0;
  for (std::size_t i = 0; i < sigma_.size(); ++i) {
    const double sigma = sigma_[i];
    const bool last = i + 1 == sigma_.size();
    const double piece_end = last ? length_ : sigma_[i + 1], h = piece_end - sigma;
    const ks::PieceCurvature<double, 6> k = ks::piece_curvature<6>(
        bridge::to_kernel(kappa0_), bridge::to_kernel(gamma_), KV{}, KV{}, length_, sigma);
    int terms = 0;
    ks::expand_piece<false>(x, h, k, summation_.max_terms, terms, record);
    most_terms_ = std::max(most_terms_, terms);
    for (; next < s.size(); ++next) {
      const double at = std::clamp(s[next], 0.0, length_);
      if (!last && at > piece_end) break;
      const ks::ClothoidPoint<double, 6> p =
          ks::point_of_piece(term.data(), terms, std::clamp((at - sigma) / h, 0.0, 1.0));
      LocalPoint& q = out.emplace_back();
      q.r = bridge::from_kernel(p.r);
      for (int c = 0; c < 6; ++c) q.d[c] = bridge::from_kernel(p.d[c]);
    }
  }
  end = state_of(x);
  return out;
}

ClothoidElement::State ClothoidElement::expand(
    const Vec3& rate_start, const Vec3& rate_end,
    const std::function<void(const PieceSeries&)>& visit) const {
  return walk(length_, rate_start, rate_end, &visit);
}

std::vector<ClothoidElement> chain(const SuperClothoid& rod) {
  if (rod.node_curvature.size() != rod.length.size() + 1)
    throw Error("node_curvature", "needs one more node than elements");
  std::vector<ClothoidElement> out;
  Frame start = rod.root;
  for (int i = 0; i < rod.elements(); ++i) {
    out.emplace_back(start, rod.length[std::size_t(i)], rod.node_curvature[std::size_t(i)],
                     rod.node_curvature[std::size_t(i) + 1], rod.summation);
    start = out.back().end();
  }
  return out;
}

void compose_point_jacobian(const FrameJacobian& start, const ClothoidElement::LocalPoint& p, int i,
                            Eigen::MatrixXd& J) {
  const int n = int(start.dr.size());
  J.resize(3, n);
  for (int q = 0; q < n; ++q) J.col(q) = start.dr[std::size_t(q)] + start.dR[std::size_t(q)] * p.r;
  for (int c = 0; c < 6; ++c) J.col(3 * i + c) += start.frame.R * p.d[c];
}

void compose_point_jacobian(const FrameJacobian& start, const ClothoidElement::State& t, int i,
                            Eigen::MatrixXd& J) {
  ClothoidElement::LocalPoint p{t.local.r, {}};
  for (int c = 0; c < 6; ++c) p.d[c] = t.d[c].r;
  compose_point_jacobian(start, p, i, J);
}

FrameJacobian compose(const FrameJacobian& start, const ClothoidElement::State& t, int i) {
  const Mat3& R0 = start.frame.R;
  FrameJacobian j = start;
  Eigen::MatrixXd J;
  compose_point_jacobian(start, t, i, J);
  for (std::size_t q = 0; q < j.dR.size(); ++q) {
    j.dr[q] = J.col(Eigen::Index(q));
    j.dR[q] = start.dR[q] * t.local.R;
  }
  for (int c = 0; c < 6; ++c) j.dR[std::size_t(3 * i + c)] += R0 * t.d[c].R;
  j.frame = {R0 * t.local.R, start.frame.r + R0 * t.local.r};
  return j;
}

FrameJacobian frame_jacobian(const SuperClothoid& rod, int element, double s) {
  const std::vector<ClothoidElement> elements = chain(rod);
  const std::size_t n = 3 * rod.node_curvature.size();
  FrameJacobian j{rod.root, std::vector<Mat3>(n, Mat3::Zero()), std::vector<Vec3>(n, Vec3::Zero())};
  for (int i = 0; i <= element; ++i) {
    const ClothoidElement& e = elements[std::size_t(i)];
    j = compose(j, e.local_state(i == element ? s : e.length()), i);
  }
  return j;
}

std::vector<PointJacobian> point_jacobians(const SuperClothoid& rod, const std::vector<double>& s) {
  const std::vector<ClothoidElement> elements = chain(rod);
  const std::size_t n = 3 * rod.node_curvature.size();
  FrameJacobian start{rod.root, std::vector<Mat3>(n, Mat3::Zero()),
                      std::vector<Vec3>(n, Vec3::Zero())};
  std::vector<PointJacobian> out;
  out.reserve(s.size());
  std::size_t k = 0;
  double element_start = 0;
  for (int i = 0; i < rod.elements(); ++i) {
    const ClothoidElement& e = elements[std::size_t(i)];
    const bool last = i + 1 == rod.elements();
    std::vector<double> at;  // the element's points
    for (; k < s.size() && (s[k] <= element_start + e.length() || last); ++k)
      at.push_back(std::clamp(s[k] - element_start, 0.0, e.length()));
    ClothoidElement::State end;
    for (const ClothoidElement::LocalPoint& p : e.local_points(at, end)) {
      PointJacobian& j = out.emplace_back();
      j.x = start.frame.r + start.frame.R * p.r;
      compose_point_jacobian(start, p, i, j.J);
    }
    start = compose(start, end, i);
    element_start += e.length();
  }
  return out;
}

std::vector<Vec3> centerline(const SuperClothoid& rod, int per_element) {
  std::vector<Vec3> points;
  for (const ClothoidElement& e : chain(rod))
    for (int k = 0; k <= per_element; ++k) points.push_back(e.at(e.length() * k / per_element).r);
  return points;
}

}  // namespace hairsim::super_clothoid
