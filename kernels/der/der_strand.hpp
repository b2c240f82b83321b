#pragma once
// DER on the batched engine: one strand's kinematics, energies, forces, twist solve, projection,
// contacts and symplectic step (Bergou et al. 2008), host and device, float or double, over the
// tiled batch layout (der_arrays.hpp). The same equations as the reference
// (src/reference/der/), specialised to hair: open strands, root edge clamped, isotropic bending
// B = α Id per strand (round fibres), a rest curvature ω̄ per vertex, twist modulus β per strand.
// The reference is the yardstick: tests/parity/ compares every quantity and whole runs with it.
//
// The step is split along the physics' seams, each header including the ones before it:
// der_arrays.hpp (layout), der_kinematics.hpp (frames, curvatures), der_forces.hpp (energies,
// forces, θ derivatives), der_solves.hpp (twist, projection), der_parameters.hpp (step inputs,
// drag), der_contacts.hpp, der_symplectic_step.hpp, der_implicit_step.hpp; this header adds the
// choice between the two integrators.
#include "der/der_implicit_step.hpp"

namespace hairsim::kernels::der {

// One step of the chosen integrator.
template <class T, class G>
HS_HD HS_FORCE_INLINE StepCounts step(const Strand<T, G>& st, const DerStepParameters<T>& p) {
  return p.integrator == Integrator::implicit ? implicit_step(st, p) : symplectic_step(st, p);
}

}  // namespace hairsim::kernels::der
