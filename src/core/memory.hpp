#pragma once
// Memory estimates checked before large allocations, so a run that cannot fit says so with the
// estimate (exit 2, nothing written) instead of dying in std::bad_alloc or the OOM killer.
#include <cstdint>
#include <string>

namespace hairsim {

// Bytes this process may still allocate: the smaller of the memory the kernel reports available
// (MemAvailable) and what the address-space and data limits leave (RLIMIT_AS, RLIMIT_DATA).
std::uint64_t available_memory_bytes();

// Throws Error(where, "<what> needs about X GB, more than the Y GB available") when `bytes`
// exceeds available_memory_bytes().
void require_memory(std::uint64_t bytes, const std::string& where, const std::string& what);

}  // namespace hairsim
