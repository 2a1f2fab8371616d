// The Coordinator's stop, clear and join, and its loopers on a clock the
// test moves. (Queue runners under a Coordinator: queue_runner_test.cc.)
#include "session/coordinator.h"

#include <atomic>
#include <string>

#include "core/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "session/testing/manual_clock_env.h"

namespace minigraph {
namespace {

using ::testing::HasSubstr;

TEST(CoordinatorTest, TheFirstErrorIsKeptAndTheEndOfInputIsNone) {
  Coordinator coord;
  EXPECT_FALSE(coord.ShouldStop());
  coord.RequestStop(absl::OutOfRangeError("End of sequence"));
  EXPECT_TRUE(coord.ShouldStop());
  EXPECT_OK(coord.status());
  coord.RequestStop(absl::InternalError("first"));
  coord.RequestStop(absl::InternalError("second"));
  EXPECT_EQ(coord.Join(), absl::InternalError("first"));
}

TEST(CoordinatorTest, ClearStopLetsThreadsRunAgainAndForgetsTheError) {
  ManualClockEnv clock(Env::Default());
  Coordinator coord;
  coord.RequestStop(absl::InternalError("an old run's"));
  EXPECT_TRUE(coord.SleepUnlessStopped(&clock, 1'000'000));  // stopped: no wait
  coord.ClearStop();
  EXPECT_FALSE(coord.ShouldStop());
  EXPECT_OK(coord.status());
  std::atomic<int> calls{0};
  StartLooper(&coord, "tick", absl::Seconds(10), &clock, [&] {
    ++calls;
    return absl::OkStatus();
  });
  ASSERT_TRUE(clock.AwaitSleeps(1));
  coord.RequestStop();
  EXPECT_OK(coord.Join());
  EXPECT_EQ(calls, 1);
}

TEST(CoordinatorTest, ALooperRunsAtOnceThenOnItsTimerAndMakesUpWhatItMissed) {
  ManualClockEnv clock(Env::Default());
  Coordinator coord;
  std::atomic<int> starts{0}, calls{0};
  StartLooper(
      &coord, "tick", absl::Seconds(10), &clock,
      [&] {
        ++calls;
        return absl::OkStatus();
      },
      [&] {
        ++starts;
        return absl::OkStatus();
      });
  ASSERT_TRUE(clock.AwaitSleeps(1));
  EXPECT_EQ(starts, 1);
  EXPECT_EQ(calls, 1);
  clock.Advance(absl::Seconds(9));  // not yet
  clock.Advance(absl::Seconds(1));
  ASSERT_TRUE(clock.AwaitSleeps(2));
  EXPECT_EQ(calls, 2);
  // As TensorFlow's LooperThread: times passed while it slept are made up
  // at once, back to back, and it sleeps until the next one.
  clock.Advance(absl::Seconds(25));
  ASSERT_TRUE(clock.AwaitSleeps(3));
  EXPECT_EQ(calls, 4);
  coord.RequestStop();
  EXPECT_OK(coord.Join());
}

TEST(CoordinatorTest, ALoopersErrorStopsTheCoordinatorWithItsName) {
  ManualClockEnv clock(Env::Default());
  Coordinator coord;
  StartLooper(&coord, "checker", std::nullopt, &clock,
              [] { return absl::DataLossError("bad disk"); });
  EXPECT_TRUE(coord.WaitForStop());
  EXPECT_EQ(coord.Join(), absl::DataLossError("checker: bad disk"));
}

TEST(CoordinatorTest, JoinNamesAThreadThatWillNotStopUnlessToldToIgnoreIt) {
  ManualClockEnv clock(Env::Default());
  // Outlive the coordinator, whose destructor joins the thread that uses them.
  absl::Notification entered, release;
  Coordinator coord(/*stop_grace_period=*/absl::ZeroDuration());
  StartLooper(&coord, "stubborn", std::nullopt, &clock, [&] {
    if (!entered.HasBeenNotified()) entered.Notify();
    release.WaitForNotification();
    return absl::OkStatus();
  });
  entered.WaitForNotification();
  coord.RequestStop();
  absl::Status late = coord.Join();
  EXPECT_EQ(late.code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_THAT(late.message(), HasSubstr("stubborn"));
  EXPECT_OK(coord.Join(/*ignore_live_threads=*/true));
  release.Notify();  // the destructor joins it
}

}  // namespace
}  // namespace minigraph
