#include "tests/testing/servers.h"

#include <time.h>

#include <chrono>
#include <thread>
#include <utility>

#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "session/distributed/master_service.grpc.pb.h"

namespace minigraph {

std::unique_ptr<Server> StartServer(const ServerOptions& options) {
  absl::StatusOr<std::unique_ptr<Server>> server = Server::Create(options);
  if (!server.ok()) {
    ADD_FAILURE() << "cannot start a server: " << server.status();
    return nullptr;
  }
  return *std::move(server);
}

std::unique_ptr<Session> Connect(const std::string& target, int64_t connect_timeout_ms) {
  SessionOptions options;
  options.target = target;
  options.connect_timeout_ms = connect_timeout_ms;
  absl::StatusOr<std::unique_ptr<Session>> session = NewSession(options);
  if (!session.ok()) {
    ADD_FAILURE() << "cannot connect to " << target << ": " << session.status();
    return nullptr;
  }
  return *std::move(session);
}

namespace {

double ProcessCpuSeconds() {
  struct timespec t;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return t.tv_sec + t.tv_nsec * 1e-9;
}

}  // namespace

double CpuAfterStepsPastTheirDeadline(const std::string& target, const GraphDef& graph,
                                      const std::string& fetch, int steps) {
  const std::string address = target.substr(target.find("://") + 3);
  auto stub = tensorflow::MasterService::NewStub(
      grpc::CreateChannel(address, grpc::InsecureChannelCredentials()));
  tensorflow::CreateSessionRequest create;
  *create.mutable_graph_def() = graph;
  tensorflow::CreateSessionResponse created;
  {
    grpc::ClientContext ctx;
    const grpc::Status s = stub->CreateSession(&ctx, create, &created);
    if (!s.ok()) {
      ADD_FAILURE() << "CreateSession on " << target << ": " << s.error_message();
      return -1;
    }
  }
  tensorflow::RunStepRequest run;
  run.set_session_handle(created.session_handle());
  run.add_fetch(fetch);
  for (int i = 0; i < steps; ++i) {
    grpc::ClientContext ctx;
    ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(100));
    tensorflow::RunStepResponse response;
    const grpc::Status s = stub->RunStep(&ctx, run, &response);
    EXPECT_EQ(s.error_code(), grpc::StatusCode::DEADLINE_EXCEEDED) << s.error_message();
  }
  double used = 1;
  for (int tries = 0; tries < 50 && used > 0.05; ++tries) {
    const double before = ProcessCpuSeconds();
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    used = ProcessCpuSeconds() - before;
  }
  return used;
}

}  // namespace minigraph
