#pragma once
// Helpers for the DER tests: random curves, and central differences of a scalar function of the
// vertex positions compared with an analytic gradient.
#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <vector>

#include "reference/der/der_dynamics.hpp"
#include "reference/der/der_rod.hpp"

namespace hairsim::der::test {

// A random smooth polyline: `vertices` points from the origin, steps of length `step`, the
// direction turning by up to `wobble` (relative) at each vertex.
inline std::vector<Vec3> random_curve(int vertices, double step, double wobble, std::mt19937& rng) {
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<Vec3> x{Vec3::Zero()};
  Vec3 dir = Vec3::UnitX();
  for (int i = 1; i < vertices; ++i) {
    dir = (dir + wobble * Vec3(u(rng), u(rng), u(rng))).normalized();
    x.push_back(x.back() + step * dir);
  }
  return x;
}

struct GradientCheck {
  double worst = 0;  // largest |central difference - analytic| over the checked coordinates
  double scale = 0;  // largest |analytic|
};

// Central differences (step h) of f over every coordinate of the vertices [first, last) of x.
inline GradientCheck check_gradient(const std::vector<Vec3>& x, const std::vector<Vec3>& analytic,
                                    const std::function<double(const std::vector<Vec3>&)>& f,
                                    double h, std::size_t first = 0, std::size_t last = SIZE_MAX) {
  GradientCheck c;
  for (std::size_t i = first; i < std::min(last, x.size()); ++i)
    for (int k = 0; k < 3; ++k) {
      std::vector<Vec3> plus = x, minus = x;
      plus[i][k] += h;
      minus[i][k] -= h;
      const double fd = (f(plus) - f(minus)) / (2 * h);
      c.worst = std::max(c.worst, std::abs(fd - analytic[i][k]));
      c.scale = std::max(c.scale, std::abs(analytic[i][k]));
    }
  return c;
}

struct ReferenceStrand {
  RestShape rest;
  RodState state;
  std::vector<double> mass;
};

// A hair strand for the batched kernels: a random curly rest polyline (isotropic α, β), deformed by
// up to 0.02 per coordinate, the material angles random: bending and twist both loaded.
inline ReferenceStrand random_hair_strand(int vertices, std::mt19937& rng) {
  std::uniform_real_distribution<double> u(-1, 1);
  const std::vector<Vec3> x = random_curve(vertices, 0.05, 0.6, rng);
  const double alpha = 1.5 + u(rng), beta = 1.0 + 0.5 * u(rng);
  ReferenceStrand r;
  const Vec3 u0 = any_orthogonal((x[1] - x[0]).normalized());
  r.rest = rest_shape_from_polyline(
      x, u0, std::vector<Mat2>(vertices - 1, alpha * Mat2::Identity()), beta);
  std::vector<Vec3> deformed = x;
  for (Vec3& p : deformed) p += 0.02 * Vec3(u(rng), u(rng), u(rng));
  r.state = moved_to(RodState{x, std::vector<double>(vertices - 1, 0.0), u0}, deformed);
  for (double& th : r.state.theta) th = 0.5 * u(rng);
  r.mass = lumped_masses(r.rest, 1e-3);
  return r;
}

}  // namespace hairsim::der::test
