// The Supervisor in memory, on a clock the test moves: its defaults, a
// chief's and a worker's sessions, the standard services on their timers,
// queue runners, managed sessions and their errors. What TensorFlow 2.21's
// Supervisor does in the same scenarios is compared in
// tests/tf_interop/supervisor_interop_test.py.
#include "session/supervisor.h"

#include <algorithm>
#include <atomic>
#include <map>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "core/logging.h"
#include "core/mem_env.h"
#include "core/path.h"
#include "core/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/cc/ops.h"
#include "runtime/cc/optimizers.h"
#include "runtime/cc/summary.h"
#include "runtime/cc/variables.h"
#include "runtime/graph/node_def_util.h"
#include "session/queue_runner.h"
#include "session/scaffold.h"
#include "session/targets.h"
#include "session/testing/event_lines.h"
#include "session/testing/manual_clock_env.h"

namespace minigraph {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAre;

// TensorFlow 1's shape of a model under a Supervisor: a global step, a
// variable "v" that each "train" step adds 1 to, a summary of it.
struct Model {
  explicit Model(const std::string& device = "") {
    Scope s = device.empty() ? root : root.WithDevice(device);
    step = GetOrCreateGlobalStep(s);
    v = Variable::Create(s, "v", Tensor::Scalar<float>(1.0f));
    summary::Scalar(s, "v_summary", v.value());
    Output update = ops::AssignAdd(s, v.ref(), ops::Const(s, 1.0f));
    Output inc = ops::AssignAdd(s.WithControlDependencies({update.op()}), step.ref(),
                                ops::Const<int64_t>(s, 1));
    ops::Group(s.WithOpName("train"), {inc.op()});
  }
  Scope root = Scope::NewRootScope();
  Variable step, v;
};

float V(Session* s) {
  std::vector<Tensor> out;
  EXPECT_OK(s->Run({}, {"v/read:0"}, {}, &out));
  return out.empty() ? -1 : *out[0].data<float>();
}

class SupervisorTest : public ::testing::Test {
 protected:
  SupervisorTest() { SetMinLogLevel(LogLevel::kError); }
  ~SupervisorTest() override { ResetTarget("local://sv").IgnoreError(); }

  SupervisorOptions Opts(const std::string& logdir = "/logs") {
    SupervisorOptions o;
    o.logdir = logdir;
    o.env = &env_;
    return o;
  }
  std::vector<std::string> Events() { return EventLines(&env_, "/logs"); }
  std::vector<std::string> Checkpoints() {
    std::vector<std::string> out;
    for (const std::string& f : env_.GetChildren("/logs").value_or(std::vector<std::string>())) {
      if (absl::EndsWith(f, ".index")) out.push_back(f);
    }
    std::sort(out.begin(), out.end());
    return out;
  }

  ManualClockEnv clock_{Env::Default()};
  MemEnv env_{&clock_};
};

TEST_F(SupervisorTest, DefaultsAreTensorFlowsAndRecordedInTheCollections) {
  Model m;
  ASSERT_OK_AND_ASSIGN(auto sv, Supervisor::Create(m.root, Opts()));
  EXPECT_TRUE(sv->is_chief());
  EXPECT_THAT(sv->init_op(), ElementsAre("init"));
  ASSERT_THAT(sv->ready_op(), ::testing::SizeIs(1));
  EXPECT_THAT(sv->ready_op()[0], HasSubstr("report_uninitialized_variables"));
  EXPECT_THAT(sv->ready_for_local_init_op(), IsEmpty());  // TensorFlow's None
  EXPECT_THAT(sv->local_init_op(), ElementsAre("group_deps"));
  EXPECT_THAT(sv->summary_op(), ElementsAre(HasSubstr("Merge")));
  EXPECT_EQ(sv->global_step(), "global_step/read:0");
  EXPECT_NE(sv->saver(), nullptr);
  EXPECT_NE(sv->summary_writer(), nullptr);
  EXPECT_EQ(sv->save_path(), "/logs/model.ckpt");
  const auto& collections = sv->meta_graph().collection_def();
  for (const char* key : {"init_op", "ready_op", "local_init_op", "summary_op", "savers"}) {
    EXPECT_TRUE(collections.count(key)) << key;
  }
  EXPECT_FALSE(collections.count("ready_for_local_init_op"));
  EXPECT_TRUE(sv->meta_graph().has_saver_def());
}

TEST_F(SupervisorTest, NoneTurnsOffWhatTensorFlowsNoneTurnsOff) {
  Model m;
  SupervisorOptions o = Opts("");
  o.saver = nullptr;
  o.summary_op = std::vector<std::string>{};
  o.global_step = "";
  ASSERT_OK_AND_ASSIGN(auto sv, Supervisor::Create(m.root, o));
  EXPECT_EQ(sv->saver(), nullptr);
  EXPECT_EQ(sv->summary_writer(), nullptr);  // no logdir, none given
  EXPECT_EQ(sv->save_path(), "");
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Session> s, sv->PrepareOrWaitForSession());
  EXPECT_EQ(V(s.get()), 1.0f);
  // Without a logdir the services are a warning, not an error.
  EXPECT_OK(sv->StartStandardServices(s.get()));
  EXPECT_EQ(sv->SummaryComputed(s.get(), "").code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_OK(sv->Stop());
  EXPECT_THAT(env_.GetChildren("/").value_or(std::vector<std::string>()), IsEmpty());
}

TEST_F(SupervisorTest, AChiefInitializesWritesItsGraphAndRunsItsServicesOnTheirTimers) {
  Model m;
  ASSERT_OK_AND_ASSIGN(auto sv, Supervisor::Create(m.root, Opts()));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Session> s, sv->PrepareOrWaitForSession());
  EXPECT_EQ(V(s.get()), 1.0f);
  EXPECT_OK(env_.FileExists("/logs/graph.pbtxt"));
  // The three services run at once, then sleep.
  ASSERT_TRUE(clock_.AwaitSleeps(3));
  EXPECT_THAT(Checkpoints(), ElementsAre("model.ckpt-0.index"));
  EXPECT_OK(env_.FileExists("/logs/model.ckpt-0.meta"));
  EXPECT_THAT(Events(), UnorderedElementsAre("0 file_version", "0 graph_def", "0 meta_graph_def",
                                             "0 START", "0 v_summary=1", "0 global_step/sec=inf",
                                             "0 CHECKPOINT"));
  for (int i = 0; i < 3; ++i) ASSERT_OK(s->Run({}, {}, {"train"}, nullptr));
  // Summaries every 120 s: the summary and the steps/sec threads wake.
  clock_.Advance(absl::Seconds(120));
  ASSERT_TRUE(clock_.AwaitSleeps(5));
  EXPECT_THAT(Events(), Contains("3 v_summary=4"));
  EXPECT_THAT(Events(), Contains("3 global_step/sec=0.025"));
  EXPECT_THAT(Checkpoints(), ElementsAre("model.ckpt-0.index"));
  // A checkpoint every 600 s.
  for (int k = 2; k <= 5; ++k) {
    clock_.Advance(absl::Seconds(120));
    ASSERT_TRUE(clock_.AwaitSleeps(5 + 2 * (k - 1) + (k == 5 ? 1 : 0)));
  }
  EXPECT_THAT(Checkpoints(), ElementsAre("model.ckpt-0.index", "model.ckpt-3.index"));
  EXPECT_THAT(Events(), Contains("3 CHECKPOINT"));
  EXPECT_OK(sv->Stop());
  EXPECT_EQ(Events().back(), "0 STOP");
  EXPECT_TRUE(sv->ShouldStop());
  EXPECT_OK(s->Close());
}

TEST_F(SupervisorTest, AChiefRestoresTheNewestCheckpointOfItsLogdir) {
  {
    Model m;
    SupervisorOptions o = Opts();
    o.save_summaries = absl::ZeroDuration();
    ASSERT_OK_AND_ASSIGN(auto sv, Supervisor::Create(m.root, o));
    ASSERT_OK(sv->ManagedSession("", {}, [&](Session* s) {
      // After the checkpoint thread's first save (a Saver is one thread's).
      EXPECT_TRUE(clock_.AwaitSleeps(1));
      for (int i = 0; i < 4; ++i) MG_RETURN_IF_ERROR(s->Run({}, {}, {"train"}, nullptr));
      // Saved now, at step 4: the next checkpoint is the timer's.
      return sv->saver()->Save(s, sv->save_path(), {.global_step = 4}).status();
    }));
  }
  Model m;
  SupervisorOptions o = Opts();
  o.save_model = absl::ZeroDuration();
  o.save_summaries = absl::ZeroDuration();
  ASSERT_OK_AND_ASSIGN(auto sv, Supervisor::Create(m.root, o));
  ASSERT_OK(sv->ManagedSession("", {}, [&](Session* s) {
    EXPECT_EQ(V(s), 5.0f);
    return absl::OkStatus();
  }));
}

TEST_F(SupervisorTest, AWorkerWaitsForTheChiefAndStartsNoServices) {
  Model unplaced;
  SupervisorOptions worker = Opts("/worker_logs");
  worker.is_chief = false;
  absl::StatusOr<std::unique_ptr<Supervisor>> bad = Supervisor::Create(unplaced.root, worker);
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(bad.status().message(),
              HasSubstr("When using replicas, all Variables must have their device set: "
                        "name: \"global_step\" op: \"VariableV2\""));

  Model chief_model("/device:CPU:0"), worker_model("/device:CPU:0");
  SupervisorOptions chief = Opts();
  chief.save_model = chief.save_summaries = absl::ZeroDuration();
  ASSERT_OK_AND_ASSIGN(auto chief_sv, Supervisor::Create(chief_model.root, chief));
  ASSERT_OK_AND_ASSIGN(auto worker_sv, Supervisor::Create(worker_model.root, worker));
  EXPECT_EQ(worker_sv->summary_writer(), nullptr);
  EXPECT_EQ(worker_sv->save_path(), "");
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Session> c, chief_sv->PrepareOrWaitForSession("local://sv"));
  ASSERT_OK(c->Run({}, {}, {"train"}, nullptr));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Session> w,
                       worker_sv->PrepareOrWaitForSession("local://sv"));
  EXPECT_EQ(V(w.get()), 2.0f);  // the chief's model, not initialized again
  absl::Status services = worker_sv->StartStandardServices(w.get());
  EXPECT_EQ(services.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(services.message(), HasSubstr("Only chief supervisor can start standard services"));
  EXPECT_OK(worker_sv->Stop());
  EXPECT_OK(chief_sv->Stop());
  EXPECT_FALSE(env_.FileExists("/worker_logs").ok());
}

TEST_F(SupervisorTest, AManagedSessionReturnsTheBodysErrorAfterStoppingAndClosing) {
  Model m;
  ASSERT_OK_AND_ASSIGN(auto sv, Supervisor::Create(m.root, Opts()));
  Session* seen = nullptr;
  absl::Status s = sv->ManagedSession("", {}, [&](Session* session) {
    seen = session;
    return absl::InvalidArgumentError("the loop failed");
  });
  EXPECT_EQ(s, absl::InvalidArgumentError("the loop failed"));
  EXPECT_NE(seen, nullptr);
  EXPECT_TRUE(sv->ShouldStop());
  EXPECT_EQ(Events().back(), "0 STOP");
  // The end of the input is a clean end.
  EXPECT_OK(sv->ManagedSession("", {}, [](Session*) {
    return absl::OutOfRangeError("End of sequence");
  }));
}

TEST_F(SupervisorTest, AManagedSessionReturnsAServicesError) {
  Model m;
  ASSERT_OK_AND_ASSIGN(auto sv, Supervisor::Create(m.root, Opts()));
  absl::Status s = sv->ManagedSession("", {}, [&](Session*) {
    sv->Loop(absl::Seconds(10), [] { return absl::DataLossError("the looper's disk"); },
             "checker");
    sv->WaitForStop();
    return absl::OkStatus();
  });
  EXPECT_EQ(s, absl::DataLossError("checker: the looper's disk"));

  Model m2;
  SupervisorOptions o = Opts();
  o.summary_op = std::vector<std::string>{"v/read:0"};  // not a Summary
  ASSERT_OK_AND_ASSIGN(auto sv2, Supervisor::Create(m2.root, o));
  s = sv2->ManagedSession("", {}, [&](Session*) {
    sv2->WaitForStop();
    return absl::OkStatus();
  });
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(s.message(), HasSubstr("SVSummaryThread: the summary op v/read:0 gave a float "
                                     "tensor of shape [], not a serialized Summary"));
}

TEST_F(SupervisorTest, ALoopRunsOnItsTimerUntilTheStop) {
  Model m;
  SupervisorOptions o = Opts();
  o.save_model = o.save_summaries = absl::ZeroDuration();
  ASSERT_OK_AND_ASSIGN(auto sv, Supervisor::Create(m.root, o));
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Session> s, sv->PrepareOrWaitForSession());
  std::atomic<int> calls{0};
  sv->Loop(absl::Seconds(10), [&] {
    ++calls;
    return absl::OkStatus();
  });
  ASSERT_TRUE(clock_.AwaitSleeps(1));
  EXPECT_EQ(calls, 1);
  clock_.Advance(absl::Seconds(9));
  clock_.Advance(absl::Seconds(1));
  ASSERT_TRUE(clock_.AwaitSleeps(2));
  EXPECT_EQ(calls, 2);
  EXPECT_OK(sv->Stop());
  EXPECT_EQ(calls, 2);
}

TEST_F(SupervisorTest, QueueRunnersFeedTheLoopUntilTheInputEnds) {
  // TensorFlow 1's input pipeline in small: every session's local init
  // fills "source" with 1..5 and closes it; the graph's queue runner moves
  // its elements to "q" until "source" is done, then closes "q"; the loop
  // takes from "q" until it is closed and empty.
  Model m;
  const Scope& r = m.root;
  const std::map<std::string, AttrValue> ints = {
      {"component_types", MakeAttrValue(std::vector<DataType>{DT_INT32})}};
  std::map<std::string, AttrValue> queue = ints;
  queue["capacity"] = MakeAttrValue(2);
  Output source = r.WithOpName("source").AddOp("FIFOQueueV2", {}, ints).output(0);
  Output q = r.WithOpName("q").AddOp("FIFOQueueV2", {}, queue).output(0);
  Operation fill = r.WithOpName("fill").AddOp(
      "QueueEnqueueManyV2", {{source}, {ops::Const(r, Tensor::Vector<int32_t>({1, 2, 3, 4, 5}))}});
  r.WithOpName("close_source")
      .WithControlDependencies({fill})
      .AddOp("QueueCloseV2", {{source}});
  Output one = r.WithOpName("one").AddOp("QueueDequeueV2", {{source}}, ints).output(0);
  r.WithOpName("enqueue").AddOp("QueueEnqueueV2", {{q}, {one}});
  r.WithOpName("close").AddOp("QueueCloseV2", {{q}});
  r.WithOpName("cancel").AddOp("QueueCloseV2", {{q}},
                               {{"cancel_pending_enqueues", MakeAttrValue(true)}});
  r.WithOpName("take").AddOp("QueueDequeueV2", {{q}}, ints);
  QueueRunnerDef def;
  def.set_queue_name("q");
  def.add_enqueue_op_name("enqueue");
  def.set_close_op_name("close");
  def.set_cancel_op_name("cancel");
  r.AddBytesToCollection(kQueueRunnersCollection, def.SerializeAsString());
  SupervisorOptions o = Opts();
  o.save_model = o.save_summaries = absl::ZeroDuration();
  o.local_init_op = std::vector<std::string>{"close_source"};
  ASSERT_OK_AND_ASSIGN(auto sv, Supervisor::Create(r, o));
  std::vector<int32_t> taken;
  ASSERT_OK(sv->ManagedSession("", {}, [&](Session* s) -> absl::Status {
    while (!sv->ShouldStop()) {
      std::vector<Tensor> out;
      MG_RETURN_IF_ERROR(s->Run({}, {"take:0"}, {}, &out));
      taken.push_back(*out[0].data<int32_t>());
    }
    return absl::OkStatus();
  }));
  EXPECT_THAT(taken, ElementsAre(1, 2, 3, 4, 5));
}

TEST_F(SupervisorTest, InitFnAndFeedsInitializeAndAModelNobodyInitializesIsAnError) {
  Model m;
  Output init_value = ops::Placeholder(m.root.WithOpName("init_value"), DT_FLOAT);
  ops::Assign(m.root.WithOpName("set_v"), m.v.ref(), init_value);
  SupervisorOptions o = Opts("");
  o.init_op = std::vector<std::string>{"global_step/Assign", "set_v"};
  o.init_feed_dict = {{"init_value:0", Tensor::Scalar<float>(7.0f)}};
  ASSERT_OK_AND_ASSIGN(auto sv, Supervisor::Create(m.root, o));
  ASSERT_OK(sv->ManagedSession("", {}, [](Session* s) {
    EXPECT_EQ(V(s), 7.0f);
    return absl::OkStatus();
  }));

  Model bare;
  SupervisorOptions none = Opts("");
  none.init_op = std::vector<std::string>{};
  none.local_init_op = std::vector<std::string>{};
  ASSERT_OK_AND_ASSIGN(auto sv2, Supervisor::Create(bare.root, none));
  absl::Status s = sv2->ManagedSession("", {}, [](Session*) { return absl::OkStatus(); });
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(s.message(), HasSubstr("Model is not initialized and no init_op or init_fn"));

  Model with_fn;
  SupervisorOptions fn = Opts("");
  fn.init_op = std::vector<std::string>{};
  fn.init_fn = [](Session* s) {
    return s->Run({}, {}, {"v/Assign", "global_step/Assign"}, nullptr);
  };
  ASSERT_OK_AND_ASSIGN(auto sv3, Supervisor::Create(with_fn.root, fn));
  EXPECT_OK(sv3->ManagedSession("", {}, [](Session* s) {
    EXPECT_EQ(V(s), 1.0f);
    return absl::OkStatus();
  }));
}

TEST_F(SupervisorTest, ASecondSessionAfterAStopGoesOnInANewEventFile) {
  Model m;
  SupervisorOptions o = Opts();
  o.save_model = absl::ZeroDuration();
  o.save_summaries = absl::ZeroDuration();
  ASSERT_OK_AND_ASSIGN(auto sv, Supervisor::Create(m.root, o));
  ASSERT_OK(sv->ManagedSession("", {}, [&](Session*) {
    sv->RequestStop();
    return absl::OkStatus();
  }));
  EXPECT_TRUE(sv->ShouldStop());
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Session> s, sv->PrepareOrWaitForSession());
  EXPECT_FALSE(sv->ShouldStop());
  ASSERT_OK(sv->SummaryComputed(s.get(), [] {
    Summary summary;
    summary.add_value()->set_tag("extra");
    summary.mutable_value(0)->set_simple_value(2.5f);
    return summary.SerializeAsString();
  }()));
  EXPECT_OK(sv->Stop());
  EXPECT_THAT(Events(), ElementsAre("0 file_version", "0 graph_def", "0 meta_graph_def",
                                    "0 START", "0 STOP", "0 file_version", "0 graph_def",
                                    "0 meta_graph_def", "0 START", "0 extra=2.5", "0 STOP"));
}

}  // namespace
}  // namespace minigraph
