// engine::parallel_for (src/engine/parallel.hpp): an exception thrown on any thread comes out of
// the loop as itself, after the loop (one leaving an OpenMP region would abort the process).
#include <gtest/gtest.h>

#include <atomic>
#include <stdexcept>

#include "engine/parallel.hpp"
#include "hairsim/error.hpp"

namespace hairsim {
namespace {

TEST(ParallelFor, RunsEveryIndexOnce) {
  std::atomic<long> sum{0};
  engine::parallel_for(1000, [&](int i) { sum += i; });
  EXPECT_EQ(sum.load(), 999L * 1000 / 2);
}

TEST(ParallelFor, RethrowsTheFirstErrorAfterTheLoop) {
  std::atomic<int> ran{0};
  try {
    engine::parallel_for(64, [&](int i) {
      ++ran;
      if (i == 37) throw Error("strand 37", "bad");
    });
    ADD_FAILURE() << "no exception";
  } catch (const Error& e) {
    EXPECT_EQ(e.where(), "strand 37");
  }
  EXPECT_EQ(ran.load(), 64);  // the other indices still ran
}

}  // namespace
}  // namespace hairsim
