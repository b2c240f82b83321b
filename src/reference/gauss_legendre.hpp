#pragma once
// Gauss-Legendre rules on [0, 1], for the references' integrals along an element (the
// Super-Helix's and the Super Space Clothoid's mass, forces and energies).
#include <cmath>
#include <map>
#include <mutex>
#include <vector>

namespace hairsim::quadrature {

struct Rule {
  std::vector<double> nodes, weights;
};

// The rule of `points` nodes (cached; thread-safe).
inline const Rule& gauss_legendre(int points) {
  static std::mutex lock;
  static std::map<int, Rule> cache;
  std::lock_guard<std::mutex> guard(lock);
  auto found = cache.find(points);
  if (found != cache.end()) return found->second;
  // Roots of the Legendre polynomial P_n by Newton from Chebyshev guesses; weights
  // 2 / ((1 − x²) P_n'(x)²); mapped from [−1, 1] to [0, 1].
  Rule rule;
  const int n = points;
  // P_n(x) by Bonnet's recurrence, and P_n'(x) = n (x P_n − P_{n−1}) / (x² − 1).
  auto legendre = [n](double x, double& pn, double& dp) {
    double p0 = 1, p1 = x;
    for (int k = 2; k <= n; ++k) {
      const double p2 = ((2 * k - 1) * x * p1 - (k - 1) * p0) / k;
      p0 = p1, p1 = p2;
    }
    pn = n == 1 ? x : p1;
    const double pn1 = n == 1 ? 1 : p0;
    dp = n * (x * pn - pn1) / (x * x - 1);
  };
  for (int i = 0; i < n; ++i) {
    double x = std::cos(M_PI * (i + 0.75) / (n + 0.5)), pn = 0, dp = 1;
    for (int it = 0; it < 100; ++it) {
      legendre(x, pn, dp);
      const double dx = pn / dp;
      x -= dx;
      if (std::abs(dx) < 1e-16) break;
    }
    legendre(x, pn, dp);
    rule.nodes.push_back((1 - x) / 2);
    rule.weights.push_back(1 / ((1 - x * x) * dp * dp));  // 2/(...) halved for [0, 1]
  }
  return cache.emplace(points, rule).first->second;
}

}  // namespace hairsim::quadrature
