#pragma once
// Per-format readers and writers (internal). Readers take the whole file image and the
// metres per file unit, and return strands in metres; they may return strands with fewer than
// 2 points, which read_strands() drops and counts. Writers return the file image.
#include <string>
#include <vector>

#include "file_bytes.hpp"
#include "hairsim/io.hpp"

namespace hairsim::io {

StrandSet read_hair(const std::filesystem::path& path, const std::vector<char>& bytes, double mpu);
std::string write_hair(const StrandSet& strands, double mpu);

// USC-HairSalon .data (3 floats per vertex) and CT2Hair .bin (7 floats per vertex): int32
// strand count, then per strand an int32 vertex count and the vertices.
StrandSet read_counted_strands(const std::filesystem::path& path, const std::vector<char>& bytes,
                               double mpu, int floats_per_vertex);
std::string write_counted_strands(const StrandSet& strands, double mpu, int floats_per_vertex);

StrandSet read_ply_strands(const std::filesystem::path& path, const std::vector<char>& bytes,
                           double mpu);
std::string write_ply_strands(const StrandSet& strands, double mpu, bool ascii);
TriangleMesh read_ply_mesh(const std::filesystem::path& path, const std::vector<char>& bytes,
                           double mpu);
std::string write_ply_mesh(const TriangleMesh& mesh, double mpu);

StrandSet read_obj_strands(const std::filesystem::path& path, const std::vector<char>& bytes,
                           double mpu);
TriangleMesh read_obj_mesh(const std::filesystem::path& path, const std::vector<char>& bytes,
                           double mpu);
std::string write_obj_strands(const StrandSet& strands, double mpu);
std::string write_obj_mesh(const TriangleMesh& mesh, double mpu);

StrandSet read_usda(const std::filesystem::path& path, const std::vector<char>& bytes, double mpu);
std::string write_usda(const StrandSet& strands, double mpu);

}  // namespace hairsim::io
