// Wavefront OBJ: `v x y z` vertices, `l i j k ...` polylines (one strand per `l` line) and
// `f i j k ...` faces for meshes. Indices are 1-based; negative indices count back from the
// last vertex; `i/t/n` forms use the vertex index. Other statements are ignored.
#include "formats.hpp"
#include "text_scanner.hpp"

namespace hairsim::io {
namespace {

struct ObjContents {
  std::vector<Vec3> vertices;
  std::vector<std::vector<int>> lines;  // zero-based indices
  std::vector<std::vector<int>> faces;
};

int parse_index(TextScanner& in, std::string_view tok, std::size_t vertex_count) {
  const std::string_view head = tok.substr(0, tok.find('/'));
  const long long i = in.number<long long>(head, "a vertex index");
  const long long n = static_cast<long long>(vertex_count);
  const long long zero_based = i > 0 ? i - 1 : n + i;
  if (i == 0 || zero_based < 0 || zero_based >= n)
    in.fail(in.last_token_offset(), "vertex index " + std::to_string(i) + " out of range (" +
                                        std::to_string(n) + " vertices so far)");
  return static_cast<int>(zero_based);
}

ObjContents parse_obj(const std::filesystem::path& path, const std::vector<char>& bytes,
                      double mpu) {
  if (bytes.empty()) throw Error(file_location(path, 0), "empty file");
  TextScanner in(path, std::string_view(bytes.data(), bytes.size()));
  ObjContents obj;
  while (!in.at_end()) {
    const std::string_view key = in.token_on_line();
    if (key == "v") {
      Vec3 p;
      for (int k = 0; k < 3; ++k) {
        const std::string_view tok = in.token_on_line();
        if (tok.empty()) in.fail(in.offset(), "vertex with fewer than 3 coordinates");
        p[k] = in.number<double>(tok, "a coordinate");
      }
      obj.vertices.push_back(p * mpu);
    } else if (key == "l" || key == "f") {
      std::vector<int> idx;
      for (std::string_view tok = in.token_on_line(); !tok.empty(); tok = in.token_on_line())
        idx.push_back(parse_index(in, tok, obj.vertices.size()));
      (key == "l" ? obj.lines : obj.faces).push_back(std::move(idx));
    }
    in.next_line();
  }
  return obj;
}

}  // namespace

StrandSet read_obj_strands(const std::filesystem::path& path, const std::vector<char>& bytes,
                           double mpu) {
  const ObjContents obj = parse_obj(path, bytes, mpu);
  if (obj.lines.empty()) throw Error(file_location(path), "file contains no strands ('l' lines)");
  StrandSet s;
  for (const auto& line : obj.lines) {
    for (int i : line) s.points.push_back(obj.vertices[i]);
    s.offsets.push_back(s.points.size());
  }
  return s;
}

TriangleMesh read_obj_mesh(const std::filesystem::path& path, const std::vector<char>& bytes,
                           double mpu) {
  ObjContents obj = parse_obj(path, bytes, mpu);
  if (obj.faces.empty()) throw Error(file_location(path), "file contains no faces ('f' lines)");
  TriangleMesh mesh;
  mesh.vertices = std::move(obj.vertices);
  for (const auto& f : obj.faces) {
    if (f.size() < 3) throw Error(file_location(path), "face with fewer than 3 vertices");
    for (std::size_t k = 1; k + 1 < f.size(); ++k) mesh.triangles.push_back({f[0], f[k], f[k + 1]});
  }
  return mesh;
}

namespace {
void append_vertex(std::string& out, const Vec3& p, double mpu) {
  out += "v " + format_number(p.x() / mpu) + ' ' + format_number(p.y() / mpu) + ' ' +
         format_number(p.z() / mpu) + '\n';
}
}  // namespace

std::string write_obj_strands(const StrandSet& s, double mpu) {
  std::string out = "# hairsim strands: " + std::to_string(s.strand_count()) + " polylines\n";
  for (const Vec3& p : s.points) append_vertex(out, p, mpu);
  for (std::size_t i = 0; i < s.strand_count(); ++i) {
    out += 'l';
    for (std::size_t v = s.offsets[i]; v < s.offsets[i + 1]; ++v)
      out += ' ' + std::to_string(v + 1);
    out += '\n';
  }
  return out;
}

std::string write_obj_mesh(const TriangleMesh& mesh, double mpu) {
  std::string out = "# hairsim mesh\n";
  for (const Vec3& p : mesh.vertices) append_vertex(out, p, mpu);
  for (const auto& t : mesh.triangles)
    out += "f " + std::to_string(t[0] + 1) + ' ' + std::to_string(t[1] + 1) + ' ' +
           std::to_string(t[2] + 1) + '\n';
  return out;
}

}  // namespace hairsim::io
