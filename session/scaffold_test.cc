// Scaffold defaults and collections (spec §3.5), and the chief and worker
// session creators, in memory on a fake clock.
#include "session/scaffold.h"

#include "core/logging.h"
#include "core/mem_env.h"
#include "core/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/cc/ops.h"
#include "runtime/cc/variables.h"
#include "session/targets.h"

namespace minigraph {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

class ScaffoldTest : public ::testing::Test {
 protected:
  ScaffoldTest() {
    SetMinLogLevel(LogLevel::kError);
    v_ = Variable::Create(root_, "v", Tensor::Scalar<int32_t>(3));
    w_ = Variable::Create(root_, "w", Tensor::Scalar<int32_t>(4),
                          {.trainable = false, .collections = {kLocalVariables}});
    EXPECT_OK(env_.CreateDir("/logs"));
  }
  ScaffoldOptions Opts() {
    ScaffoldOptions o;
    o.env = &env_;
    return o;
  }
  static std::string Value(Session* s, const std::string& name) {
    std::vector<Tensor> out;
    absl::Status st = s->Run({}, {name}, {}, &out);
    return st.ok() ? out[0].SummarizeValue(10) : std::string(st.message());
  }

  FakeClockEnv clock_{Env::Default()};
  MemEnv env_{&clock_};
  Scope root_ = Scope::NewRootScope();
  Variable v_, w_;
};

TEST_F(ScaffoldTest, DefaultsAreBuiltAndRecordedInTheCollections) {
  ASSERT_OK_AND_ASSIGN(Scaffold s, Scaffold::Finalize(root_, Opts()));
  EXPECT_THAT(s.init_op(), ElementsAre("group_deps"));
  EXPECT_THAT(s.ready_op(), ElementsAre("concat:0"));
  EXPECT_THAT(s.ready_for_local_init_op(), ElementsAre("concat_1:0"));
  EXPECT_THAT(s.local_init_op(), ElementsAre("group_deps_1"));
  ASSERT_NE(s.saver(), nullptr);
  EXPECT_TRUE(s.saver()->saver_def().sharded());
  EXPECT_THAT(root_.GetCollection(kInitOpCollection), ElementsAre("group_deps"));
  EXPECT_THAT(root_.GetCollection(kReadyOpCollection), ElementsAre("concat:0"));
  EXPECT_THAT(root_.GetCollection(kReadyForLocalInitOpCollection), ElementsAre("concat_1:0"));
  EXPECT_THAT(root_.GetCollection(kLocalInitOpCollection), ElementsAre("group_deps_1"));
  EXPECT_EQ(root_.GetCollection(kSaversCollection).size(), 1u);
  EXPECT_OK(root_.FindOp("concat/axis").status());
  EXPECT_OK(root_.FindOp("report_uninitialized_resources/Const").status());

  // A second Finalize on the same graph takes everything from the
  // collections and builds nothing new.
  const size_t nodes = root_.AllOps().size();
  ASSERT_OK_AND_ASSIGN(Scaffold again, Scaffold::Finalize(root_, Opts()));
  EXPECT_EQ(root_.AllOps().size(), nodes);
  EXPECT_THAT(again.ready_op(), ElementsAre("concat:0"));
  EXPECT_EQ(again.saver()->saver_def().SerializeAsString(),
            s.saver()->saver_def().SerializeAsString());
}

TEST_F(ScaffoldTest, TheChiefInitializesSavesAndRestores) {
  ops::Assign(root_.WithOpName("set_v"), v_.ref(), ops::Const<int32_t>(root_, 30));
  ASSERT_OK_AND_ASSIGN(Scaffold with_set, Scaffold::Finalize(root_, Opts()));
  {
    ASSERT_OK_AND_ASSIGN(auto chief, CreateChiefSession(with_set, "", "/logs"));
    EXPECT_EQ(Value(chief.get(), "v/read"), "3");
    EXPECT_EQ(Value(chief.get(), "w/read"), "4");  // local_init_op ran
    std::vector<Tensor> out;
    ASSERT_OK(chief->Run({}, {}, {"set_v"}, &out));
    ASSERT_OK(with_set.saver()->Save(chief.get(), "/logs/model", {.global_step = 1}).status());
  }
  // A new chief restores v = 30 instead of initializing.
  ASSERT_OK_AND_ASSIGN(auto chief, CreateChiefSession(with_set, "", "/logs"));
  EXPECT_EQ(Value(chief.get(), "v/read"), "30");
  EXPECT_EQ(Value(chief.get(), "w/read"), "4");
}

TEST_F(ScaffoldTest, WorkersWaitForTheChiefOnASharedTarget) {
  ASSERT_OK_AND_ASSIGN(Scaffold s, Scaffold::Finalize(root_, Opts()));
  ASSERT_OK_AND_ASSIGN(auto server, LocalServer::Create("scaffold_test"));
  // Before the chief: not ready; the wait ends on the fake clock.
  EXPECT_THAT(CreateWorkerSession(s, server->target(), {}, absl::Minutes(2)),
              StatusIs(absl::StatusCode::kDeadlineExceeded,
                       HasSubstr("Session was not ready after waiting 120 secs.")));
  ASSERT_OK_AND_ASSIGN(auto chief, CreateChiefSession(s, server->target(), "/logs"));
  std::vector<Tensor> out;
  ASSERT_OK(chief->Run({}, {}, {"v/Assign"}, &out));
  ASSERT_OK_AND_ASSIGN(auto worker, CreateWorkerSession(s, server->target()));
  EXPECT_EQ(Value(worker.get(), "v/read"), "3");
  EXPECT_EQ(Value(worker.get(), "w/read"), "4");  // the worker's own local init
}

TEST_F(ScaffoldTest, GivenPiecesAndSingleCollectionItemsAreUsed) {
  ops::NoOp(root_.WithOpName("my_init").WithControlDependencies({v_.initializer()}));
  root_.AddToCollection(kReadyOpCollection, "my_ready:0");
  ops::Const<int32_t>(root_.WithOpName("my_ready"), {1});  // int32: always ready
  ScaffoldOptions o = Opts();
  o.init_op = {"my_init"};
  bool init_fn_ran = false;
  o.init_fn = [&](Session*) {
    init_fn_ran = true;
    return absl::OkStatus();
  };
  ASSERT_OK_AND_ASSIGN(Scaffold s, Scaffold::Finalize(root_, o));
  EXPECT_THAT(s.init_op(), ElementsAre("my_init"));
  EXPECT_THAT(s.ready_op(), ElementsAre("my_ready:0"));
  EXPECT_TRUE(root_.GetCollection(kInitOpCollection).empty()) << "given, so not recorded";
  ASSERT_OK_AND_ASSIGN(auto chief, CreateChiefSession(s, "", "/logs"));
  EXPECT_TRUE(init_fn_ran);
  EXPECT_EQ(Value(chief.get(), "v/read"), "3");
}

TEST_F(ScaffoldTest, ACollectionWithSeveralItemsIsAnError) {
  root_.AddToCollection(kLocalInitOpCollection, "a");
  root_.AddToCollection(kLocalInitOpCollection, "b");
  EXPECT_THAT(Scaffold::Finalize(root_, Opts()),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("More than one item in the collection \"local_init_op\" (2). "
                                 "Say which one to use through ScaffoldOptions::local_init_op.")));
  root_.AddBytesToCollection(kSaversCollection, "not a SaverDef \xff");
  ScaffoldOptions o = Opts();
  o.local_init_op = {"a"};
  EXPECT_THAT(Scaffold::Finalize(root_, o),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("malformed SaverDef")));
}

}  // namespace
}  // namespace minigraph
