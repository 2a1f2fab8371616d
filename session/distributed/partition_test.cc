// Steps across tasks: a ps and a worker Server in this process, on real gRPC
// over loopback, with variables on the ps (ReplicaDeviceSetter) and the
// computation on the worker.
#include <cstdlib>
#include <map>
#include <thread>

#include "core/env.h"
#include "core/mem_env.h"
#include "core/proto/step_stats.pb.h"
#include "absl/strings/match.h"
#include "core/status_matchers.h"
#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "runtime/cc/gradients.h"
#include "runtime/cc/ops.h"
#include "runtime/cc/optimizers.h"
#include "runtime/cc/variables.h"
#include "runtime/graph/node_def_util.h"
#include "session/distributed/cluster.h"
#include "session/distributed/grpc_session.h"
#include "session/distributed/server.h"
#include "session/saver.h"
#include "session/session_manager.h"
#include "tests/testing/function_library.h"
#include "tests/testing/endless_loop.h"
#include "tests/testing/servers.h"
#include "tests/testing/subprocess.h"
#include "tests/testing/temp_path.h"

namespace minigraph {
namespace {

using ::testing::HasSubstr;

struct Cluster {
  ServerOptions ps_options;
  std::unique_ptr<Server> ps;
  std::vector<std::unique_ptr<Server>> more_ps;
  std::unique_ptr<Server> worker;
};

Cluster StartCluster(int num_ps = 1) {
  std::string spec = "ps=";
  for (int i = 0; i < num_ps; ++i) {
    absl::StatusOr<int> port = PickUnusedPort();
    EXPECT_OK(port.status());
    absl::StrAppend(&spec, i > 0 ? "," : "", "127.0.0.1:", *port);
  }
  absl::StatusOr<int> worker_port = PickUnusedPort();
  absl::StrAppend(&spec, ";worker=127.0.0.1:", *worker_port);
  ServerOptions opts;
  opts.cluster = *ParseClusterSpec(spec);
  opts.inter_op_threads = 2;
  opts.intra_op_threads = 1;
  Cluster c;
  opts.job_name = "ps";
  c.ps_options = opts;
  auto ps = Server::Create(opts);
  EXPECT_OK(ps.status());
  c.ps = *std::move(ps);
  for (int i = 1; i < num_ps; ++i) {
    opts.task_index = i;
    auto more = Server::Create(opts);
    EXPECT_OK(more.status());
    c.more_ps.push_back(*std::move(more));
  }
  opts.job_name = "worker";
  opts.task_index = 0;
  auto worker = Server::Create(opts);
  EXPECT_OK(worker.status());
  c.worker = *std::move(worker);
  return c;
}

// v on the ps; y = v * x and the update v += y placed by the setter.
GraphDef ScaleGraph() {
  Scope root = Scope::NewRootScope();
  Scope s = root.WithDeviceFunction(ReplicaDeviceSetter(1, "/job:worker/task:0"));
  Variable v = Variable::Create(s, "v", Tensor::Scalar<float>(1));
  Output x = ops::Placeholder(s.WithOpName("x"), DT_FLOAT);
  Output y = ops::Mul(s.WithOpName("y"), v.value(), x);
  ops::AssignAdd(s.WithOpName("update"), v.ref(), y);
  ops::Identity(s.WithOpName("report"), ReportUninitializedVariables(s));
  GlobalVariablesInitializer(s);
  auto def = root.ToGraphDef();
  EXPECT_OK(def.status());
  return *def;
}

float Scalar(Session* s, const std::string& fetch,
             const std::vector<std::pair<std::string, Tensor>>& feeds = {}) {
  std::vector<Tensor> out;
  absl::Status st = s->Run(feeds, {fetch}, {}, &out);
  EXPECT_OK(st);
  return st.ok() ? *out[0].data<float>() : -1;
}

TEST(PartitionTest, ReplicaDeviceSetterPlacesVariablesOnThePs) {
  GraphDef g = ScaleGraph();
  std::map<std::string, std::string> device;
  for (const NodeDef& n : g.node()) device[n.name()] = n.device();
  EXPECT_EQ(device["v"], "/job:ps/task:0");
  EXPECT_EQ(device["x"], "/job:worker/task:0");
  EXPECT_EQ(device["y"], "/job:worker/task:0");
  // The setter asks for the worker; the master runs it with v, which it
  // takes by reference (colocation wins).
  EXPECT_EQ(device["update"], "/job:worker/task:0");
}

TEST(PartitionTest, AStepRunsAcrossTasksAndTheVariableLivesOnThePs) {
  Cluster c = StartCluster();
  auto s = Connect(c.worker->target());
  ASSERT_OK(s->Create(ScaleGraph()));
  // Uninitialized on the ps: TensorFlow's error, through the worker.
  std::vector<Tensor> out;
  EXPECT_THAT(s->Run({{"x", Tensor::Scalar<float>(3)}}, {"y"}, {}, &out),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("Attempting to use uninitialized value v")));
  ASSERT_OK(s->Run({}, {}, {"init"}, nullptr));
  EXPECT_EQ(Scalar(s.get(), "y", {{"x", Tensor::Scalar<float>(3)}}), 3.0f);
  ASSERT_OK(s->Run({{"x", Tensor::Scalar<float>(2)}}, {}, {"update"}, nullptr));
  EXPECT_EQ(Scalar(s.get(), "v/read:0"), 3.0f);
  // A fed tensor fetched comes back as fed.
  EXPECT_EQ(Scalar(s.get(), "x", {{"x", Tensor::Scalar<float>(5)}}), 5.0f);

  // The ps holds v: a session on the ps's own master reads it there...
  auto on_ps = Connect(c.ps->target());
  ASSERT_OK(on_ps->Create(ScaleGraph()));
  EXPECT_EQ(Scalar(on_ps.get(), "v/read:0"), 3.0f);
  // ...and the worker's own state has no v at all.
  Scope local = Scope::NewRootScope();
  Variable::Create(local, "v", Tensor::Scalar<float>(1));
  auto on_worker = Connect(c.worker->target());
  ASSERT_OK(on_worker->Create(*local.ToGraphDef()));
  EXPECT_THAT(on_worker->Run({}, {"v/read:0"}, {}, &out),
              StatusIs(absl::StatusCode::kFailedPrecondition));
}

// A traced step across tasks returns every task's node runs, each under its
// task's device, as TensorFlow's master gathers them (FULL_TRACE).
TEST(PartitionTest, ATracedStepReturnsTheStatsOfEveryTask) {
  Cluster c = StartCluster();
  auto s = Connect(c.worker->target());
  ASSERT_OK(s->Create(ScaleGraph()));
  ASSERT_OK(s->Run({}, {}, {"init"}, nullptr));
  tensorflow::StepStats stats;
  RunOptions options;
  options.step_stats = &stats;
  std::vector<Tensor> out;
  ASSERT_OK(s->Run(options, {{"x", Tensor::Scalar<float>(3)}}, {"y"}, {}, &out));
  EXPECT_EQ(*out[0].data<float>(), 3.0f);
  std::map<std::string, std::string> device_of;
  for (const tensorflow::DeviceStepStats& d : stats.dev_stats()) {
    for (const tensorflow::NodeExecStats& n : d.node_stats()) device_of[n.node_name()] = d.device();
  }
  EXPECT_EQ(device_of["v"], "/job:ps/replica:0/task:0/device:CPU:0");
  EXPECT_EQ(device_of["y"], "/job:worker/replica:0/task:0/device:CPU:0");
  // The partitions' own _Send and _Recv ran too.
  int sends = 0;
  for (const auto& [node, device] : device_of) sends += absl::StrContains(node, "_send") ? 1 : 0;
  EXPECT_GT(sends, 0) << stats.DebugString();
  // An untraced step returns nothing.
  ASSERT_OK(s->Run({{"x", Tensor::Scalar<float>(3)}}, {"y"}, {}, &out));
  EXPECT_EQ(stats.dev_stats_size(), 2);
}

// Closing a session ends its steps still running, Cancelled, as
// TensorFlow's master does: TensorFlow's client waits for them after it
// closes (a queue runner's step blocked on a queue would hold it for ever).
TEST(PartitionTest, ClosingASessionCancelsItsBlockedSteps) {
  Cluster c = StartCluster();
  Scope root = Scope::NewRootScope();
  Scope ps = root.WithDevice("/job:ps/task:0");
  Variable started = Variable::Create(ps, "started", Tensor::Scalar<int32_t>(0));
  Output mark = ops::Assign(ps.WithOpName("mark"), started.ref(), ops::Const<int32_t>(ps, 1));
  const std::map<std::string, AttrValue> ints = {
      {"component_types", MakeAttrValue(std::vector<DataType>{DT_INT32})}};
  Output q = ps.WithOpName("q").AddOp("FIFOQueueV2", {}, ints).output(0);
  Output x = ps.WithOpName("x")
                 .WithControlDependencies({mark.op()})
                 .AddOp("QueueDequeueV2", {{q}}, ints)
                 .output(0);
  ops::Identity(root.WithDevice("/job:worker/task:0").WithOpName("y"), x);
  GraphDef graph = *root.ToGraphDef();
  auto s = Connect(c.worker->target());
  ASSERT_OK(s->Create(graph));
  ASSERT_OK(s->Run({}, {}, {started.initializer().name()}, nullptr));
  absl::Status blocked;
  std::thread step([&] {
    std::vector<Tensor> out;
    blocked = s->Run({}, {"y:0"}, {}, &out);
  });
  // Once the step is on the ps (it has marked `started`), the session closes.
  auto watch = Connect(c.worker->target());
  ASSERT_OK(watch->Create(graph));
  for (std::vector<Tensor> out; out.empty() || *out[0].data<int32_t>() == 0;) {
    ASSERT_OK(watch->Run({}, {"started/read:0"}, {}, &out));
  }
  ASSERT_OK(s->Close());
  step.join();
  EXPECT_THAT(blocked, StatusIs(absl::StatusCode::kCancelled, HasSubstr("was closed")));
}

// A step whose client gives up (its RunStep call passes its deadline)
// ends on every task: the endless loop placed on the ps stops too.
TEST(PartitionTest, AStepPastItsClientsDeadlineEndsOnEveryTask) {
  ASSERT_OK_AND_ASSIGN(GraphDef graph, EndlessLoopGraph());
  for (NodeDef& n : *graph.mutable_node()) n.set_device("/job:ps/task:0");
  Cluster c = StartCluster();
  EXPECT_LE(CpuAfterStepsPastTheirDeadline(c.worker->target(), graph, "forever:0", 10), 0.05);
}

TEST(PartitionTest, GradientDescentWithVariablesOnTwoPsTasks) {
  Cluster c = StartCluster(/*num_ps=*/2);
  Scope root = Scope::NewRootScope();
  Scope s = root.WithDeviceFunction(ReplicaDeviceSetter(2, "/job:worker/task:0"));
  // loss = (w * x + b - t)^2; w on ps:0, b on ps:1.
  Variable w = Variable::Create(s, "w", Tensor::Scalar<float>(0));
  Variable b = Variable::Create(s, "b", Tensor::Scalar<float>(0));
  Output x = ops::Placeholder(s.WithOpName("x"), DT_FLOAT);
  Output t = ops::Placeholder(s.WithOpName("t"), DT_FLOAT);
  Output err = ops::Sub(s, ops::Add(s, ops::Mul(s, w.value(), x), b.value()), t);
  Output loss = ops::Square(s.WithOpName("loss"), err);
  std::vector<Output> grads;
  ASSERT_OK(AddSymbolicGradients(s, {loss}, {w.value(), b.value()}, &grads));
  Output lr = ops::Const(s, 0.1f);
  ops::ApplyGradientDescent(s.WithOpName("train_w"), w.ref(), lr, grads[0]);
  ops::ApplyGradientDescent(s.WithOpName("train_b"), b.ref(), lr, grads[1]);
  GlobalVariablesInitializer(s);
  ASSERT_OK_AND_ASSIGN(GraphDef g, root.ToGraphDef());
  std::map<std::string, std::string> device;
  for (const NodeDef& n : g.node()) device[n.name()] = n.device();
  EXPECT_EQ(device["w"], "/job:ps/task:0");
  EXPECT_EQ(device["b"], "/job:ps/task:1");

  auto sess = Connect(c.worker->target());
  ASSERT_OK(sess->Create(g));
  ASSERT_OK(sess->Run({}, {}, {"init"}, nullptr));
  // Fit t = 2x + 1 from two points, full batch.
  float last = 0;
  for (int step = 0; step < 200; ++step) {
    for (float xv : {0.0f, 1.0f}) {
      std::vector<Tensor> out;
      ASSERT_OK(
          sess->Run({{"x", Tensor::Scalar<float>(xv)}, {"t", Tensor::Scalar<float>(2 * xv + 1)}},
                    {"loss"}, {"train_w", "train_b"}, &out));
      last = *out[0].data<float>();
    }
  }
  EXPECT_LT(last, 1e-4f);
  EXPECT_NEAR(Scalar(sess.get(), "w/read:0"), 2.0f, 0.02f);
  EXPECT_NEAR(Scalar(sess.get(), "b/read:0"), 1.0f, 0.02f);
}

// Resource variables on two ps tasks: every op that takes a handle (the
// reads, the ResourceApplyGradientDescent) runs in the variable's task.
TEST(PartitionTest, ResourceVariablesTrainOnTheirPsTasks) {
  Cluster c = StartCluster(/*num_ps=*/2);
  Scope root = Scope::NewRootScope();
  Scope s = root.WithDeviceFunction(ReplicaDeviceSetter(2, "/job:worker/task:0"));
  Variable w = Variable::Create(s, "w", Tensor::Scalar<float>(0), {.use_resource = true});
  Variable b = Variable::Create(s, "b", Tensor::Scalar<float>(0), {.use_resource = true});
  Output x = ops::Placeholder(s.WithOpName("x"), DT_FLOAT);
  Output t = ops::Placeholder(s.WithOpName("t"), DT_FLOAT);
  Output err = ops::Sub(s, ops::Add(s, ops::Mul(s, w.value(), x), b.value()), t);
  Output loss = ops::Square(s.WithOpName("loss"), err);
  GradientDescentOptimizer sgd(0.1);
  ASSERT_OK_AND_ASSIGN(Operation train, sgd.Minimize(s, loss));
  ops::Identity(s.WithOpName("report"), ReportUninitializedVariables(s));
  GlobalVariablesInitializer(s);
  ASSERT_OK_AND_ASSIGN(GraphDef g, root.ToGraphDef());
  std::map<std::string, std::string> device;
  for (const NodeDef& n : g.node()) device[n.name()] = n.device();
  EXPECT_EQ(device["w"], "/job:ps/task:0");
  EXPECT_EQ(device["b"], "/job:ps/task:1");

  auto sess = Connect(c.worker->target());
  ASSERT_OK(sess->Create(g));
  std::vector<Tensor> out;
  ASSERT_OK(sess->Run({}, {"report"}, {}, &out));
  EXPECT_EQ(out[0].NumElements(), 2);
  ASSERT_OK(sess->Run({}, {}, {"init"}, nullptr));
  ASSERT_OK(sess->Run({}, {"report"}, {}, &out));
  EXPECT_EQ(out[0].NumElements(), 0);
  float last = 0;
  for (int step = 0; step < 200; ++step) {
    for (float xv : {0.0f, 1.0f}) {
      ASSERT_OK(
          sess->Run({{"x", Tensor::Scalar<float>(xv)}, {"t", Tensor::Scalar<float>(2 * xv + 1)}},
                    {"loss"}, {train.name()}, &out));
      last = *out[0].data<float>();
    }
  }
  EXPECT_LT(last, 1e-4f);
  EXPECT_NEAR(Scalar(sess.get(), w.value().name()), 2.0f, 0.02f);
  EXPECT_NEAR(Scalar(sess.get(), b.value().name()), 1.0f, 0.02f);
  // The variables live on the ps tasks: a second client sees them.
  auto other = Connect(c.worker->target());
  ASSERT_OK(other->Create(g));
  EXPECT_NEAR(Scalar(other.get(), w.value().name()), 2.0f, 0.02f);
}

// A function call placed on the ps, its input sent from the worker: each
// partition carries the graph's function library.
TEST(PartitionTest, FunctionCallsRunInTheirTask) {
  Cluster c = StartCluster();
  GraphDef g;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(kFunctionLibraryText, &g));
  ASSERT_TRUE(google::protobuf::TextFormat::MergeFromString(R"pb(
    node {
      name: "x"
      op: "Placeholder"
      device: "/job:worker/task:0"
      attr { key: "dtype" value { type: DT_FLOAT } }
    }
    node {
      name: "call"
      op: "PartitionedCall"
      input: "x"
      device: "/job:ps/task:0"
      attr { key: "Tin" value { list { type: DT_FLOAT } } }
      attr { key: "Tout" value { list { type: DT_FLOAT } } }
      attr { key: "f" value { func { name: "neg" } } }
    })pb", &g));
  auto sess = Connect(c.worker->target());
  ASSERT_OK(sess->Create(g));
  EXPECT_EQ(Scalar(sess.get(), "call:0", {{"x", Tensor::Scalar<float>(21)}}), -21.0f);
}

// A ps that restarts has lost its partitions and its variables: the master
// registers the partitions again, and once the model is initialized again,
// steps run as before.
TEST(PartitionTest, AfterAPsRestartsTheMasterRegistersItsPartitionsAgain) {
  Cluster c = StartCluster();
  auto s = Connect(c.worker->target());
  ASSERT_OK(s->Create(ScaleGraph()));
  ASSERT_OK(s->Run({}, {}, {"init"}, nullptr));
  EXPECT_EQ(Scalar(s.get(), "y", {{"x", Tensor::Scalar<float>(3)}}), 3.0f);
  c.ps.reset();
  ASSERT_OK_AND_ASSIGN(c.ps, Server::Create(c.ps_options));
  // The first steps fail (Unavailable while the channel reconnects, then
  // Aborted for the lost partitions); none hangs, and then init runs.
  absl::Status init;
  const absl::Time give_up = absl::Now() + absl::Seconds(30);
  do {
    init = s->Run({}, {}, {"init"}, nullptr);
    ASSERT_TRUE(init.ok() || absl::IsUnavailable(init) || absl::IsAborted(init)) << init;
  } while (!init.ok() && absl::Now() < give_up);
  ASSERT_OK(init);
  EXPECT_EQ(Scalar(s.get(), "y", {{"x", Tensor::Scalar<float>(4)}}), 4.0f);
}

// A worker waiting in WaitForSession with an hour's recovery_wait (a test
// would time out if the wait were not woken), and the chief that prepares
// the model.
struct WaitingWorker {
  explicit WaitingWorker(const std::string& target) : target(target) {
    SessionManager::Options o;
    o.env = &env;
    o.ready_op = {"report:0"};
    o.recovery_wait = absl::Hours(1);
    auto m = SessionManager::Create(ScaleGraph(), o);
    EXPECT_OK(m.status());
    sm = *std::move(m);
    // No cancel: with one, the wait would look at it every 50 ms, and each
    // look counts as a sleep. A test that fails before Join aborts (the
    // waiter cannot be stopped) rather than hang.
    thread = std::thread([this] { session = sm->WaitForSession(this->target); });
  }
  absl::Status PrepareAsChief() {
    SessionManager::PrepareOptions p;
    p.init_op = {"init"};
    p.config.env = &env;
    return sm->PrepareSession(target, p).status();
  }
  // The worker's session, once its wait ended.
  absl::StatusOr<std::unique_ptr<Session>>& Join() {
    thread.join();
    return session;
  }

  const std::string target;
  SleepSignalEnv env{Env::Default()};
  std::unique_ptr<SessionManager> sm;
  absl::StatusOr<std::unique_ptr<Session>> session;
  std::thread thread;
};

// Beyond TensorFlow: a worker waiting for the chief sleeps on a long poll
// to the ps that holds the variables and wakes when the chief initializes
// them.
TEST(PartitionTest, AWaitingWorkerWakesWhenTheChiefInitializesThePs) {
  Cluster c = StartCluster();
  WaitingWorker w(c.worker->target());
  w.env.WaitForSleeps(1);  // not ready: asleep on the watch
  ASSERT_OK(w.PrepareAsChief());
  ASSERT_OK(w.Join().status());
  EXPECT_EQ(Scalar(w.session->get(), "v/read:0"), 1.0f);
}

// ... and when the ps it could not reach comes up, it wakes to look again.
TEST(PartitionTest, AWaitingWorkerWakesWhenItsPsComesUp) {
  Cluster c = StartCluster();
  c.ps.reset();
  WaitingWorker w(c.worker->target());
  w.env.WaitForSleeps(1);  // the ps is unreachable: asleep on the watch
  ASSERT_OK_AND_ASSIGN(c.ps, Server::Create(c.ps_options));
  w.env.WaitForSleeps(2);  // woke, found the model uninitialized, asleep again
  ASSERT_OK(w.PrepareAsChief());
  ASSERT_OK(w.Join().status());
  EXPECT_EQ(Scalar(w.session->get(), "v/read:0"), 1.0f);
}

// TensorFlow's sharded Saver across tasks: each ps saves the variables it
// holds, the session's task merges the shards, and each ps restores its own.
TEST(PartitionTest, EachPsSavesAndRestoresItsOwnShard) {
  Cluster c = StartCluster(/*num_ps=*/2);
  Scope root = Scope::NewRootScope();
  Scope s = root.WithDeviceFunction(ReplicaDeviceSetter(2, "/job:worker/task:0"));
  Variable a = Variable::Create(s, "a", Tensor::Scalar<float>(1));
  Variable b = Variable::Create(s, "b", Tensor::Scalar<float>(2));
  Output twice_a = ops::Mul(s, a.value(), ops::Const(s, 2.0f));
  ops::Assign(s.WithOpName("double_a"), a.ref(), twice_a);
  GlobalVariablesInitializer(s);
  SaverOptions so;
  so.shard_by_device = true;
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Saver> saver, Saver::Create(s, so));
  ASSERT_OK_AND_ASSIGN(GraphDef g, root.ToGraphDef());
  std::map<std::string, std::string> device;
  for (const NodeDef& n : g.node()) device[n.name()] = n.device();
  EXPECT_EQ(device["save/SaveV2"], "/job:ps/task:0");
  EXPECT_EQ(device["save/SaveV2_1"], "/job:ps/task:1");
  EXPECT_EQ(device["save/RestoreV2_1"], "/job:ps/task:1");

  auto sess = Connect(c.worker->target());
  ASSERT_OK(sess->Create(g));
  ASSERT_OK(sess->Run({}, {}, {"init"}, nullptr));
  const std::string prefix = TestTempPath("sharded/model");
  ASSERT_OK(Env::Default()->CreateDir(TestTempPath("sharded")));
  ASSERT_OK_AND_ASSIGN(std::string path, saver->Save(sess.get(), prefix));
  ASSERT_OK(sess->Run({}, {}, {"double_a"}, nullptr));
  EXPECT_EQ(Scalar(sess.get(), "a/read:0"), 2.0f);
  ASSERT_OK(saver->Restore(sess.get(), path));
  EXPECT_EQ(Scalar(sess.get(), "a/read:0"), 1.0f);
  EXPECT_EQ(Scalar(sess.get(), "b/read:0"), 2.0f);
}

}  // namespace
}  // namespace minigraph
