#pragma once
// Strands that repeat another strand's points exactly. A model whose setup fits every strand
// (the reduced models fit elements to each polyline, 10-60 ms a strand) fits each distinct shape
// once and copies the fit: `hairsim bench --distinct-strands N` repeats N generated strands, so
// that a case of 100,000 strands is set up in seconds where its fits alone took minutes.
#include <cstddef>
#include <vector>

#include "hairsim/strands.hpp"

namespace hairsim::engine {

// For each strand, the first strand with exactly its points (itself when none comes before it).
std::vector<std::size_t> first_copies(const StrandSet& strands);

}  // namespace hairsim::engine
