#include "engine/strand_copies.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <string_view>
#include <unordered_map>
#include <utility>

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

namespace {
thread_local SetupProgress current_progress;
}

SetupProgressScope::SetupProgressScope(SetupProgress report)
    : previous_(std::exchange(current_progress, std::move(report))) {}
SetupProgressScope::~SetupProgressScope() {
  current_progress = std::move(previous_);
}
const SetupProgress& setup_progress() {
  return current_progress;
}

ProgressLines::ProgressLines(SetupProgress report, std::string what, std::size_t total)
    : report_(std::move(report)), what_(std::move(what)), total_(total) {}

void ProgressLines::done() {
  if (!report_) return;
  const std::lock_guard<std::mutex> lock(mutex_);
  ++done_;
  const auto now = std::chrono::steady_clock::now();
  const double elapsed = std::chrono::duration<double>(now - start_).count();
  if (elapsed < 1 || done_ == total_) return;  // quick work says nothing; the end: finish()
  const bool tenth = 10 * (done_ - last_done_) >= total_;
  if (said_ && (!tenth || now - last_ < std::chrono::seconds(1))) return;
  char line[160];
  std::snprintf(line, sizeof line, "setup: %s %zu/%zu strands (%.0f s, ETA %.0f s)", what_.c_str(),
                done_, total_, elapsed, elapsed * double(total_ - done_) / double(done_));
  report_(line);
  said_ = true, last_ = now, last_done_ = done_;
}

void ProgressLines::finish() {
  const double elapsed =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
  if (!report_ || (!said_ && elapsed < 1)) return;
  char line[160];
  std::snprintf(line, sizeof line, "setup: %s %zu strands in %.1f s", what_.c_str(), total_,
                elapsed);
  report_(line);
}

}  // namespace hairsim::engine
