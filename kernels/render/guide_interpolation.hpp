#pragma once
// Render strands interpolated from guide strands, one strand per call, HS_HD: the cpu path
// (src/render/guide_interpolator.cpp, OpenMP over strands) and the cuda launcher
// (kernels/render/guide_interpolation_cuda.cu, one thread per strand) run these functions.
//
// Every guide carries a frame per vertex, F = [t d1 d2]: t the tangent of the vertex's edge (the
// last vertex takes the last edge's), d1 parallel-transported from the root along the edges
// (a Bishop frame: the minimal rotation taking one tangent to the next), d2 = t x d1. The root's
// d1 is the direction to a reference guide's root, less its part along t: both roots move with
// the head, so the frames turn with a rigid motion of all guides and with nothing else.
//
// A render strand r has up to kMaxGuideWeights guides k, weights w_k (sum 1) and a rest offset
// c_k per guide (stored as w_k c_k), expressed in guide k's root frame at rest (its root minus the
// guide's root, in [t d1 d2] coordinates). Its vertex j is
//     p_j = sum_k w_k (x_k[j] + f_j F_k[j] c_k) + s_j F_m[j] e,
// s_j = j / (V - 1) the vertex's place along the strand (guides are resampled equally spaced in
// arc length), f_j = 1 - clump s_j (clumping pulls tips together towards the guides), m the
// strand's main guide (largest weight) and e its jitter (local coordinates, m). The offset rides
// in each guide's own frame along the guide, so a curl or a wave of the guides is a curl or a
// wave of the render strand around them, and a rigid motion of all guides moves the render
// strands rigidly (to round-off). A render strand whose root is a guide's root (weight 1, offset
// 0) is that guide.
#include "common/hd.hpp"
#include "common/vector3.hpp"

namespace hairsim::kernels::render {

constexpr int kMaxGuideWeights = 4;

// Guides that part ways are not blended (src/render/guide_interpolator.cpp): at rest a guide
// whose shape departs from the main guide's by more than kShapeGap of the main guide's length is
// dropped from a render strand's blend. Guides alike at rest can still part in motion (a head
// turn that throws one lock forward and leaves its neighbour behind), and a blend of the two
// hangs between them, a stray strand in the air: each frame a guide's weight fades out while its
// shape (from its root) departs from the main guide's by kShapeGap to kShapeGap + kMotionFade of
// the main guide's length, the others renormalised (smoothly: no strand jumps between frames).
constexpr double kShapeGap = 0.2;
constexpr double kMotionFade = 0.1;

// The largest distance between two strands of v points at equal vertices, each taken from its
// root: how far their shapes part (`a(j)`, `b(j)` their points). The rest check of the blend's
// guides (src/render/guide_interpolator.cpp) and its per-frame fade (motion_weights) measure it.
template <class T, class A, class B>
HS_HD T shape_gap(int v, A&& a, B&& b) {
  const Vector3<T> a0 = a(0), b0 = b(0);
  T gap = T(0);
  for (int j = 1; j < v; ++j) {
    const T d = norm((a(j) - a0) - (b(j) - b0));
    gap = d > gap ? d : gap;
  }
  return gap;
}

// Guides: `guides` strands of `vertices` points each, strand-major (guide g's vertex j at
// g * vertices + j, as the Simulator's positions()), stored as 12 planes of `guides * vertices`
// values: position x, y, z, then the frame's t, d1 and d2 (x, y, z each). Planes let the
// interpolation run along a strand's vertices in vector lanes on the host.
enum GuidePlane { kX = 0, kT = 3, kD1 = 6, kD2 = 9, kGuidePlanes = 12 };

template <class T>
struct GuideFrames {
  T* planes = nullptr;
  const int* reference = nullptr;  // per guide: the guide whose root orients the root frame
  int guides = 0, vertices = 0;

  HS_HD long long size() const { return static_cast<long long>(guides) * vertices; }
  HS_HD T* plane(int c) const { return planes + c * size(); }
  HS_HD Vector3<T> get(int first_plane, long long at) const {
    return {plane(first_plane)[at], plane(first_plane + 1)[at], plane(first_plane + 2)[at]};
  }
  HS_HD void set(int first_plane, long long at, const Vector3<T>& v) const {
    plane(first_plane)[at] = v.x;
    plane(first_plane + 1)[at] = v.y;
    plane(first_plane + 2)[at] = v.z;
  }
};

// Render strands: per strand kMaxGuideWeights (guide, weight, local offset) triples (unused
// ones weight 0; the offsets stored times their weight), its main guide's jitter in local
// coordinates. Output: 3 planes (x, y, z) of `strands * vertices` values, strand-major. (The
// host stores strands sorted by main guide, so that neighbouring strands read the same guides.)
template <class T>
struct RenderStrands {
  const int* guide = nullptr;          // [strands * kMaxGuideWeights]
  const T* weight = nullptr;           // [strands * kMaxGuideWeights]
  const Vector3<T>* offset = nullptr;  // [strands * kMaxGuideWeights], w (t, d1, d2) coordinates
  const Vector3<T>* jitter = nullptr;  // [strands], (t, d1, d2) coordinates of the main guide
  const int* main_guide = nullptr;     // [strands]
  T* out = nullptr;                    // [3 * strands * vertices]
  int strands = 0;
  T clump = T(0);  // in [0, 1]
};

// d transported from unit tangent a to unit tangent b: the minimal rotation about a x b
// (Rodrigues' formula in the half-angle form 1 / (1 + cos)); a reversal turns d half a turn.
template <class T>
HS_HD Vector3<T> parallel_transport(const Vector3<T>& d, const Vector3<T>& a, const Vector3<T>& b) {
  const Vector3<T> axis = cross(a, b);
  const T c = dot(a, b);
  if (c <= T(-1) + T(1e-6)) return -d;
  return c * d + cross(axis, d) + (dot(axis, d) / (T(1) + c)) * axis;
}

// A unit vector orthogonal to unit t, from `hint` (its part across t), or from the coordinate
// axis least aligned with t when the hint is (nearly) along t.
template <class T>
HS_HD Vector3<T> orthogonal_to(const Vector3<T>& t, const Vector3<T>& hint) {
  Vector3<T> d = hint - dot(hint, t) * t;
  const T h = norm(hint);
  if (norm(d) > T(1e-3) * h && h > T(0)) return normalized(d);
  const T ax = t.x < 0 ? -t.x : t.x, ay = t.y < 0 ? -t.y : t.y, az = t.z < 0 ? -t.z : t.z;
  Vector3<T> axis{T(0), T(0), T(0)};
  if (ax <= ay && ax <= az)
    axis.x = T(1);
  else if (ay <= az)
    axis.y = T(1);
  else
    axis.z = T(1);
  return normalized(axis - dot(axis, t) * t);
}

// Frames of guide g along its vertices.
// Unit tangent of the edge leaving guide vertex j (the last vertex: the last edge).
template <class T>
HS_HD Vector3<T> edge_tangent(const GuideFrames<T>& f, long long first, int j) {
  const int e = j < f.vertices - 1 ? j : f.vertices - 2;
  return normalized(f.get(kX, first + e + 1) - f.get(kX, first + e));
}

template <class T>
HS_HD void guide_frames(const GuideFrames<T>& f, int g) {
  const int v = f.vertices;
  const long long first = static_cast<long long>(g) * v;
  const Vector3<T> to_reference =
      f.get(kX, static_cast<long long>(f.reference[g]) * v) - f.get(kX, first);
  Vector3<T> t = edge_tangent(f, first, 0);
  Vector3<T> d1 = orthogonal_to(t, to_reference);
  for (int j = 0; j < v; ++j) {
    if (j > 0) {
      const Vector3<T> t_next = edge_tangent(f, first, j);
      d1 = normalized(parallel_transport(d1, t, t_next));
      t = t_next;
    }
    f.set(kT, first + j, t);
    f.set(kD1, first + j, d1);
    f.set(kD2, first + j, cross(t, d1));
  }
}

// Render strand s: its vertices from the guides' positions and frames (guide_frames first).
// With a_j = j / (V - 1), the offset of guide k at vertex j is (1 - clump a_j) w_k c_k, plus
// a_j e on the main guide: o_k + a_j q_k with q_k = e [main] - clump o_k, so that one pass per
// guide along the vertices computes, per output coordinate,
//   p[j] = sum_k w_k x_k[j] + F_k[j] (o_k + a_j q_k).
// The blend's weights this frame (kShapeGap, kMotionFade): guide k's factor λ_k in [0, 1] from
// the largest distance between its vertices and the main guide's, each taken from its root, over
// the main guide's length; the weights then w_k λ_k / Σ w λ. Returns the factors λ_k / Σ w λ by
// which the stored weights and offsets are scaled (all 1 while no guide parts).
template <class T>
HS_HD void motion_weights(const GuideFrames<T>& f, const RenderStrands<T>& r, int s,
                          T (&scale)[kMaxGuideWeights]) {
  const int v = f.vertices;
  const long long base = static_cast<long long>(s) * kMaxGuideWeights;
  const long long m = static_cast<long long>(r.main_guide[s]) * v;
  for (int k = 0; k < kMaxGuideWeights; ++k) scale[k] = T(1);
  T length = T(0);
  for (int j = 1; j < v; ++j) length += norm(f.get(kX, m + j) - f.get(kX, m + j - 1));
  if (!(length > T(0))) return;
  bool faded = false;
  T sum = T(0);
  for (int k = 0; k < kMaxGuideWeights; ++k) {
    const T w = r.weight[base + k];
    const int g = r.guide[base + k];
    if (w == T(0) || g == r.main_guide[s]) {
      sum += w;
      continue;
    }
    const long long at = static_cast<long long>(g) * v;
    const T gap = shape_gap<T>(
        v, [&](int j) { return f.get(kX, at + j); }, [&](int j) { return f.get(kX, m + j); });
    T lambda = (T(kShapeGap + kMotionFade) * length - gap) / (T(kMotionFade) * length);
    lambda = lambda < T(0) ? T(0) : (lambda > T(1) ? T(1) : lambda);
    if (lambda < T(1)) faded = true;
    scale[k] = lambda;
    sum += w * lambda;
  }
  if (!faded) return;
  for (int k = 0; k < kMaxGuideWeights; ++k) scale[k] /= sum;
}

template <class T>
HS_HD void interpolate_strand(const GuideFrames<T>& f, const RenderStrands<T>& r, int s) {
  const int v = f.vertices;
  const long long out_size = static_cast<long long>(r.strands) * v;
  const T inv = v > 1 ? T(1) / T(v - 1) : T(0);
  const long long base = static_cast<long long>(s) * kMaxGuideWeights;
  const int main = r.main_guide[s];
  const Vector3<T> e = r.jitter[s];
  T scale[kMaxGuideWeights];
  motion_weights(f, r, s, scale);
  for (int c = 0; c < 3; ++c) {
    T* __restrict__ out = r.out + c * out_size + static_cast<long long>(s) * v;
    bool first = true, jittered = false;
    for (int k = 0; k < kMaxGuideWeights; ++k) {
      const T w = scale[k] * r.weight[base + k];
      if (w == T(0)) continue;
      const int g = r.guide[base + k];
      const long long at = static_cast<long long>(g) * v;
      const Vector3<T> o = scale[k] * r.offset[base + k];
      Vector3<T> q = (-r.clump) * o;
      if (g == main && !jittered) q += e, jittered = true;
      const T* __restrict__ x = f.plane(kX + c) + at;
      const T* __restrict__ t = f.plane(kT + c) + at;
      const T* __restrict__ a = f.plane(kD1 + c) + at;
      const T* __restrict__ b = f.plane(kD2 + c) + at;
      if (first) {
        for (int j = 0; j < v; ++j) {
          const T aj = T(j) * inv;
          out[j] = w * x[j] + (o.x + aj * q.x) * t[j] + (o.y + aj * q.y) * a[j] +
                   (o.z + aj * q.z) * b[j];
        }
        first = false;
      } else {
        for (int j = 0; j < v; ++j) {
          const T aj = T(j) * inv;
          out[j] += w * x[j] + (o.x + aj * q.x) * t[j] + (o.y + aj * q.y) * a[j] +
                    (o.z + aj * q.z) * b[j];
        }
      }
    }
  }
}

}  // namespace hairsim::kernels::render
