#include "reference/super_clothoid/clothoid_kinematics.hpp"

#include <algorithm>
#include <cmath>

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
    if (sigma_.size() > 100000) throw Error("element", "needs more than 100000 subintervals");
  }
}

Frame ClothoidElement::at(double s) const {
  s = std::clamp(s, 0.0, length_);
  const std::size_t i = std::size_t(std::upper_bound(sigma_.begin(), sigma_.end(), s) -
                                    sigma_.begin()) - 1;
  const double sigma = sigma_[i];
  int terms = 0;
  const auto f = kernels::super_clothoid::sum_series(
      to_kernel(frames_[i]), s - sigma, bridge::to_kernel(Vec3(kappa0_ + sigma * gamma_)),
      bridge::to_kernel(gamma_), summation_.max_terms, terms);
  most_terms_ = std::max(most_terms_, terms);
  return from_kernel(f);
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

std::vector<Vec3> centerline(const SuperClothoid& rod, int per_element) {
  std::vector<Vec3> points;
  for (const ClothoidElement& e : chain(rod))
    for (int k = 0; k <= per_element; ++k) points.push_back(e.at(e.length() * k / per_element).r);
  return points;
}

}  // namespace hairsim::super_clothoid
