#pragma once
// A hairstyle: polylines, root first, in metres, with optional per-vertex attributes.
#include <Eigen/Core>
#include <cstddef>
#include <optional>
#include <span>
#include <vector>

namespace hairsim {

using Vec3 = Eigen::Vector3d;
using Color = Eigen::Vector3f;  // linear RGB in [0, 1]

struct StrandSet {
  // All vertices, strand after strand, each strand root first (m).
  std::vector<Vec3> points;
  // Strand i spans points [offsets[i], offsets[i+1]); offsets.front() == 0, size = strands + 1.
  std::vector<std::size_t> offsets{0};
  // Optional per-vertex attributes: empty when absent, else one entry per point.
  std::vector<float> thickness;     // strand diameter (m), as in Cem Yuksel's .hair
  std::vector<float> transparency;  // 0 = opaque, 1 = invisible
  std::vector<Color> colors;

  std::size_t strand_count() const { return offsets.size() - 1; }
  std::size_t point_count() const { return points.size(); }
  std::size_t strand_size(std::size_t i) const { return offsets[i + 1] - offsets[i]; }
  std::span<const Vec3> strand(std::size_t i) const {
    return {points.data() + offsets[i], strand_size(i)};
  }
  bool has_thickness() const { return !thickness.empty(); }
  bool has_transparency() const { return !transparency.empty(); }
  bool has_colors() const { return !colors.empty(); }

  // Appends one strand (positions only; only valid while no attribute array is present).
  void add_strand(std::span<const Vec3> strand_points);
  // Throws Error(where, ...) if offsets or attribute sizes are inconsistent, a strand has
  // fewer than 2 points, or a coordinate is not finite.
  void validate(const std::string& where) const;
};

// Arc length of one polyline (m).
double polyline_length(std::span<const Vec3> polyline);

// Each strand resampled to `vertex_count` (>= 2) vertices equally spaced in arc length along
// the original polyline. Root and tip are kept exactly. Attributes are interpolated linearly.
StrandSet resample(const StrandSet& strands, int vertex_count);

struct StrandStatistics {
  std::size_t strand_count = 0;
  std::size_t point_count = 0;
  std::size_t vertices_min = 0, vertices_max = 0;
  double vertices_mean = 0;
  double length_min = 0, length_median = 0, length_max = 0;  // m
  Vec3 bbox_min = Vec3::Zero(), bbox_max = Vec3::Zero();     // m
};
StrandStatistics statistics(const StrandSet& strands);

}  // namespace hairsim
