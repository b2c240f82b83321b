// USC-HairSalon .data and CT2Hair .bin: little-endian
//   int32 strand_count
//   per strand: int32 vertex_count, vertex_count x (floats_per_vertex x float32)
// .data has 3 floats per vertex (x y z); CT2Hair's .bin has 7 (x y z and four more that
// hairsim does not interpret: read and dropped, written as 0).
#include "formats.hpp"

namespace hairsim::io {

StrandSet read_counted_strands(const std::filesystem::path& path, const std::vector<char>& bytes,
                               double mpu, int floats_per_vertex) {
  ByteReader in(path, bytes);
  if (bytes.empty()) in.fail(0, "empty file");
  const std::int32_t strand_count = in.read<std::int32_t>("strand count");
  if (strand_count < 0) in.fail(0, "negative strand count " + std::to_string(strand_count));
  if (strand_count == 0) in.fail(0, "file contains no strands (strand count 0)");
  in.require(static_cast<std::uint64_t>(strand_count), 4,
             "strand count " + std::to_string(strand_count) + " is larger than the file");
  const std::size_t vertex_bytes = 4u * static_cast<std::size_t>(floats_per_vertex);

  StrandSet s;
  s.offsets.reserve(static_cast<std::size_t>(strand_count) + 1);
  for (std::int32_t i = 0; i < strand_count; ++i) {
    const std::size_t at = in.offset();
    const std::int32_t n = in.read<std::int32_t>("vertex count");
    if (n < 0)
      in.fail(at,
              "strand " + std::to_string(i) + " has a negative vertex count " + std::to_string(n));
    in.require(static_cast<std::uint64_t>(n), vertex_bytes,
               "strand " + std::to_string(i) + " vertex count " + std::to_string(n) +
                   " is larger than the file");
    for (std::int32_t v = 0; v < n; ++v) {
      const float x = in.read_finite_float("vertex coordinate");
      const float y = in.read_finite_float("vertex coordinate");
      const float z = in.read_finite_float("vertex coordinate");
      s.points.push_back(Vec3(x, y, z) * mpu);
      in.skip(vertex_bytes - 12, "vertex");
    }
    s.offsets.push_back(s.points.size());
  }
  in.expect_end();
  return s;
}

std::string write_counted_strands(const StrandSet& s, double mpu, int floats_per_vertex) {
  std::string out;
  out.reserve(4 + 4 * s.strand_count() + 4u * floats_per_vertex * s.point_count());
  append_bytes(out, static_cast<std::int32_t>(s.strand_count()));
  for (std::size_t i = 0; i < s.strand_count(); ++i) {
    append_bytes(out, static_cast<std::int32_t>(s.strand_size(i)));
    for (const Vec3& p : s.strand(i)) {
      for (int k = 0; k < 3; ++k) append_bytes(out, to_file_float(p[k], mpu));
      for (int k = 3; k < floats_per_vertex; ++k) append_bytes(out, 0.0f);
    }
  }
  return out;
}

}  // namespace hairsim::io
