// MonitoredSession, MonitoredTrainingSession and the hooks' schedules, in
// memory on a fake clock. The schedules asserted here are what TensorFlow
// 2.21's hooks give for the same loop (tests/tf_interop compares the two).
#include "session/monitored_session.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <string>
#include <vector>

#include "core/events_writer.h"
#include "core/logging.h"
#include "core/mem_env.h"
#include "core/path.h"
#include "core/status_macros.h"
#include "core/status_matchers.h"
#include "gmock/gmock.h"
#include "google/protobuf/struct.pb.h"
#include "google/protobuf/util/json_util.h"
#include "gtest/gtest.h"
#include "runtime/cc/ops.h"
#include "runtime/cc/optimizers.h"
#include "runtime/cc/summary.h"
#include "runtime/cc/variables.h"
#include "session/basic_session_run_hooks.h"
#include "session/targets.h"
#include "session/testing/event_lines.h"

namespace minigraph {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

// A session whose Run fails with `error` on its training step number
// `fail_at` (1-based, counting the Runs of "train"), once; every one when
// `fail_at` is 0.
class FailingSession : public Session {
 public:
  FailingSession(std::unique_ptr<Session> s, std::atomic<int>* runs, int fail_at,
                 absl::Status error)
      : s_(std::move(s)), runs_(runs), fail_at_(fail_at), error_(std::move(error)) {}
  absl::Status Create(const GraphDef& g) override { return s_->Create(g); }
  absl::Status Extend(const GraphDef& g) override { return s_->Extend(g); }
  absl::Status Run(const RunOptions& o, const std::vector<std::pair<std::string, Tensor>>& feeds,
                   const std::vector<std::string>& fetches,
                   const std::vector<std::string>& targets,
                   std::vector<Tensor>* outputs) override {
    if (std::find(targets.begin(), targets.end(), "train") != targets.end() &&
        (++*runs_ == fail_at_ || fail_at_ == 0)) {
      return error_;
    }
    return s_->Run(o, feeds, fetches, targets, outputs);
  }
  absl::Status Close() override { return s_->Close(); }
  GraphDef graph_def() const override { return s_->graph_def(); }

 private:
  std::unique_ptr<Session> s_;
  std::atomic<int>* runs_;
  const int fail_at_;
  const absl::Status error_;
};

// Makes chief sessions whose `fail_at`-th Run (over all of them) fails.
class FlakyCreator : public SessionCreator {
 public:
  FlakyCreator(const Scaffold& scaffold, std::string master, std::string dir, int fail_at,
               absl::Status error, std::function<void()> before_create = {})
      : chief_(NewChiefSessionCreator(scaffold, std::move(master), std::move(dir))),
        fail_at_(fail_at),
        error_(std::move(error)),
        before_create_(std::move(before_create)) {}
  absl::StatusOr<std::unique_ptr<Session>> CreateSession() override {
    ++created;
    if (before_create_) before_create_();
    MG_ASSIGN_OR_RETURN(std::unique_ptr<Session> s, chief_->CreateSession());
    return std::unique_ptr<Session>(new FailingSession(std::move(s), &runs, fail_at_, error_));
  }
  const GraphDef& graph() const override { return chief_->graph(); }

  std::atomic<int> runs{0};
  int created = 0;

 private:
  std::unique_ptr<SessionCreator> chief_;
  const int fail_at_;
  const absl::Status error_;
  std::function<void()> before_create_;
};

// Records every call, in order.
class RecordingHook : public SessionRunHook {
 public:
  absl::Status Begin(const GraphDef&) override { return Note("begin"); }
  absl::Status AfterCreateSession(Session*, Coordinator*) override {
    return Note("after_create_session");
  }
  absl::Status BeforeRun(SessionRunContext*, SessionRunArgs* request) override {
    request->fetches = fetches;
    request->feeds = feeds;
    return Note("before_run");
  }
  absl::Status AfterRun(SessionRunContext* context, const SessionRunValues& values) override {
    results = values.results;
    if (stop_after_runs > 0 && ++runs == stop_after_runs) context->RequestStop();
    return Note("after_run");
  }
  absl::Status End(Session*) override { return Note("end"); }
  absl::Status Note(const std::string& what) {
    calls.push_back(what);
    return absl::OkStatus();
  }

  std::vector<std::string> calls;
  std::vector<std::string> fetches;
  FeedList feeds;
  std::vector<Tensor> results;
  int stop_after_runs = 0;
  int runs = 0;
};

class MonitoredSessionTest : public ::testing::Test {
 protected:
  MonitoredSessionTest() {
    SetMinLogLevel(LogLevel::kError);
    step_ = GetOrCreateGlobalStep(root_);
    w_ = Variable::Create(root_, "w", Tensor::Scalar<float>(1.0f));
    loss_ = ops::Mul(root_.WithOpName("loss"), w_.value(), ops::Const(root_, 2.0f));
    summary::Scalar(root_, "loss_summary", loss_);
    // The update waits for the loss; the global step moves after the
    // update, as an optimizer's does.
    Output update = ops::AssignAdd(root_.WithControlDependencies({loss_.op()}), w_.ref(),
                                   ops::Const(root_, 0.5f));
    Output inc = ops::AssignAdd(root_.WithControlDependencies({update.op()}), step_.ref(),
                                ops::Const<int64_t>(root_, 1));
    train_ = ops::Group(root_.WithOpName("train"), {inc.op()});
    x_ = ops::Placeholder(root_.WithOpName("x"), DT_FLOAT);
    ops::Identity(root_.WithOpName("x_out"), x_);
    EXPECT_OK(env_.CreateDir("/logs"));
  }
  ScaffoldOptions Opts() {
    ScaffoldOptions o;
    o.env = &env_;
    return o;
  }
  static int64_t Step(Session* s) {
    std::vector<Tensor> out;
    EXPECT_OK(s->Run({}, {"global_step/read"}, {}, &out));
    return out.empty() ? -1 : *out[0].data<int64_t>();
  }
  std::vector<std::string> Events(const std::string& dir) { return EventLines(&env_, dir); }

  FakeClockEnv clock_{Env::Default()};
  MemEnv env_{&clock_};
  Scope root_ = Scope::NewRootScope();
  Variable step_, w_;
  Output loss_, x_;
  Operation train_;
};

TEST_F(MonitoredSessionTest, HooksAreCalledInTensorFlowsOrder) {
  ASSERT_OK_AND_ASSIGN(Scaffold scaffold, Scaffold::Finalize(root_, Opts()));
  auto hook = std::make_shared<RecordingHook>();
  hook->fetches = {"loss:0"};
  ASSERT_OK_AND_ASSIGN(auto s,
                       MonitoredSession::Create(NewChiefSessionCreator(scaffold, ""), {hook}));
  std::vector<Tensor> out;
  ASSERT_OK(s->Run({{"x", Tensor::Scalar<float>(7)}}, {"x_out:0"}, {"train"}, &out));
  ASSERT_EQ(out.size(), 1u);  // the caller's fetches only
  EXPECT_EQ(*out[0].data<float>(), 7);
  ASSERT_EQ(hook->results.size(), 1u);
  EXPECT_EQ(*hook->results[0].data<float>(), 2.0f);  // w before the update
  ASSERT_OK(s->Close());
  EXPECT_THAT(hook->calls,
              ElementsAre("begin", "after_create_session", "before_run", "after_run", "end"));
  EXPECT_THAT(s->Close(), StatusIs(absl::StatusCode::kFailedPrecondition,
                                   HasSubstr("Session is already closed.")));
}

TEST_F(MonitoredSessionTest, AStopRequestEndsTheLoopAndRunAfterItFails) {
  ASSERT_OK_AND_ASSIGN(Scaffold scaffold, Scaffold::Finalize(root_, Opts()));
  auto hook = std::make_shared<RecordingHook>();
  hook->stop_after_runs = 3;
  ASSERT_OK_AND_ASSIGN(auto s,
                       MonitoredSession::Create(NewChiefSessionCreator(scaffold, ""), {hook}));
  int runs = 0;
  while (!s->ShouldStop()) {
    ASSERT_OK(s->Run({}, {}, {"train"}, nullptr));
    ++runs;
  }
  EXPECT_EQ(runs, 3);
  EXPECT_THAT(s->Run({}, {}, {"train"}, nullptr),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("Run called even after should_stop requested.")));
  ASSERT_OK(s->Close());
  EXPECT_TRUE(s->ShouldStop());
}

TEST_F(MonitoredSessionTest, FeedsOfHooksAndCallerMustNotOverlap) {
  ASSERT_OK_AND_ASSIGN(Scaffold scaffold, Scaffold::Finalize(root_, Opts()));
  auto a = std::make_shared<RecordingHook>();
  auto b = std::make_shared<RecordingHook>();
  a->feeds = {{"x", Tensor::Scalar<float>(1)}};
  ASSERT_OK_AND_ASSIGN(auto s,
                       MonitoredSession::Create(NewChiefSessionCreator(scaffold, ""), {a, b}));
  std::vector<Tensor> out;
  ASSERT_OK(s->Run({}, {"x_out:0"}, {}, &out));
  EXPECT_EQ(*out[0].data<float>(), 1);  // a hook's feed reaches the step
  EXPECT_THAT(s->Run({{"x:0", Tensor::Scalar<float>(2)}}, {"x_out:0"}, {}, &out),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("Same tensor is fed by a SessionRunHook and user. Conflict(s): "
                                 "x:0")));
  b->feeds = {{"x:0", Tensor::Scalar<float>(3)}};
  EXPECT_THAT(s->Run({}, {"x_out:0"}, {}, &out),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("Same tensor is fed by two hooks. Conflict(s): x:0")));
}

TEST_F(MonitoredSessionTest, APreemptedStepRunsAgainOnANewSession) {
  ASSERT_OK_AND_ASSIGN(Scaffold scaffold, Scaffold::Finalize(root_, Opts()));
  // The 3rd step fails as a restarted ps makes it fail.
  auto creator = std::make_unique<FlakyCreator>(scaffold, "", "", 3,
                                                absl::AbortedError("ps restarted"));
  FlakyCreator* flaky = creator.get();
  auto hook = std::make_shared<RecordingHook>();
  ASSERT_OK_AND_ASSIGN(auto s, MonitoredSession::Create(std::move(creator), {hook}));
  for (int i = 0; i < 3; ++i) ASSERT_OK(s->Run({}, {}, {"train"}, nullptr));
  EXPECT_EQ(flaky->created, 2);
  EXPECT_EQ(s->sessions_created(), 2);
  EXPECT_THAT(hook->calls, ElementsAre("begin", "after_create_session", "before_run",
                                       "after_run", "before_run", "after_run", "before_run",
                                       "after_create_session", "before_run", "after_run"));
  // Other errors are the caller's.
  auto failing = std::make_unique<FlakyCreator>(scaffold, "", "", 1,
                                                absl::InvalidArgumentError("bad feed"));
  ASSERT_OK_AND_ASSIGN(auto t, MonitoredSession::Create(std::move(failing), {}));
  EXPECT_THAT(t->Run({}, {}, {"train"}, nullptr),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("bad feed")));
}

TEST_F(MonitoredSessionTest, RecoveryCanBeTurnedOffAndGivesUpWhenCreationKeepsFailing) {
  ASSERT_OK_AND_ASSIGN(Scaffold scaffold, Scaffold::Finalize(root_, Opts()));
  auto creator = std::make_unique<FlakyCreator>(scaffold, "", "", 1,
                                                absl::UnavailableError("ps down"));
  ASSERT_OK_AND_ASSIGN(auto s, MonitoredSession::Create(std::move(creator), {},
                                                        {.should_recover = false}));
  EXPECT_THAT(s->Run({}, {}, {"train"}, nullptr),
              StatusIs(absl::StatusCode::kUnavailable, HasSubstr("ps down")));

  class Unreachable : public SessionCreator {
   public:
    explicit Unreachable(const GraphDef& g) : g_(g) {}
    absl::StatusOr<std::unique_ptr<Session>> CreateSession() override {
      ++attempts;
      return absl::UnavailableError("no ps at grpc://ps:2222");
    }
    const GraphDef& graph() const override { return g_; }
    int attempts = 0;

   private:
    const GraphDef& g_;
  };
  auto unreachable = std::make_unique<Unreachable>(scaffold.graph());
  Unreachable* u = unreachable.get();
  const uint64_t t0 = clock_.NowMicros();
  EXPECT_THAT(MonitoredSession::Create(std::move(unreachable), {},
                                       {.give_up_after = absl::Seconds(10),
                                        .retry_every = absl::Seconds(1),
                                        .env = &clock_})
                  .status(),
              StatusIs(absl::StatusCode::kUnavailable,
                       HasSubstr("gave up making a session after 10s: no ps at grpc://ps:2222")));
  EXPECT_EQ(u, u);
  EXPECT_EQ(clock_.NowMicros() - t0, 10'000'000u);
}

TEST_F(MonitoredSessionTest, AStepThatFailsOnEveryNewSessionEndsAfterGiveUpAfter) {
  ASSERT_OK_AND_ASSIGN(Scaffold scaffold, Scaffold::Finalize(root_, Opts()));
  auto creator = std::make_unique<FlakyCreator>(scaffold, "", "", 0,
                                                absl::AbortedError("always aborted"));
  FlakyCreator* flaky = creator.get();
  ASSERT_OK_AND_ASSIGN(auto s, MonitoredSession::Create(std::move(creator), {},
                                                        {.give_up_after = absl::Seconds(5),
                                                         .retry_every = absl::Seconds(1),
                                                         .env = &clock_}));
  EXPECT_THAT(s->Run({}, {}, {"train"}, nullptr),
              StatusIs(absl::StatusCode::kAborted,
                       HasSubstr("gave up retrying the step on new sessions after 5s: always "
                                 "aborted")));
  // The first retry at once, then one a second for 5 s.
  EXPECT_EQ(flaky->created, 7);
}

TEST_F(MonitoredSessionTest, StepFunctionsReachTheRawSessionAndCanStop) {
  ASSERT_OK_AND_ASSIGN(Scaffold scaffold, Scaffold::Finalize(root_, Opts()));
  auto hook = std::make_shared<RecordingHook>();
  ASSERT_OK_AND_ASSIGN(auto s,
                       MonitoredSession::Create(NewChiefSessionCreator(scaffold, ""), {hook}));
  ASSERT_OK(s->RunStepFn([&](MonitoredSession::StepContext& c) -> absl::Status {
    MG_RETURN_IF_ERROR(c.session()->Run({}, {}, {"train"}, nullptr));  // no hooks
    MG_RETURN_IF_ERROR(c.RunWithHooks({}, {}, {"train"}, nullptr));
    c.RequestStop();
    return absl::OkStatus();
  }));
  EXPECT_TRUE(s->ShouldStop());
  EXPECT_EQ(Step(s->raw_session()), 2);
  EXPECT_THAT(hook->calls, ElementsAre("begin", "after_create_session", "before_run",
                                       "after_run"));
}

// MonitoredTrainingSession on this loop (last_step 10, checkpoints every 4
// steps, summaries every 3, the step rate every 2) writes checkpoints 0, 4,
// 8 and 10, and events on TensorFlow 2.21's schedule but for one thing:
// summaries at steps 1, 4, 7 and 10, where TensorFlow's are at 1, 3, 5, 7
// and 9. The hooks read the global step in the step that increments it
// and take that value as the one before the step ("stale_global_step +
// 1"); TensorFlow's read, of the variable's buffer, happens to see the
// increment in this graph, so every other step looks due and its summary
// period becomes 2 whatever save_summaries_steps says. minigraph's read
// comes first on one inter-op thread, and the period is the one asked for.
// Like TensorFlow, TensorBoard's checkpoint event for the last save comes
// after the summary hook's last flush; minigraph's writer flushes it when
// the session closes, where TensorFlow's process exits with it unwritten.
TEST_F(MonitoredSessionTest, TrainingSessionSavesAndSummarizesOnTensorFlowsSchedule) {
  ASSERT_OK_AND_ASSIGN(Scaffold scaffold, Scaffold::Finalize(root_, Opts()));
  EXPECT_EQ(scaffold.global_step_tensor(), "global_step/read:0");
  EXPECT_THAT(scaffold.summary_op(), ElementsAre("Merge/MergeSummary:0"));
  ASSERT_OK_AND_ASSIGN(auto stop, StopAtStepHook::Create({.last_step = 10}));
  MonitoredTrainingSessionOptions o;
  o.scaffold = &scaffold;
  o.checkpoint_dir = "/logs";
  o.save_checkpoint_steps = 4;
  o.save_summaries_steps = 3;
  o.log_step_count_steps = 2;
  o.hooks = {stop};
  o.config.inter_op_threads = 1;
  {
    ASSERT_OK_AND_ASSIGN(auto s, MonitoredTrainingSession(o));
    int runs = 0;
    while (!s->ShouldStop()) {
      clock_.AdvanceMicros(500'000);  // 2 steps/s
      ASSERT_OK(s->Run({}, {}, {"train"}, nullptr));
      ++runs;
    }
    EXPECT_EQ(runs, 10);
    ASSERT_OK(s->Close());
  }
  ASSERT_OK_AND_ASSIGN(std::string state, ReadFileToString(&env_, "/logs/checkpoint"));
  EXPECT_THAT(state, HasSubstr("model_checkpoint_path: \"/logs/model.ckpt-10\""));
  for (int k : {0, 4, 8, 10}) {
    EXPECT_OK(env_.FileExists(absl::StrCat("/logs/model.ckpt-", k, ".index")));
    EXPECT_OK(env_.FileExists(absl::StrCat("/logs/model.ckpt-", k, ".meta")));
  }
  EXPECT_OK(env_.FileExists("/logs/graph.pbtxt"));
  EXPECT_THAT(Events("/logs"),
              ElementsAre("0 file_version", "0 graph_def", "0 meta_graph_def", "0 graph_def",
                          "0 meta_graph_def", "0 CHECKPOINT", "1 START", "1 loss_summary=2",
                          "3 global_step/sec=2", "4 loss_summary=5", "4 CHECKPOINT",
                          "5 global_step/sec=2", "7 global_step/sec=2", "7 loss_summary=8",
                          "8 CHECKPOINT", "9 global_step/sec=2", "10 loss_summary=11",
                          "10 CHECKPOINT"));
}

TEST_F(MonitoredSessionTest, AChiefRestoresTheNewestCheckpointWhenItsPsRestarts) {
  ASSERT_OK_AND_ASSIGN(Scaffold scaffold, Scaffold::Finalize(root_, Opts()));
  // The 6th step fails as a restarted ps does, its variables gone: the
  // new session restores step 4 and runs steps 5 and on again.
  auto creator = std::make_unique<FlakyCreator>(
      scaffold, "local://ps", "/logs", 6, absl::AbortedError("ps restarted"),
      [] { ResetTarget("local://ps").IgnoreError(); });
  ASSERT_OK_AND_ASSIGN(auto saver_hook,
                       CheckpointSaverHook::Create({.checkpoint_dir = "/logs",
                                                    .save_steps = 2,
                                                    .saver = scaffold.saver(),
                                                    .env = &env_}));
  ASSERT_OK_AND_ASSIGN(auto stop, StopAtStepHook::Create({.last_step = 9}));
  ASSERT_OK_AND_ASSIGN(auto s, MonitoredSession::Create(std::move(creator), {saver_hook, stop}));
  int runs = 0;
  while (!s->ShouldStop()) {
    ASSERT_OK(s->Run({}, {}, {"train"}, nullptr));
    ++runs;
  }
  ASSERT_OK(s->Close());
  EXPECT_EQ(s->sessions_created(), 2);
  // Step 5 was lost with the ps and ran again.
  EXPECT_EQ(runs, 10);
  ASSERT_OK_AND_ASSIGN(std::string state, ReadFileToString(&env_, "/logs/checkpoint"));
  EXPECT_THAT(state, HasSubstr("model_checkpoint_path: \"/logs/model.ckpt-9\""));
  ResetTarget("local://ps").IgnoreError();
}

TEST_F(MonitoredSessionTest, NanTensorHookFailsOrStops) {
  Output nan = ops::Const(root_.WithOpName("nan"), std::numeric_limits<float>::quiet_NaN());
  ASSERT_OK_AND_ASSIGN(Scaffold scaffold, Scaffold::Finalize(root_, Opts()));
  {
    ASSERT_OK_AND_ASSIGN(auto s, MonitoredSession::Create(
                                     NewChiefSessionCreator(scaffold, ""),
                                     {std::make_shared<NanTensorHook>("loss:0"),
                                      std::make_shared<NanTensorHook>(nan.tensor_name())}));
    EXPECT_THAT(s->Run({}, {}, {"train"}, nullptr),
                StatusIs(absl::StatusCode::kInternal, HasSubstr("NaN loss during training")));
  }
  ASSERT_OK_AND_ASSIGN(auto s, MonitoredSession::Create(
                                   NewChiefSessionCreator(scaffold, ""),
                                   {std::make_shared<NanTensorHook>(nan.tensor_name(), false)}));
  ASSERT_OK(s->Run({}, {}, {"train"}, nullptr));
  EXPECT_TRUE(s->ShouldStop());
}

// A hook's tensor of the wrong kind fails the step with InvalidArgument
// naming the tensor, its dtype and shape: a loss that is not a float
// scalar, a summary op that is not a string scalar, a global step that is
// not an integer scalar.
TEST_F(MonitoredSessionTest, AHookTensorOfTheWrongKindIsAnErrorNamingIt) {
  ops::Const(root_.WithOpName("words"), Tensor::Vector<std::string>({"a", "b"}));
  ops::Const(root_.WithOpName("ratio"), 0.5f);
  ASSERT_OK_AND_ASSIGN(Scaffold scaffold, Scaffold::Finalize(root_, Opts()));
  auto run_with = [&](std::shared_ptr<SessionRunHook> hook) -> absl::Status {
    MG_ASSIGN_OR_RETURN(auto s, MonitoredSession::Create(NewChiefSessionCreator(scaffold, ""),
                                                         {std::move(hook)}));
    return s->Run({}, {}, {"train"}, nullptr);
  };
  EXPECT_THAT(run_with(std::make_shared<NanTensorHook>("global_step/read:0")),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("NanTensorHook's loss global_step/read:0 is a tensor of dtype "
                                 "int64 and shape [], not a float scalar")));
  ASSERT_OK_AND_ASSIGN(auto writer, EventsWriter::Create("/logs/bad", {.env = &env_}));
  SummarySaverHook::Options so;
  so.save_steps = 1;
  so.writer = std::move(writer);
  so.summary_op = {"loss:0", "words:0"};
  so.global_step = "global_step/read:0";
  so.env = &env_;
  ASSERT_OK_AND_ASSIGN(auto summaries, SummarySaverHook::Create(so));
  EXPECT_THAT(run_with(summaries),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("the summary op loss:0 gave a tensor of dtype float and "
                                 "shape [], not a serialized Summary")));
  so.summary_op = {"words:0"};
  ASSERT_OK_AND_ASSIGN(summaries, SummarySaverHook::Create(so));
  EXPECT_THAT(run_with(summaries),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("the summary op words:0 gave a tensor of dtype string and "
                                 "shape [2]")));
  ASSERT_OK_AND_ASSIGN(auto stop, StopAtStepHook::Create({.num_steps = 3,
                                                          .global_step = "ratio:0"}));
  EXPECT_THAT(run_with(stop), StatusIs(absl::StatusCode::kInvalidArgument,
                                       HasSubstr("the global step ratio:0 is a tensor of dtype "
                                                 "float and shape []; the hooks need an int64 "
                                                 "scalar")));
}

TEST_F(MonitoredSessionTest, LoggingTensorHookLogsOnItsSchedule) {
  ASSERT_OK_AND_ASSIGN(Scaffold scaffold, Scaffold::Finalize(root_, Opts()));
  std::vector<std::string> lines;
  auto log = [&](const std::string& line) { lines.push_back(line); };
  ASSERT_OK_AND_ASSIGN(auto every2, LoggingTensorHook::Create(
                                         {.tensors = {{"step", "global_step/read:0"},
                                                      {"loss", "loss:0"}},
                                          .every_n_iter = 2,
                                          .at_end = true,
                                          .env = &clock_,
                                          .log = log}));
  ASSERT_OK_AND_ASSIGN(auto s,
                       MonitoredSession::Create(NewChiefSessionCreator(scaffold, ""), {every2}));
  for (int i = 0; i < 5; ++i) {
    clock_.AdvanceMicros(250'000);
    ASSERT_OK(s->Run({}, {}, {}, nullptr));
  }
  ASSERT_OK(s->Close());
  EXPECT_THAT(lines, ElementsAre("step = 0, loss = 2", "step = 0, loss = 2 (0.500 sec)",
                                 "step = 0, loss = 2 (0.500 sec)",
                                 "step = 0, loss = 2 (0.000 sec)"));
  EXPECT_THAT(LoggingTensorHook::Create({.tensors = {{"a", "loss:0"}}}).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("either at_end and/or exactly one of every_n_iter and "
                                 "every_n_secs must be provided.")));
  EXPECT_THAT(LoggingTensorHook::Create({.tensors = {{"a", "loss:0"}}, .every_n_iter = 0}).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("invalid every_n_iter=0.")));
}

TEST_F(MonitoredSessionTest, StepCounterCountsStepsPerSecondOfTheFakeClock) {
  ASSERT_OK_AND_ASSIGN(Scaffold scaffold, Scaffold::Finalize(root_, Opts()));
  std::vector<std::string> lines;
  ASSERT_OK_AND_ASSIGN(auto counter,
                       StepCounterHook::Create({.every_n_secs = 2.0,
                                                .env = &clock_,
                                                .log = [&](const std::string& l) {
                                                  lines.push_back(l);
                                                }}));
  ASSERT_OK_AND_ASSIGN(auto s,
                       MonitoredSession::Create(NewChiefSessionCreator(scaffold, ""), {counter}));
  for (int i = 0; i < 12; ++i) {
    clock_.AdvanceMicros(250'000);  // 4 steps/s
    ASSERT_OK(s->Run({}, {}, {"train"}, nullptr));
  }
  EXPECT_THAT(lines, ElementsAre("global_step/sec: 4"));
  EXPECT_THAT(StepCounterHook::Create({.every_n_steps = 1, .every_n_secs = 1.0}).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("exactly one of every_n_steps and every_n_secs")));
}

TEST_F(MonitoredSessionTest, FinalOpsAndFeedFnHooks) {
  ASSERT_OK_AND_ASSIGN(Scaffold scaffold, Scaffold::Finalize(root_, Opts()));
  auto final_ops = std::make_shared<FinalOpsHook>(std::vector<std::string>{"global_step/read:0"});
  int fed = 0;
  auto feed = std::make_shared<FeedFnHook>([&] {
    return FeedList{{"x:0", Tensor::Scalar<float>(static_cast<float>(++fed))}};
  });
  ASSERT_OK_AND_ASSIGN(auto s, MonitoredSession::Create(NewChiefSessionCreator(scaffold, ""),
                                                        {final_ops, feed}));
  std::vector<Tensor> out;
  for (int i = 0; i < 3; ++i) ASSERT_OK(s->Run({}, {"x_out:0"}, {"train"}, &out));
  EXPECT_EQ(*out[0].data<float>(), 3);
  ASSERT_OK(s->Close());
  ASSERT_EQ(final_ops->final_ops_values().size(), 1u);
  EXPECT_EQ(*final_ops->final_ops_values()[0].data<int64_t>(), 3);
}

TEST_F(MonitoredSessionTest, ProfilerHookTracesAStepPerOpOnItsSchedule) {
  ASSERT_OK_AND_ASSIGN(Scaffold scaffold, Scaffold::Finalize(root_, Opts()));
  ASSERT_OK_AND_ASSIGN(auto writer, EventsWriter::Create("/logs/trace", {.env = &env_}));
  ASSERT_OK_AND_ASSIGN(auto profiler, ProfilerHook::Create({.save_steps = 3,
                                                            .output_dir = "/logs/trace",
                                                            .writer = std::move(writer),
                                                            .env = &env_}));
  // One inter-op thread: the hook's read of the step comes before the
  // step's increment (on more, the two race, as in TensorFlow).
  ASSERT_OK_AND_ASSIGN(
      auto s, MonitoredSession::Create(
                  NewChiefSessionCreator(scaffold, "", "", {.inter_op_threads = 1}), {profiler}));
  for (int i = 0; i < 7; ++i) ASSERT_OK(s->Run({}, {}, {"train"}, nullptr));
  ASSERT_OK(s->Close());
  // Not the first step: the timer starts at its step (0), and the steps
  // that reach 3 and 6 are traced.
  std::vector<std::string> files = env_.GetChildren("/logs/trace").value_or(
      std::vector<std::string>());
  std::sort(files.begin(), files.end());
  ASSERT_EQ(files.size(), 3u);
  EXPECT_THAT(files[0], HasSubstr("tfevents"));
  EXPECT_THAT(std::vector<std::string>(files.begin() + 1, files.end()),
              ElementsAre("timeline-3.json", "timeline-6.json"));
  // An event per op of the step, as TensorFlow's timeline names them.
  ASSERT_OK_AND_ASSIGN(std::string json, ReadFileToString(&env_, "/logs/trace/timeline-3.json"));
  google::protobuf::Struct trace;
  ASSERT_TRUE(google::protobuf::util::JsonStringToMessage(json, &trace).ok()) << json;
  std::map<std::string, std::string> op_of;
  for (const auto& e : trace.fields().at("traceEvents").list_value().values()) {
    const auto& f = e.struct_value().fields();
    if (f.at("ph").string_value() != "X") continue;
    op_of[f.at("args").struct_value().fields().at("name").string_value()] =
        f.at("name").string_value();
  }
  EXPECT_EQ(op_of["w/read"], "Identity") << json;
  EXPECT_EQ(op_of["AssignAdd"], "AssignAdd");
  EXPECT_EQ(op_of["train"], "NoOp");
  EXPECT_EQ(op_of["global_step"], "VariableV2");
  // And the step's run metadata for TensorBoard, tagged as TensorFlow's.
  EXPECT_THAT(Events("/logs/trace"), ElementsAre("0 file_version", "3 run_metadata step_3",
                                                 "6 run_metadata step_6"));
}

TEST_F(MonitoredSessionTest, HooksNeedAGlobalStepAndValidSchedules) {
  Scope bare = Scope::NewRootScope();
  Variable::Create(bare, "v", Tensor::Scalar<float>(1));
  ScaffoldOptions opts = Opts();
  ASSERT_OK_AND_ASSIGN(Scaffold scaffold, Scaffold::Finalize(bare, opts));
  ASSERT_OK_AND_ASSIGN(auto stop, StopAtStepHook::Create({.num_steps = 3}));
  EXPECT_THAT(MonitoredSession::Create(NewChiefSessionCreator(scaffold, ""), {stop}).status(),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("Global step should be created to use StopAtStepHook.")));
  EXPECT_THAT(StopAtStepHook::Create({}).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("One of num_steps or last_step must be specified.")));
  EXPECT_THAT(StopAtStepHook::Create({.num_steps = 1, .last_step = 2}).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Only one of num_steps or last_step can be specified.")));
  EXPECT_THAT(SecondOrStepTimer::Create(1.0, 2).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Can not provide both every_secs and every_steps.")));
  EXPECT_THAT(SecondOrStepTimer::Create(std::nullopt, -2).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("every_steps=-2")));
  EXPECT_THAT(MonitoredTrainingSession({}).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("needs a scaffold")));
}

TEST_F(MonitoredSessionTest, SecondOrStepTimerFollowsTensorFlows) {
  ASSERT_OK_AND_ASSIGN(SecondOrStepTimer steps, SecondOrStepTimer::Create(std::nullopt, 3));
  EXPECT_TRUE(steps.ShouldTriggerForStep(5));  // never triggered yet
  EXPECT_FALSE(steps.UpdateLastTriggeredStep(5).has_value());
  EXPECT_FALSE(steps.ShouldTriggerForStep(5));
  EXPECT_FALSE(steps.ShouldTriggerForStep(7));
  EXPECT_TRUE(steps.ShouldTriggerForStep(8));
  ASSERT_OK_AND_ASSIGN(SecondOrStepTimer secs, SecondOrStepTimer::Create(10.0, std::nullopt,
                                                                         &clock_));
  secs.UpdateLastTriggeredStep(1);
  clock_.AdvanceMicros(9'999'999);
  EXPECT_FALSE(secs.ShouldTriggerForStep(100));
  clock_.AdvanceMicros(1);
  EXPECT_TRUE(secs.ShouldTriggerForStep(2));
  std::optional<SecondOrStepTimer::Elapsed> e = secs.UpdateLastTriggeredStep(4);
  ASSERT_TRUE(e.has_value());
  EXPECT_DOUBLE_EQ(e->secs, 10.0);
  EXPECT_EQ(e->steps, 3);
}

}  // namespace
}  // namespace minigraph
