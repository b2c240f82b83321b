#pragma once
// `hairsim run` on the batched engine: a single-rod DER scene stepped by the cpu or cuda backend
// (the same kernels), reported like the reference run.
#include "reference/der/der_scene.hpp"

namespace hairsim::engine {

// Backend "auto": cuda when a device is present, else cpu.
std::string resolve_backend(const std::string& backend);

// Runs scene.backend (cpu, cuda or auto) on the engine. Throws Error("backend", ...) (bad input)
// when the scene uses what the engine does not have yet, RunFailure when cuda has no device or a
// value turns non-finite.
der::SceneRun run_der_scene_batched(der::DerScene& scene);

}  // namespace hairsim::engine
