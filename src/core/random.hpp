#pragma once
// The project's random streams: splitmix64, one stream per (seed, index), so that what is drawn
// does not depend on the thread count or the standard library (docs/architecture.md,
// "Determinism"). The generator and the render strands' roots and jitter draw from it.
#include <cstdint>

namespace hairsim {

class RandomStream {
 public:
  RandomStream(std::uint64_t seed, std::uint64_t stream) : state_(mix(seed) ^ mix(~stream)) {}
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }  // [0, 1)
  double uniform(double lo, double hi) { return lo + (hi - lo) * uniform(); }

 private:
  static std::uint64_t mix(std::uint64_t x) {
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
  }
  std::uint64_t next() { return mix(state_ += 0x9E3779B97F4A7C15ull); }
  std::uint64_t state_;
};

}  // namespace hairsim
