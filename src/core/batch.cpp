#include "hairsim/batch.hpp"

#include "hairsim/error.hpp"

namespace hairsim {

template <class T>
StrandBatch<T> pack_batch(const StrandSet& strands) {
  if (strands.strand_count() == 0) throw Error("batch", "no strands");
  StrandBatch<T> b;
  b.strand_count = static_cast<int>(strands.strand_count());
  b.vertex_count = static_cast<int>(strands.strand_size(0));
  const std::size_t n = std::size_t(b.strand_count) * b.vertex_count;
  b.x.resize(n);
  b.y.resize(n);
  b.z.resize(n);
  for (int s = 0; s < b.strand_count; ++s) {
    if (strands.strand_size(s) != static_cast<std::size_t>(b.vertex_count))
      throw Error("batch", "strand " + std::to_string(s) + " has " +
                               std::to_string(strands.strand_size(s)) + " vertices, strand 0 has " +
                               std::to_string(b.vertex_count) + " (resample first)");
    for (int v = 0; v < b.vertex_count; ++v) {
      const Vec3& p = strands.points[strands.offsets[s] + v];
      const std::size_t i = std::size_t(v) * b.strand_count + s;
      b.x[i] = static_cast<T>(p.x());
      b.y[i] = static_cast<T>(p.y());
      b.z[i] = static_cast<T>(p.z());
    }
  }
  return b;
}

template StrandBatch<float> pack_batch(const StrandSet&);
template StrandBatch<double> pack_batch(const StrandSet&);

}  // namespace hairsim
