// OpKernelContext::ParallelFor: every index once, whatever the pool does.
#include "runtime/engine/op_kernel.h"

#include <atomic>
#include <memory>
#include <vector>

#include "absl/synchronization/notification.h"
#include "gtest/gtest.h"
#include "unsupported/Eigen/CXX11/Tensor"

namespace minigraph {
namespace {

// A cost per index that Eigen's model always splits.
constexpr double kCostly = 1e6;

class ParallelForTest : public ::testing::TestWithParam<int> {
 protected:
  ParallelForTest() : pool_(GetParam()), device_(&pool_, GetParam()) { step_.device = &device_; }

  Eigen::ThreadPool pool_;
  Eigen::ThreadPoolDevice device_;
  StepContext step_;
};

TEST_P(ParallelForTest, RunsEveryIndexOnce) {
  const OpKernelContext ctx(&step_);
  for (int64_t n : {1, 2, 3, 7, 64, 1000, 100003}) {
    for (double cost : {1.0, kCostly}) {
      std::vector<std::atomic<int>> seen(n);
      ctx.ParallelFor(n, 0, 0, cost, [&](int64_t begin, int64_t end) {
        ASSERT_LE(0, begin);
        ASSERT_LT(begin, end);
        ASSERT_LE(end, n);
        for (int64_t i = begin; i < end; ++i) seen[i].fetch_add(1);
      });
      for (int64_t i = 0; i < n; ++i) ASSERT_EQ(seen[i].load(), 1) << "n " << n << " index " << i;
    }
  }
}

// The caller claims blocks itself: with every pool thread held elsewhere
// the call still finishes (Eigen's parallelFor would wait for the pool).
TEST_P(ParallelForTest, FinishesOnTheCallingThreadWhenThePoolIsBusy) {
  absl::Notification release;
  std::atomic<int> held{0};
  for (int i = 0; i < GetParam(); ++i) {
    pool_.Schedule([&] {
      held.fetch_add(1);
      release.WaitForNotification();
      held.fetch_sub(1);  // done with `release`
    });
  }
  while (held.load() < GetParam()) {
  }
  const OpKernelContext ctx(&step_);
  std::atomic<int64_t> sum{0};
  ctx.ParallelFor(100, 0, 0, kCostly, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) sum.fetch_add(i);
  });
  EXPECT_EQ(sum.load(), 4950);
  release.Notify();
  while (held.load() > 0) {
  }
}

TEST_P(ParallelForTest, NestedCallsFinish) {
  const OpKernelContext ctx(&step_);
  std::atomic<int64_t> count{0};
  ctx.ParallelFor(8, 0, 0, kCostly, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      ctx.ParallelFor(50, 0, 0, kCostly, [&](int64_t b, int64_t e) { count.fetch_add(e - b); });
    }
  });
  EXPECT_EQ(count.load(), 8 * 50);
}

INSTANTIATE_TEST_SUITE_P(Threads, ParallelForTest, ::testing::Values(1, 2, 4));

TEST(ParallelForWithoutPool, RunsOnTheCaller) {
  const StepContext step;
  const OpKernelContext ctx(&step);
  std::vector<std::pair<int64_t, int64_t>> calls;
  ctx.ParallelFor(10, 0, 0, kCostly, [&](int64_t b, int64_t e) { calls.emplace_back(b, e); });
  EXPECT_EQ(calls, (std::vector<std::pair<int64_t, int64_t>>{{0, 10}}));
}

}  // namespace
}  // namespace minigraph
