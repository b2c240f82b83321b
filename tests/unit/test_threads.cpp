// engine/threads.hpp: the team a host region gets for its work, the executor's measured team and
// the default OpenMP wait policy. Behaviour only (which thread count for which work), no timing.
#include <gtest/gtest.h>
#include <omp.h>

#include <cmath>
#include <cstdlib>
#include <string>

#include "engine/threads.hpp"

namespace hairsim {
namespace {

using engine::kSecondsPerThread;
using engine::team_size;

// One thread per kSecondsPerThread of work, at least one, at most the maximum and the items.
TEST(Threads, TeamSizedToTheWork) {
  // Bangs' step on the reporting machine: ~3 ms of work over 4 tiles of 32 strands.
  EXPECT_EQ(team_size(0.3 * kSecondsPerThread, 100, 8), 1);  // cheaper than a thread's share
  EXPECT_EQ(team_size(1.0 * kSecondsPerThread, 100, 8), 1);
  EXPECT_EQ(team_size(2.5 * kSecondsPerThread, 100, 8), 2);
  EXPECT_EQ(team_size(50 * kSecondsPerThread, 100, 8), 8);  // the maximum
  EXPECT_EQ(team_size(50 * kSecondsPerThread, 3, 8), 3);    // no thread without an item
  EXPECT_EQ(team_size(50 * kSecondsPerThread, 100, 0), 1);  // a bad maximum reads as 1
  EXPECT_EQ(team_size(0, 100, 8), 1);                       // not measured yet
  EXPECT_EQ(team_size(std::nan(""), 100, 8), 1);
}

TEST(Threads, CheapLoopsOneThreadPerChunkOfItems) {
  const int threads = omp_get_max_threads();
  omp_set_num_threads(4);
  EXPECT_EQ(engine::items_team_size(100 * 24), 1);  // a 100-strand gather
  EXPECT_EQ(engine::items_team_size(2 * engine::kParallelItems), 2);
  EXPECT_EQ(engine::items_team_size(1000 * engine::kParallelItems), 4);
  EXPECT_EQ(engine::items_team_size(5, 0), 4);  // 0 per thread: every thread (the tests' setting)
  omp_set_num_threads(threads);
}

// The executor's team: one thread until a step was measured, then sized by the smoothed work;
// every kMeasureEvery-th step measured.
TEST(Threads, HostTeamFollowsTheMeasuredWork) {
  const int threads = omp_get_max_threads();
  omp_set_num_threads(4);
  engine::HostTeam team;
  EXPECT_EQ(team.threads(100), 1);
  EXPECT_TRUE(team.measuring());
  team.stepped(10 * kSecondsPerThread);
  EXPECT_EQ(team.threads(100), 4);
  EXPECT_EQ(team.threads(2), 2);
  for (long s = 1; s < engine::HostTeam::kMeasureEvery; ++s) {
    EXPECT_FALSE(team.measuring()) << s;
    team.stepped(0);  // not measured: ignored
  }
  EXPECT_DOUBLE_EQ(team.work_seconds(), 10 * kSecondsPerThread);
  ASSERT_TRUE(team.measuring());
  team.stepped(0.2 * kSecondsPerThread);  // 0.75 * 10 + 0.25 * 0.2 = 7.55 shares
  EXPECT_DOUBLE_EQ(team.work_seconds(), 7.55 * kSecondsPerThread);
  EXPECT_EQ(team.threads(100), 4);
  omp_set_num_threads(threads);
}

// Passive unless the user chose a policy or a spin count.
TEST(Threads, DefaultWaitPolicyRespectsTheUsersChoice) {
  const char* policy = std::getenv("OMP_WAIT_POLICY");
  const char* spin = std::getenv("GOMP_SPINCOUNT");
  const std::string saved_policy = policy ? policy : "", saved_spin = spin ? spin : "";
  unsetenv("OMP_WAIT_POLICY");
  setenv("GOMP_SPINCOUNT", "1000", 1);
  EXPECT_FALSE(engine::default_wait_policy());
  EXPECT_EQ(std::getenv("OMP_WAIT_POLICY"), nullptr);
  unsetenv("GOMP_SPINCOUNT");
  setenv("OMP_WAIT_POLICY", "active", 1);
  EXPECT_FALSE(engine::default_wait_policy());
  EXPECT_STREQ(std::getenv("OMP_WAIT_POLICY"), "active");
  unsetenv("OMP_WAIT_POLICY");
  EXPECT_TRUE(engine::default_wait_policy());
  EXPECT_STREQ(std::getenv("OMP_WAIT_POLICY"), "passive");
  if (policy)
    setenv("OMP_WAIT_POLICY", saved_policy.c_str(), 1);
  else
    unsetenv("OMP_WAIT_POLICY");
  if (spin) setenv("GOMP_SPINCOUNT", saved_spin.c_str(), 1);
}

}  // namespace
}  // namespace hairsim
