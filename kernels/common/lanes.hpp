#pragma once
// A strand on a group of lanes (docs/architecture.md, "A strand per group of lanes"): the one
// vocabulary every model's cooperative step is written in. A group of W lanes owns one strand;
// its rows (vertices, edges, elements) are dealt out in blocks, lane l owning rows
// [l P, (l + 1) P), P = ceil(rows / W), so that a lane's rows are a contiguous piece of the chain
// and scans and tridiagonal solves reduce each piece sequentially before combining the pieces
// across the lanes.
//
// Two groups implement it, with the same interface:
//   LoopLanes<W>  the host's: one thread runs every lane, each lane's work a turn of a loop, and a
//                 shuffle a copy between the lanes' slots. LoopLanes<1> is the sequential
//                 strand (every algorithm below takes its one-lane path: plain loops, Thomas);
//                 LoopLanes<32> runs exactly the warp's algorithms, so a machine without a GPU
//                 tests them.
//   TileLanes<W>  the device's: a cooperative-groups tile of W threads, a lane a thread,
//                 shuffles by __shfl_*_sync.
// Code written on a group G sees per-lane values as G::Value<T> (x(lane) reads this lane's), runs
// per-lane work in g.each_lane([&](int lane) {...}) and exchanges values only through the
// group's shuffles and the collectives here, never through a lane index of another lane's value.
// Memory written by one lane is read by another only after g.sync().
#include <cmath>
#include <cstring>
#include <type_traits>

#include "common/hd.hpp"

#if defined(__CUDACC__)
#include <cooperative_groups.h>
#endif

namespace hairsim::kernels {

// The values a group holds for its lanes: all W of them on the host, the calling lane's on the
// device (Width 1, whatever lane is asked).
template <class T, int Width>
struct LaneValues {
  T v[Width];
  HS_HD T& operator()(int lane) { return v[Width == 1 ? 0 : lane]; }
  HS_HD const T& operator()(int lane) const { return v[Width == 1 ? 0 : lane]; }
};

// The host's group: the lanes are a loop.
template <int W>
struct LoopLanes {
  static_assert(W >= 1 && W <= 32 && (W & (W - 1)) == 0, "a power of two up to a warp");
  static constexpr int kWidth = W;
  template <class T>
  using Value = LaneValues<T, W>;

  template <class F>
  HS_HD void each_lane(F&& f) const {
    for (int lane = 0; lane < W; ++lane) f(lane);
  }
  HS_HD void sync() const {}
  // Lane l receives x(l - d) (its own value where l < d): __shfl_up_sync's semantics.
  template <class T>
  HS_HD Value<T> shfl_up(const Value<T>& x, int d) const {
    Value<T> y;
    for (int lane = 0; lane < W; ++lane) y(lane) = x(lane >= d ? lane - d : lane);
    return y;
  }
  // Lane l receives x(l + d) (its own value where l + d >= W).
  template <class T>
  HS_HD Value<T> shfl_down(const Value<T>& x, int d) const {
    Value<T> y;
    for (int lane = 0; lane < W; ++lane) y(lane) = x(lane + d < W ? lane + d : lane);
    return y;
  }
  template <class T>
  HS_HD Value<T> shfl_xor(const Value<T>& x, int mask) const {
    Value<T> y;
    for (int lane = 0; lane < W; ++lane) y(lane) = x(lane ^ mask);
    return y;
  }
  // The value every lane holds alike (a reduction's result, a broadcast): lane 0's.
  template <class T>
  HS_HD T uniform(const Value<T>& x) const {
    return x(0);
  }
  template <class T>
  HS_HD T broadcast(const Value<T>& x, int lane) const {
    return x(lane);
  }
  HS_HD bool any(const Value<bool>& x) const {
    bool r = false;
    for (int lane = 0; lane < W; ++lane) r = r || x(lane);
    return r;
  }
  HS_HD bool all(const Value<bool>& x) const {
    bool r = true;
    for (int lane = 0; lane < W; ++lane) r = r && x(lane);
    return r;
  }
};

#if defined(__CUDACC__)
namespace lanes_detail {
// A shuffle of any trivially copyable value, one 32-bit word at a time (cooperative groups'
// own stop at 32 bytes; a 6 x 6 block of doubles is 288).
template <class T, class Shuffle>
__device__ T shuffle_words(const T& x, Shuffle&& shuffle) {
  static_assert(std::is_trivially_copyable<T>::value, "shuffled values are plain data");
  constexpr int kWords = (sizeof(T) + sizeof(int) - 1) / sizeof(int);
  int words[kWords] = {};
  memcpy(words, &x, sizeof(T));
#pragma unroll
  for (int k = 0; k < kWords; ++k) words[k] = shuffle(words[k]);
  T y;
  memcpy(&y, words, sizeof(T));
  return y;
}
}  // namespace lanes_detail

// The device's group: a tile of W threads of a block, one lane each.
template <int W>
struct TileLanes {
  static_assert(W >= 1 && W <= 32 && (W & (W - 1)) == 0, "a power of two up to a warp");
  static constexpr int kWidth = W;
  template <class T>
  using Value = LaneValues<T, 1>;
  cooperative_groups::thread_block_tile<W> tile;

  template <class F>
  __device__ void each_lane(F&& f) const {
    f(int(tile.thread_rank()));
  }
  __device__ void sync() const { tile.sync(); }
  template <class T>
  __device__ Value<T> shfl_up(const Value<T>& x, int d) const {
    return {lanes_detail::shuffle_words(x.v[0], [&](int w) { return tile.shfl_up(w, d); })};
  }
  template <class T>
  __device__ Value<T> shfl_down(const Value<T>& x, int d) const {
    return {lanes_detail::shuffle_words(x.v[0], [&](int w) { return tile.shfl_down(w, d); })};
  }
  template <class T>
  __device__ Value<T> shfl_xor(const Value<T>& x, int mask) const {
    return {lanes_detail::shuffle_words(x.v[0], [&](int w) { return tile.shfl_xor(w, mask); })};
  }
  template <class T>
  __device__ T uniform(const Value<T>& x) const {
    return x.v[0];
  }
  template <class T>
  __device__ T broadcast(const Value<T>& x, int lane) const {
    return lanes_detail::shuffle_words(x.v[0], [&](int w) { return tile.shfl(w, lane); });
  }
  __device__ bool any(const Value<bool>& x) const { return tile.any(x.v[0]); }
  __device__ bool all(const Value<bool>& x) const { return tile.all(x.v[0]); }
};
#endif

// ---- Collectives over the lanes' values -------------------------------------------------------

// The folds the kernels reduce with.
struct Sum {
  template <class T>
  HS_HD T operator()(const T& a, const T& b) const {
    return a + b;
  }
};
struct Max {  // std::fmax for floating point: a NaN term is dropped, as the sequential code did
  template <class T>
  HS_HD T operator()(const T& a, const T& b) const {
    if constexpr (std::is_floating_point<T>::value)
      return std::fmax(a, b);
    else
      return a > b ? a : b;
  }
};
struct All {
  HS_HD bool operator()(bool a, bool b) const { return a && b; }
};

// op folded over every lane's value, the same result in every lane: a butterfly of shfl_xor
// (log2 W steps). op must be associative and commutative (a sum, a max); a floating-point sum is
// then bitwise the same in every lane and on both groups.
template <class G, class T, class Op>
HS_HD T lane_reduce(const G& g, typename G::template Value<T> x, Op&& op) {
  for (int mask = G::kWidth / 2; mask > 0; mask /= 2) {
    const typename G::template Value<T> other = g.shfl_xor(x, mask);
    g.each_lane([&](int lane) { x(lane) = op(x(lane), other(lane)); });
  }
  return g.uniform(x);
}

// Inclusive scan of the lanes' values in lane order, x(l) <- x(0) op x(1) op ... op x(l)
// (Hillis-Steele with shfl_up). op must be associative; it need not commute (a product of
// rotations).
template <class G, class T, class Op>
HS_HD typename G::template Value<T> lane_inclusive_scan(const G& g, typename G::template Value<T> x,
                                                        Op&& op) {
  for (int d = 1; d < G::kWidth; d *= 2) {
    const typename G::template Value<T> before = g.shfl_up(x, d);
    g.each_lane([&](int lane) {
      if (lane >= d) x(lane) = op(before(lane), x(lane));
    });
  }
  return x;
}

// The same from the last lane down: x(l) <- x(W - 1) op ... op x(l + 1) op x(l), the later
// lanes' fold on the left.
template <class G, class T, class Op>
HS_HD typename G::template Value<T> lane_reverse_inclusive_scan(const G& g,
                                                                typename G::template Value<T> x,
                                                                Op&& op) {
  for (int d = 1; d < G::kWidth; d *= 2) {
    const typename G::template Value<T> after = g.shfl_down(x, d);
    g.each_lane([&](int lane) {
      if (lane + d < G::kWidth) x(lane) = op(after(lane), x(lane));
    });
  }
  return x;
}

// ---- A strand's rows dealt out to the lanes ---------------------------------------------------

// `count` rows in blocks of `per_lane`: lane l owns [begin(l), end(l)), empty past the last row.
struct LaneRows {
  int count = 0, per_lane = 0;
  HS_HD int begin(int lane) const {
    const int b = lane * per_lane;
    return b < count ? b : count;
  }
  HS_HD int end(int lane) const {
    const int e = (lane + 1) * per_lane;
    return e < count ? e : count;
  }
};

template <class G>
HS_HD LaneRows lane_rows(const G&, int count) {
  return {count, (count + G::kWidth - 1) / G::kWidth};
}

// f(i) for every row, each by the lane that owns it; then the group syncs, so that what f wrote
// in its row is what any lane reads next.
template <class G, class F>
HS_HD void for_each_row(const G& g, int count, F&& f) {
  const LaneRows rows = lane_rows(g, count);
  g.each_lane([&](int lane) {
    for (int i = rows.begin(lane); i < rows.end(lane); ++i) f(i);
  });
  g.sync();
}

// f() once for the group (by lane 0: a strand's own value written once), then a sync.
template <class G, class F>
HS_HD void on_one_lane(const G& g, F&& f) {
  g.each_lane([&](int lane) {
    if (lane == 0) f();
  });
  g.sync();
}

// A stencil's scatter: f(i) for every row i, where f may add into rows i - reach .. i + reach.
// Rows fewer than 2 reach + 1 apart never run at once: one lane runs them in order; several run
// them in 2 reach + 1 passes (rows i = c mod 2 reach + 1 in pass c, a sync after each), so no two
// lanes add into one row together. (Each row's sum then adds its terms in the passes' order.)
template <class G, class F>
HS_HD HS_FLATTEN void scatter_rows(const G& g, int count, int reach, F&& f) {
  if constexpr (G::kWidth == 1) {
    for (int i = 0; i < count; ++i) f(i);
  } else {
    const LaneRows rows = lane_rows(g, count);
    const int passes = 2 * reach + 1;
    for (int pass = 0; pass < passes; ++pass) {
      g.each_lane([&](int lane) {
        const int begin = rows.begin(lane);
        for (int i = begin + (pass - begin % passes + passes) % passes; i < rows.end(lane);
             i += passes)
          f(i);
      });
      g.sync();
    }
  }
}

// A value carried along the rows by each row's action: v_i = step(i, v_{i-1}), v_{-1} = start,
// emit(i, v_i) (a vector parallel-transported edge to edge). One lane applies the rows' steps in
// order. Several: each lane composes its rows' actions as values (action(i), composed by
// compose(first, then), associative, `identity` its unit), the compositions are scanned across
// the lanes, each lane starts from act(the rows before it, start) and steps through its own
// rows. So a row's own step may be a cheaper or more accurate form of the same action than its
// composable value (DER: the transport formula of two tangents; a quaternion across lanes).
// Returns nothing; the group syncs after the emits.
template <class G, class V, class S, class Step, class Action, class Act, class Compose, class Emit>
HS_HD void carry_rows(const G& g, int count, V start, S identity, Step&& step, Action&& action,
                      Act&& act, Compose&& compose, Emit&& emit) {
  if constexpr (G::kWidth == 1) {
    V v = start;
    for (int i = 0; i < count; ++i) emit(i, v = step(i, v));
  } else {
    const LaneRows rows = lane_rows(g, count);
    typename G::template Value<S> fold;
    g.each_lane([&](int lane) {
      S s = identity;
      for (int i = rows.begin(lane); i < rows.end(lane); ++i) s = compose(s, action(i));
      fold(lane) = s;
    });
    const typename G::template Value<S> through = lane_inclusive_scan<G, S>(g, fold, compose);
    const typename G::template Value<S> before = g.shfl_up(through, 1);
    g.each_lane([&](int lane) {
      V v = lane == 0 ? start : act(before(lane), start);
      for (int i = rows.begin(lane); i < rows.end(lane); ++i) emit(i, v = step(i, v));
    });
  }
  g.sync();
}

// op folded over term(i) of every row (op associative and commutative; identity its unit): each
// lane folds its rows in order, then the lanes' folds are reduced. The result in every lane.
// term(i) may write row i of an array (a pass that measures as it goes); no sync follows: call
// g.sync() before another lane reads it.
template <class G, class S, class Op, class Term>
HS_HD S reduce_rows(const G& g, int count, S identity, Op&& op, Term&& term) {
  const LaneRows rows = lane_rows(g, count);
  typename G::template Value<S> fold;
  g.each_lane([&](int lane) {
    S s = identity;
    for (int i = rows.begin(lane); i < rows.end(lane); ++i) s = op(s, term(i));
    fold(lane) = s;
  });
  return lane_reduce<G, S>(g, fold, op);
}

// Inclusive prefix fold along the rows: emit(i, term(0) op term(1) op ... op term(i)) for every
// row, each by its owner; returns the whole fold (every lane). `start` is folded in first
// (start op term(0) ...); op associative with unit `identity`, not necessarily commutative.
// One lane: a single pass. Several: each lane folds its rows, the lanes' folds are scanned, and
// each lane walks its rows again from the fold of the rows before it (term is evaluated twice).
template <class G, class S, class Op, class Term, class Emit>
HS_HD S scan_rows(const G& g, int count, S start, S identity, Op&& op, Term&& term, Emit&& emit) {
  if constexpr (G::kWidth == 1) {
    S s = start;
    for (int i = 0; i < count; ++i) emit(i, s = op(s, term(i)));
    return s;
  } else {
    const LaneRows rows = lane_rows(g, count);
    typename G::template Value<S> fold;
    g.each_lane([&](int lane) {
      S s = lane == 0 ? start : identity;
      for (int i = rows.begin(lane); i < rows.end(lane); ++i) s = op(s, term(i));
      fold(lane) = s;
    });
    const typename G::template Value<S> through = lane_inclusive_scan<G, S>(g, fold, op);
    const typename G::template Value<S> before = g.shfl_up(through, 1);
    g.each_lane([&](int lane) {
      S s = lane == 0 ? start : before(lane);
      for (int i = rows.begin(lane); i < rows.end(lane); ++i) emit(i, s = op(s, term(i)));
    });
    g.sync();
    return g.broadcast(through, G::kWidth - 1);
  }
}

// The same from the last row: emit(i, start op term(n - 1) op ... op term(i)), the suffix folds
// (later rows on the left); returns the whole fold.
template <class G, class S, class Op, class Term, class Emit>
HS_HD S reverse_scan_rows(const G& g, int count, S start, S identity, Op&& op, Term&& term,
                          Emit&& emit) {
  if constexpr (G::kWidth == 1) {
    S s = start;
    for (int i = count - 1; i >= 0; --i) emit(i, s = op(s, term(i)));
    return s;
  } else {
    const LaneRows rows = lane_rows(g, count);
    typename G::template Value<S> fold;
    g.each_lane([&](int lane) {
      S s = lane == G::kWidth - 1 ? start : identity;
      for (int i = rows.end(lane) - 1; i >= rows.begin(lane); --i) s = op(s, term(i));
      fold(lane) = s;
    });
    const typename G::template Value<S> through = lane_reverse_inclusive_scan<G, S>(g, fold, op);
    const typename G::template Value<S> after = g.shfl_down(through, 1);
    g.each_lane([&](int lane) {
      S s = lane == G::kWidth - 1 ? start : after(lane);
      for (int i = rows.end(lane) - 1; i >= rows.begin(lane); --i) emit(i, s = op(s, term(i)));
    });
    g.sync();
    return g.broadcast(through, 0);
  }
}

}  // namespace hairsim::kernels
