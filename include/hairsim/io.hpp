#pragma once
// Strand and mesh files. The format is picked by the file extension:
//   .hair  Cem Yuksel's HAIR format            read + write
//   .data  USC-HairSalon                       read + write
//   .bin   CT2Hair (7 float32 per vertex)      read + write
//   .ply   PLY vertex + strand(nsegs) + edge   read + write (binary LE or ascii)
//   .obj   OBJ polylines (v + l)               read + write
//   .usda  USD BasisCurves                     read (the subset hairsim writes) + write
// Readers check every count against the file size before allocating and throw Error naming
// the file, the byte offset and the problem. Writers write to a temporary file and rename it,
// so a failed write leaves no partial output.
#include <filesystem>
#include <string>
#include <vector>

#include "hairsim/mesh.hpp"
#include "hairsim/strands.hpp"
#include "hairsim/units.hpp"

namespace hairsim {

enum class StrandFormat { hair, usc_data, ct2hair_bin, ply, obj, usda };

// Throws Error naming the file when the extension is not a strand format.
StrandFormat strand_format_from_path(const std::filesystem::path& path);
const char* to_string(StrandFormat format);

struct ReadOptions {
  LengthUnit units = LengthUnit::m;  // unit of the numbers in the file
};

struct ReadReport {
  // Strands with fewer than 2 points (real USC files contain some) are skipped, not errors.
  std::size_t skipped_degenerate_strands = 0;
};

struct WriteOptions {
  LengthUnit units = LengthUnit::m;  // unit to write the numbers in
  bool ply_ascii = false;            // PLY: ascii instead of binary_little_endian
};

StrandSet read_strands(const std::filesystem::path& path, const ReadOptions& options = {},
                       ReadReport* report = nullptr);
void write_strands(const std::filesystem::path& path, const StrandSet& strands,
                   const WriteOptions& options = {});

// Meshes: .ply (vertex + face list) and .obj (v + f); polygons are fan-triangulated.
TriangleMesh read_mesh(const std::filesystem::path& path, const ReadOptions& options = {});
void write_mesh(const std::filesystem::path& path, const TriangleMesh& mesh,
                const WriteOptions& options = {});

}  // namespace hairsim
