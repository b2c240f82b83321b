// StrandSet, resampling, statistics, units, batch packing.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>
#include <vector>

#include "engine/strand_copies.hpp"
#include "hairsim/error.hpp"
#include "hairsim/strands.hpp"
#include "hairsim/units.hpp"

namespace hairsim {
namespace {

// Quarter circle of radius r sampled at `n` points: arc length r*pi/2 (analytic).
std::vector<Vec3> quarter_circle(double r, int n) {
  std::vector<Vec3> p;
  for (int i = 0; i < n; ++i) {
    const double a = 0.5 * std::numbers::pi * i / (n - 1);
    p.emplace_back(r * std::cos(a), r * std::sin(a), 0);
  }
  return p;
}

TEST(Units, ParsesAndConverts) {
  EXPECT_DOUBLE_EQ(metres_per_unit(parse_length_unit("m")), 1.0);
  EXPECT_DOUBLE_EQ(metres_per_unit(parse_length_unit("cm")), 0.01);
  EXPECT_DOUBLE_EQ(metres_per_unit(parse_length_unit("mm")), 0.001);
  EXPECT_THROW(parse_length_unit("inch"), Error);
}

TEST(Strands, PolylineLengthOfRightTriangleLegs) {
  // (0,0,0) -> (3,0,0) -> (3,4,0): 3 + 4 = 7.
  const std::vector<Vec3> p{{0, 0, 0}, {3, 0, 0}, {3, 4, 0}};
  EXPECT_DOUBLE_EQ(polyline_length(p), 7.0);
}

TEST(Strands, ResampleKeepsRootAndTipAndSpacesEqually) {
  StrandSet s;
  const std::vector<Vec3> strand{{0, 0, 0}, {1, 0, 0}, {1, 3, 0}};  // length 4
  s.add_strand(strand);
  const StrandSet r = resample(s, 5);  // stations every 1.0 of arc length
  ASSERT_EQ(r.point_count(), 5u);
  EXPECT_EQ(r.points[0], strand[0]);  // exact, not approximately
  EXPECT_EQ(r.points[4], strand[2]);
  const Vec3 expected[] = {{0, 0, 0}, {1, 0, 0}, {1, 1, 0}, {1, 2, 0}, {1, 3, 0}};
  for (int i = 0; i < 5; ++i) EXPECT_LT((r.points[i] - expected[i]).norm(), 1e-15) << i;
}

TEST(Strands, ResampleConvergesToArcLengthOfCurve) {
  // Resampling a finely sampled quarter circle to n chords: chord polygon length
  // n_seg * 2 r sin(theta / (2 n_seg)) with theta = pi/2 (analytic), to the fine-sampling error.
  StrandSet s;
  s.add_strand(quarter_circle(2.0, 20001));
  for (int n : {3, 9, 33}) {
    const StrandSet r = resample(s, n);
    const double segs = n - 1;
    const double expected = segs * 2 * 2.0 * std::sin(0.25 * std::numbers::pi / segs);
    EXPECT_NEAR(polyline_length(r.strand(0)), expected, 1e-6) << n;
  }
}

TEST(Strands, ResampleInterpolatesAttributes) {
  StrandSet s;
  s.add_strand(std::vector<Vec3>{{0, 0, 0}, {2, 0, 0}});
  s.thickness = {1.0f, 3.0f};
  s.colors = {Color(0, 0, 0), Color(1, 0.5f, 0)};
  const StrandSet r = resample(s, 3);
  EXPECT_FLOAT_EQ(r.thickness[1], 2.0f);
  EXPECT_FLOAT_EQ(r.colors[1].x(), 0.5f);
  EXPECT_FLOAT_EQ(r.colors[1].y(), 0.25f);
  EXPECT_THROW(resample(s, 1), Error);
}

TEST(Strands, StatisticsOfHandMadeSet) {
  StrandSet s;
  s.add_strand(std::vector<Vec3>{{0, 0, 0}, {1, 0, 0}});             // length 1, 2 vertices
  s.add_strand(std::vector<Vec3>{{0, 0, 0}, {0, 2, 0}, {0, 2, 2}});  // length 4, 3 vertices
  s.add_strand(std::vector<Vec3>{{-1, 0, 0}, {-1, 0, 3}, {-1, 0, 5}, {-1, 0, 8}});  // 8, 4
  const StrandStatistics st = statistics(s);
  EXPECT_EQ(st.strand_count, 3u);
  EXPECT_EQ(st.point_count, 9u);
  EXPECT_EQ(st.vertices_min, 2u);
  EXPECT_EQ(st.vertices_max, 4u);
  EXPECT_DOUBLE_EQ(st.vertices_mean, 3.0);
  EXPECT_DOUBLE_EQ(st.length_min, 1.0);
  EXPECT_DOUBLE_EQ(st.length_median, 4.0);
  EXPECT_DOUBLE_EQ(st.length_max, 8.0);
  EXPECT_EQ(st.bbox_min, Vec3(-1, 0, 0));
  EXPECT_EQ(st.bbox_max, Vec3(1, 2, 8));
}

TEST(Strands, ValidateRejectsBadSets) {
  StrandSet s;
  s.add_strand(std::vector<Vec3>{{0, 0, 0}, {1, 0, 0}});
  EXPECT_NO_THROW(s.validate("t"));
  s.thickness = {1.0f};  // wrong size
  EXPECT_THROW(s.validate("t"), Error);
  s.thickness.clear();
  s.points[1].x() = std::nan("");
  EXPECT_THROW(s.validate("t"), Error);
}

}  // namespace
}  // namespace hairsim

namespace hairsim {
namespace {

// engine::first_copies (engine/strand_copies.hpp): the reduced models fit each distinct shape
// once. Expected by construction: copies point at their first occurrence; a strand that differs
// from another in one coordinate by one ulp, or in its length, is its own.
TEST(StrandCopies, CopiesPointAtTheirFirstOccurrence) {
  const std::vector<Vec3> a = {{0, 0, 0}, {0, 0, 0.01}, {0, 0.001, 0.02}};
  const std::vector<Vec3> b = {{0.1, 0, 0}, {0.1, 0, 0.01}, {0.1, 0.001, 0.02}};
  std::vector<Vec3> a_ulp = a;
  a_ulp[2].z() = std::nextafter(a_ulp[2].z(), 1.0);
  const std::vector<Vec3> a_short(a.begin(), a.begin() + 2);
  StrandSet set;
  for (const std::vector<Vec3>* s :
       {&a, &b, &a, static_cast<const std::vector<Vec3>*>(&a_ulp), &b, &a_short, &a})
    set.add_strand(*s);
  const std::vector<std::size_t> expected = {0, 1, 0, 3, 1, 5, 0};
  EXPECT_EQ(engine::first_copies(set), expected);
}

}  // namespace
}  // namespace hairsim
