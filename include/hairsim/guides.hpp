#pragma once
// Render strands driven by guide strands (docs/architecture.md, "Render strands from guides"):
// a few thousand simulated guides, tens of thousands of drawn strands interpolated from them
// every frame. The per-strand math is kernels/render/guide_interpolation.hpp (one source for the
// cpu path here and the cuda launcher).
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "hairsim/strands.hpp"

namespace hairsim {

// barycentric: weights of the render root in the smallest triangle of guide roots (among its 8
// nearest) that holds it; nearest: inverse squared distance weights of the k nearest guides.
enum class GuideInterpolation { barycentric, nearest };
GuideInterpolation parse_guide_interpolation(std::string_view text, const std::string& where);
const char* to_string(GuideInterpolation mode);

struct RenderStrandOptions {
  GuideInterpolation interpolation = GuideInterpolation::barycentric;
  int nearest = 4;    // k of `nearest`, 1-4
  double clump = 0;   // in [0, 1]: how far the offsets shrink from root (0) to tip (clump)
  double jitter = 0;  // m: random sideways offset per strand, grown linearly to the tip
  std::uint64_t seed = 1;
  bool double_precision = false;  // float (the runs') or double (tests)
};

// Render-strand roots scattered over the guides' root surface when nothing better is known (a
// strand file's guides): each is a guide's root plus a uniform point in a disc of the radius of
// its third-nearest neighbour, in the plane fitted to its 8 nearest roots. Deterministic in
// (seed, strand). The generator's scalps give exact roots instead (sample_scalp_roots).
std::vector<Vec3> scatter_render_roots(const StrandSet& guides, int count, std::uint64_t seed);

class GuideInterpolator {
 public:
  // `rest_guides`: the guides at rest (same vertex count each, >= 2); `render_roots`: a root per
  // render strand. Throws Error on an empty guide set, unequal vertex counts or bad options.
  GuideInterpolator(const StrandSet& rest_guides, std::span<const Vec3> render_roots,
                    const RenderStrandOptions& options);
  ~GuideInterpolator();
  GuideInterpolator(GuideInterpolator&&) noexcept;
  GuideInterpolator& operator=(GuideInterpolator&&) noexcept;

  int guides() const;
  int strands() const;  // render strands
  int vertices() const;

  // The render strands for the guides' current positions (guides() * vertices() points,
  // strand-major, as Simulator::positions()); OpenMP over strands, the same result whatever the
  // thread count. render_strands: the last result as a StrandSet (render strand s follows
  // render_roots[s]).
  void interpolate(std::span<const Vec3> guide_positions);
  void render_strands(StrandSet& out) const;

  // The weights found for render strand s (for tests): guide indices and weights, unused ones 0.
  std::vector<std::pair<int, double>> weights_of(int s) const;

  struct Impl;
  Impl& arrays() { return *impl_; }  // the kernels' arrays (src/render/guide_arrays.hpp)

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace hairsim
