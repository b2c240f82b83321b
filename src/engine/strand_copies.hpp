#pragma once
// Strands that repeat another strand's points exactly. A model whose setup fits every strand
// (the reduced models fit elements to each polyline, 10-60 ms a strand) fits each distinct shape
// once and copies the fit: `hairsim bench --distinct-strands N` repeats N generated strands, so
// that a case of 100,000 strands is set up in seconds where its fits alone took minutes.
#include <algorithm>
#include <chrono>
#include <cstddef>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "engine/parallel.hpp"
#include "hairsim/error.hpp"
#include "hairsim/strands.hpp"

namespace hairsim::engine {

// For each strand, the first strand with exactly its points (itself when none comes before it).
std::vector<std::size_t> first_copies(const StrandSet& strands);

// A fit per distinct shape: fit_one(points) for the first strand of each (in parallel), `of(s)`
// the fit of strand s's shape; `worst` the largest `max_error` of the fits.
template <class Fit>
struct ShapeFits {
  std::vector<std::size_t> first;
  std::vector<Fit> fits;  // filled at the first strand of each shape only
  double worst = 0;
  const Fit& of(std::size_t s) const { return fits[first[s]]; }
};
// Where a simulator's setup reports how far it is: set on the thread that calls
// Simulator::create for the time it runs (a hairstyle run: the run's progress stream), read by a
// setup's long parts (the fits), so that neither the engine names a model nor the model table's
// make_simulator takes a stream. Lines, no newline.
using SetupProgress = std::function<void(const std::string&)>;
class SetupProgressScope {
 public:
  explicit SetupProgressScope(SetupProgress report);
  ~SetupProgressScope();
  SetupProgressScope(const SetupProgressScope&) = delete;
  SetupProgressScope& operator=(const SetupProgressScope&) = delete;

 private:
  SetupProgress previous_;
};
// The reporter of the setup running on this thread (empty: none).
const SetupProgress& setup_progress();

// Counts items done and says so through a SetupProgress once the work has taken more than a
// second: then at each further tenth of the items (at most a line a second), and at the end
// when the whole took more than a second.
class ProgressLines {
 public:
  ProgressLines(SetupProgress report, std::string what, std::size_t total);
  void done();  // one more item (thread-safe)
  void finish();

 private:
  SetupProgress report_;
  std::string what_;
  std::size_t total_;
  std::size_t done_ = 0;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
  std::chrono::steady_clock::time_point last_{};
  std::size_t last_done_ = 0;
  bool said_ = false;
  std::mutex mutex_;
};

// A fit per distinct shape: fit_one(points) for the first strand of each (in parallel, the
// exceptions carried out of the loop: engine/parallel.hpp), `of(s)` the fit of strand s's shape;
// `worst` the largest `max_error` of the fits. A fit that throws fails the setup: RunFailure
// naming the lowest such strand. Fits taking more than a second report through setup_progress().
template <class Fit, class FitOne>
ShapeFits<Fit> fit_each_shape_once(const StrandSet& strands, FitOne&& fit_one) {
  ShapeFits<Fit> out;
  out.first = first_copies(strands);
  out.fits.resize(out.first.size());
  std::vector<int> shapes;  // the first strand of each shape
  for (std::size_t s = 0; s < out.first.size(); ++s)
    if (out.first[s] == s) shapes.push_back(int(s));
  ProgressLines progress(setup_progress(), "fitted", shapes.size());
  parallel_for(
      int(shapes.size()),
      [&](int k) {
        const std::size_t s = std::size_t(shapes[std::size_t(k)]);
        try {
          out.fits[s] = fit_one(strands.strand(s));
        } catch (const Error& e) {
          throw RunFailure("strand " + std::to_string(s),
                           "its rest shape could not be fitted (" + std::string(e.what()) + ")");
        }
        progress.done();
      },
      Schedule::dynamic);
  progress.finish();
  for (int s : shapes) out.worst = std::max(out.worst, out.fits[std::size_t(s)].max_error);
  return out;
}

}  // namespace hairsim::engine
