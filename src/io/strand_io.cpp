// Format dispatch by extension, unit conversion, degenerate-strand handling.
#include <algorithm>
#include <cctype>
#include <limits>

#include "formats.hpp"

namespace hairsim {
namespace {

std::string lower_extension(const std::filesystem::path& path) {
  std::string ext = path.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext;
}

constexpr int kCt2HairFloatsPerVertex = 7;
constexpr int kUscFloatsPerVertex = 3;

// Removes strands with fewer than 2 points (and their attributes); returns how many.
std::size_t drop_degenerate_strands(StrandSet& s) {
  StrandSet kept;
  std::size_t dropped = 0;
  for (std::size_t i = 0; i < s.strand_count(); ++i) {
    if (s.strand_size(i) < 2) {
      ++dropped;
      continue;
    }
    const std::size_t b = s.offsets[i], e = s.offsets[i + 1];
    kept.points.insert(kept.points.end(), s.points.begin() + b, s.points.begin() + e);
    if (s.has_thickness())
      kept.thickness.insert(kept.thickness.end(), s.thickness.begin() + b, s.thickness.begin() + e);
    if (s.has_transparency())
      kept.transparency.insert(kept.transparency.end(), s.transparency.begin() + b,
                               s.transparency.begin() + e);
    if (s.has_colors())
      kept.colors.insert(kept.colors.end(), s.colors.begin() + b, s.colors.begin() + e);
    kept.offsets.push_back(kept.points.size());
  }
  if (dropped) s = std::move(kept);
  return dropped;
}

}  // namespace

StrandFormat strand_format_from_path(const std::filesystem::path& path) {
  const std::string ext = lower_extension(path);
  if (ext == ".hair") return StrandFormat::hair;
  if (ext == ".data") return StrandFormat::usc_data;
  if (ext == ".bin") return StrandFormat::ct2hair_bin;
  if (ext == ".ply") return StrandFormat::ply;
  if (ext == ".obj") return StrandFormat::obj;
  if (ext == ".usda") return StrandFormat::usda;
  throw Error(file_location(path), "unknown strand file extension '" + ext +
                                       "' (known: .hair .data .bin .ply .obj .usda)");
}

const char* to_string(StrandFormat format) {
  switch (format) {
    case StrandFormat::hair:
      return "hair (Cem Yuksel)";
    case StrandFormat::usc_data:
      return "data (USC-HairSalon)";
    case StrandFormat::ct2hair_bin:
      return "bin (CT2Hair)";
    case StrandFormat::ply:
      return "ply";
    case StrandFormat::obj:
      return "obj";
    case StrandFormat::usda:
      return "usda (USD BasisCurves)";
  }
  return "?";
}

StrandSet read_strands(const std::filesystem::path& path, const ReadOptions& options,
                       ReadReport* report) {
  const StrandFormat format = strand_format_from_path(path);
  const std::vector<char> bytes = io::read_file_bytes(path);
  if (bytes.empty()) throw Error(file_location(path, 0), "empty file");
  const double mpu = metres_per_unit(options.units);
  StrandSet s;
  switch (format) {
    case StrandFormat::hair:
      s = io::read_hair(path, bytes, mpu);
      break;
    case StrandFormat::usc_data:
      s = io::read_counted_strands(path, bytes, mpu, kUscFloatsPerVertex);
      break;
    case StrandFormat::ct2hair_bin:
      s = io::read_counted_strands(path, bytes, mpu, kCt2HairFloatsPerVertex);
      break;
    case StrandFormat::ply:
      s = io::read_ply_strands(path, bytes, mpu);
      break;
    case StrandFormat::obj:
      s = io::read_obj_strands(path, bytes, mpu);
      break;
    case StrandFormat::usda:
      s = io::read_usda(path, bytes, mpu);
      break;
  }
  const std::size_t dropped = drop_degenerate_strands(s);
  if (report) report->skipped_degenerate_strands = dropped;
  if (s.strand_count() == 0)
    throw Error(file_location(path), "file contains no strands with 2 or more points (" +
                                         std::to_string(dropped) + " degenerate strands)");
  s.validate(file_location(path));
  return s;
}

void write_strands(const std::filesystem::path& path, const StrandSet& strands,
                   const WriteOptions& options) {
  const StrandFormat format = strand_format_from_path(path);
  if (strands.strand_count() == 0) throw Error(file_location(path), "no strands to write");
  strands.validate(file_location(path));
  const double mpu = metres_per_unit(options.units);
  // Every format stores coordinates a 32-bit float can read back: refuse what the unit makes
  // larger (3e38 m in mm), rather than write an infinity.
  for (const Vec3& p : strands.points)
    if (!(p.cwiseAbs().maxCoeff() / mpu <= double(std::numeric_limits<float>::max())))
      throw Error(file_location(path), "a coordinate of " +
                                           std::to_string(p.cwiseAbs().maxCoeff()) +
                                           " m exceeds a 32-bit float in the unit written");
  std::string bytes;
  switch (format) {
    case StrandFormat::hair:
      bytes = io::write_hair(strands, mpu);
      break;
    case StrandFormat::usc_data:
      bytes = io::write_counted_strands(strands, mpu, kUscFloatsPerVertex);
      break;
    case StrandFormat::ct2hair_bin:
      bytes = io::write_counted_strands(strands, mpu, kCt2HairFloatsPerVertex);
      break;
    case StrandFormat::ply:
      bytes = io::write_ply_strands(strands, mpu, options.ply_ascii);
      break;
    case StrandFormat::obj:
      bytes = io::write_obj_strands(strands, mpu);
      break;
    case StrandFormat::usda:
      bytes = io::write_usda(strands, mpu);
      break;
  }
  io::write_file_atomically(path, bytes);
}

TriangleMesh read_mesh(const std::filesystem::path& path, const ReadOptions& options) {
  const std::string ext = lower_extension(path);
  const std::vector<char> bytes = io::read_file_bytes(path);
  const double mpu = metres_per_unit(options.units);
  TriangleMesh mesh;
  if (ext == ".ply")
    mesh = io::read_ply_mesh(path, bytes, mpu);
  else if (ext == ".obj")
    mesh = io::read_obj_mesh(path, bytes, mpu);
  else
    throw Error(file_location(path), "unknown mesh extension '" + ext + "' (known: .ply .obj)");
  if (mesh.triangles.empty()) throw Error(file_location(path), "mesh has no faces");
  mesh.validate(file_location(path));
  return mesh;
}

void write_mesh(const std::filesystem::path& path, const TriangleMesh& mesh,
                const WriteOptions& options) {
  const std::string ext = lower_extension(path);
  mesh.validate(file_location(path));
  const double mpu = metres_per_unit(options.units);
  if (ext == ".ply")
    io::write_file_atomically(path, io::write_ply_mesh(mesh, mpu));
  else if (ext == ".obj")
    io::write_file_atomically(path, io::write_obj_mesh(mesh, mpu));
  else
    throw Error(file_location(path), "unknown mesh extension '" + ext + "' (known: .ply .obj)");
}

}  // namespace hairsim
