// Super-Helices reference (issue 18; Bertails 2009 Table 1 and Fig. 6), single thread:
//  timing  ms per semi-implicit step of a straight rod falling under gravity, recursive (§4)
//          against composite ([BAC*06]: M assembled, dense LDLᵀ), N = 1, 2, 10, 20, 30 (Table 1's
//          rows) and N = 8 ... 256 with the fitted log-log slope;
//  stability  the largest Δt up to which the same fall (no damping) stays bounded, against N,
//          for composite, recursive, and recursive with the paper's explicit first pass (eq. 16).
// Writes CSV files into the folder given (default .) for scripts/plot_super_helix_bench.py.
// Run: build/release/bench/bench_super_helix [OUTDIR [timing|stability]]  (bench/RESULTS.md)
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "hairsim/error.hpp"
#include "reference/super_helix/super_helix_rod.hpp"

namespace {

using namespace hairsim::super_helix;

// A 1 m rod, ρS = 0.01 kg/m, EI = GJ = 1e-3 N m² (Γ = ρS g L³ / EI ≈ 98: it falls far), released
// horizontally at rest, gravity along −y; no internal friction; the twist frozen (§4.4).
SuperHelix falling_rod(int elements) {
  SuperHelix rod = chain(elements, 1.0, Vec3::Zero(), Vec3::Zero(), Mat3::Identity());
  rod.stiffness = Vec3(1e-3, 1e-3, 1e-3);
  rod.linear_density = 0.01;
  rod.gravity = Vec3(0, -9.81, 0);
  rod.twist = Twist::frozen;  // the paper's setting (§4.4), which its explicit first pass needs
  return rod;
}

double ms_per_step(int elements, Method method) {
  SuperHelix rod = falling_rod(elements);
  const double dt = 1e-3;
  for (int s = 0; s < 3; ++s) step(rod, dt, method);  // warm-up
  int steps = 0;
  const auto start = std::chrono::steady_clock::now();
  double elapsed = 0;
  while (elapsed < 0.5 || steps < 5) {
    step(rod, dt, method);
    ++steps;
    elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }
  return 1e3 * elapsed / steps;
}

// Bounded: finite, and the total energy never above its start by more than 1 % of m g L (no
// energy enters this system), over max(0.5 s, 100 steps).
bool stable(int elements, Method method, bool paper_first_pass, double dt) {
  SuperHelix rod = falling_rod(elements);
  const double start = energies(rod).total(), scale = 0.01 * 9.81 * 1.0 * 0.01;
  const int steps = std::max(100, int(std::ceil(0.5 / dt)));
  try {
    for (int s = 0; s < steps; ++s) {
      step(rod, dt, method, paper_first_pass);
      if (!(energies(rod).total() <= start + scale)) return false;
    }
  } catch (const hairsim::RunFailure&) {
    return false;
  }
  return true;
}

// The largest Δt of the grid 2e-4 s x 1.25^k (up to 0.25 s) below which every grid step is
// stable: stability need not be monotonic in Δt, so this is the edge of the stable range that
// starts from small steps.
double largest_stable_dt(int elements, Method method, bool paper_first_pass) {
  double last = 0;
  for (double dt = 2e-4; dt <= 0.25; dt *= 1.25) {
    if (!stable(elements, method, paper_first_pass, dt)) break;
    last = dt;
  }
  return last;
}

double slope(const std::vector<double>& x, const std::vector<double>& y) {
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  const double n = double(x.size());
  for (std::size_t i = 0; i < x.size(); ++i) {
    const double a = std::log(x[i]), b = std::log(y[i]);
    sx += a, sy += b, sxx += a * a, sxy += a * b;
  }
  return (n * sxy - sx * sy) / (n * sxx - sx * sx);
}

}  // namespace

void timing_tables(const std::string& out);
void stability_table(const std::string& out);

int main(int argc, char** argv) {
  const std::string out = argc > 1 ? argv[1] : ".";
  const std::string part = argc > 2 ? argv[2] : "all";
  if (part == "all" || part == "timing") timing_tables(out);
  if (part == "all" || part == "stability") stability_table(out);
  return 0;
}

void timing_tables(const std::string& out) {
  std::printf("Table 1 rows: ms per step (and steps/s), straight rod falling, Δt = 1 ms\n");
  std::printf("%4s %12s %12s %12s %12s %8s\n", "N", "recursive", "composite", "rec steps/s",
              "comp steps/s", "ratio");
  for (int n : {1, 2, 10, 20, 30}) {
    const double r = ms_per_step(n, Method::recursive), c = ms_per_step(n, Method::composite);
    std::printf("%4d %12.4f %12.4f %12.0f %12.0f %8.2f\n", n, r, c, 1e3 / r, 1e3 / c, c / r);
  }
  std::ofstream timing(out + "/super_helix_timing.csv");
  timing << "elements,recursive_ms,composite_ms\n";
  std::vector<double> ns, rs, cs;
  std::printf("\nlog-log: N, recursive ms, composite ms\n");
  for (int n = 8; n <= 256; n *= 2) {
    const double r = ms_per_step(n, Method::recursive), c = ms_per_step(n, Method::composite);
    ns.push_back(n), rs.push_back(r), cs.push_back(c);
    timing << n << "," << r << "," << c << "\n";
    std::printf("%4d %12.4f %12.4f\n", n, r, c);
    std::fflush(stdout);
  }
  std::printf("fitted slopes (N = 8..256): recursive %.2f, composite %.2f\n", slope(ns, rs),
              slope(ns, cs));
}

void stability_table(const std::string& out) {
  std::ofstream stab(out + "/super_helix_stability.csv");
  stab << "elements,composite_dt,recursive_dt,recursive_paper_dt\n";
  std::printf("\nlargest stable Δt (s), 0.5 s of fall, energy bound\n");
  std::printf("%4s %12s %12s %16s\n", "N", "composite", "recursive", "recursive(paper)");
  for (int n : {1, 2, 5, 10, 20, 30}) {
    const double c = largest_stable_dt(n, Method::composite, false),
                 r = largest_stable_dt(n, Method::recursive, false),
                 p = largest_stable_dt(n, Method::recursive, true);
    stab << n << "," << c << "," << r << "," << p << "\n";
    std::printf("%4d %12.3g %12.3g %16.3g\n", n, c, r, p);
    std::fflush(stdout);
  }
}
