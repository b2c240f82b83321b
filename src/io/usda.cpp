// USD ascii (.usda): one BasisCurves prim, linear, non-periodic, as Houdini, Blender and
// Omniverse import it. Points are point3f in the layer's unit (metersPerUnit says which);
// widths are per vertex from the strand thickness, or one constant hair width.
// The reader parses back exactly the subset the writer produces (for round trips and for
// checking written files), not general USD.
#include "formats.hpp"
#include "text_scanner.hpp"

namespace hairsim::io {
namespace {

constexpr double kDefaultHairWidth = 80e-6;  // m: a typical human hair diameter

void append_attribute_open(std::string& out, const char* decl) {
  out += "    ";
  out += decl;
  out += " = [";
}

}  // namespace

std::string write_usda(const StrandSet& s, double mpu) {
  std::string out =
      "#usda 1.0\n(\n    defaultPrim = \"Hair\"\n    metersPerUnit = " + format_number(mpu) +
      "\n    upAxis = \"Y\"\n)\n\n";
  out += "def BasisCurves \"Hair\"\n{\n";
  out += "    uniform token type = \"linear\"\n    uniform token wrap = \"nonperiodic\"\n";
  append_attribute_open(out, "int[] curveVertexCounts");
  for (std::size_t i = 0; i < s.strand_count(); ++i)
    out += (i ? ", " : "") + std::to_string(s.strand_size(i));
  out += "]\n";
  append_attribute_open(out, "point3f[] points");
  for (std::size_t i = 0; i < s.point_count(); ++i) {
    const Vec3& p = s.points[i];
    out += (i ? ", (" : "(") + format_number(to_file_float(p.x(), mpu)) + ", " +
           format_number(to_file_float(p.y(), mpu)) + ", " +
           format_number(to_file_float(p.z(), mpu)) + ")";
  }
  out += "]\n";
  append_attribute_open(out, "float[] widths");
  if (s.has_thickness()) {
    for (std::size_t i = 0; i < s.point_count(); ++i)
      out += (i ? ", " : "") + format_number(to_file_float(s.thickness[i], mpu));
    out += "] (\n        interpolation = \"vertex\"\n    )\n";
  } else {
    out += format_number(to_file_float(kDefaultHairWidth, mpu)) +
           "] (\n        interpolation = \"constant\"\n    )\n";
  }
  if (s.has_colors()) {
    append_attribute_open(out, "color3f[] primvars:displayColor");
    for (std::size_t i = 0; i < s.point_count(); ++i) {
      const Color& c = s.colors[i];
      out += (i ? ", (" : "(") + format_number(c.x()) + ", " + format_number(c.y()) + ", " +
             format_number(c.z()) + ")";
    }
    out += "] (\n        interpolation = \"vertex\"\n    )\n";
  }
  out += "}\n";
  return out;
}

namespace {

// Numbers of a `[...]` array value; tuples `(a, b, c)` are flattened.
template <class T>
std::vector<T> parse_array(TextScanner& in, std::string_view text, const char* what) {
  std::vector<T> values;
  std::size_t pos = in.offset();
  while (pos < text.size() && text[pos] != '[') ++pos;
  if (pos >= text.size()) in.fail(in.offset(), std::string("no array value for ") + what);
  ++pos;
  std::string number;
  std::size_t number_at = pos;
  auto flush = [&] {
    if (number.empty()) return;
    T v{};
    auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), v);
    if (ec != std::errc() || end != number.data() + number.size())
      in.fail(number_at, std::string("bad number '") + number + "' in " + what);
    if constexpr (std::is_floating_point_v<T>)
      if (!std::isfinite(v)) in.fail(number_at, std::string("non-finite value in ") + what);
    values.push_back(v);
    number.clear();
  };
  for (; pos < text.size() && text[pos] != ']'; ++pos) {
    const char c = text[pos];
    if (c == ',' || c == '(' || c == ')' || c == ' ' || c == '\n' || c == '\t' || c == '\r') {
      flush();
    } else {
      if (number.empty()) number_at = pos;
      number += c;
    }
  }
  if (pos >= text.size()) in.fail(in.offset(), std::string("unterminated array for ") + what);
  flush();
  return values;
}

std::size_t find_declaration(const std::filesystem::path& path, std::string_view text,
                             std::string_view decl, bool required) {
  const std::size_t at = text.find(decl);
  if (at == std::string_view::npos && required)
    throw Error(file_location(path), "no '" + std::string(decl) + "' attribute");
  return at;
}

}  // namespace

StrandSet read_usda(const std::filesystem::path& path, const std::vector<char>& bytes, double mpu) {
  const std::string_view text(bytes.data(), bytes.size());
  if (text.substr(0, 9) != "#usda 1.0") throw Error(file_location(path, 0), "not a .usda file");
  if (text.find("def BasisCurves") == std::string_view::npos)
    throw Error(file_location(path), "no BasisCurves prim");
  // The layer's own unit wins over the caller's.
  if (const std::size_t at = text.find("metersPerUnit = "); at != std::string_view::npos) {
    TextScanner in(path, text, at + 16);
    mpu = in.next_number<double>("metersPerUnit");
    if (mpu <= 0) in.fail(in.last_token_offset(), "metersPerUnit must be positive");
  }
  auto array_at = [&]<class T>(std::string_view decl, bool required, T) {
    const std::size_t at = find_declaration(path, text, decl, required);
    if (at == std::string_view::npos) return std::vector<T>{};
    TextScanner in(path, text, at + decl.size());  // past the type's own "[]"
    return parse_array<T>(in, text, std::string(decl).c_str());
  };
  const auto counts = array_at("int[] curveVertexCounts", true, int{});
  const auto xyz = array_at("point3f[] points", true, float{});
  if (counts.empty()) throw Error(file_location(path), "file contains no strands");
  StrandSet s;
  for (int c : counts) {
    if (c < 0) throw Error(file_location(path), "negative curve vertex count");
    s.offsets.push_back(s.offsets.back() + static_cast<std::size_t>(c));
  }
  if (xyz.size() != 3 * s.offsets.back())
    throw Error(file_location(path), "curveVertexCounts add up to " +
                                         std::to_string(s.offsets.back()) + " points, points has " +
                                         std::to_string(xyz.size() / 3));
  s.points.resize(s.offsets.back());
  for (std::size_t i = 0; i < s.points.size(); ++i)
    s.points[i] = Vec3(xyz[3 * i], xyz[3 * i + 1], xyz[3 * i + 2]) * mpu;
  const auto widths = array_at("float[] widths", false, float{});
  if (widths.size() == s.points.size()) {
    s.thickness.resize(widths.size());
    for (std::size_t i = 0; i < widths.size(); ++i)
      s.thickness[i] = static_cast<float>(widths[i] * mpu);
  }
  const auto rgb = array_at("color3f[] primvars:displayColor", false, float{});
  if (rgb.size() == 3 * s.points.size()) {
    s.colors.resize(s.points.size());
    for (std::size_t i = 0; i < s.points.size(); ++i)
      s.colors[i] = Color(rgb[3 * i], rgb[3 * i + 1], rgb[3 * i + 2]);
  }
  return s;
}

}  // namespace hairsim::io
