#include "engine/strand_copies.hpp"

#include <algorithm>
#include <cstring>
#include <string_view>
#include <unordered_map>

namespace hairsim::engine {

std::vector<std::size_t> first_copies(const StrandSet& strands) {
  const std::size_t n = strands.strand_count();
  std::vector<std::size_t> first(n);
  std::unordered_multimap<std::size_t, std::size_t> by_hash;  // the points' bytes' hash → strand
  by_hash.reserve(n);
  for (std::size_t s = 0; s < n; ++s) {
    const auto points = strands.strand(s);
    const std::string_view bytes(reinterpret_cast<const char*>(points.data()),
                                 points.size() * sizeof(Vec3));
    const std::size_t key = std::hash<std::string_view>{}(bytes);
    first[s] = s;
    const auto [begin, end] = by_hash.equal_range(key);
    for (auto it = begin; it != end; ++it) {
      const auto other = strands.strand(it->second);
      if (other.size() == points.size() &&
          std::equal(points.begin(), points.end(), other.begin())) {
        first[s] = it->second;
        break;
      }
    }
    if (first[s] == s) by_hash.emplace(key, s);
  }
  return first;
}

}  // namespace hairsim::engine
