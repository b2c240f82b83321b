#pragma once
// One strand's slice of a vertex-major batch array: element i at base[i * stride], with stride
// the batch's strand count, so the per-strand solvers read the batch layout in place.
//
// Every read and write of a batch array by the per-strand kernels goes through Strided or
// StridedVector3. A build configured with -DHAIRSIM_COUNT_ACCESSES (scripts/kernel-counts.sh,
// never a production build) counts them, in bytes, for the performance model of docs/gpu.md:
// there operator[] returns a reference proxy that counts a load when read and a store when
// written.
#include "common/hd.hpp"
#include "common/vector3.hpp"

#include <type_traits>
#include <utility>

#ifdef HAIRSIM_COUNT_ACCESSES
#include <atomic>
#endif

namespace hairsim::kernels {

#ifdef HAIRSIM_COUNT_ACCESSES
struct AccessCounts {
  std::atomic<long long> load_bytes{0}, store_bytes{0};
};
inline AccessCounts& access_counts() {
  static AccessCounts counts;
  return counts;
}
template <class T>
T counted_load(const T* p) {
  access_counts().load_bytes.fetch_add(sizeof(T), std::memory_order_relaxed);
  return *p;
}
template <class T>
void counted_store(T* p, T v) {
  access_counts().store_bytes.fetch_add(sizeof(T), std::memory_order_relaxed);
  *p = v;
}
// What Strided::operator[] returns in a counting build: reads and writes of one element.
template <class T>
struct CountedRef {
  T* p;
  operator T() const { return counted_load(p); }
  const CountedRef& operator=(T v) const { return counted_store(p, v), *this; }
  const CountedRef& operator=(const CountedRef& r) const { return *this = T(r); }
  const CountedRef& operator+=(T v) const { return *this = counted_load(p) + v; }
  const CountedRef& operator-=(T v) const { return *this = counted_load(p) - v; }
  const CountedRef& operator*=(T v) const { return *this = counted_load(p) * v; }
  const CountedRef& operator/=(T v) const { return *this = counted_load(p) / v; }
};
// An element times or over a vector or matrix (template operators see no conversion).
template <class T, class U>
inline constexpr bool kCountedMatrixOperand =
    !std::is_arithmetic_v<U> && !std::is_same_v<U, CountedRef<T>>;
template <class T, class U, std::enable_if_t<kCountedMatrixOperand<T, U>, int> = 0>
auto operator*(const CountedRef<T>& r, const U& u) {
  return T(r) * u;
}
template <class T, class U, std::enable_if_t<kCountedMatrixOperand<T, U>, int> = 0>
auto operator*(const U& u, const CountedRef<T>& r) {
  return u * T(r);
}
template <class T, class U, std::enable_if_t<kCountedMatrixOperand<T, U>, int> = 0>
auto operator/(const U& u, const CountedRef<T>& r) {
  return u / T(r);
}
#define HS_LOAD(p) ::hairsim::kernels::counted_load(&(p))
#define HS_STORE(p, v) ::hairsim::kernels::counted_store(&(p), (v))
#else
#define HS_LOAD(p) (p)
#define HS_STORE(p, v) ((p) = (v))
#endif

// The value type of anything indexable (a pointer, a Strided slice): what x[i] reads.
template <class R>
struct ElementOf {
  using type = std::remove_cv_t<std::remove_reference_t<R>>;
};
#ifdef HAIRSIM_COUNT_ACCESSES
template <class T>
struct ElementOf<CountedRef<T>> {
  using type = T;
};
#endif
template <class Indexable>
using element_t = typename ElementOf<decltype(std::declval<Indexable>()[0])>::type;

template <class T>
struct Strided {
  T* base;
  int stride;
#ifdef HAIRSIM_COUNT_ACCESSES
  CountedRef<T> operator[](int i) const {
    return {base + i * stride};
  }
#else
  HS_HD T& operator[](int i) const {
    return base[i * stride];
  }
#endif
};

// Three strided coordinate arrays read and written as one vector array.
template <class T>
struct StridedVector3 {
  T* x;
  T* y;
  T* z;
  int stride;
  HS_HD Vector3<T> get(int i) const {
    return {HS_LOAD(x[i * stride]), HS_LOAD(y[i * stride]), HS_LOAD(z[i * stride])};
  }
  HS_HD void set(int i, const Vector3<T>& v) const {
    HS_STORE(x[i * stride], v.x), HS_STORE(y[i * stride], v.y), HS_STORE(z[i * stride], v.z);
  }
};

}  // namespace hairsim::kernels
