// What a worker cleans up after a master that dies: its worker sessions and
// their graphs once the master task stops answering, the sessions of a
// master task that comes back as a new incarnation, and the steps no
// RunGraph ran on the task, whose waiting RecvTensors then fail. The
// worker's time is a FakeClockEnv; the sweep is called as its thread would.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <memory>
#include <string>

#include "absl/synchronization/notification.h"
#include "core/mem_env.h"
#include "core/status_matchers.h"
#include "gmock/gmock.h"
#include "grpcpp/generic/generic_stub.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "session/distributed/cluster.h"
#include "session/distributed/internal/grpc_util.h"
#include "session/distributed/internal/worker.h"
#include "session/distributed/internal/worker_cache.h"

namespace minigraph {
namespace distributed_internal {
namespace {

using ::testing::HasSubstr;
using ::testing::Pair;

constexpr char kMaster[] = "/job:chief/replica:0/task:0";

// A worker for "/job:worker/task:0", served on a free loopback port, in a
// cluster whose chief (the master) listens nowhere: a master that died.
class WorkerCleanupTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // A port nothing listens on: bound, then closed.
    int dead_port = 0;
    {
      const int fd = socket(AF_INET, SOCK_STREAM, 0);
      sockaddr_in addr{};
      addr.sin_family = AF_INET;
      addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
      socklen_t len = sizeof(addr);
      ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
      ASSERT_EQ(getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len), 0);
      dead_port = ntohs(addr.sin_port);
      close(fd);
    }
    tensorflow::ClusterDef cluster;
    tensorflow::JobDef* chief = cluster.add_job();
    chief->set_name("chief");
    (*chief->mutable_tasks())[0] = absl::StrCat("127.0.0.1:", dead_port);
    tensorflow::JobDef* worker = cluster.add_job();
    worker->set_name("worker");
    (*worker->mutable_tasks())[0] = "127.0.0.1:0";
    TaskContext task;
    task.job_name = "worker";
    task.device.set_name(TaskDeviceName("worker", 0));
    task.state = std::make_shared<SessionState>("/job:worker/replica:0/task:0");
    task.workers = std::make_shared<WorkerCache>(cluster, TransportSecurity());
    task.env = &clock_;
    worker_ = std::make_unique<Worker>(task);
    grpc::ServerBuilder b;
    int port = 0;
    b.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
    b.RegisterService(worker_.get());
    server_ = b.BuildAndStart();
    task.workers->SetAddress("/job:worker/replica:0/task:0", absl::StrCat("127.0.0.1:", port));
    channel_ = grpc::CreateChannel(absl::StrCat("127.0.0.1:", port),
                                   grpc::InsecureChannelCredentials());
    stub_ = tensorflow::WorkerService::NewStub(channel_);
  }
  void TearDown() override {
    server_->Shutdown();
    worker_.reset();
  }

  absl::Status CreateSession(const std::string& handle, int64_t incarnation) {
    tensorflow::CreateWorkerSessionRequest req;
    req.set_session_handle(handle);
    req.set_master_task(kMaster);
    req.set_master_incarnation(incarnation);
    tensorflow::CreateWorkerSessionResponse resp;
    grpc::ClientContext ctx;
    return FromGrpcStatus(stub_->CreateWorkerSession(&ctx, req, &resp));
  }
  absl::StatusOr<std::string> Register(const std::string& session) {
    tensorflow::RegisterGraphRequest req;
    req.set_session_handle(session);
    req.set_create_worker_session_called(true);
    NodeDef* n = req.mutable_graph_def()->add_node();
    n->set_name("c");
    n->set_op("NoOp");
    tensorflow::RegisterGraphResponse resp;
    grpc::ClientContext ctx;
    MG_RETURN_IF_ERROR(FromGrpcStatus(stub_->RegisterGraph(&ctx, req, &resp)));
    return resp.graph_handle();
  }
  absl::Status Run(const std::string& session, const std::string& graph) {
    tensorflow::RunGraphRequest req;
    req.set_session_handle(session);
    req.set_create_worker_session_called(true);
    req.set_graph_handle(graph);
    req.set_step_id(1);
    tensorflow::RunGraphResponse resp;
    grpc::ClientContext ctx;
    return FromGrpcStatus(stub_->RunGraph(&ctx, req, &resp));
  }

  MemEnv files_;
  FakeClockEnv clock_{&files_, 0};
  std::unique_ptr<Worker> worker_;
  std::unique_ptr<grpc::Server> server_;
  std::shared_ptr<grpc::Channel> channel_;
  std::unique_ptr<tensorflow::WorkerService::Stub> stub_;
};

TEST_F(WorkerCleanupTest, AGoneMastersSessionsAndGraphsAreDeletedAfterItsIdleTime) {
  ASSERT_OK(CreateSession("s1", 7));
  ASSERT_OK_AND_ASSIGN(std::string graph, Register("s1"));
  ASSERT_OK(Run("s1", graph));
  worker_->Sweep();
  EXPECT_THAT(worker_->SessionsAndGraphs(), Pair(1u, 1u)) << "used just now: not probed";
  clock_.AdvanceMicros(Worker::kProbeMasterAfterMicros + 1);
  worker_->Sweep();  // the chief does not answer
  EXPECT_THAT(worker_->SessionsAndGraphs(), Pair(0u, 0u));
  EXPECT_THAT(Run("s1", graph), StatusIs(absl::StatusCode::kAborted,
                                         HasSubstr("Session handle is not found: s1")));
  EXPECT_THAT(Register("s1").status(), StatusIs(absl::StatusCode::kAborted));
}

TEST_F(WorkerCleanupTest, AMasterThatRestartedLosesItsOldSessions) {
  ASSERT_OK(CreateSession("s1", 7));
  ASSERT_OK(Register("s1").status());
  ASSERT_OK(CreateSession("s2", 7));
  EXPECT_THAT(worker_->SessionsAndGraphs(), Pair(2u, 1u)) << "the same incarnation keeps both";
  ASSERT_OK(CreateSession("s3", 8));  // the chief came back
  EXPECT_THAT(worker_->SessionsAndGraphs(), Pair(1u, 0u));
  EXPECT_THAT(CreateSession("", 8), StatusIs(absl::StatusCode::kInvalidArgument,
                                             HasSubstr("Session must be non-empty")));
  tensorflow::DeleteWorkerSessionRequest req;
  req.set_session_handle("s3");
  tensorflow::DeleteWorkerSessionResponse resp;
  grpc::ClientContext ctx;
  ASSERT_OK(FromGrpcStatus(stub_->DeleteWorkerSession(&ctx, req, &resp)));
  EXPECT_THAT(worker_->SessionsAndGraphs(), Pair(0u, 0u));
}

TEST_F(WorkerCleanupTest, AStepNoRunGraphCameForEndsAndItsWaitersFail) {
  // A peer asks for a value of step 5, whose RunGraph never comes here.
  tensorflow::RecvTensorRequest req;
  req.set_step_id(5);
  req.set_rendezvous_key("/job:worker/replica:0/task:0/device:CPU:0;1;"
                         "/job:worker/replica:0/task:0/device:CPU:0;x;0:0");
  grpc::Slice slice(req.SerializeAsString());
  grpc::ByteBuffer request(&slice, 1), response;
  grpc::GenericStub generic(channel_);
  grpc::ClientContext ctx;
  absl::Notification done;
  grpc::Status answer;
  generic.UnaryCall(&ctx, "/tensorflow.WorkerService/RecvTensor", grpc::StubOptions(), &request,
                    &response, [&](grpc::Status s) {
                      answer = std::move(s);
                      done.Notify();
                    });
  // The sweep before the deadline leaves the step; it may not have arrived
  // yet either: the RecvTensor is answered only when the step ends.
  worker_->Sweep();
  EXPECT_FALSE(done.HasBeenNotified());
  // Once the call has reached the worker and the deadline has passed, a
  // sweep ends the step (until then each round finds it new or absent).
  do {
    clock_.AdvanceMicros(Worker::kAbandonStepAfterMicros + 1);
    worker_->Sweep();
  } while (!done.WaitForNotificationWithTimeout(absl::Milliseconds(10)));
  EXPECT_THAT(FromGrpcStatus(answer), StatusIs(absl::StatusCode::kAborted,
                                               HasSubstr("step 5 was abandoned")));
}

}  // namespace
}  // namespace distributed_internal
}  // namespace minigraph
