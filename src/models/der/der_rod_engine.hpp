#pragma once
// `hairsim run` of a single-rod DER scene on the batched engine: the scene's rod stepped by the
// cpu or cuda backend (the same kernels as hairstyles), reported like the reference run.
#include "reference/der/der_scene.hpp"

namespace hairsim::models {

// Runs scene.backend (cpu, cuda or auto: cuda when a device is present) on the engine. Throws
// Error("backend", ...) (bad input) when the scene uses what the engine does not have yet,
// RunFailure when cuda has no device or a value turns non-finite.
der::SceneRun run_der_scene_batched(der::DerScene& scene);

}  // namespace hairsim::models
