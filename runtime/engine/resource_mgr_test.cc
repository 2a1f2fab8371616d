#include "runtime/engine/resource_mgr.h"

#include <vector>

#include "core/status_matchers.h"
#include "gtest/gtest.h"

namespace minigraph {
namespace {

// The version moves when a variable gets its first value or a container is
// cleared; updating an initialized variable is not a change of state.
TEST(ResourceMgrTest, VersionCountsFirstValuesAndCleanups) {
  ResourceMgr rm;
  EXPECT_EQ(rm.version(), 0u);
  ASSERT_OK_AND_ASSIGN(Var * v, rm.LookupOrCreateVar("", "v", DT_FLOAT));
  EXPECT_EQ(rm.version(), 0u);
  {
    absl::MutexLock l(v->mu());
    v->set_value(Tensor::Scalar<float>(1));
    v->set_value(Tensor::Scalar<float>(2));
  }
  EXPECT_EQ(rm.version(), 1u);
  rm.Cleanup("");
  EXPECT_EQ(rm.version(), 2u);
}

TEST(ResourceMgrTest, WatchFiresOnceOnTheNextChange) {
  ResourceMgr rm;
  std::vector<uint64_t> seen;
  rm.Watch(rm.version(), [&](uint64_t v) { seen.push_back(v); });
  ASSERT_OK_AND_ASSIGN(Var * v, rm.LookupOrCreateVar("", "v", DT_FLOAT));
  EXPECT_TRUE(seen.empty());
  {
    absl::MutexLock l(v->mu());
    v->set_value(Tensor::Scalar<float>(1));
  }
  rm.Cleanup("");
  EXPECT_EQ(seen, std::vector<uint64_t>({1}));
}

TEST(ResourceMgrTest, WatchFromAnOldVersionFiresAtOnce) {
  ResourceMgr rm;
  rm.Cleanup("");
  int calls = 0;
  rm.Watch(0, [&](uint64_t) { ++calls; });
  EXPECT_EQ(calls, 1);
}

TEST(ResourceMgrTest, UnwatchedWatchNeverFires) {
  ResourceMgr rm;
  int calls = 0;
  const int64_t id = rm.Watch(rm.version(), [&](uint64_t) { ++calls; });
  rm.Unwatch(id);
  rm.Cleanup("");
  EXPECT_EQ(calls, 0);
  rm.Unwatch(id);  // again: no effect
}

}  // namespace
}  // namespace minigraph
