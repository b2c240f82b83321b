#include "hairsim/strands.hpp"

#include "core/memory.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include "hairsim/error.hpp"

namespace hairsim {

void StrandSet::add_strand(std::span<const Vec3> strand_points) {
  points.insert(points.end(), strand_points.begin(), strand_points.end());
  offsets.push_back(points.size());
}

void StrandSet::validate(const std::string& where) const {
  if (offsets.empty() || offsets.front() != 0 || offsets.back() != points.size())
    throw Error(where, "strand offsets do not cover the points");
  for (std::size_t i = 0; i < strand_count(); ++i) {
    if (offsets[i + 1] < offsets[i] + 2)
      throw Error(where, "strand " + std::to_string(i) + " has fewer than 2 points");
  }
  auto check_size = [&](std::size_t n, const char* name) {
    if (n != 0 && n != points.size())
      throw Error(where, std::string(name) + " has " + std::to_string(n) + " entries for " +
                             std::to_string(points.size()) + " points");
  };
  check_size(thickness.size(), "thickness");
  check_size(transparency.size(), "transparency");
  check_size(colors.size(), "colors");
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (!points[i].allFinite())
      throw Error(where, "point " + std::to_string(i) + " has a non-finite coordinate");
  }
}

double polyline_length(std::span<const Vec3> polyline) {
  double length = 0;
  for (std::size_t i = 1; i < polyline.size(); ++i)
    length += (polyline[i] - polyline[i - 1]).norm();
  return length;
}

namespace {

// Where along a polyline (segment index and fraction) each of `count` equally spaced arc-length
// stations falls. Station 0 is the root and station count-1 the tip, exactly.
struct Station {
  std::size_t segment;
  double t;
};

std::vector<Station> arc_length_stations(std::span<const Vec3> polyline, int count) {
  std::vector<double> cumulative(polyline.size(), 0.0);
  for (std::size_t i = 1; i < polyline.size(); ++i)
    cumulative[i] = cumulative[i - 1] + (polyline[i] - polyline[i - 1]).norm();
  const double total = cumulative.back();
  std::vector<Station> stations(count);
  std::size_t segment = 0;
  const std::size_t last_segment = polyline.size() - 2;
  for (int k = 0; k < count; ++k) {
    const double s = total * k / (count - 1);
    while (segment < last_segment && cumulative[segment + 1] < s) ++segment;
    const double seg_len = cumulative[segment + 1] - cumulative[segment];
    const double t = seg_len > 0 ? std::clamp((s - cumulative[segment]) / seg_len, 0.0, 1.0) : 0.0;
    stations[k] = {segment, t};
  }
  stations.front() = {0, 0.0};
  stations.back() = {last_segment, 1.0};
  return stations;
}

template <class T>
struct ScalarOf {
  using type = T;
};
template <class S, int N>
struct ScalarOf<Eigen::Matrix<S, N, 1>> {
  using type = S;
};

// values[first + segment] .. values[first + segment + 1] at fraction t; exact at t = 0 and 1.
template <class T>
T lerp_at(const std::vector<T>& values, std::size_t first, const Station& st) {
  const T& a = values[first + st.segment];
  const T& b = values[first + st.segment + 1];
  if (st.t == 0.0) return a;
  if (st.t == 1.0) return b;
  return a + (b - a) * static_cast<typename ScalarOf<T>::type>(st.t);
}

}  // namespace

StrandSet resample(const StrandSet& strands, int vertex_count) {
  if (vertex_count < 2) throw Error("--resample", "vertex count must be at least 2");
  StrandSet out;
  const std::size_t n = strands.strand_count();
  // Points, and as much again for the writer's copy: a billion vertices died in bad_alloc.
  require_memory(2 * std::uint64_t(n) * std::uint64_t(vertex_count) * sizeof(Vec3), "--resample",
                 std::to_string(n) + " strands of " + std::to_string(vertex_count) + " vertices");
  out.points.reserve(n * vertex_count);
  out.offsets.reserve(n + 1);
  for (std::size_t i = 0; i < n; ++i) {
    const auto stations = arc_length_stations(strands.strand(i), vertex_count);
    const std::size_t first = strands.offsets[i];
    for (const Station& st : stations) {
      out.points.push_back(lerp_at(strands.points, first, st));
      if (strands.has_thickness()) out.thickness.push_back(lerp_at(strands.thickness, first, st));
      if (strands.has_transparency())
        out.transparency.push_back(lerp_at(strands.transparency, first, st));
      if (strands.has_colors()) out.colors.push_back(lerp_at(strands.colors, first, st));
    }
    out.offsets.push_back(out.points.size());
  }
  return out;
}

StrandStatistics statistics(const StrandSet& strands) {
  StrandStatistics s;
  s.strand_count = strands.strand_count();
  s.point_count = strands.point_count();
  if (s.strand_count == 0) return s;
  std::vector<double> lengths(s.strand_count);
  s.vertices_min = std::numeric_limits<std::size_t>::max();
  for (std::size_t i = 0; i < s.strand_count; ++i) {
    s.vertices_min = std::min(s.vertices_min, strands.strand_size(i));
    s.vertices_max = std::max(s.vertices_max, strands.strand_size(i));
    lengths[i] = polyline_length(strands.strand(i));
  }
  s.vertices_mean = static_cast<double>(s.point_count) / static_cast<double>(s.strand_count);
  std::sort(lengths.begin(), lengths.end());
  s.length_min = lengths.front();
  s.length_max = lengths.back();
  const std::size_t mid = lengths.size() / 2;
  s.length_median = lengths.size() % 2 ? lengths[mid] : 0.5 * (lengths[mid - 1] + lengths[mid]);
  s.bbox_min = s.bbox_max = strands.points.front();
  for (const Vec3& p : strands.points) {
    s.bbox_min = s.bbox_min.cwiseMin(p);
    s.bbox_max = s.bbox_max.cwiseMax(p);
  }
  return s;
}

}  // namespace hairsim
