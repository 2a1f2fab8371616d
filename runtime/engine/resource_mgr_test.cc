#include "runtime/engine/resource_mgr.h"

#include <memory>
#include <string>
#include <vector>

#include "core/status_matchers.h"
#include "gtest/gtest.h"

namespace minigraph {
namespace {

// The version moves when a variable gets its first value or a container is
// cleared; updating an initialized variable is not a change of state.
// A resource whose destructor looks a variable up in its manager, as a
// tf.data iterator's threads may until the iterator joins them.
class LooksUpWhenDestroyed : public Resource {
 public:
  LooksUpWhenDestroyed(ResourceMgr* rm, bool* found) : rm_(rm), found_(found) {}
  ~LooksUpWhenDestroyed() override { *found_ = rm_->FindVar("c", "v") != nullptr; }
  std::string TypeName() const override { return "test"; }

 private:
  ResourceMgr* rm_;
  bool* found_;
};

TEST(ResourceMgrTest, ResourcesGoOutsideTheLockWithTheVariablesStillThere) {
  bool found = false;
  {
    ResourceMgr rm;
    ASSERT_OK(rm.LookupOrCreateVar("c", "v", DT_FLOAT).status());
    ASSERT_OK(rm.LookupOrCreateResource("c", "r", [&] {
                  return std::make_unique<LooksUpWhenDestroyed>(&rm, &found);
                }).status());
  }
  EXPECT_TRUE(found);  // destroyed with the manager, which was not locked

  ResourceMgr rm;
  ASSERT_OK(rm.LookupOrCreateResource("c", "r", [&] {
                return std::make_unique<LooksUpWhenDestroyed>(&rm, &found);
              }).status());
  rm.Cleanup("c");  // would wait for itself if the lock were held
  EXPECT_EQ(rm.FindResource("c", "r"), nullptr);
}

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
