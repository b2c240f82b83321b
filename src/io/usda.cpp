// USD ascii (.usda): one BasisCurves prim, linear, non-periodic, as Houdini, Blender and
// Omniverse import it. Points are point3f in the layer's unit (metersPerUnit says which);
// widths are per vertex from the strand thickness, or one constant hair width.
// The reader parses back exactly the subset the writer produces (for round trips and for
// checking written files), not general USD.
#include <cctype>
#include <charconv>
#include <fstream>
#include <iterator>

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

namespace {

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
  if (text.find("points.timeSamples") != std::string_view::npos) {  // animated: the last frame
    UsdaAnimation a = read_usda_animation(path);
    a.topology.points = a.frames.back();
    return a.topology;
  }
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

namespace hairsim {

namespace {

std::string usda_header(double fps, int first, int last) {
  return "#usda 1.0\n(\n    defaultPrim = \"Hair\"\n    metersPerUnit = 1\n    upAxis = \"Y\"\n"
         "    startTimeCode = " +
         std::to_string(first) + "\n    endTimeCode = " + std::to_string(last) +
         "\n    timeCodesPerSecond = " + io::format_number(fps) +
         "\n    framesPerSecond = " + io::format_number(fps) + "\n)\n\n";
}

constexpr std::string_view kTimeSamples = "point3f[] points.timeSamples = {";

}  // namespace

UsdaAnimationWriter::UsdaAnimationWriter(std::filesystem::path path, const StrandSet& topology,
                                         double fps)
    : UsdaAnimationWriter(std::move(path), topology, fps, Progress{}) {}  // an empty body

UsdaAnimationWriter::~UsdaAnimationWriter() {
  std::error_code ignored;
  std::filesystem::remove(body_, ignored);
}

void UsdaAnimationWriter::add_frame(int frame, const std::vector<Vec3>& points) {
  if (points.size() != points_)
    throw Error(path_.string(), "frame " + std::to_string(frame) + " has " +
                                    std::to_string(points.size()) + " points, expected " +
                                    std::to_string(points_));
  std::string line = "        " + std::to_string(frame) + ": [";
  for (std::size_t i = 0; i < points.size(); ++i) {
    const Vec3& p = points[i];
    line += (i ? ", (" : "(") + io::format_number(static_cast<float>(p.x())) + ", " +
            io::format_number(static_cast<float>(p.y())) + ", " +
            io::format_number(static_cast<float>(p.z())) + ")";
  }
  line += "],\n";
  std::ofstream body(body_, std::ios::app | std::ios::binary);
  body << line;
  body.close();
  if (!body) {
    std::error_code ec;  // a partial line cut off: the frames before stay whole (a full disk)
    std::filesystem::resize_file(body_, body_bytes_, ec);
    throw Error(body_.string(), "cannot write");
  }
  body_bytes_ += line.size();
  if (last_ < first_) first_ = frame;
  last_ = frame;
}

namespace {

// The time samples' lines of an animated .usda that UsdaAnimationWriter finished ("" when the
// file is missing or not one of its files).
std::string written_time_samples(const std::filesystem::path& usda) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(usda, ec)) return {};
  const std::vector<char> bytes = io::read_file_bytes(usda);
  const std::string_view text(bytes.data(), bytes.size());
  const std::size_t open = text.find(kTimeSamples);
  constexpr std::string_view kClose = "    }\n}\n";
  if (open == std::string_view::npos || text.size() < kClose.size() ||
      text.substr(text.size() - kClose.size()) != kClose)
    return {};
  const std::size_t begin = text.find('\n', open) + 1;
  const std::size_t end = text.size() - kClose.size();
  return begin <= end ? std::string(text.substr(begin, end - begin)) : std::string();
}

}  // namespace

UsdaAnimationWriter::UsdaAnimationWriter(std::filesystem::path path, const StrandSet& topology,
                                         double fps, const Progress& progress)
    : path_(std::move(path)), body_(path_.string() + ".frames.tmp"), fps_(fps) {
  for (std::size_t s = 0; s < topology.strand_count(); ++s)
    counts_.push_back(topology.strand_size(s));
  points_ = topology.point_count();
  std::error_code ec;
  const std::uintmax_t size = std::filesystem::file_size(body_, ec);
  if (ec || size < progress.body_bytes) {
    // A run that stopped cleanly (interrupted, or complete and now extended) finished its .usda
    // and removed the frames file: its time samples are that file, between the header and the
    // closing braces. A fresh writer (no frames yet) starts an empty file.
    const std::string frames = progress.body_bytes > 0 ? written_time_samples(path_) : "";
    if (frames.size() < progress.body_bytes)
      throw Error(body_.string(), "the frames written before the stop are missing or cut short (" +
                                      path_.string() + " too)");
    std::ofstream(body_, std::ios::binary | std::ios::trunc) << frames;
  }
  std::filesystem::resize_file(body_, progress.body_bytes, ec);
  if (ec) throw Error(body_.string(), "cannot cut back to the checkpoint: " + ec.message());
  body_bytes_ = progress.body_bytes;
  first_ = progress.first;
  last_ = progress.last;
}

void UsdaAnimationWriter::finish() {
  if (finished_) return;
  std::string out = usda_header(fps_, first_, std::max(first_, last_));
  out += "def BasisCurves \"Hair\"\n{\n";
  out += "    uniform token type = \"linear\"\n    uniform token wrap = \"nonperiodic\"\n";
  out += "    int[] curveVertexCounts = [";
  for (std::size_t i = 0; i < counts_.size(); ++i)
    out += (i ? ", " : "") + std::to_string(counts_[i]);
  out += "]\n    float[] widths = [8e-05] (\n        interpolation = \"constant\"\n    )\n";
  out += "    " + std::string(kTimeSamples) + "\n";
  {
    std::ifstream body(body_, std::ios::binary);
    out.append(std::istreambuf_iterator<char>(body), std::istreambuf_iterator<char>());
  }
  out += "    }\n}\n";
  try {
    io::write_file_atomically(path_, out);
  } catch (const Error&) {
    // A full disk: the frames file's room is what the .usda needs, and its text is in `out`
    // (the file goes at the writer's end in any case).
    std::error_code ec;
    std::filesystem::remove(body_, ec);
    io::write_file_atomically(path_, out);
  }
  finished_ = true;
}

UsdaAnimation read_usda_animation(const std::filesystem::path& path) {
  const std::vector<char> bytes = io::read_file_bytes(path);
  const std::string_view text(bytes.data(), bytes.size());
  if (text.substr(0, 9) != "#usda 1.0") throw Error(file_location(path, 0), "not a .usda file");
  UsdaAnimation a;
  auto fail = [&](std::size_t at, const std::string& why) {
    throw Error(file_location(path, at), why);
  };
  auto number_after = [&](std::string_view key) {
    const std::size_t at = text.find(key);
    if (at == std::string_view::npos) fail(0, "no '" + std::string(key) + "'");
    io::TextScanner in(path, text, at + key.size());
    return in.next_number<double>(std::string(key).c_str());
  };
  a.fps = number_after("timeCodesPerSecond = ");
  const std::size_t counts_at = text.find("int[] curveVertexCounts");
  if (counts_at == std::string_view::npos) fail(0, "no curveVertexCounts");
  io::TextScanner counts_in(path, text, counts_at + 23);
  a.topology.offsets = {0};
  for (int c : io::parse_array<int>(counts_in, text, "curveVertexCounts")) {
    if (c < 0) fail(counts_at, "negative curve vertex count");
    a.topology.offsets.push_back(a.topology.offsets.back() + std::size_t(c));
  }
  const std::size_t points = a.topology.offsets.back();
  std::size_t pos = text.find(kTimeSamples);
  if (pos == std::string_view::npos) fail(0, "no time-sampled points");
  pos += kTimeSamples.size();
  auto skip_space = [&] {
    while (pos < text.size() && std::isspace(static_cast<unsigned char>(text[pos]))) ++pos;
  };
  for (;;) {
    skip_space();
    if (pos >= text.size()) fail(pos, "unterminated timeSamples");
    if (text[pos] == '}') break;
    const std::size_t colon = text.find(':', pos);
    if (colon == std::string_view::npos) fail(pos, "expected 'time: [points]'");
    double time = 0;
    const auto [end, ec] = std::from_chars(text.data() + pos, text.data() + colon, time);
    if (ec != std::errc() || end != text.data() + colon) fail(pos, "bad time code");
    if (!a.times.empty() && !(time > a.times.back())) fail(pos, "time codes must increase");
    io::TextScanner in(path, text, colon + 1);
    const std::vector<float> xyz = io::parse_array<float>(in, text, "points.timeSamples");
    if (xyz.size() != 3 * points)
      fail(pos, "sample at time " + io::format_number(time) + " has " +
                    std::to_string(xyz.size() / 3) + " points, curveVertexCounts " +
                    std::to_string(points));
    std::vector<Vec3> frame(points);
    for (std::size_t i = 0; i < points; ++i)
      frame[i] = Vec3(xyz[3 * i], xyz[3 * i + 1], xyz[3 * i + 2]);
    a.times.push_back(time);
    a.frames.push_back(std::move(frame));
    pos = text.find(']', colon) + 1;
    skip_space();
    if (pos < text.size() && text[pos] == ',') ++pos;
  }
  if (a.frames.empty()) fail(pos, "no time samples");
  a.topology.points = a.frames.front();
  return a;
}

}  // namespace hairsim
