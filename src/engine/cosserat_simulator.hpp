#pragma once
// Model "cosserat" behind the simulator API: the reference (one CosseratRod per strand), the
// cpu backend (kernels/cosserat/ on all host cores) and the cuda backend (the same kernels on the
// device). Strands' roots are clamped to the head; gravity, damping, air drag, wind, and the head's
// colliders: by the reference's active set (App. B) on the reference backend, by an implicit
// penalty in the kernels (kernels::cosserat::Loads).
#include <memory>
#include <vector>

#include "cosserat/cosserat_strand.hpp"
#include "engine/simulator.hpp"
#include "reference/cosserat/cosserat_dynamics.hpp"

namespace hairsim::engine {

// One reference rod per strand of the setup: at rest on its polyline, root clamped to the head.
std::vector<cosserat::CosseratRod> cosserat_rods(const HairSetup& setup);
// The solver settings of a setup (the paper's, with the tolerance of HairSetup::newton_tolerance).
cosserat::SolverSettings cosserat_settings(const HairSetup& setup);
kernels::cosserat::StepSettings kernel_settings(const cosserat::SolverSettings& s);
// The kernels' loads of a setup for the step from time t (the head at t + dt).
template <class T>
kernels::cosserat::Loads<T> cosserat_loads(const HairSetup& setup, double t);
// The kernels' penalty stiffness κ in units of a vertex's m/Δt²: HairSetup::contact_ratio, else
// 1e4 in double, 300 in float.
double contact_ratio(const HairSetup& setup, bool float_precision);
// How far outside the colliders the kernels' penalty starts (m, Loads::contact_thickness):
// HairSetup::contact_margin, else 0 in double and, in float, the depth the penalty lets a vertex
// arriving at 1 m/s reach, (1 m/s Δt + |g| Δt²) / κ (3.4e-6 m at 1 ms, κ = 300), so that such a
// vertex stops outside the surface.
double contact_margin(const HairSetup& setup, bool float_precision);
// The head's pose at t for the kernels: x -> R(t) x + c + T(t) - R(t) c.
template <class T>
kernels::cosserat::Pose<T> cosserat_head_pose(const ClampMotion& head, double t);

#ifdef HAIRSIM_HAVE_CUDA
std::unique_ptr<Simulator> make_cosserat_cuda_simulator(const HairSetup& setup,
                                                        Precision precision);
#endif

}  // namespace hairsim::engine
