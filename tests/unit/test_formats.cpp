// Strand and mesh formats: the fixtures, cross-format identity, writer/reader round trips.
#include <gtest/gtest.h>

#include "hairsim/error.hpp"
#include "hairsim/generate.hpp"
#include "hairsim/io.hpp"
#include "test_support.hpp"

namespace hairsim {
namespace {

using test::data_path;
using test::ScratchDir;

// The five readable encodings of the same 100 Bangs strands (tests/data/README.md).
const char* const kBangsFiles[] = {"Bangs_100.hair", "Bangs_100.data", "Bangs_100.bin",
                                   "Bangs_100_ascii.ply", "Bangs_100_binary.ply"};

TEST(Formats, BangsStatisticsMatchFixtureReadme) {
  const StrandSet s = read_strands(data_path("Bangs_100.hair"), {LengthUnit::mm});
  const StrandStatistics st = statistics(s);
  // Expected: tests/data/README.md (counts, vertices 5/11.7/21, bbox to 4 digits) and an
  // independent Python reader of Bangs_100.data (lengths in mm: min 10.71247, max 243.2134,
  // median = mean of the 50th and 51st = (75.11114 + 75.73683) / 2 = 75.42398).
  EXPECT_EQ(st.strand_count, 100u);
  EXPECT_EQ(st.point_count, 1165u);
  EXPECT_EQ(st.vertices_min, 5u);
  EXPECT_EQ(st.vertices_max, 21u);
  EXPECT_DOUBLE_EQ(st.vertices_mean, 11.65);
  EXPECT_NEAR(st.length_min, 10.71247e-3, 1e-8);
  EXPECT_NEAR(st.length_median, 75.42398e-3, 1e-8);
  EXPECT_NEAR(st.length_max, 243.2134e-3, 1e-7);
  const Vec3 lo(11.86e-3, 17.10e-3, 31.75e-3), hi(247.9e-3, 236.9e-3, 204.9e-3);
  EXPECT_LT((st.bbox_min - lo).cwiseAbs().maxCoeff(), 0.006e-3);
  EXPECT_LT((st.bbox_max - hi).cwiseAbs().maxCoeff(), 0.06e-3);
}

TEST(Formats, FiveBangsEncodingsGiveIdenticalPoints) {
  const StrandSet reference = read_strands(data_path("Bangs_100.data"));
  for (const char* name : kBangsFiles) {
    const StrandSet s = read_strands(data_path(name));
    ASSERT_EQ(s.offsets, reference.offsets) << name;
    for (std::size_t i = 0; i < s.point_count(); ++i)
      ASSERT_EQ(s.points[i], reference.points[i]) << name << " point " << i;  // bit-exact
  }
}

TEST(Formats, PlyFixtureColoursAreRead) {
  const StrandSet s = read_strands(data_path("Bangs_100_binary.ply"));
  ASSERT_TRUE(s.has_colors());
  // First vertex as decoded by Python's struct ('<3f3B' after end_header): position as the
  // ascii twin, colour (118, 95, 24) (the two fixtures carry different random colours).
  EXPECT_FLOAT_EQ(s.colors[0].x(), 118.0f / 255.0f);
  EXPECT_FLOAT_EQ(s.colors[0].y(), 95.0f / 255.0f);
  EXPECT_FLOAT_EQ(s.colors[0].z(), 24.0f / 255.0f);
  EXPECT_EQ(s.points[0], Vec3(164.708374f, 171.292419f, 187.975876f));
}

TEST(Formats, OtherFixturesMatchReadme) {
  struct Case {
    const char* file;
    std::size_t strands, points;
  } cases[] = {{"Bangs_20.bin", 20, 235},       {"Curly_100.ply", 100, 2528},
               {"c2_interp_test1.ply", 1, 4},   {"c2_interp_test2.ply", 1, 8},
               {"c2_interp_test3.ply", 1, 7},   {"c2_interp_test4.ply", 1, 16},
               {"catmull_rom_test1.ply", 1, 4}, {"catmull_rom_test2.ply", 1, 7}};
  for (const auto& c : cases) {
    const StrandSet s = read_strands(data_path(c.file));
    EXPECT_EQ(s.strand_count(), c.strands) << c.file;
    EXPECT_EQ(s.point_count(), c.points) << c.file;
  }
  // c2_interp_test1: first point (100, 0, 0), third (-100, 0, 0).
  const StrandSet c2 = read_strands(data_path("c2_interp_test1.ply"));
  EXPECT_EQ(c2.points[0], Vec3(100, 0, 0));
  EXPECT_EQ(c2.points[2], Vec3(-100, 0, 0));
}

TEST(Formats, BangsHeadMeshMatchesReadme) {
  const TriangleMesh head = read_mesh(data_path("Bangs_head.ply"), {LengthUnit::mm});
  EXPECT_EQ(head.vertices.size(), 3943u);
  EXPECT_EQ(head.triangles.size(), 7694u);
  Vec3 lo = head.vertices[0], hi = lo;
  for (const Vec3& v : head.vertices) lo = lo.cwiseMin(v), hi = hi.cwiseMax(v);
  EXPECT_NEAR(lo.x(), -42.37e-3, 0.006e-3);
  EXPECT_NEAR(hi.z(), 201.1e-3, 0.06e-3);
}

// Rounds each coordinate to float32, the precision of the binary formats. Through volatile:
// GCC 12 at -O2 folds (double)(float)a back to a here (seen with a plain struct too; clang
// keeps the rounding). The readers and writers round through 4-byte storage, which it cannot.
Vec3 to_float_precision(const Vec3& v) {
  volatile float x = static_cast<float>(v.x()), y = static_cast<float>(v.y()),
                 z = static_cast<float>(v.z());
  return {x, y, z};
}

// A strand set with float-representable coordinates and every attribute, for round trips.
StrandSet sample_set(bool attributes) {
  HairstyleParams p;
  p.style = HairStyle::curly;
  p.strands = 37;
  p.vertices = 9;
  StrandSet s = generate_hairstyle(p);
  for (Vec3& x : s.points) x = to_float_precision(x);
  if (attributes) {
    for (std::size_t i = 0; i < s.point_count(); ++i) {
      s.thickness.push_back(static_cast<float>(60e-6 + 1e-7 * static_cast<double>(i)));
      s.transparency.push_back(static_cast<float>(i % 7) / 7.0f);
      s.colors.emplace_back(static_cast<float>(i % 256) / 255.0f, 0.5f, 1.0f);
    }
  }
  return s;
}

void expect_same_points(const StrandSet& a, const StrandSet& b, double tolerance,
                        const std::string& what) {
  ASSERT_EQ(a.offsets, b.offsets) << what;
  double worst = 0;
  for (std::size_t i = 0; i < a.point_count(); ++i)
    worst = std::max(worst, (a.points[i] - b.points[i]).cwiseAbs().maxCoeff());
  EXPECT_LE(worst, tolerance) << what;
}

TEST(Formats, EveryWriterRoundTripsThroughItsReader) {
  ScratchDir dir;
  for (LengthUnit u : {LengthUnit::m, LengthUnit::mm}) {
    // Coordinates exact in float32 in the file's unit: what any file of these formats holds.
    const double mpu = metres_per_unit(u);
    StrandSet s = sample_set(false);
    for (Vec3& x : s.points) x = to_float_precision(x / mpu) * mpu;
    for (const char* name : {"a.hair", "a.data", "a.bin", "a.ply", "a.obj", "a.usda"}) {
      const auto path = dir / name;
      write_strands(path, s, {u, false});
      expect_same_points(s, read_strands(path, {u}), 0.0,
                         std::string(name) + " in " + to_string(u));
    }
    write_strands(dir / "ascii.ply", s, {u, true});
    expect_same_points(s, read_strands(dir / "ascii.ply", {u}), 0.0, "ascii ply");
  }
}

TEST(Formats, AttributesRoundTrip) {
  ScratchDir dir;
  const StrandSet s = sample_set(true);
  write_strands(dir / "a.hair", s);
  const StrandSet h = read_strands(dir / "a.hair");
  EXPECT_EQ(h.thickness, s.thickness);  // .hair stores all three exactly (float32)
  EXPECT_EQ(h.transparency, s.transparency);
  EXPECT_EQ(h.colors, s.colors);
  for (bool ascii : {false, true}) {
    write_strands(dir / "a.ply", s, {LengthUnit::m, ascii});
    const StrandSet p = read_strands(dir / "a.ply");
    EXPECT_EQ(p.thickness, s.thickness);
    ASSERT_EQ(p.colors.size(), s.colors.size());
    for (std::size_t i = 0; i < s.colors.size(); ++i)  // PLY colours are 8-bit
      EXPECT_LE((p.colors[i] - s.colors[i]).cwiseAbs().maxCoeff(), 0.5f / 255.0f + 1e-7f);
  }
  write_strands(dir / "a.usda", s);
  const StrandSet u = read_strands(dir / "a.usda");
  EXPECT_EQ(u.thickness, s.thickness);  // widths
  EXPECT_EQ(u.colors, s.colors);        // primvars:displayColor
}

TEST(Formats, HairWriterReproducesFixtureBytes) {
  // Bangs_100.hair has arrays = segments + points and the default header values hairsim
  // writes, so reading and writing it in its own unit must give the same bytes.
  ScratchDir dir;
  write_strands(dir / "b.hair", read_strands(data_path("Bangs_100.hair")));
  EXPECT_EQ(test::read_bytes(dir / "b.hair"), test::read_bytes(data_path("Bangs_100.hair")));
}

TEST(Formats, CountedWritersReproduceFixtureBytes) {
  // .data and .bin store only counts and coordinates (the .bin extras are all 0 here).
  ScratchDir dir;
  const StrandSet s = read_strands(data_path("Bangs_100.data"));
  write_strands(dir / "b.data", s);
  write_strands(dir / "b.bin", s);
  EXPECT_EQ(test::read_bytes(dir / "b.data"), test::read_bytes(data_path("Bangs_100.data")));
  EXPECT_EQ(test::read_bytes(dir / "b.bin"), test::read_bytes(data_path("Bangs_100.bin")));
}

TEST(Formats, UsdaIsBasisCurves) {
  ScratchDir dir;
  StrandSet s;
  s.add_strand(std::vector<Vec3>{{0, 0, 0}, {0, -0.5, 0}, {0, -1, 0.25}});
  write_strands(dir / "c.usda", s);
  const auto b = test::read_bytes(dir / "c.usda");
  const std::string text(b.begin(), b.end());
  EXPECT_EQ(text.rfind("#usda 1.0\n", 0), 0u);
  EXPECT_NE(text.find("def BasisCurves \"Hair\""), std::string::npos);
  EXPECT_NE(text.find("uniform token type = \"linear\""), std::string::npos);
  EXPECT_NE(text.find("int[] curveVertexCounts = [3]"), std::string::npos);
  EXPECT_NE(text.find("point3f[] points = [(0, 0, 0), (0, -0.5, 0), (0, -1, 0.25)]"),
            std::string::npos);
  EXPECT_NE(text.find("float[] widths = [8e-05]"), std::string::npos);
}

TEST(Formats, MeshRoundTripsThroughPlyAndObj) {
  ScratchDir dir;
  TriangleMesh m = ellipsoid_mesh(Vec3(0.075, 0.095, 0.095), 12);
  for (Vec3& v : m.vertices) v = to_float_precision(v);
  for (const char* name : {"h.ply", "h.obj"}) {
    write_mesh(dir / name, m);
    const TriangleMesh r = read_mesh(dir / name);
    EXPECT_EQ(r.triangles, m.triangles) << name;
    ASSERT_EQ(r.vertices.size(), m.vertices.size()) << name;
    for (std::size_t i = 0; i < m.vertices.size(); ++i) ASSERT_EQ(r.vertices[i], m.vertices[i]);
  }
}

TEST(Formats, ResampledConversionKeepsRoots) {
  const StrandSet s = read_strands(data_path("Curly_100.ply"));
  const StrandSet r = resample(s, 16);
  ASSERT_EQ(r.point_count(), 1600u);
  for (std::size_t i = 0; i < s.strand_count(); ++i) {
    EXPECT_EQ(r.strand(i).front(), s.strand(i).front());
    EXPECT_EQ(r.strand(i).back(), s.strand(i).back());
  }
}

}  // namespace
}  // namespace hairsim
