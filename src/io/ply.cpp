// PLY (http://paulbourke.net/dataformats/ply/), ascii and binary little/big endian.
// A small generic parser reads every element into doubles (exact for all PLY scalar types);
// the strand layout (vertex + strand(nsegs) [+ edge], as written by hairutil/happly) and the
// mesh layout (vertex + face(vertex_indices)) are read from it.
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <utility>

#include "formats.hpp"
#include "text_scanner.hpp"

namespace hairsim::io {
namespace {

enum class PlyType { i8, u8, i16, u16, i32, u32, f32, f64 };

std::size_t type_size(PlyType t) {
  constexpr std::array<std::size_t, 8> sizes{1, 1, 2, 2, 4, 4, 4, 8};
  return sizes[static_cast<int>(t)];
}
bool is_float(PlyType t) {
  return t == PlyType::f32 || t == PlyType::f64;
}

bool parse_type(std::string_view name, PlyType& t) {
  static const std::pair<const char*, PlyType> names[] = {
      {"char", PlyType::i8},    {"int8", PlyType::i8},     {"uchar", PlyType::u8},
      {"uint8", PlyType::u8},   {"short", PlyType::i16},   {"int16", PlyType::i16},
      {"ushort", PlyType::u16}, {"uint16", PlyType::u16},  {"int", PlyType::i32},
      {"int32", PlyType::i32},  {"uint", PlyType::u32},    {"uint32", PlyType::u32},
      {"float", PlyType::f32},  {"float32", PlyType::f32}, {"double", PlyType::f64},
      {"float64", PlyType::f64}};
  for (const auto& [n, type] : names)
    if (name == n) {
      t = type;
      return true;
    }
  return false;
}

struct PlyProperty {
  std::string name;
  PlyType type = PlyType::f32;
  bool is_list = false;
  PlyType count_type = PlyType::u8;
  std::vector<double> values;             // scalar: one per row; list: all items, row after row
  std::vector<std::size_t> list_offsets;  // list: row r spans [list_offsets[r], [r+1])
};

struct PlyElement {
  std::string name;
  std::size_t count = 0;
  std::size_t data_offset = 0;  // byte offset of the element's first row
  std::vector<PlyProperty> properties;

  const PlyProperty* find(std::string_view prop) const {
    for (const auto& p : properties)
      if (p.name == prop) return &p;
    return nullptr;
  }
};

enum class PlyEncoding { ascii, binary_le, binary_be };

struct PlyFile {
  std::vector<PlyElement> elements;
  const PlyElement* find(std::string_view name) const {
    for (const auto& e : elements)
      if (e.name == name) return &e;
    return nullptr;
  }
};

template <class T>
double load_scalar(const char* p, bool swap) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  if (swap) {
    auto* b = reinterpret_cast<unsigned char*>(&v);
    std::reverse(b, b + sizeof(T));
  }
  return static_cast<double>(v);
}

double load_binary(PlyType t, const char* p, bool swap) {
  switch (t) {
    case PlyType::i8:
      return load_scalar<std::int8_t>(p, swap);
    case PlyType::u8:
      return load_scalar<std::uint8_t>(p, swap);
    case PlyType::i16:
      return load_scalar<std::int16_t>(p, swap);
    case PlyType::u16:
      return load_scalar<std::uint16_t>(p, swap);
    case PlyType::i32:
      return load_scalar<std::int32_t>(p, swap);
    case PlyType::u32:
      return load_scalar<std::uint32_t>(p, swap);
    case PlyType::f32:
      return load_scalar<float>(p, swap);
    case PlyType::f64:
      return load_scalar<double>(p, swap);
  }
  return 0;
}

// The values an integer PLY type holds.
std::pair<std::int64_t, std::int64_t> integer_range(PlyType t) {
  switch (t) {
    case PlyType::i8:
      return {-128, 127};
    case PlyType::u8:
      return {0, 255};
    case PlyType::i16:
      return {-32768, 32767};
    case PlyType::u16:
      return {0, 65535};
    case PlyType::i32:
      return {INT32_MIN, INT32_MAX};
    default:
      return {0, UINT32_MAX};
  }
}

double parse_ascii(TextScanner& in, PlyType t, const char* what) {
  switch (t) {
    case PlyType::f32:
      return in.next_number<float>(what);
    case PlyType::f64:
      return in.next_number<double>(what);
    default: {  // an integer within the declared type's range (uchar 300 is not one)
      const std::int64_t v = in.next_number<std::int64_t>(what);
      const auto [lo, hi] = integer_range(t);
      if (v < lo || v > hi)
        in.fail(in.last_token_offset(), std::string(what) + " " + std::to_string(v) +
                                            " is outside its type's range " + std::to_string(lo) +
                                            " to " + std::to_string(hi));
      return static_cast<double>(v);
    }
  }
}

// Header up to and including "end_header\n"; returns the byte offset of the data.
std::size_t parse_header(const std::filesystem::path& path, std::string_view text, PlyFile& ply,
                         PlyEncoding& encoding) {
  TextScanner in(path, text);
  if (text.substr(0, 3) != "ply") in.fail(0, "not a PLY file (missing 'ply' magic)");
  in.next_line();
  bool have_format = false;
  while (true) {
    if (in.offset() >= text.size()) in.fail(in.offset(), "truncated header: no end_header");
    const std::string_view key = in.token_on_line();
    if (key == "end_header") {
      in.next_line();
      break;
    }
    if (key == "format") {
      const std::string_view f = in.token_on_line();
      if (f == "ascii")
        encoding = PlyEncoding::ascii;
      else if (f == "binary_little_endian")
        encoding = PlyEncoding::binary_le;
      else if (f == "binary_big_endian")
        encoding = PlyEncoding::binary_be;
      else
        in.fail(in.last_token_offset(), "unknown PLY format '" + std::string(f) + "'");
      have_format = true;
    } else if (key == "element") {
      PlyElement e;
      e.name = std::string(in.token_on_line());
      e.count = in.number<std::uint64_t>(in.token_on_line(), "element count");
      ply.elements.push_back(std::move(e));
    } else if (key == "property") {
      if (ply.elements.empty()) in.fail(in.last_token_offset(), "property before any element");
      PlyProperty p;
      std::string_view t = in.token_on_line();
      if (t == "list") {
        p.is_list = true;
        if (!parse_type(in.token_on_line(), p.count_type) || is_float(p.count_type))
          in.fail(in.last_token_offset(), "bad list count type");
        t = in.token_on_line();
      }
      if (!parse_type(t, p.type))
        in.fail(in.last_token_offset(), "unknown property type '" + std::string(t) + "'");
      p.name = std::string(in.token_on_line());
      if (p.name.empty()) in.fail(in.offset(), "property without a name");
      ply.elements.back().properties.push_back(std::move(p));
    } else if (key != "comment" && key != "obj_info" && !key.empty()) {
      in.fail(in.last_token_offset(), "unknown header keyword '" + std::string(key) + "'");
    }
    in.next_line();
  }
  if (!have_format) in.fail(0, "header has no format line");
  return in.offset();
}

void check_room(const ByteReader& in, const PlyElement& e, std::size_t min_row_bytes) {
  in.require(e.count, min_row_bytes,
             "element '" + e.name + "' declares " + std::to_string(e.count) +
                 " rows, more than the file holds");
}

// Room for the element's values (counts already checked against the file size).
void prepare_storage(PlyElement& e) {
  for (auto& p : e.properties) {
    if (p.is_list)
      p.list_offsets.assign(1, 0);
    else
      p.values.reserve(e.count);
  }
}

void read_binary_element(ByteReader& in, const std::vector<char>& bytes, PlyElement& e, bool swap) {
  std::size_t min_row = 0;
  for (const auto& p : e.properties) min_row += type_size(p.is_list ? p.count_type : p.type);
  check_room(in, e, std::max<std::size_t>(min_row, 1));
  prepare_storage(e);
  for (std::size_t r = 0; r < e.count; ++r) {
    for (auto& p : e.properties) {
      const std::size_t at = in.offset();
      if (!p.is_list) {
        in.skip(type_size(p.type), "element data");
        const double v = load_binary(p.type, bytes.data() + at, swap);
        if (!std::isfinite(v))
          in.fail(at, "non-finite value in " + e.name + "." + p.name + " row " + std::to_string(r));
        p.values.push_back(v);
        continue;
      }
      in.skip(type_size(p.count_type), "list count");
      const double n = load_binary(p.count_type, bytes.data() + at, swap);
      if (n < 0) in.fail(at, "negative list length in " + e.name + "." + p.name);
      const auto count = static_cast<std::size_t>(n);
      in.require(count, type_size(p.type),
                 "list " + e.name + "." + p.name + " of " + std::to_string(count) + " items");
      for (std::size_t k = 0; k < count; ++k) {
        const std::size_t item_at = in.offset();
        in.skip(type_size(p.type), "list item");
        const double v = load_binary(p.type, bytes.data() + item_at, swap);
        if (!std::isfinite(v)) in.fail(item_at, "non-finite value in " + e.name + "." + p.name);
        p.values.push_back(v);
      }
      p.list_offsets.push_back(p.values.size());
    }
  }
}

void read_ascii_element(TextScanner& in, std::size_t remaining, PlyElement& e) {
  // Every value takes at least two characters ("0 "): bound the row count by the file size.
  const std::size_t min_row = std::max<std::size_t>(2 * e.properties.size(), 1);
  if (e.count > remaining / min_row + 1)
    in.fail(in.offset(), "element '" + e.name + "' declares " + std::to_string(e.count) +
                             " rows, more than the file holds");
  prepare_storage(e);
  for (std::size_t r = 0; r < e.count; ++r) {
    for (auto& p : e.properties) {
      if (!p.is_list) {
        p.values.push_back(parse_ascii(in, p.type, "a number"));
        continue;
      }
      const double n = parse_ascii(in, p.count_type, "a list length");
      if (n < 0 || n > static_cast<double>(remaining))
        in.fail(in.last_token_offset(), "bad list length in " + e.name + "." + p.name);
      for (std::size_t k = 0; k < static_cast<std::size_t>(n); ++k)
        p.values.push_back(parse_ascii(in, p.type, "a number"));
      p.list_offsets.push_back(p.values.size());
    }
  }
}

PlyFile parse_ply(const std::filesystem::path& path, const std::vector<char>& bytes) {
  if (bytes.empty()) throw Error(file_location(path, 0), "empty file");
  const std::string_view text(bytes.data(), bytes.size());
  PlyFile ply;
  PlyEncoding encoding = PlyEncoding::ascii;
  const std::size_t data_start = parse_header(path, text, ply, encoding);
  if (encoding == PlyEncoding::ascii) {
    TextScanner in(path, text, data_start);
    for (auto& e : ply.elements) {
      e.data_offset = in.offset();
      read_ascii_element(in, bytes.size() - in.offset(), e);
    }
    if (!in.at_end()) in.fail(in.offset(), "unexpected data after the last element");
  } else {
    ByteReader in(path, bytes, data_start);
    const bool swap = (encoding == PlyEncoding::binary_be);
    for (auto& e : ply.elements) {
      e.data_offset = in.offset();
      read_binary_element(in, bytes, e, swap);
    }
    in.expect_end();
  }
  return ply;
}

const PlyProperty& require_property(const std::filesystem::path& path, const PlyElement& e,
                                    std::string_view name) {
  const PlyProperty* p = e.find(name);
  if (!p || p->is_list)
    throw Error(file_location(path, e.data_offset),
                "element '" + e.name + "' has no scalar property '" + std::string(name) + "'");
  return *p;
}

std::vector<Vec3> read_vertices(const std::filesystem::path& path, const PlyFile& ply, double mpu) {
  const PlyElement* v = ply.find("vertex");
  if (!v) throw Error(file_location(path), "no 'vertex' element");
  const auto& x = require_property(path, *v, "x").values;
  const auto& y = require_property(path, *v, "y").values;
  const auto& z = require_property(path, *v, "z").values;
  std::vector<Vec3> points(v->count);
  for (std::size_t i = 0; i < v->count; ++i) points[i] = Vec3(x[i], y[i], z[i]) * mpu;
  return points;
}

// Colour channel of a vertex: integer types are 0..255, float types 0..1.
std::vector<Color> read_colors(const PlyElement& v) {
  const PlyProperty* r = v.find("red");
  const PlyProperty* g = v.find("green");
  const PlyProperty* b = v.find("blue");
  if (!r || !g || !b || r->is_list || g->is_list || b->is_list) return {};
  std::vector<Color> colors(v.count);
  for (const PlyProperty* c : {r, g, b}) {
    const float scale = is_float(c->type) ? 1.0f : 1.0f / 255.0f;
    const int k = static_cast<int>(c == r ? 0 : c == g ? 1 : 2);
    for (std::size_t i = 0; i < v.count; ++i)
      colors[i][k] = static_cast<float>(c->values[i]) * scale;
  }
  return colors;
}

}  // namespace

StrandSet read_ply_strands(const std::filesystem::path& path, const std::vector<char>& bytes,
                           double mpu) {
  const PlyFile ply = parse_ply(path, bytes);
  StrandSet s;
  s.points = read_vertices(path, ply, mpu);
  const PlyElement* strand = ply.find("strand");
  if (!strand)
    throw Error(file_location(path),
                "no 'strand' element (hairsim reads the vertex + strand(nsegs) layout)");
  const PlyProperty& nsegs = require_property(path, *strand, "nsegs");
  if (strand->count == 0) throw Error(file_location(path), "file contains no strands");
  for (double n : nsegs.values) {
    if (n < 0) throw Error(file_location(path, strand->data_offset), "negative strand nsegs");
    if (n != std::floor(n))  // a float-typed nsegs property must still count segments
      throw Error(file_location(path, strand->data_offset),
                  "strand nsegs " + std::to_string(n) + " is not a whole number");
    s.offsets.push_back(s.offsets.back() + static_cast<std::size_t>(n) + 1);
  }
  if (s.offsets.back() != s.points.size())
    throw Error(file_location(path, strand->data_offset),
                "strand nsegs add up to " + std::to_string(s.offsets.back()) +
                    " points, the file has " + std::to_string(s.points.size()) + " vertices");
  const PlyElement& v = *ply.find("vertex");
  s.colors = read_colors(v);
  if (const PlyProperty* t = v.find("thickness"); t && !t->is_list) {
    s.thickness.resize(v.count);
    for (std::size_t i = 0; i < v.count; ++i)
      s.thickness[i] = static_cast<float>(t->values[i] * mpu);
  }
  return s;
}

TriangleMesh read_ply_mesh(const std::filesystem::path& path, const std::vector<char>& bytes,
                           double mpu) {
  const PlyFile ply = parse_ply(path, bytes);
  TriangleMesh mesh;
  mesh.vertices = read_vertices(path, ply, mpu);
  const PlyElement* face = ply.find("face");
  if (!face) throw Error(file_location(path), "no 'face' element");
  const PlyProperty* idx = face->find("vertex_indices");
  if (!idx) idx = face->find("vertex_index");
  if (!idx || !idx->is_list)
    throw Error(file_location(path, face->data_offset), "face element has no vertex_indices list");
  for (std::size_t f = 0; f < face->count; ++f) {
    const std::size_t b = idx->list_offsets[f], e = idx->list_offsets[f + 1];
    if (e - b < 3)
      throw Error(file_location(path, face->data_offset),
                  "face " + std::to_string(f) + " has fewer than 3 vertices");
    for (std::size_t k = b + 1; k + 1 < e; ++k)  // fan triangulation
      mesh.triangles.push_back({static_cast<int>(idx->values[b]), static_cast<int>(idx->values[k]),
                                static_cast<int>(idx->values[k + 1])});
  }
  mesh.validate(file_location(path));
  return mesh;
}

std::string write_ply_strands(const StrandSet& s, double mpu, bool ascii) {
  const bool colors = s.has_colors(), thickness = s.has_thickness();
  std::string out = "ply\nformat ";
  out += ascii ? "ascii 1.0\n" : "binary_little_endian 1.0\n";
  out += "comment written by hairsim\nelement vertex " + std::to_string(s.point_count()) +
         "\nproperty float x\nproperty float y\nproperty float z\n";
  if (colors) out += "property uchar red\nproperty uchar green\nproperty uchar blue\n";
  if (thickness) out += "property float thickness\n";
  out += "element strand " + std::to_string(s.strand_count()) + "\nproperty ushort nsegs\n";
  out += "element edge " + std::to_string(s.point_count() - s.strand_count()) +
         "\nproperty int vertex1\nproperty int vertex2\nend_header\n";

  auto to_byte = [](float c) {
    return static_cast<std::uint8_t>(std::clamp(std::lround(c * 255.0f), 0l, 255l));
  };
  for (std::size_t i = 0; i < s.point_count(); ++i) {
    const float xyz[3] = {to_file_float(s.points[i].x(), mpu), to_file_float(s.points[i].y(), mpu),
                          to_file_float(s.points[i].z(), mpu)};
    if (ascii) {
      out += format_number(xyz[0]) + ' ' + format_number(xyz[1]) + ' ' + format_number(xyz[2]);
      if (colors)
        for (int k = 0; k < 3; ++k) out += ' ' + std::to_string(to_byte(s.colors[i][k]));
      if (thickness) out += ' ' + format_number(to_file_float(s.thickness[i], mpu));
      out += '\n';
    } else {
      for (float c : xyz) append_bytes(out, c);
      if (colors)
        for (int k = 0; k < 3; ++k) append_bytes(out, to_byte(s.colors[i][k]));
      if (thickness) append_bytes(out, to_file_float(s.thickness[i], mpu));
    }
  }
  for (std::size_t i = 0; i < s.strand_count(); ++i) {
    if (s.strand_size(i) - 1 > 65535)
      throw Error("strand " + std::to_string(i),
                  "has more than 65535 segments (PLY nsegs is ushort)");
    const auto nsegs = static_cast<std::uint16_t>(s.strand_size(i) - 1);
    if (ascii)
      out += std::to_string(nsegs) + '\n';
    else
      append_bytes(out, nsegs);
  }
  // Edges only so that MeshLab and Blender show the polylines; readers use strand.nsegs.
  for (std::size_t i = 0; i < s.strand_count(); ++i)
    for (std::size_t v = s.offsets[i]; v + 1 < s.offsets[i + 1]; ++v) {
      const auto a = static_cast<std::int32_t>(v), b = static_cast<std::int32_t>(v + 1);
      if (ascii)
        out += std::to_string(a) + ' ' + std::to_string(b) + '\n';
      else {
        append_bytes(out, a);
        append_bytes(out, b);
      }
    }
  return out;
}

std::string write_ply_mesh(const TriangleMesh& mesh, double mpu) {
  std::string out =
      "ply\nformat binary_little_endian 1.0\ncomment written by hairsim\nelement vertex " +
      std::to_string(mesh.vertices.size()) +
      "\nproperty float x\nproperty float y\nproperty float z\nelement face " +
      std::to_string(mesh.triangles.size()) +
      "\nproperty list uchar int vertex_indices\nend_header\n";
  for (const Vec3& p : mesh.vertices)
    for (int k = 0; k < 3; ++k) append_bytes(out, to_file_float(p[k], mpu));
  for (const auto& t : mesh.triangles) {
    append_bytes(out, std::uint8_t{3});
    for (int idx : t) append_bytes(out, static_cast<std::int32_t>(idx));
  }
  return out;
}

}  // namespace hairsim::io
