// Sessions over real gRPC on loopback: a Server in this process, clients
// through NewSession("grpc://127.0.0.1:PORT").
#include "session/distributed/grpc_session.h"

#include <atomic>
#include <thread>

#include "core/mem_env.h"
#include "core/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/cc/ops.h"
#include "runtime/cc/variables.h"
#include "session/distributed/cluster.h"
#include "session/distributed/server.h"
#include "session/session_manager.h"
#include "tests/testing/endless_loop.h"
#include "tests/testing/servers.h"

namespace minigraph {
namespace {

using ::testing::HasSubstr;

// v (int64, starts at 10), v += 1 as "inc", and a readiness report.
GraphDef CounterGraph() {
  Scope root = Scope::NewRootScope();
  Variable v = Variable::Create(root, "v", Tensor::Scalar<int64_t>(10));
  ops::AssignAdd(root.WithOpName("inc"), v.ref(), ops::Const<int64_t>(root, 1));
  Output report = ReportUninitializedVariables(root);
  ops::Identity(root.WithOpName("report"), report);
  GlobalVariablesInitializer(root);
  Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  ops::Square(root.WithOpName("y"), x);
  auto def = root.ToGraphDef();
  EXPECT_OK(def.status());
  return *def;
}

int64_t ReadV(Session* s) {
  std::vector<Tensor> out;
  EXPECT_OK(s->Run({}, {"v/read:0"}, {}, &out));
  return out.empty() ? -1 : *out[0].data<int64_t>();
}

TEST(GrpcSessionTest, RunsStepsWithFeedsFetchesAndTargets) {
  auto server = StartServer();
  auto s = Connect(server->target());
  ASSERT_OK(s->Create(CounterGraph()));
  std::vector<Tensor> out;
  ASSERT_OK(s->Run({}, {}, {"init"}, &out));
  EXPECT_TRUE(out.empty());
  ASSERT_OK(s->Run({{"x:0", Tensor::Scalar<float>(3)}}, {"y:0", "inc:0", "y:0"}, {}, &out));
  ASSERT_EQ(out.size(), 3u);  // a repeated fetch comes back twice, in order
  EXPECT_EQ(*out[0].data<float>(), 9.0f);
  EXPECT_EQ(*out[1].data<int64_t>(), 11);
  EXPECT_EQ(*out[2].data<float>(), 9.0f);
  EXPECT_OK(s->Close());
  EXPECT_THAT(s->Run({}, {"v/read:0"}, {}, &out), StatusIs(absl::StatusCode::kCancelled));
}

TEST(GrpcSessionTest, VariablesLiveInTheServerAcrossSessions) {
  auto server = StartServer();
  {
    auto a = Connect(server->target());
    ASSERT_OK(a->Create(CounterGraph()));
    ASSERT_OK(a->Run({}, {}, {"init"}, nullptr));
    ASSERT_OK(a->Run({}, {}, {"inc"}, nullptr));
    ASSERT_OK(a->Close());
  }
  auto b = Connect(server->target());
  ASSERT_OK(b->Create(CounterGraph()));
  EXPECT_EQ(ReadV(b.get()), 11);
}

TEST(GrpcSessionTest, ErrorsKeepTheirCodeAndTensorFlowsText) {
  auto server = StartServer();
  auto s = Connect(server->target());
  ASSERT_OK(s->Create(CounterGraph()));
  std::vector<Tensor> out;
  // The readiness report and the uninitialized read that SessionManager's
  // logic relies on.
  ASSERT_OK(s->Run({}, {"report:0"}, {}, &out));
  ASSERT_EQ(out[0].NumElements(), 1);
  EXPECT_EQ(out[0].data<std::string>()[0], "v");
  EXPECT_THAT(s->Run({}, {"v/read:0"}, {}, &out),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("Attempting to use uninitialized value v")));
  EXPECT_THAT(s->Run({}, {"nope:0"}, {}, &out),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("fetch 'nope' names a node that is not in the graph")));
  EXPECT_THAT(s->Run({{"x:0", Tensor::Scalar<int32_t>(1)}}, {"y:0"}, {}, &out),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST(GrpcSessionTest, ExtendAddsNodesAndKeepsTheGraphVersion) {
  auto server = StartServer();
  auto s = Connect(server->target());
  ASSERT_OK(s->Create(CounterGraph()));
  Scope more = Scope::NewRootScope();
  ops::Const(more.WithOpName("seven"), 7.0f);
  ASSERT_OK(s->Extend(*more.ToGraphDef()));
  Scope again = Scope::NewRootScope();
  ops::Const(again.WithOpName("eight"), 8.0f);
  ASSERT_OK(s->Extend(*again.ToGraphDef()));
  std::vector<Tensor> out;
  ASSERT_OK(s->Run({}, {"seven:0", "eight:0"}, {}, &out));
  EXPECT_EQ(*out[1].data<float>(), 8.0f);
  EXPECT_EQ(s->graph_def().node_size(), CounterGraph().node_size() + 2);
  // A name already in the graph is the server's InvalidArgument.
  EXPECT_THAT(s->Extend(*again.ToGraphDef()), StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST(GrpcSessionTest, NodesPlacedOnThisTaskRunAndDevicesNotInTheClusterAreRefused) {
  auto server = StartServer();
  GraphDef g = CounterGraph();
  for (NodeDef& n : *g.mutable_node()) n.set_device("/job:localhost/replica:0/task:0/device:CPU:0");
  auto s = Connect(server->target());
  ASSERT_OK(s->Create(g));
  GraphDef other;
  NodeDef* c = other.add_node();
  *c = g.node(0);
  c->set_name("elsewhere");
  c->set_device("/job:ps/task:0");
  EXPECT_THAT(s->Extend(other),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("node 'elsewhere' is placed on '/job:ps/task:0': cluster has "
                                 "no job 'ps' (jobs: localhost)")));
  c->set_device("/device:GPU:0");
  EXPECT_THAT(s->Extend(other), StatusIs(absl::StatusCode::kInvalidArgument,
                                         HasSubstr("tasks have only /device:CPU:0")));
}

TEST(GrpcSessionTest, CallablesRunARegisteredSignature) {
  auto server = StartServer();
  SessionOptions opts;
  opts.target = server->target();
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<GrpcSession> s, GrpcSession::Create(opts));
  EXPECT_THAT(s->MakeCallable({"x:0"}, {"y:0"}, {}).status(),
              StatusIs(absl::StatusCode::kFailedPrecondition));
  ASSERT_OK(s->Create(CounterGraph()));
  ASSERT_OK_AND_ASSIGN(int64_t square, s->MakeCallable({"x:0"}, {"y:0"}, {}));
  std::vector<Tensor> out;
  ASSERT_OK(s->RunCallable(square, {Tensor::Scalar<float>(5)}, &out));
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(*out[0].data<float>(), 25.0f);
  EXPECT_THAT(s->RunCallable(square, {}, &out),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("expected 1 feeds, got 0")));
  ASSERT_OK(s->ReleaseCallable(square));
  EXPECT_THAT(s->RunCallable(square, {Tensor::Scalar<float>(5)}, &out),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("no callable")));
}

// SessionOptions::operation_timeout_in_ms reaches the server as
// ConfigProto.operation_timeout_in_ms: a step with no deadline of its own
// that never ends fails with DeadlineExceeded instead of hanging.
TEST(GrpcSessionTest, OperationTimeoutBoundsStepsWithoutTheirOwn) {
  auto server = StartServer();
  ASSERT_OK_AND_ASSIGN(GraphDef def, EndlessLoopGraph());
  SessionOptions opts;
  opts.target = server->target();
  opts.operation_timeout_in_ms = 100;
  ASSERT_OK_AND_ASSIGN(auto sess, NewSession(opts));
  ASSERT_OK(sess->Create(def));
  std::vector<Tensor> out;
  EXPECT_THAT(sess->Run({}, {"forever:0"}, {}, &out),
              StatusIs(absl::StatusCode::kDeadlineExceeded));
  // The server is free for the next step.
  EXPECT_OK(sess->Run({}, {}, {"Const"}, &out));
}

// A RunStep whose gRPC call passes its deadline (the client gave up on it)
// is cancelled, as TensorFlow's master cancels it: its endless loop stops
// instead of running on, and the server goes idle.
TEST(GrpcSessionTest, AStepWhoseCallPassesItsDeadlineStops) {
  ASSERT_OK_AND_ASSIGN(GraphDef graph, EndlessLoopGraph());
  auto server = StartServer();
  EXPECT_LE(CpuAfterStepsPastTheirDeadline(server->target(), graph, "forever:0", 10), 0.05);
}

// RunOptions::cancelled works across the wire: the call is cancelled, and
// with it the step on the master (a queue runner's blocked step, when its
// coordinator stops).
TEST(GrpcSessionTest, ACancelledStepEndsOnTheServer) {
  ASSERT_OK_AND_ASSIGN(GraphDef graph, EndlessLoopGraph());
  auto server = StartServer();
  auto s = Connect(server->target());
  ASSERT_OK(s->Create(graph));
  std::atomic<int> asked{0};
  RunOptions options;
  options.cancelled = [&] { return ++asked > 3; };
  std::vector<Tensor> out;
  EXPECT_THAT(s->Run(options, {}, {"forever:0"}, {}, &out),
              StatusIs(absl::StatusCode::kCancelled));
  EXPECT_GT(asked, 3);
  // The server is free for the next step.
  EXPECT_OK(s->Run({}, {}, {"Const"}, &out));
}

TEST(GrpcSessionTest, ListDevicesNamesTheTask) {
  auto server = StartServer();
  SessionOptions opts;
  opts.target = server->target();
  auto s = GrpcSession::Create(opts);
  ASSERT_OK(s.status());
  auto devices = (*s)->ListDevices();
  ASSERT_OK(devices.status());
  ASSERT_EQ(devices->size(), 1u);
  EXPECT_EQ((*devices)[0].name(), "/job:localhost/replica:0/task:0/device:CPU:0");
  EXPECT_EQ((*devices)[0].device_type(), "CPU");
  EXPECT_NE((*devices)[0].incarnation(), 0u);
}

TEST(GrpcSessionTest, ResetClearsVariablesAndClosesSessions) {
  auto server = StartServer();
  auto a = Connect(server->target());
  ASSERT_OK(a->Create(CounterGraph()));
  ASSERT_OK(a->Run({}, {}, {"init"}, nullptr));
  SessionOptions opts;
  opts.target = server->target();
  ASSERT_OK(GrpcSession::Reset(opts, {}));
  // a's session is gone on the server, as after a restart.
  EXPECT_THAT(a->Run({}, {"v/read:0"}, {}, nullptr),
              StatusIs(absl::StatusCode::kAborted, HasSubstr("is not found")));
  auto b = Connect(server->target());
  ASSERT_OK(b->Create(CounterGraph()));
  EXPECT_THAT(b->Run({}, {"v/read:0"}, {}, nullptr),
              StatusIs(absl::StatusCode::kFailedPrecondition));
}

// Watching the state (our StateService) through a session the server no
// longer knows is TensorFlow's Aborted "not found"; through a closed one,
// Cancelled. WaitForSession then polls.
TEST(GrpcSessionTest, WatchStateOnAGoneSessionIsAClearError) {
  auto server = StartServer();
  auto a = Connect(server->target());
  ASSERT_OK(a->Create(CounterGraph()));
  ASSERT_OK(a->WatchState().status());
  SessionOptions opts;
  opts.target = server->target();
  ASSERT_OK(GrpcSession::Reset(opts, {}));
  EXPECT_THAT(a->WatchState().status(),
              StatusIs(absl::StatusCode::kAborted, HasSubstr("is not found")));
  a->Close().IgnoreError();  // Aborted too: the server forgot it
  EXPECT_THAT(a->WatchState().status(), StatusIs(absl::StatusCode::kCancelled));
}

TEST(GrpcSessionTest, AnUnreachableServerIsUnavailableNamingTheAddress) {
  // A port that was free a moment ago: nothing listens there.
  int port;
  {
    auto server = StartServer();
    port = server->port();
  }
  SessionOptions opts;
  opts.target = absl::StrCat("grpc://127.0.0.1:", port);
  opts.connect_timeout_ms = 2000;
  auto s = NewSession(opts);
  ASSERT_OK(s.status());
  EXPECT_THAT(
      (*s)->Create(CounterGraph()),
      StatusIs(absl::StatusCode::kUnavailable, HasSubstr(absl::StrCat("grpc://127.0.0.1:", port))));
}

TEST(GrpcSessionTest, MalformedTargetsAreInvalidArgument) {
  for (const char* target :
       {"grpc://", "grpc://host", "grpc://host:0", "grpc://host:99999", "grpc://host:12/x"}) {
    SessionOptions opts;
    opts.target = target;
    EXPECT_THAT(NewSession(opts).status(),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(target)))
        << target;
  }
}

TEST(GrpcSessionTest, ServerRefusesAPortInUse) {
  auto a = StartServer();
  ServerOptions opts;
  ASSERT_OK_AND_ASSIGN(opts.cluster,
                       ParseClusterSpec(absl::StrCat("worker=127.0.0.1:", a->port())));
  opts.job_name = "worker";
  EXPECT_THAT(Server::Create(opts).status(),
              StatusIs(absl::StatusCode::kUnavailable, HasSubstr("cannot listen on")));
  opts.job_name = "ps";
  EXPECT_THAT(Server::Create(opts).status(), StatusIs(absl::StatusCode::kNotFound));
}

// TensorFlow's chief/worker protocol across the wire: the chief prepares the
// model on the server; a worker's WaitForSession finds it ready.
TEST(GrpcSessionTest, SessionManagerChiefAndWorkerAcrossTheWire) {
  auto server = StartServer();
  GraphDef g = CounterGraph();
  FakeClockEnv clock(Env::Default());
  SessionManager::Options o;
  o.ready_op = {"report:0"};
  o.env = &clock;
  ASSERT_OK_AND_ASSIGN(auto sm, SessionManager::Create(g, o));

  // Before the chief: the worker's bounded wait ends DeadlineExceeded.
  EXPECT_THAT(sm->WaitForSession(server->target(), {}, absl::Seconds(60)).status(),
              StatusIs(absl::StatusCode::kDeadlineExceeded));

  SessionManager::PrepareOptions p;
  p.init_op = {"init"};
  ASSERT_OK_AND_ASSIGN(auto chief, sm->PrepareSession(server->target(), p));
  ASSERT_OK(chief->Run({}, {}, {"inc"}, nullptr));
  ASSERT_OK_AND_ASSIGN(auto worker, sm->WaitForSession(server->target(), {}, absl::Seconds(60)));
  EXPECT_EQ(ReadV(worker.get()), 11);
}

// A worker started before its server keeps waiting (Unavailable counts as
// not ready) and ends with the deadline, not with the first error.
TEST(GrpcSessionTest, WaitForSessionRetriesAnUnreachableServer) {
  int port;
  {
    auto server = StartServer();
    port = server->port();
  }
  FakeClockEnv clock(Env::Default());
  SessionManager::Options o;
  o.ready_op = {"report:0"};
  o.env = &clock;
  ASSERT_OK_AND_ASSIGN(auto sm, SessionManager::Create(CounterGraph(), o));
  SessionOptions config;
  config.connect_timeout_ms = 2000;
  EXPECT_THAT(
      sm->WaitForSession(absl::StrCat("grpc://127.0.0.1:", port), config, absl::Seconds(100))
          .status(),
      StatusIs(absl::StatusCode::kDeadlineExceeded,
               HasSubstr("Session was not ready after waiting 100 secs.")));
  EXPECT_EQ(clock.sleeps(), 3);  // attempts at 0, 30 and 60 s
}

}  // namespace
}  // namespace minigraph
