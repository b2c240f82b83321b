// Cem Yuksel's HAIR file format (http://www.cemyuksel.com/research/hairmodels/):
// a 128-byte header, then up to five arrays in flag-bit order:
//   bit 0 segments     uint16 per strand (points - 1); absent: every strand has d_segments
//   bit 1 points       3 x float32 per point (required by hairsim)
//   bit 2 thickness    float32 per point;   absent: d_thickness
//   bit 3 transparency float32 per point;   absent: d_transparency
//   bit 4 colors       3 x float32 per point; absent: d_color
#include <array>

#include "formats.hpp"

namespace hairsim::io {
namespace {

constexpr std::size_t kHeaderBytes = 128;
constexpr std::uint32_t kSegments = 1u << 0, kPoints = 1u << 1, kThickness = 1u << 2,
                        kTransparency = 1u << 3, kColors = 1u << 4;
constexpr std::uint32_t kKnownFlags = 0x1f;

#pragma pack(push, 1)
struct HairHeader {
  char signature[4];
  std::uint32_t hair_count;
  std::uint32_t point_count;
  std::uint32_t arrays;
  std::uint32_t d_segments;
  float d_thickness;
  float d_transparency;
  float d_color[3];
  char info[88];
};
#pragma pack(pop)
static_assert(sizeof(HairHeader) == kHeaderBytes);

}  // namespace

StrandSet read_hair(const std::filesystem::path& path, const std::vector<char>& bytes, double mpu) {
  ByteReader in(path, bytes);
  if (bytes.size() < kHeaderBytes)
    in.fail(0, "truncated header: " + std::to_string(bytes.size()) + " bytes, a HAIR header has " +
                   std::to_string(kHeaderBytes));
  const HairHeader h = in.read<HairHeader>("header");
  if (std::string_view(h.signature, 4) != "HAIR") in.fail(0, "not a HAIR file (bad signature)");
  if (h.arrays & ~kKnownFlags) {
    char hex[16];
    std::snprintf(hex, sizeof hex, "0x%x", h.arrays & ~kKnownFlags);
    in.fail(12, std::string("unknown array flag bits ") + hex + " (known bits: 0x1f)");
  }
  if (!(h.arrays & kPoints)) in.fail(12, "no points array (flag bit 1 is not set)");
  if (h.hair_count == 0) in.fail(4, "file contains no strands (hair count 0)");
  if (!std::isfinite(h.d_thickness) || !std::isfinite(h.d_transparency) ||
      !std::isfinite(h.d_color[0]) || !std::isfinite(h.d_color[1]) || !std::isfinite(h.d_color[2]))
    in.fail(20, "non-finite default value in header");

  // Every array length follows from the header: check the file size before allocating.
  const std::uint64_t pc = h.point_count;
  std::uint64_t expected = kHeaderBytes;
  if (h.arrays & kSegments) expected += 2ull * h.hair_count;
  expected += 12 * pc;
  if (h.arrays & kThickness) expected += 4 * pc;
  if (h.arrays & kTransparency) expected += 4 * pc;
  if (h.arrays & kColors) expected += 12 * pc;
  if (expected > bytes.size())
    in.fail(bytes.size(), "truncated: the header's counts (" + std::to_string(h.hair_count) +
                              " strands, " + std::to_string(pc) + " points) need " +
                              std::to_string(expected) + " bytes, the file has " +
                              std::to_string(bytes.size()));
  if (expected < bytes.size())
    in.fail(expected,
            std::to_string(bytes.size() - expected) + " unexpected bytes after the arrays");

  StrandSet s;
  s.offsets.reserve(h.hair_count + 1);
  if (h.arrays & kSegments) {
    const std::size_t at = in.offset();
    for (std::uint32_t i = 0; i < h.hair_count; ++i)
      s.offsets.push_back(s.offsets.back() + in.read<std::uint16_t>("segments") + 1u);
    if (s.offsets.back() != pc)
      in.fail(at, "segment counts add up to " + std::to_string(s.offsets.back()) +
                      " points, the header says " + std::to_string(pc));
  } else {
    if (std::uint64_t(h.hair_count) * (h.d_segments + 1ull) != pc)
      in.fail(16, std::to_string(h.hair_count) + " strands of d_segments " +
                      std::to_string(h.d_segments) + " do not make " + std::to_string(pc) +
                      " points");
    for (std::uint32_t i = 0; i < h.hair_count; ++i)
      s.offsets.push_back(s.offsets.back() + h.d_segments + 1u);
  }
  s.points.resize(pc);
  for (Vec3& p : s.points) {
    const float x = in.read_finite_float("point coordinate");
    const float y = in.read_finite_float("point coordinate");
    const float z = in.read_finite_float("point coordinate");
    p = Vec3(x, y, z) * mpu;
  }
  if (h.arrays & kThickness) {
    s.thickness.resize(pc);
    for (float& t : s.thickness) t = static_cast<float>(in.read_finite_float("thickness") * mpu);
  }
  if (h.arrays & kTransparency) {
    s.transparency.resize(pc);
    for (float& t : s.transparency) t = in.read_finite_float("transparency");
  }
  if (h.arrays & kColors) {
    s.colors.resize(pc);
    for (Color& c : s.colors)
      for (int k = 0; k < 3; ++k) c[k] = in.read_finite_float("color");
  }
  return s;
}

std::string write_hair(const StrandSet& s, double mpu) {
  HairHeader h{};
  std::memcpy(h.signature, "HAIR", 4);
  h.hair_count = static_cast<std::uint32_t>(s.strand_count());
  h.point_count = static_cast<std::uint32_t>(s.point_count());
  h.arrays = kSegments | kPoints | (s.has_thickness() ? kThickness : 0) |
             (s.has_transparency() ? kTransparency : 0) | (s.has_colors() ? kColors : 0);
  h.d_segments = 0;
  h.d_thickness = 1.0f;
  h.d_transparency = 0.0f;
  h.d_color[0] = h.d_color[1] = h.d_color[2] = 1.0f;
  std::string out;
  out.reserve(kHeaderBytes + 2 * s.strand_count() + 32 * s.point_count());
  append_bytes(out, h);
  for (std::size_t i = 0; i < s.strand_count(); ++i) {
    if (s.strand_size(i) > 65536)
      throw Error("strand " + std::to_string(i),
                  "has " + std::to_string(s.strand_size(i)) +
                      " points; the HAIR format stores at most 65536 per strand");
    append_bytes(out, static_cast<std::uint16_t>(s.strand_size(i) - 1));
  }
  for (const Vec3& p : s.points)
    for (int k = 0; k < 3; ++k) append_bytes(out, to_file_float(p[k], mpu));
  for (float t : s.thickness) append_bytes(out, to_file_float(t, mpu));
  for (float t : s.transparency) append_bytes(out, t);
  for (const Color& c : s.colors)
    for (int k = 0; k < 3; ++k) append_bytes(out, c[k]);
  return out;
}

}  // namespace hairsim::io
