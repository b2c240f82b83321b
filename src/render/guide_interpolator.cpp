// Render strands from guides, host side: weights and rest offsets found once (in double), the
// per-frame interpolation on the kernels (kernels/render/guide_interpolation.hpp), OpenMP over
// guides and then over render strands. Each strand is written by one thread from read-only
// inputs, so the result does not depend on the thread count.
#include <Eigen/Dense>
#include <algorithm>
#include <array>
#include <cmath>
#include <limits>
#include <numbers>

#include "core/random.hpp"
#include "hairsim/error.hpp"
#include "reference/eigen_bridge.hpp"
#include "render/guide_arrays.hpp"

namespace hairsim {
namespace {

using kernels::render::kMaxGuideWeights;
constexpr int kCandidates = 8;  // nearest guide roots searched for a triangle

using Random = RandomStream;  // per (seed, render strand), as the generator's

// Indices of the `k` roots nearest to p (closest first; ties by index), skipping `skip`.
std::vector<int> nearest_roots(const std::vector<Vec3>& roots, const Vec3& p, int k,
                               int skip = -1) {
  std::vector<std::pair<double, int>> best;
  best.reserve(std::size_t(k) + 1);
  for (int g = 0; g < int(roots.size()); ++g) {
    if (g == skip) continue;
    const double d = (roots[g] - p).squaredNorm();
    if (int(best.size()) == k && !(std::make_pair(d, g) < best.back())) continue;
    const auto at = std::upper_bound(best.begin(), best.end(), std::make_pair(d, g));
    best.insert(at, {d, g});
    if (int(best.size()) > k) best.pop_back();
  }
  std::vector<int> out;
  for (const auto& b : best) out.push_back(b.second);
  return out;
}

// Barycentric coordinates of p's projection on the plane of triangle (a, b, c); false when the
// triangle is degenerate.
bool barycentric(const Vec3& p, const Vec3& a, const Vec3& b, const Vec3& c, Vec3& w) {
  const Vec3 v0 = b - a, v1 = c - a, v2 = p - a;
  const double d00 = v0.dot(v0), d01 = v0.dot(v1), d11 = v1.dot(v1);
  const double d20 = v2.dot(v0), d21 = v2.dot(v1);
  const double den = d00 * d11 - d01 * d01;
  if (!(den > 1e-12 * d00 * d11)) return false;
  const double v = (d11 * d20 - d01 * d21) / den, u = (d00 * d21 - d01 * d20) / den;
  w = {1 - v - u, v, u};
  return true;
}

struct Weights {
  std::array<int, kMaxGuideWeights> guide{};
  std::array<double, kMaxGuideWeights> weight{};
};

Weights find_weights(const std::vector<Vec3>& roots, const Vec3& p, const RenderStrandOptions& o) {
  Weights out;
  const int k = std::min<int>(
      int(roots.size()), o.interpolation == GuideInterpolation::nearest ? o.nearest : kCandidates);
  // At least two: the spacing of the two nearest roots is the scale of "on a root".
  const std::vector<int> near =
      nearest_roots(roots, p, std::max(k, std::min<int>(2, int(roots.size()))));
  const double d0 = (roots[near[0]] - p).norm();
  const double scale = near.size() > 1 ? (roots[near[1]] - roots[near[0]]).norm() : 1.0;
  if (d0 <= 1e-9 * scale || roots.size() < 3) {  // on a guide's root: that guide
    out.guide[0] = near[0];
    out.weight[0] = 1;
    return out;
  }
  if (o.interpolation == GuideInterpolation::nearest) {
    double sum = 0;
    for (int i = 0; i < k; ++i) {
      out.guide[i] = near[i];
      out.weight[i] = 1 / (roots[near[i]] - p).squaredNorm();
      sum += out.weight[i];
    }
    for (int i = 0; i < k; ++i) out.weight[i] /= sum;
    return out;
  }
  // The triangle of candidate roots that holds p (projected on its plane) with the shortest
  // longest edge: a local stand-in for a Delaunay triangulation of the roots.
  double best = std::numeric_limits<double>::infinity();
  std::array<int, 3> tri{near[0], near[1], near[2]};
  Vec3 tri_w(1, 0, 0);
  bool found = false;
  for (int a = 0; a < k; ++a)
    for (int b = a + 1; b < k; ++b)
      for (int c = b + 1; c < k; ++c) {
        const Vec3 &A = roots[near[a]], &B = roots[near[b]], &C = roots[near[c]];
        Vec3 w;
        if (!barycentric(p, A, B, C, w) || w.minCoeff() < -1e-9) continue;
        const double edge = std::max({(B - A).norm(), (C - B).norm(), (A - C).norm()});
        if (edge < best) best = edge, tri = {near[a], near[b], near[c]}, tri_w = w, found = true;
      }
  if (!found) {  // outside every triangle (the edge of the scalp): the nearest three, clamped
    Vec3 w;
    if (!barycentric(p, roots[tri[0]], roots[tri[1]], roots[tri[2]], w)) w = Vec3(1, 0, 0);
    tri_w = w.cwiseMax(0.0);
    if (!(tri_w.sum() > 0)) tri_w = Vec3(1, 0, 0);
  }
  tri_w /= tri_w.sum();
  for (int i = 0; i < 3; ++i) out.guide[i] = tri[i], out.weight[i] = tri_w[i];
  return out;
}

// Guides that part ways (either side of a parting, the crown's whorl) do not blend: averaging
// a strand combed left with one combed right gives one that stands up, or hangs in the air
// between them (in front of the face, or through the head and then pushed out onto it): a
// stray strand. Multi-strand interpolation (a blend of several guides) holds only where the
// guides are alike; elsewhere a render strand follows one guide (single-strand interpolation;
// the two schemes of guide interpolation in Ward et al. 2007, "A Survey on Hair Modeling",
// IEEE TVCG 13(2)). A guide is dropped from the blend and the others renormalised when
//  - its rest direction (root to tip) is more than 60° from the main guide's (largest weight), or
//  - its rest shape departs from the main guide's, both taken from their roots, by more than
//    kShapeGap of the main guide's length at some vertex: guides whose roots are 5 mm apart at
//    the demo's crown fall 46° apart, their tips 16 cm apart, and the blend's tip hung 7.6 cm
//    from either (tests/unit/test_guides.cpp, "NoRenderStrandHangsBetweenPartedGuides").
// A render strand then lies within kShapeGap of the main guide's length (plus its offset) of it.
// In motion too: kernels/render/guide_interpolation.hpp, motion_weights.
constexpr double kPartingCos = 0.5;  // cos 60°
using kernels::render::kShapeGap;

// How far guides a and b part at rest (kernels::render::shape_gap).
double rest_shape_gap(const StrandSet& rest, int a, int b) {
  const auto sa = rest.strand(std::size_t(a)), sb = rest.strand(std::size_t(b));
  return kernels::render::shape_gap<double>(
      int(sa.size()), [&](int j) { return bridge::to_kernel(sa[std::size_t(j)]); },
      [&](int j) { return bridge::to_kernel(sb[std::size_t(j)]); });
}

void drop_parted_guides(Weights& w, const StrandSet& rest, const std::vector<Vec3>& directions,
                        const std::vector<double>& lengths) {
  int main = 0;
  for (int k = 1; k < kMaxGuideWeights; ++k)
    if (w.weight[k] > w.weight[main]) main = k;
  const int m = w.guide[main];
  double sum = 0;
  for (int k = 0; k < kMaxGuideWeights; ++k) {
    const int g = w.guide[k];
    if (w.weight[k] > 0 && g != m &&
        (directions[g].dot(directions[m]) < kPartingCos ||
         rest_shape_gap(rest, g, m) > kShapeGap * lengths[m]))
      w.weight[k] = 0;
    sum += w.weight[k];
  }
  for (double& x : w.weight) x /= sum;
}

// The guide whose root orients guide g's root frame: the nearest root whose direction from g's
// root is not along g's root tangent.
int reference_guide(const std::vector<Vec3>& roots, const std::vector<Vec3>& tangents, int g) {
  if (roots.size() < 2) return g;
  for (int n : nearest_roots(roots, roots[g], kCandidates, g)) {
    const Vec3 d = roots[n] - roots[g];
    if (d.cross(tangents[g]).norm() > 0.5 * d.norm()) return n;
  }
  return nearest_roots(roots, roots[g], 1, g)[0];
}

template <class T>
kernels::Vector3<T> to_k(const Vec3& v) {
  return {T(v.x()), T(v.y()), T(v.z())};
}
template <class T>
Vec3 from_k(const kernels::Vector3<T>& v) {
  return {double(v.x), double(v.y), double(v.z)};
}

template <class T>
std::unique_ptr<GuideInterpolator::Impl> build(const StrandSet& rest,
                                               std::span<const Vec3> render_roots,
                                               const RenderStrandOptions& o) {
  auto a = std::make_unique<GuideArrays<T>>();
  const int g_count = int(rest.strand_count()), v = int(rest.strand_size(0));
  a->guides = g_count;
  a->vertices = v;
  a->strands = int(render_roots.size());
  a->clump = T(o.clump);
  std::vector<Vec3> roots(g_count), tangents(g_count), directions(g_count);
  std::vector<double> lengths(g_count, 0.0);
  for (int g = 0; g < g_count; ++g) {
    const auto s = rest.strand(std::size_t(g));
    for (std::size_t j = 1; j < s.size(); ++j) lengths[g] += (s[j] - s[j - 1]).norm();
    roots[g] = s[0];
    tangents[g] = (s[1] - s[0]).normalized();
    directions[g] = (s.back() - s[0]).normalized();
  }
  a->reference.resize(std::size_t(g_count));
#pragma omp parallel for schedule(static)
  for (int g = 0; g < g_count; ++g) a->reference[g] = reference_guide(roots, tangents, g);

  // The rest frames, in double, by the same kernel the frames take each frame.
  using kernels::render::kD1;
  using kernels::render::kD2;
  using kernels::render::kT;
  std::vector<double> planes(kernels::render::kGuidePlanes * rest.points.size());
  const kernels::render::GuideFrames<double> rest_frames{planes.data(), a->reference.data(),
                                                         g_count, v};
  for (std::size_t i = 0; i < rest.points.size(); ++i)
    rest_frames.set(kernels::render::kX, (long long)i, to_k<double>(rest.points[i]));
  for (int g = 0; g < g_count; ++g) kernels::render::guide_frames(rest_frames, g);

  const std::size_t n = render_roots.size(), slots = n * kMaxGuideWeights;
  a->guide.assign(slots, 0);
  a->weight.assign(slots, 0.0);
  a->weight_t.assign(slots, T(0));
  a->offset.assign(slots, {});
  a->jitter.assign(n, {});
  a->main_guide.assign(n, 0);
#pragma omp parallel for schedule(dynamic, 256)
  for (std::ptrdiff_t s = 0; s < std::ptrdiff_t(n); ++s) {
    const Vec3 p = render_roots[std::size_t(s)];
    Weights w = find_weights(roots, p, o);
    drop_parted_guides(w, rest, directions, lengths);
    int main = 0;
    for (int k = 0; k < kMaxGuideWeights; ++k) {
      const std::size_t at = std::size_t(s) * kMaxGuideWeights + k;
      const int g = w.guide[k];
      a->guide[at] = g;
      a->weight[at] = w.weight[k];
      a->weight_t[at] = T(w.weight[k]);
      if (w.weight[k] > w.weight[main]) main = k;
      // p - root_g in guide g's root frame at rest, times the weight.
      const long long r = (long long)g * v;
      const Vec3 d = w.weight[k] * (p - roots[g]);
      a->offset[at] = {T(d.dot(from_k(rest_frames.get(kT, r)))),
                       T(d.dot(from_k(rest_frames.get(kD1, r)))),
                       T(d.dot(from_k(rest_frames.get(kD2, r))))};
    }
    a->main_guide[s] = w.guide[main];
    if (o.jitter > 0) {
      Random rng(o.seed, std::uint64_t(s));
      const double phi = 2 * std::numbers::pi * rng.uniform(), r = o.jitter * rng.uniform();
      a->jitter[s] = {T(0), T(r * std::cos(phi)), T(r * std::sin(phi))};
    }
  }
  a->planes.resize(std::size_t(kernels::render::kGuidePlanes) * g_count * v);
  a->out.resize(3 * n * std::size_t(v));
  // Stored sorted by main guide: neighbouring strands read the same guides, and a thread's
  // strands and outputs are contiguous (in the given order the per-strand reads missed cache).
  a->order.resize(n);
  for (std::size_t s = 0; s < n; ++s) a->order[s] = int(s);
  std::stable_sort(a->order.begin(), a->order.end(),
                   [&](int i, int j) { return a->main_guide[i] < a->main_guide[j]; });
  auto permute = [&](auto& values, std::size_t per) {
    auto sorted = values;
    for (std::size_t i = 0; i < n; ++i)
      std::copy_n(values.begin() + std::ptrdiff_t(a->order[i] * per), per,
                  sorted.begin() + std::ptrdiff_t(i * per));
    values = std::move(sorted);
  };
  permute(a->guide, kMaxGuideWeights);
  permute(a->weight, kMaxGuideWeights);
  permute(a->weight_t, kMaxGuideWeights);
  permute(a->offset, kMaxGuideWeights);
  permute(a->jitter, 1);
  permute(a->main_guide, 1);
  a->rank.resize(n);
  for (std::size_t i = 0; i < n; ++i) a->rank[std::size_t(a->order[i])] = int(i);
  return a;
}

}  // namespace

template <class T>
void GuideArrays<T>::interpolate(std::span<const Vec3> guide_positions) {
  const kernels::render::GuideFrames<T> f = frames();
  if (guide_positions.size() != std::size_t(f.size()))
    throw Error("render strands", "expected " + std::to_string(f.size()) + " guide points, got " +
                                      std::to_string(guide_positions.size()));
  for (std::size_t i = 0; i < guide_positions.size(); ++i)
    f.set(kernels::render::kX, (long long)i, to_k<T>(guide_positions[i]));
  const kernels::render::RenderStrands<T> r = render();
#pragma omp parallel
  {
#pragma omp for schedule(static)
    for (int g = 0; g < guides; ++g) kernels::render::guide_frames(f, g);
#pragma omp for schedule(static, 64)
    for (int s = 0; s < strands; ++s) kernels::render::interpolate_strand(f, r, s);
  }
}

template <class T>
void GuideArrays<T>::render_strands(StrandSet& s) const {
  s = StrandSet{};
  const std::size_t n = std::size_t(strands) * vertices;
  s.points.resize(n);
  s.offsets.resize(std::size_t(strands) + 1);
  for (int k = 0; k <= strands; ++k) s.offsets[k] = std::size_t(k) * vertices;
#pragma omp parallel for schedule(static)
  for (int i = 0; i < strands; ++i) {
    const std::size_t from = std::size_t(i) * vertices, to = std::size_t(order[i]) * vertices;
    for (int j = 0; j < vertices; ++j)
      s.points[to + j] =
          Vec3(double(out[from + j]), double(out[n + from + j]), double(out[2 * n + from + j]));
  }
}

template struct GuideArrays<float>;
template struct GuideArrays<double>;

GuideInterpolation parse_guide_interpolation(std::string_view text, const std::string& where) {
  if (text == "barycentric") return GuideInterpolation::barycentric;
  if (text == "nearest") return GuideInterpolation::nearest;
  throw Error(where, "must be 'barycentric' or 'nearest' (got '" + std::string(text) + "')");
}

const char* to_string(GuideInterpolation mode) {
  return mode == GuideInterpolation::nearest ? "nearest" : "barycentric";
}

std::vector<Vec3> scatter_render_roots(const StrandSet& guides, int count, std::uint64_t seed) {
  const int g_count = int(guides.strand_count());
  if (g_count == 0) throw Error("render strands", "no guides to scatter roots around");
  if (count < 0) throw Error("render strands", "count must be >= 0");
  std::vector<Vec3> roots(g_count);
  for (int g = 0; g < g_count; ++g) roots[g] = guides.strand(std::size_t(g))[0];
  // Per guide: the plane of its neighbourhood (normal: the least principal axis of its 8
  // nearest roots and itself) and a disc radius (its third-nearest neighbour's distance).
  std::vector<Vec3> e1(g_count, Vec3::UnitX()), e2(g_count, Vec3::UnitY());
  std::vector<double> radius(g_count, 0.0);
#pragma omp parallel for schedule(static)
  for (int g = 0; g < g_count; ++g) {
    if (g_count < 2) continue;
    const std::vector<int> near = nearest_roots(roots, roots[g], kCandidates, g);
    radius[g] = (roots[near[std::min<std::size_t>(2, near.size() - 1)]] - roots[g]).norm();
    if (near.size() < 3) continue;
    Vec3 mean = roots[g];
    for (int n : near) mean += roots[n];
    mean /= double(near.size() + 1);
    Eigen::Matrix3d cov = (roots[g] - mean) * (roots[g] - mean).transpose();
    for (int n : near) cov += (roots[n] - mean) * (roots[n] - mean).transpose();
    const Eigen::SelfAdjointEigenSolver<Eigen::Matrix3d> eig(cov);
    e1[g] = eig.eigenvectors().col(2);
    e2[g] = eig.eigenvectors().col(1);
  }
  std::vector<Vec3> out(static_cast<std::size_t>(count));
#pragma omp parallel for schedule(static)
  for (int s = 0; s < count; ++s) {
    Random rng(seed, std::uint64_t(s));
    const int g = std::min(g_count - 1, int(rng.uniform() * g_count));
    const double r = radius[g] * std::sqrt(rng.uniform()),
                 phi = 2 * std::numbers::pi * rng.uniform();
    out[s] = roots[g] + r * (std::cos(phi) * e1[g] + std::sin(phi) * e2[g]);
  }
  return out;
}

GuideInterpolator::GuideInterpolator(const StrandSet& rest, std::span<const Vec3> render_roots,
                                     const RenderStrandOptions& o) {
  if (rest.strand_count() == 0) throw Error("render strands", "no guide strands");
  const std::size_t v = rest.strand_size(0);
  for (std::size_t g = 0; g < rest.strand_count(); ++g)
    if (rest.strand_size(g) != v || v < 2)
      throw Error("render strands", "every guide needs the same vertex count (>= 2)");
  if (o.nearest < 1 || o.nearest > kMaxGuideWeights)
    throw Error("render.nearest", "must be 1 to " + std::to_string(kMaxGuideWeights));
  if (!(o.clump >= 0 && o.clump <= 1)) throw Error("render.clump", "must be in [0, 1]");
  if (!(o.jitter >= 0 && std::isfinite(o.jitter))) throw Error("render.jitter", "must be >= 0");
  for (const Vec3& p : render_roots)
    if (!p.allFinite()) throw Error("render strands", "a root is not finite");
  impl_ = o.double_precision ? build<double>(rest, render_roots, o)
                             : build<float>(rest, render_roots, o);
}

GuideInterpolator::~GuideInterpolator() = default;
GuideInterpolator::GuideInterpolator(GuideInterpolator&&) noexcept = default;
GuideInterpolator& GuideInterpolator::operator=(GuideInterpolator&&) noexcept = default;

int GuideInterpolator::guides() const {
  return impl_->guides;
}
int GuideInterpolator::strands() const {
  return impl_->strands;
}
int GuideInterpolator::vertices() const {
  return impl_->vertices;
}
void GuideInterpolator::interpolate(std::span<const Vec3> guide_positions) {
  impl_->interpolate(guide_positions);
}
void GuideInterpolator::render_strands(StrandSet& out) const {
  impl_->render_strands(out);
}
std::vector<std::pair<int, double>> GuideInterpolator::weights_of(int s) const {
  std::vector<std::pair<int, double>> w;
  for (int k = 0; k < kMaxGuideWeights; ++k) {
    const std::size_t at = std::size_t(impl_->rank[std::size_t(s)]) * kMaxGuideWeights + k;
    w.emplace_back(impl_->guide[at], impl_->weight[at]);
  }
  return w;
}

}  // namespace hairsim
