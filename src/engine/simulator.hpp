#pragma once
// The simulator API: one hairstyle on a moving head, stepped by any backend. The same setup runs
// on `reference` (one strand at a time, Eigen, double: the yardstick), `cpu` (the batched kernels
// of kernels/der/ on all host cores) or `cuda` (the same kernels on the GPU), so a scene switches
// backend freely and the tests compare them step for step (docs/architecture.md).
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/colliders.hpp"
#include "der/der_strand.hpp"
#include "hairsim/material.hpp"
#include "hairsim/sdf.hpp"
#include "hairsim/strands.hpp"
#include "reference/cosserat/cosserat_rod.hpp"
#include "reference/der/der_dynamics.hpp"

namespace hairsim::engine {

using kernels::der::Integrator;

// Work summed over strands and steps: the DER step's projection and twist iterations, the
// Cosserat step's Newton and PCG iterations, contacts, failed solves.
struct StepCounts {
  long projection_iterations = 0;
  long twist_iterations = 0;
  long contacts = 0;         // vertices put back on a collider's surface
  long solver_failures = 0;  // singular block solves (a bug or a non-finite state)
  long newton_iterations = 0, pcg_iterations = 0, pcg_solves = 0;
  StepCounts& operator+=(const kernels::der::StepCounts& c) {
    projection_iterations += c.projection_iterations;
    twist_iterations += c.twist_iterations;
    contacts += c.contacts;
    solver_failures += c.solver_failures;
    return *this;
  }
};

// What to simulate, whatever the backend. Every strand starts at rest on its own polyline (a
// groomed style is at rest), its first edge clamped to the head; all strands share the vertex
// count (resample first) and the material.
struct HairSetup {
  StrandSet strands;
  RodMaterial material;  // every strand's, unless strand_materials gives its own
  std::vector<RodMaterial> strand_materials;  // empty, or one per strand
  const RodMaterial& material_of(std::size_t s) const {
    return strand_materials.empty() ? material : strand_materials[s];
  }
  // The head's motion from its pose at t = 0: carries the root clamps and the colliders. Its
  // rotation is about head.center (the origin when unset).
  der::ClampMotion head;
  std::vector<kernels::Collider<double>> colliders;  // head frame, at most kMaxColliders
  // The distance grids that mesh colliders point into (kept alive with the setup).
  std::vector<std::shared_ptr<const SignedDistanceGrid>> meshes;
  der::Vec3 gravity{0, -9.81, 0};            // m/s²
  double damping = 0;                        // 1/s, viscous: force -damping m v
  double drag_normal = 0, drag_tangent = 0;  // N s/m², air drag per unit length
  kernels::WindField<double> wind;           // mean and gusts
  Integrator integrator = Integrator::symplectic;
  double dt = 1e-4;  // s
  // Fast projection tolerance on edge lengths, relative to the shortest rest edge (symplectic);
  // <= 0: the precision's default (1e-12 in double; 3e-5 in float, a few ulps of head-scale
  // coordinates, below which the projection iterates on round-off).
  double relative_length_tolerance = 0;
  // Twist solve tolerance on |∂E/∂θ| relative to EI / h (h the shortest rest edge); <= 0: the
  // precision's default (1e-8 in double, 1e-4 in float).
  double relative_twist_tolerance = 0;
  // Cosserat: Newton's tolerance on the gradient (N, N m); <= 0: 4e-4 of the lightest strand's
  // weight (docs/models/cosserat.md). PCG stops at 1e-2 of it, or once its residual fell by
  // pcg_relative_tolerance.
  double newton_tolerance = 0;
  double pcg_relative_tolerance = 1e-2;
  // Newton iterations per step at most. The paper stops at 5; on hair sliding over the head the
  // kernels' penalty contacts need more on some steps (measured: with 5 the trajectory changed
  // erratically with Δt, with 50 it converged to the reference's, 3.4 iterations per step on
  // average), so hair runs allow 20.
  int newton_max_iterations = 20;
  // Cosserat kernels: the colliders' penalty stiffness κ, in units of a vertex's m/Δt²; <= 0: the
  // precision's default, 1e4 in double, 300 in float, where the gap's round-off (an ulp of the
  // coordinates) times 1e4 m/Δt² would be ~10 vertex weights of noise that Newton cannot reduce
  // (docs/models/cosserat.md has the measurements).
  double contact_ratio = 0;
  // Cosserat kernels: the penalty acts from this far outside the colliders (m); unset: 0 in
  // double, and in float the depth the penalty lets a vertex arriving at 1 m/s reach (3.4e-6 m at
  // Δt = 1 ms), which float's κ = 300 cannot make smaller (cosserat_simulator.hpp,
  // contact_margin): hair then rests that far above the surface instead of that deep in it.
  std::optional<double> contact_margin;
  // Cosserat: the colliders' Coulomb friction (their μ) is smoothed below this slip speed, ε_v
  // (kernels/common/friction.hpp): slower contacts stick, creeping at most this fast (m/s).
  double stick_speed = 1e-3;
  // Cosserat: the discrete Darboux vector's measure (docs/models/cosserat.md): tangent, or the
  // paper's printed eq. (29), sine, which lets a segment fold onto its neighbour.
  cosserat::BendingStrain bending_strain = cosserat::BendingStrain::tangent;
};

enum class Backend { reference, cpu, cuda };
enum class Precision { float32, float64 };

struct SimulatorOptions {
  std::string model = "der";
  Backend backend = Backend::cpu;
  Precision precision = Precision::float64;
};

Backend parse_backend(const std::string& name);      // reference, cpu, cuda, auto (cuda if present)
Precision parse_precision(const std::string& name);  // float, double
std::string to_string(Backend b);
std::string to_string(Precision p);

class Simulator {
 public:
  // Throws Error on a setup or option it cannot run (unknown model, float on the reference,
  // strands of different sizes, too many colliders), RunFailure where the backend is missing
  // (cuda without a device or without CUDA in the build).
  static std::unique_ptr<Simulator> create(const HairSetup& setup, const SimulatorOptions& options);
  virtual ~Simulator() = default;

  // One step of dt (asynchronous on cuda).
  virtual void step() = 0;
  // Counts summed over all strands and steps so far (the reference counts projection
  // iterations only). Throws RunFailure if an implicit solve failed (cpu: at once, from step()).
  virtual StepCounts counts() = 0;
  // Every vertex, strand after strand (strand s, vertex i at s * vertices + i), in metres. On
  // cuda this and counts() are the only copies back from the device.
  virtual void positions(std::vector<der::Vec3>& out) = 0;
  // Every vertex's velocity (m/s), in the same order.
  virtual void velocities(std::vector<der::Vec3>& out) = 0;
  virtual std::string device() const = 0;  // "CPU model, N threads" or the GPU's name

  int strands() const { return strands_; }
  int vertices() const { return vertices_; }
  double dt() const { return dt_; }
  double time() const { return double(steps_) * dt_; }
  long steps() const { return steps_; }

 protected:
  Simulator(int strands, int vertices, double dt)
      : strands_(strands), vertices_(vertices), dt_(dt) {}
  long steps_ = 0;

 private:
  int strands_, vertices_;
  double dt_;
};

// A collider in precision T (a mesh's grid keeps pointing at the same float samples).
template <class T>
kernels::Collider<T> convert_collider(const kernels::Collider<double>& from);

// The kernels' step parameters of a setup, all but the head poses (set_head_poses).
template <class T>
kernels::der::DerStepParameters<T> step_parameters(const HairSetup& setup, Precision precision);
// The head's pose at time t (the rotation about head.center, the origin when unset).
template <class T>
kernels::der::RigidPose<T> head_pose(const der::ClampMotion& head, double t);
// The head's pose at t and t + dt into p (p.dt): the step from t.
template <class T>
void set_head_poses(kernels::der::DerStepParameters<T>& p, const der::ClampMotion& head, double t);
// Throws RunFailure naming the step if any implicit solve failed.
void check_solves(const StepCounts& counts, long step);

std::string cpu_description(int threads);

// The shortest edge of any strand (m), and the symplectic step's stability limit there,
// 0.1 h² √(ρS/EI) (docs/models/der.md): the default symplectic step.
double shortest_rest_edge(const StrandSet& strands);
double explicit_step_limit(const StrandSet& strands, const RodMaterial& material);

// Moves every vertex from the third on that lies inside a collider (head frame, t = 0) to the
// collider's surface, so that the groom's rest shape is free of the head: scanned hair often
// dips into a template head mesh. Returns how many vertices moved (a vertex deeper than a mesh
// grid's band where its distances have no gradient stays).
std::size_t push_out_of_colliders(StrandSet& strands,
                                  const std::vector<kernels::Collider<double>>& colliders);

// The cuda backend (cuda_simulator.cpp, built with CUDA only): RunFailure without a device.
std::unique_ptr<Simulator> make_cuda_simulator(const HairSetup& setup, Precision precision);

// Model "cosserat" on any backend (cosserat_simulator.cpp); `setup` checked by create().
std::unique_ptr<Simulator> make_cosserat_simulator(const HairSetup& setup,
                                                   const SimulatorOptions& options);

}  // namespace hairsim::engine
