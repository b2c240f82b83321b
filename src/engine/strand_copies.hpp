#pragma once
// Strands that repeat another strand's points exactly. A model whose setup fits every strand
// (the reduced models fit elements to each polyline, 10-60 ms a strand) fits each distinct shape
// once and copies the fit: `hairsim bench --distinct-strands N` repeats N generated strands, so
// that a case of 100,000 strands is set up in seconds where its fits alone took minutes.
#include <algorithm>
#include <cstddef>
#include <vector>

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
template <class Fit, class FitOne>
ShapeFits<Fit> fit_each_shape_once(const StrandSet& strands, FitOne&& fit_one) {
  ShapeFits<Fit> out;
  out.first = first_copies(strands);
  out.fits.resize(out.first.size());
  double worst = 0;
#pragma omp parallel for schedule(dynamic) reduction(max : worst)
  for (std::size_t s = 0; s < out.first.size(); ++s) {
    if (out.first[s] != s) continue;
    out.fits[s] = fit_one(strands.strand(s));
    worst = std::max(worst, out.fits[s].max_error);
  }
  out.worst = worst;
  return out;
}

}  // namespace hairsim::engine
