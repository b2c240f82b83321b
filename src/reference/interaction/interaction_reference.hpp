#pragma once
// The hair-hair interaction stage written plainly, in double, one point after the other: the
// yardstick of the batched stage (kernels/interaction/interaction_grid.hpp). The same method
// (docs/architecture.md "Hair-hair interaction"), its own code: a scatter of every point into
// a dense grid, the grid's velocity, divergence, projected Jacobi pressure and its gradient, and
// the blend back, each a loop over std::vector.
#include <vector>

#include <Eigen/Core>

namespace hairsim::reference {

struct InteractionPoint {
  Eigen::Vector3d x = Eigen::Vector3d::Zero();  // m
  Eigen::Vector3d v = Eigen::Vector3d::Zero();  // m/s
  double m = 0;                                 // kg
  bool free = true;                             // false: held by the head, velocity kept
};

struct InteractionParameters {
  double dt = 0;                // s
  double cell_size = 0;         // m
  double friction = 0;          // 1/s
  double volume_stiffness = 0;  // 1/s
  double target_density = 0;    // kg/m³ (<= 0: no volume term)
  int iterations = 0;
};

// The grid a stage built: nodes, cell size, origin, and per node mass and velocity.
struct InteractionGrid {
  int n[3] = {0, 0, 0};
  double h = 0;
  Eigen::Vector3d origin = Eigen::Vector3d::Zero();
  std::vector<double> mass;
  std::vector<Eigen::Vector3d> momentum;
  long occupied_cells = 0;  // cells holding at least one point
};

// Mass and momentum of the points on the grid of cells h around them.
InteractionGrid splat_points(const std::vector<InteractionPoint>& points, double h);

// One stage: the points' velocities changed in place. Returns the grid it built.
InteractionGrid interaction_step(std::vector<InteractionPoint>& points,
                                 const InteractionParameters& parameters);

// Σ m_n ρ_n / Σ m_n of the points' grid (kg/m³).
double mean_density(const std::vector<InteractionPoint>& points, double h);

}  // namespace hairsim::reference
