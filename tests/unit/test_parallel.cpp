// engine::parallel_for (src/engine/parallel.hpp): an exception thrown on any thread comes out of
// the loop as itself, after the loop (one leaving an OpenMP region would abort the process).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "engine/parallel.hpp"
#include "engine/strand_copies.hpp"
#include "hairsim/error.hpp"

namespace hairsim {
namespace {

TEST(ParallelFor, RunsEveryIndexOnce) {
  std::atomic<long> sum{0};
  engine::parallel_for(1000, [&](int i) { sum += i; });
  EXPECT_EQ(sum.load(), 999L * 1000 / 2);
}

TEST(ParallelFor, RethrowsTheLowestIndexsErrorAfterTheLoop) {
  // Indices 37 and 50 throw; the error out is 37's whatever the threads' timing, on either
  // schedule, and every index below 37 ran (those above one that threw may be skipped).
  for (engine::Schedule schedule : {engine::Schedule::static_chunks, engine::Schedule::dynamic}) {
    std::vector<std::atomic<int>> ran(64);
    try {
      engine::parallel_for(
          64,
          [&](int i) {
            ++ran[std::size_t(i)];
            if (i == 37 || i == 50) throw Error("strand " + std::to_string(i), "bad");
          },
          schedule);
      ADD_FAILURE() << "no exception";
    } catch (const Error& e) {
      EXPECT_EQ(e.where(), "strand 37");
    }
    for (int i = 0; i <= 37; ++i) EXPECT_EQ(ran[std::size_t(i)].load(), 1) << i;
  }
}

// engine::fit_each_shape_once (engine/strand_copies.hpp): a fit that throws inside its OpenMP
// loop (the clothoid's "the curvature diverged" aborted the process: exit 134) comes out as a
// RunFailure naming the lowest strand whose fit threw; fits taking over a second report progress.
StrandSet three_strands() {
  StrandSet set;
  set.offsets = {0};
  for (int s = 0; s < 3; ++s) {
    for (int i = 0; i < 3; ++i) set.points.emplace_back(s, i, 0);
    set.offsets.push_back(set.points.size());
  }
  return set;
}
struct FakeFit {
  double max_error = 0;
};

TEST(FitEachShapeOnce, AFitThatThrowsFailsTheSetupNamingItsStrand) {
  const StrandSet set = three_strands();
  try {
    engine::fit_each_shape_once<FakeFit>(set, [](std::span<const Vec3> points) -> FakeFit {
      if (points[0].x() >= 1) throw RunFailure("element", "the curvature diverged");
      return {};
    });
    ADD_FAILURE() << "no exception";
  } catch (const RunFailure& e) {
    EXPECT_EQ(e.where(), "strand 1");
    EXPECT_NE(e.why().find("the curvature diverged"), std::string::npos) << e.why();
  }
}

TEST(FitEachShapeOnce, SlowFitsReportProgress) {
  const StrandSet set = three_strands();
  std::vector<std::string> lines;
  std::mutex m;
  {
    const engine::SetupProgressScope scope([&](const std::string& line) {
      const std::lock_guard<std::mutex> lock(m);
      lines.push_back(line);
    });
    const auto fits = engine::fit_each_shape_once<FakeFit>(set, [](std::span<const Vec3> p) {
      std::this_thread::sleep_for(std::chrono::milliseconds(600));
      return FakeFit{p[0].x()};
    });
    EXPECT_EQ(fits.worst, 2.0);
  }
  EXPECT_FALSE(engine::setup_progress());  // the scope ended
  ASSERT_FALSE(lines.empty());             // 1.8 s of fits on one thread, 1.2 s on two
  EXPECT_NE(lines.back().find("fitted 3 strands in"), std::string::npos) << lines.back();
  // Quick fits say nothing.
  lines.clear();
  const engine::SetupProgressScope scope([&](const std::string& line) { lines.push_back(line); });
  engine::fit_each_shape_once<FakeFit>(set, [](std::span<const Vec3>) { return FakeFit{}; });
  EXPECT_TRUE(lines.empty());
}

}  // namespace
}  // namespace hairsim
