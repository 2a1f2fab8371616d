// //tools:server as a separate process on 127.0.0.1, driven by grpc://
// sessions from this one: sessions, shared variables, SessionManager's
// chief/worker protocol, SIGTERM, SIGKILL and restart, bad clients.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "core/mem_env.h"
#include "core/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/cc/ops.h"
#include "runtime/cc/variables.h"
#include "session/distributed/security.h"
#include "session/session.h"
#include "session/session_manager.h"
#include "tests/testing/binary_under_test.h"
#include "tests/testing/servers.h"
#include "tests/testing/subprocess.h"
#include "tests/testing/temp_path.h"

namespace minigraph {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

constexpr absl::Duration kStartTimeout = absl::Seconds(60);
constexpr absl::Duration kStopTimeout = absl::Seconds(30);

// A ps task of a one-ps, one-worker cluster, on a port picked here.
struct PsProcess {
  int port = 0;
  std::string target;
  std::unique_ptr<Subprocess> process;
};

PsProcess StartPs(int port = 0) {
  PsProcess ps;
  if (port == 0) {
    absl::StatusOr<int> p = PickUnusedPort();
    EXPECT_OK(p.status());
    port = p.value_or(0);
  }
  ps.port = port;
  ps.target = absl::StrCat("grpc://127.0.0.1:", port);
  absl::StatusOr<int> worker_port = PickUnusedPort();
  EXPECT_OK(worker_port.status());
  auto p = Subprocess::Start(
      {BinaryUnderTest(),
       absl::StrCat("--cluster=ps=127.0.0.1:", port, ";worker=127.0.0.1:", *worker_port),
       "--job_name=ps", "--task_index=0", "--inter_op_threads=2", "--intra_op_threads=1"});
  EXPECT_OK(p.status());
  ps.process = *std::move(p);
  EXPECT_OK(ps.process->WaitForLine("serving at", kStartTimeout));
  return ps;
}

GraphDef CounterGraph() {
  Scope root = Scope::NewRootScope();
  Variable v = Variable::Create(root, "v", Tensor::Scalar<int64_t>(10));
  ops::AssignAdd(root.WithOpName("inc"), v.ref(), ops::Const<int64_t>(root, 1));
  ops::Identity(root.WithOpName("report"), ReportUninitializedVariables(root));
  GlobalVariablesInitializer(root);
  auto def = root.ToGraphDef();
  EXPECT_OK(def.status());
  return *def;
}

absl::StatusOr<int64_t> ReadV(Session* s) {
  std::vector<Tensor> out;
  MG_RETURN_IF_ERROR(s->Run({}, {"v/read:0"}, {}, &out));
  return *out[0].data<int64_t>();
}

TEST(ServerProcessTest, ServesSessionsAndStopsCleanlyOnSigterm) {
  PsProcess ps = StartPs();
  {
    auto a = Connect(ps.target);
    ASSERT_OK(a->Create(CounterGraph()));
    ASSERT_OK(a->Run({}, {}, {"init"}, nullptr));
    ASSERT_OK(a->Run({}, {}, {"inc"}, nullptr));
    ASSERT_OK(a->Close());
  }
  // Variables live in the server process, not in the client's session.
  auto b = Connect(ps.target);
  ASSERT_OK(b->Create(CounterGraph()));
  EXPECT_THAT(ReadV(b.get()), IsOkAndHolds(11));

  ps.process->Signal(SIGTERM);
  ASSERT_OK_AND_ASSIGN(int status, ps.process->Wait(kStopTimeout));
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << ps.process->output();
  const std::string& log = ps.process->output();
  EXPECT_THAT(log, HasSubstr("server /job:ps/replica:0/task:0 serving at 127.0.0.1:"));
  EXPECT_THAT(log, HasSubstr(" created by ipv4:127.0.0.1:"));
  EXPECT_THAT(log, HasSubstr(" closed by ipv4:127.0.0.1:"));
  EXPECT_THAT(log, HasSubstr("closed (server shutting down)"));  // b's session
  EXPECT_THAT(log, HasSubstr("SIGTERM, stopping"));
}

TEST(ServerProcessTest, AKilledServerIsUnavailableAndARestartedOneStartsAfresh) {
  PsProcess ps = StartPs();
  auto s = Connect(ps.target);
  ASSERT_OK(s->Create(CounterGraph()));
  ASSERT_OK(s->Run({}, {}, {"init"}, nullptr));

  ps.process->Signal(SIGKILL);
  ASSERT_OK(ps.process->Wait(kStopTimeout).status());
  // No hang: the step fails at once, naming the server.
  EXPECT_THAT(ReadV(s.get()).status(),
              StatusIs(absl::StatusCode::kUnavailable, HasSubstr(ps.target)));

  PsProcess again = StartPs(ps.port);
  // The old handle means nothing to the new process (TensorFlow's text)...
  EXPECT_THAT(ReadV(s.get()).status(),
              StatusIs(absl::StatusCode::kAborted,
                       HasSubstr("is not found. Possibly, this master has restarted.")));
  // ...and its variables start uninitialized.
  auto fresh = Connect(again.target);
  ASSERT_OK(fresh->Create(CounterGraph()));
  EXPECT_THAT(ReadV(fresh.get()).status(), StatusIs(absl::StatusCode::kFailedPrecondition));
}

// An Env whose sleeps wait for the test to open a gate (bounded), so a
// waiting worker wakes when the test has made the model ready.
class GatedClockEnv : public FakeClockEnv {
 public:
  explicit GatedClockEnv(Env* base) : FakeClockEnv(base) {}
  bool SleepUnlessNotified(const absl::Notification& n, int64_t micros) override {
    slept_.Notify();
    gate_.WaitForNotificationWithTimeout(absl::Seconds(60));
    return FakeClockEnv::SleepUnlessNotified(n, micros);
  }
  void WaitUntilSleeping() { slept_.WaitForNotification(); }
  void Open() { gate_.Notify(); }

 private:
  absl::Notification slept_;
  absl::Notification gate_;
};

TEST(ServerProcessTest, AWorkerStartedBeforeItsServerJoinsWhenTheChiefIsDone) {
  ASSERT_OK_AND_ASSIGN(int port, PickUnusedPort());
  const std::string target = absl::StrCat("grpc://127.0.0.1:", port);
  GatedClockEnv clock(Env::Default());
  SessionManager::Options o;
  o.ready_op = {"report:0"};
  o.env = &clock;
  ASSERT_OK_AND_ASSIGN(auto worker_sm, SessionManager::Create(CounterGraph(), o));

  absl::StatusOr<std::unique_ptr<Session>> worker;
  std::thread waiting([&] {
    SessionOptions config;
    config.connect_timeout_ms = 10000;
    worker = worker_sm->WaitForSession(target, config, absl::Seconds(600));
  });
  clock.WaitUntilSleeping();  // its first attempt found no server

  PsProcess ps = StartPs(port);
  SessionManager::Options chief_o;
  chief_o.ready_op = {"report:0"};
  ASSERT_OK_AND_ASSIGN(auto chief_sm, SessionManager::Create(CounterGraph(), chief_o));
  SessionManager::PrepareOptions p;
  p.init_op = {"init"};
  ASSERT_OK_AND_ASSIGN(auto chief, chief_sm->PrepareSession(ps.target, p));
  ASSERT_OK(chief->Run({}, {}, {"inc"}, nullptr));

  clock.Open();
  waiting.join();
  ASSERT_OK(worker.status());
  EXPECT_THAT(ReadV(worker->get()), IsOkAndHolds(11));
  EXPECT_EQ(clock.sleeps(), 1);
}

TEST(ServerProcessTest, BadClientsGetClearErrorsAndTheServerStaysUp) {
  PsProcess ps = StartPs();
  // A graph placed on a task the cluster does not have.
  GraphDef g = CounterGraph();
  g.mutable_node(0)->set_device("/job:worker/task:3");
  auto s = Connect(ps.target);
  EXPECT_THAT(s->Create(g), StatusIs(absl::StatusCode::kInvalidArgument,
                                     HasSubstr("placed on '/job:worker/task:3': cluster has no "
                                               "task 3 in job 'worker' (it has 1)")));
  // Garbage bytes on the port.
  const int fd = socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(ps.port);
  ASSERT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  const std::string junk(4096, '\x17');
  ASSERT_EQ(write(fd, junk.data(), junk.size()), static_cast<ssize_t>(junk.size()));
  char buf[256];
  (void)!read(fd, buf, sizeof(buf));  // the server answers or hangs up
  close(fd);
  // A feed far above gRPC's default 4 MiB message limit, of the wrong dtype.
  auto big = Connect(ps.target);
  ASSERT_OK(big->Create(CounterGraph()));
  Tensor huge(DT_FLOAT, TensorShape({64 << 20 >> 2}));
  EXPECT_THAT(big->Run({{"v/read:0", huge}}, {"v/read:0"}, {}, nullptr),
              StatusIs(absl::StatusCode::kInvalidArgument));
  // Still serving.
  auto ok = Connect(ps.target);
  ASSERT_OK(ok->Create(CounterGraph()));
  ASSERT_OK(ok->Run({}, {}, {"init"}, nullptr));
  EXPECT_THAT(ReadV(ok.get()), IsOkAndHolds(10));
}

// --max_step_bytes bounds what one client step holds on the server at
// once: twelve fetched 400 KB Fills do not fit in 4 MB (ResourceExhausted
// naming a Fill), two do; the server goes on.
TEST(ServerProcessTest, MaxStepBytesBoundsEachClientsStep) {
  ASSERT_OK_AND_ASSIGN(int port, PickUnusedPort());
  ASSERT_OK_AND_ASSIGN(
      auto server,
      Subprocess::Start({BinaryUnderTest(), absl::StrCat("--cluster=worker=127.0.0.1:", port),
                         "--job_name=worker", "--max_step_bytes=4194304"}));
  ASSERT_OK(server->WaitForLine("serving at", kStartTimeout));
  Scope root = Scope::NewRootScope();
  std::vector<std::string> fills;
  for (int i = 0; i < 12; ++i) {
    fills.push_back(ops::Fill(root.WithOpName(absl::StrCat("fill", i)),
                              ops::Const<int32_t>(root, {100000}), ops::Const(root, 1.0f))
                        .name());
  }
  auto s = Connect(absl::StrCat("grpc://127.0.0.1:", port));
  ASSERT_OK(s->Create(*root.ToGraphDef()));
  std::vector<Tensor> out;
  EXPECT_THAT(s->Run({}, fills, {}, &out),
              StatusIs(absl::StatusCode::kResourceExhausted,
                       AllOf(HasSubstr("fill"), HasSubstr("a bound of 4194304 bytes"))));
  ASSERT_OK(s->Run({}, {fills[0], fills[1]}, {}, &out));
  EXPECT_EQ(out[1].NumElements(), 100000);
}

TEST(ServerProcessTest, ATokenServerRefusesCallsWithoutIt) {
  const std::string token_file = TestTempPath("token");
  ASSERT_OK(WriteStringToFile(Env::Default(), token_file, "let-me-in\n"));
  ASSERT_OK_AND_ASSIGN(int port, PickUnusedPort());
  auto p = Subprocess::Start({BinaryUnderTest(), absl::StrCat("--cluster=ps=127.0.0.1:", port),
                              "--job_name=ps", "--auth_token_file=" + token_file});
  ASSERT_OK(p.status());
  auto server = *std::move(p);
  ASSERT_OK(server->WaitForLine("token required", kStartTimeout));
  const std::string target = absl::StrCat("grpc://127.0.0.1:", port);
  auto anonymous = Connect(target);
  EXPECT_THAT(anonymous->Create(CounterGraph()),
              StatusIs(absl::StatusCode::kUnauthenticated, HasSubstr("requires a token")));
  TransportSecurity with;
  with.token = "let-me-in";
  SetClientTransportSecurity(with);
  auto member = Connect(target);
  SetClientTransportSecurity({});
  ASSERT_OK(member->Create(CounterGraph()));
  ASSERT_OK(member->Run({}, {}, {"init"}, nullptr));
  EXPECT_THAT(ReadV(member.get()), IsOkAndHolds(10));
  server->Signal(SIGTERM);
  ASSERT_OK_AND_ASSIGN(int status, server->Wait(kStopTimeout));
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

}  // namespace
}  // namespace minigraph
