// For tests of timer threads: an Env whose clock moves only when the test
// moves it, and whose sleepers wait for that.

#ifndef MINIGRAPH_SESSION_TESTING_MANUAL_CLOCK_ENV_H_
#define MINIGRAPH_SESSION_TESTING_MANUAL_CLOCK_ENV_H_

#include <algorithm>
#include <cstdint>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "core/env.h"

namespace minigraph {

// A sleeper waits (polling its notification every real millisecond) until
// the clock reaches its deadline or the notification comes, so a timer
// thread runs exactly when the test says:
//
//   ManualClockEnv clock(Env::Default());
//   StartLooper(&coord, "tick", absl::Seconds(10), &clock, tick);
//   ASSERT_TRUE(clock.AwaitSleeps(1));   // ran once, now waits
//   clock.Advance(absl::Seconds(10));
//   ASSERT_TRUE(clock.AwaitSleeps(2));   // ran again
//
// Unlike FakeClockEnv (core/mem_env.h), sleeping never moves the clock.
// Thread-safe.
class ManualClockEnv : public EnvWrapper {
 public:
  // `base` (not owned, must outlive this) supplies everything but time.
  explicit ManualClockEnv(Env* base) : EnvWrapper(base) {}

  uint64_t NowMicros() override {
    absl::MutexLock l(&mu_);
    return now_;
  }
  void SleepForMicroseconds(int64_t micros) override {
    absl::Notification never;
    SleepUnlessNotified(never, micros);
  }
  bool SleepUnlessNotified(const absl::Notification& n, int64_t micros) override {
    absl::MutexLock l(&mu_);
    const uint64_t deadline = now_ + std::max<int64_t>(micros, 0);
    ++sleeps_;
    auto woken = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      return now_ >= deadline || n.HasBeenNotified();
    };
    while (!mu_.AwaitWithTimeout(absl::Condition(&woken), absl::Milliseconds(1))) {
    }
    return n.HasBeenNotified();
  }
  void Advance(absl::Duration d) {
    absl::MutexLock l(&mu_);
    now_ += absl::ToInt64Microseconds(d);
  }
  // Waits until `n` sleeps have begun in all (a timer thread has done its
  // work and waits for its next time); false after a real minute.
  bool AwaitSleeps(int64_t n) {
    absl::MutexLock l(&mu_);
    auto reached = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return sleeps_ >= n; };
    return mu_.AwaitWithTimeout(absl::Condition(&reached), absl::Minutes(1));
  }

 private:
  absl::Mutex mu_;
  uint64_t now_ ABSL_GUARDED_BY(mu_) = 1'000'000'000'000'000;
  int64_t sleeps_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace minigraph

#endif  // MINIGRAPH_SESSION_TESTING_MANUAL_CLOCK_ENV_H_
