#include "core/memory.hpp"

#include <sys/resource.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <limits>

#include "hairsim/error.hpp"

namespace hairsim {
namespace {

std::string gigabytes(std::uint64_t bytes) {
  char text[32];
  std::snprintf(text, sizeof text, "%.3g GB", double(bytes) / 1e9);
  return text;
}

// What a resource limit leaves (no limit: the largest value).
std::uint64_t limit_left(int resource) {
  rlimit r{};
  if (getrlimit(resource, &r) != 0 || r.rlim_cur == RLIM_INFINITY)
    return std::numeric_limits<std::uint64_t>::max();
  return std::uint64_t(r.rlim_cur);
}

}  // namespace

std::uint64_t available_memory_bytes() {
  std::uint64_t available = std::numeric_limits<std::uint64_t>::max();
  std::ifstream meminfo("/proc/meminfo");
  std::string key;
  std::uint64_t kib = 0;
  std::string unit;
  while (meminfo >> key >> kib >> unit)
    if (key == "MemAvailable:") {
      available = kib * 1024;
      break;
    }
  return std::min({available, limit_left(RLIMIT_AS), limit_left(RLIMIT_DATA)});
}

void require_memory(std::uint64_t bytes, const std::string& where, const std::string& what) {
  const std::uint64_t available = available_memory_bytes();
  if (bytes > available)
    throw Error(where, what + " needs about " + gigabytes(bytes) + ", more than the " +
                           gigabytes(available) + " available");
}

}  // namespace hairsim
