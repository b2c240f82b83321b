// The hair-hair interaction stage (kernels/interaction/interaction_grid.hpp, the host executor
// src/engine/interaction_stage.hpp) on random points: what the splat and the blend conserve, a
// uniform motion left alone, an over-dense cluster pushed apart, the host stage against the plain
// reference (src/reference/interaction/) and its independence of the thread count.
#include <omp.h>

#include <cmath>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "engine/interaction_stage.hpp"
#include "hairsim/error.hpp"
#include "hairsim/generate.hpp"
#include "reference/interaction/interaction_reference.hpp"

namespace hairsim {
namespace {

namespace ki = kernels::interaction;

// Points in plain arrays (tiles of one strand: point p at row p), as a batch would hold them.
template <class T>
struct TestPoints {
  int strands = 0, vertices = 0;
  std::vector<T> x[3], v[3], m;
  TestPoints(int s, int n) : strands(s), vertices(n) {
    for (int c = 0; c < 3; ++c) x[c].resize(std::size_t(s * n)), v[c].resize(std::size_t(s * n));
    m.resize(std::size_t(s * n));
  }
  ki::Points<T> view(int clamped = 0) {
    ki::Points<T> p;
    for (int c = 0; c < 3; ++c)
      p.position.array[c] = x[c].data(), p.velocity.array[c] = v[c].data();
    p.position.rows = p.velocity.rows = vertices;
    p.mass = {m.data(), vertices, 1, 0};
    p.strands = strands, p.vertices = vertices, p.tile_width = 1, p.clamped = clamped;
    return p;
  }
  std::vector<reference::InteractionPoint> reference(int clamped = 0) const {
    std::vector<reference::InteractionPoint> out(m.size());
    for (std::size_t p = 0; p < m.size(); ++p) {
      out[p].x = {double(x[0][p]), double(x[1][p]), double(x[2][p])};
      out[p].v = {double(v[0][p]), double(v[1][p]), double(v[2][p])};
      out[p].m = double(m[p]);
      out[p].free = int(p % std::size_t(vertices)) >= clamped;
    }
    return out;
  }
};

// `count` points in a ball of radius r (m) around (0.02, 0.13, -0.01), random velocities of
// about 1 m/s and masses of 1-3e-7 kg (a 2 mm piece of an 80 µm hair weighs ~1.3e-8 kg per mm).
template <class T>
TestPoints<T> random_points(int strands, int vertices, double r, unsigned seed) {
  TestPoints<T> pts(strands, vertices);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  for (std::size_t p = 0; p < pts.m.size(); ++p) {
    double d[3];
    do {
      for (double& c : d) c = u(rng);
    } while (d[0] * d[0] + d[1] * d[1] + d[2] * d[2] > 1);
    const double centre[3] = {0.02, 0.13, -0.01};
    for (int c = 0; c < 3; ++c) {
      pts.x[c][p] = T(centre[c] + r * d[c]);
      pts.v[c][p] = T(u(rng));
    }
    pts.m[p] = T(2e-7 + 1e-7 * u(rng));
  }
  return pts;
}

ki::Settings<double> settings(double friction, double stiffness, double target, int iterations) {
  ki::Settings<double> s;
  s.dt = 1e-3, s.friction = friction, s.volume_stiffness = stiffness;
  s.target_density = target, s.iterations = iterations;
  return s;
}

reference::InteractionParameters reference_parameters(const ki::Settings<double>& s, double h) {
  return {s.dt, h, s.friction, s.volume_stiffness, s.target_density, s.iterations};
}

constexpr double kCell = 0.01;

// The splat: Σ_n m_n = Σ_p m_p and Σ_n P_n = Σ_p m_p v_p, since the 8 trilinear weights of a
// point sum to 1 (expected: the points' sums, to round-off of ~5000 additions, 1e-12 relative).
TEST(Interaction, SplatConservesMassAndMomentum) {
  TestPoints<double> pts = random_points<double>(100, 50, 0.05, 1);
  engine::HostInteraction<double> stage;
  stage.splat(pts.view(), kCell);
  double mass = 0, node_mass = 0, momentum[3] = {}, node_momentum[3] = {};
  for (std::size_t p = 0; p < pts.m.size(); ++p) {
    mass += pts.m[p];
    for (int c = 0; c < 3; ++c) momentum[c] += pts.m[p] * pts.v[c][p];
  }
  const auto& nd = stage.nodes();
  for (long n = 0; n < stage.grid().nodes(); ++n) {
    node_mass += nd.mass[n];
    for (int c = 0; c < 3; ++c) node_momentum[c] += nd.momentum[c][n];
  }
  EXPECT_NEAR(node_mass, mass, 1e-12 * mass);
  const double scale = mass;  // |v| <= sqrt(3) m/s
  for (int c = 0; c < 3; ++c) EXPECT_NEAR(node_momentum[c], momentum[c], 1e-12 * scale);
  // The reference's scatter gives the same sums.
  const reference::InteractionGrid g = reference::splat_points(pts.reference(), kCell);
  double ref_mass = 0;
  for (const double m : g.mass) ref_mass += m;
  EXPECT_NEAR(ref_mass, mass, 1e-12 * mass);
  EXPECT_EQ(g.occupied_cells, stage.occupied_cells());
  EXPECT_GT(stage.occupied_cells(), 100);  // a 5 cm ball over 1 cm cells: ~520 cells
}

// Splat and gather as pure PIC (α = 1: friction → ∞, no volume term): the points' momentum
// after the stage is Σ_p m_p Σ_n w_pn u_n = Σ_n m_n u_n = Σ_n P_n, the momentum before
// (expected to round-off, 1e-12 relative), though every velocity changed.
TEST(Interaction, PicTransferConservesMomentum) {
  TestPoints<double> pts = random_points<double>(100, 50, 0.05, 2);
  double before[3] = {}, mass = 0;
  for (std::size_t p = 0; p < pts.m.size(); ++p) {
    mass += pts.m[p];
    for (int c = 0; c < 3; ++c) before[c] += pts.m[p] * pts.v[c][p];
  }
  const std::vector<double> vx = pts.v[0];
  engine::HostInteraction<double> stage;
  const ki::Settings<double> s = settings(1e9, 0, 0, 0);
  ASSERT_EQ(s.blend(), 1.0);
  stage.run(pts.view(), s, kCell);
  double after[3] = {}, changed = 0;
  for (std::size_t p = 0; p < pts.m.size(); ++p) {
    for (int c = 0; c < 3; ++c) after[c] += pts.m[p] * pts.v[c][p];
    changed = std::max(changed, std::abs(pts.v[0][p] - vx[p]));
  }
  for (int c = 0; c < 3; ++c) EXPECT_NEAR(after[c], before[c], 1e-12 * mass);
  EXPECT_GT(changed, 0.1);  // random velocities averaged over cells: each one moved
}

// A uniform velocity field has no divergence (an empty neighbour reads as the node's own
// velocity) and its grid velocity is the points' own: friction and the volume term below the
// target density leave every velocity as it was (expected: exact up to round-off, 1e-12 m/s).
TEST(Interaction, UniformVelocityIsUnchanged) {
  TestPoints<double> pts = random_points<double>(40, 50, 0.05, 3);
  for (std::size_t p = 0; p < pts.m.size(); ++p)
    pts.v[0][p] = 0.3, pts.v[1][p] = -1.2, pts.v[2][p] = 0.7;
  engine::HostInteraction<double> stage;
  const double rho = stage.mean_density(pts.view(), kCell);
  stage.run(pts.view(), settings(50, 50, 3 * rho, 20), kCell);
  double worst = 0;
  for (std::size_t p = 0; p < pts.m.size(); ++p)
    worst = std::max({worst, std::abs(pts.v[0][p] - 0.3), std::abs(pts.v[1][p] + 1.2),
                      std::abs(pts.v[2][p] - 0.7)});
  EXPECT_LT(worst, 1e-12);
}

// Points at rest packed above the target density (ρ₀ = ρ/2): the volume term's pressure pushes
// them outwards (expected: a positive mean radial velocity, and none moves inwards by more than
// round-off at the cluster's surface); with the volume term off they stay at rest (exactly 0).
TEST(Interaction, VolumeTermPushesAnOverDenseClusterApart) {
  for (const double stiffness : {0.0, 50.0}) {
    TestPoints<double> pts = random_points<double>(100, 50, 0.04, 4);
    for (int c = 0; c < 3; ++c) std::fill(pts.v[c].begin(), pts.v[c].end(), 0.0);
    engine::HostInteraction<double> stage;
    const double rho = stage.mean_density(pts.view(), kCell);
    stage.run(pts.view(), settings(20, stiffness, 0.5 * rho, 20), kCell);
    double radial = 0, speed = 0;
    for (std::size_t p = 0; p < pts.m.size(); ++p) {
      const double d[3] = {pts.x[0][p] - 0.02, pts.x[1][p] - 0.13, pts.x[2][p] + 0.01};
      const double r = std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
      if (r > 0.02) radial += (d[0] * pts.v[0][p] + d[1] * pts.v[1][p] + d[2] * pts.v[2][p]) / r;
      speed =
          std::max(speed, std::abs(pts.v[0][p]) + std::abs(pts.v[1][p]) + std::abs(pts.v[2][p]));
    }
    radial /= double(pts.m.size());
    std::cout << "volume stiffness " << stiffness << " /s: mean outward velocity " << radial
              << " m/s, fastest " << speed << " m/s\n";
    if (stiffness == 0) {
      EXPECT_EQ(speed, 0.0);
    } else {
      EXPECT_GT(radial, 1e-3);  // k (ρ/ρ₀ - 1) h ≈ 50 * 1 * 0.01 = 0.5 m/s at the surface
      EXPECT_LT(speed, 5.0);
    }
  }
}

// The host stage against the reference on an over-dense moving cluster with clamped vertices:
// the same method in another code (expected: the velocities to round-off, 1e-12 m/s in double;
// in float, within 1e-5 m/s: float's 6e-8 over ~20 Jacobi sweeps of |p| ~ 1 m²/s² and velocities
// of ~1 m/s).
TEST(Interaction, HostStageMatchesReference) {
  TestPoints<double> pts = random_points<double>(100, 40, 0.04, 5);
  TestPoints<float> single(100, 40);
  for (int c = 0; c < 3; ++c)
    for (std::size_t p = 0; p < pts.m.size(); ++p) {
      single.x[c][p] = float(pts.x[c][p]);
      single.v[c][p] = float(pts.v[c][p]);
      single.m[p] = float(pts.m[p]);
    }
  std::vector<reference::InteractionPoint> ref = single.reference(2);  // the float inputs
  TestPoints<double> same(100, 40);
  for (int c = 0; c < 3; ++c)
    for (std::size_t p = 0; p < pts.m.size(); ++p)
      same.x[c][p] = ref[p].x[c], same.v[c][p] = ref[p].v[c], same.m[p] = ref[p].m;
  engine::HostInteraction<double> stage;
  const double rho = reference::mean_density(ref, kCell);
  EXPECT_NEAR(stage.mean_density(same.view(2), kCell), rho, 1e-12 * rho);
  const ki::Settings<double> s = settings(20, 50, 0.7 * rho, 20);
  const reference::InteractionGrid g =
      reference::interaction_step(ref, reference_parameters(s, kCell));
  stage.run(same.view(2), s, kCell);
  engine::HostInteraction<float> stage_f;
  ki::Settings<float> sf;
  sf.dt = float(s.dt), sf.friction = float(s.friction),
  sf.volume_stiffness = float(s.volume_stiffness);
  sf.target_density = float(s.target_density), sf.iterations = s.iterations;
  stage_f.run(single.view(2), sf, float(kCell));
  double worst = 0, worst_f = 0, moved = 0;
  for (std::size_t p = 0; p < ref.size(); ++p)
    for (int c = 0; c < 3; ++c) {
      worst = std::max(worst, std::abs(same.v[c][p] - ref[p].v[c]));
      worst_f = std::max(worst_f, std::abs(double(single.v[c][p]) - ref[p].v[c]));
      moved = std::max(moved, std::abs(ref[p].v[c] - double(float(pts.v[c][p]))));
    }
  std::cout << "host stage against the reference: " << worst << " m/s (double), " << worst_f
            << " m/s (float); the stage changed velocities by up to " << moved << " m/s\n";
  EXPECT_LT(worst, 1e-12);
  EXPECT_LT(worst_f, 1e-5);
  EXPECT_GT(moved, 0.05);
  EXPECT_EQ(g.occupied_cells, stage.occupied_cells());
  // Clamped vertices kept their velocity exactly.
  for (std::size_t p = 0; p < ref.size(); p += 40)
    EXPECT_EQ(same.v[0][p], double(float(pts.v[0][p])));
}

// The same stage with 1, 2 and 3 threads gives the same bits (the splat is a gather in a fixed
// order, the rest has no shared sums); every loop forced parallel.
TEST(Interaction, ResultsDoNotDependOnTheThreadCount) {
  const int threads = omp_get_max_threads();
  std::vector<std::vector<float>> results;
  for (const int n : {1, 2, 3}) {
    omp_set_num_threads(n);
    TestPoints<float> pts = random_points<float>(200, 32, 0.05, 6);
    engine::HostInteraction<float> stage;
    stage.set_parallel_items(0);
    ki::Settings<float> s;
    s.dt = 1e-3f, s.friction = 20, s.volume_stiffness = 50, s.iterations = 20;
    s.target_density = 0.6f * stage.mean_density(pts.view(2), float(kCell));
    stage.run(pts.view(2), s, float(kCell));
    std::vector<float> v;
    for (int c = 0; c < 3; ++c) v.insert(v.end(), pts.v[c].begin(), pts.v[c].end());
    results.push_back(v);
  }
  omp_set_num_threads(threads);
  EXPECT_TRUE(results[0] == results[1]);
  EXPECT_TRUE(results[0] == results[2]);
}

// Simulator::create refuses bad interaction settings naming the field (what the API's users, the
// Python module among them, get without a scene), and the reference backend.
TEST(Interaction, SimulatorRefusesBadSettingsNamingTheField) {
  HairstyleParams p;
  p.strands = 4;
  p.vertices = 6;
  HairSetup setup;
  setup.strands = generate_hairstyle(p);
  setup.interaction.enabled = true;
  auto refused = [&](const HairSetup& s, Backend backend, const std::string& field) {
    try {
      Simulator::create(s, {"", backend, Precision::float64});
    } catch (const Error& e) {
      return std::string(e.what()).rfind(field + ":", 0) == 0;
    }
    return false;
  };
  HairSetup bad = setup;
  bad.interaction.cell_size = 0;
  EXPECT_TRUE(refused(bad, Backend::cpu, "interaction.cell_size"));
  bad = setup;
  bad.interaction.friction = -1;
  EXPECT_TRUE(refused(bad, Backend::cpu, "interaction.friction"));
  bad = setup;
  bad.interaction.volume_stiffness = std::nan("");
  EXPECT_TRUE(refused(bad, Backend::cpu, "interaction.volume_stiffness"));
  bad = setup;
  bad.interaction.iterations = -2;
  EXPECT_TRUE(refused(bad, Backend::cpu, "interaction.iterations"));
  EXPECT_TRUE(refused(setup, Backend::reference, "interaction.enabled"));
  EXPECT_FALSE(refused(setup, Backend::cpu, "interaction.enabled"));  // a valid setup is made
}

}  // namespace
}  // namespace hairsim
