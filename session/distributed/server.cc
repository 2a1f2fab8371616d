#include "session/distributed/server.h"

#include <utility>

#include "absl/random/random.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/clock.h"
#include "core/logging.h"
#include "core/status_macros.h"
#include "grpcpp/grpcpp.h"
#include "session/distributed/cluster.h"
#include "session/distributed/internal/grpc_util.h"
#include "session/distributed/internal/master.h"
#include "session/distributed/internal/state_service.h"
#include "session/distributed/internal/worker.h"
#include "session/distributed/internal/worker_cache.h"

namespace minigraph {

using distributed_internal::Master;
using distributed_internal::TaskContext;
using distributed_internal::Worker;

struct Server::Rep {
  std::string target;
  int port = 0;
  std::string task_name;
  // The worker outlives the master, which calls it in process.
  std::unique_ptr<Worker> worker;
  std::unique_ptr<Master> master;
  std::unique_ptr<distributed_internal::StateService> state_service;
  std::unique_ptr<grpc::Server> server;

  absl::Mutex mu;
  bool stopping = false;
  absl::Notification stopped;
};

namespace {

// Host part of HOST:PORT (brackets of an IPv6 literal kept).
std::string HostOf(const std::string& address) { return address.substr(0, address.rfind(':')); }

uint64_t NewIncarnation() {
  absl::BitGen gen;
  uint64_t v = 0;
  while (v == 0) v = absl::Uniform<uint64_t>(gen);
  return v;
}

}  // namespace

absl::StatusOr<std::unique_ptr<Server>> Server::Create(const ServerOptions& options) {
  tensorflow::ClusterDef cluster = options.cluster;
  std::string job = options.job_name;
  int task = options.task_index;
  if (cluster.job().empty()) {
    tensorflow::JobDef* j = cluster.add_job();
    j->set_name("localhost");
    (*j->mutable_tasks())[0] = absl::StrCat(options.bind_host, ":0");
    if (job.empty()) job = "localhost";
  }
  MG_RETURN_IF_ERROR(ValidateCluster(cluster));
  if (job.empty()) {
    return absl::InvalidArgumentError("server: job_name is empty (which job is this task in?)");
  }
  MG_ASSIGN_OR_RETURN(std::string address, TaskAddress(cluster, job, task));
  int port = 0;
  absl::SimpleAtoi(address.substr(address.rfind(':') + 1), &port);
  if (options.bind_host.empty()) {
    return absl::InvalidArgumentError("server: bind_host is empty (127.0.0.1 serves loopback)");
  }
  if (options.max_call_threads < 8 || options.max_streams_per_connection < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "server: max_call_threads must be at least 8 and max_streams_per_connection at least 1, "
        "got ", options.max_call_threads, " and ", options.max_streams_per_connection));
  }
  const std::string bind = absl::StrCat(options.bind_host, ":", port);

  auto rep = std::make_unique<Rep>();
  rep->task_name = TaskName(job, task);
  TaskContext ctx;
  ctx.job_name = job;
  ctx.task_index = task;
  ctx.device.set_name(TaskDeviceName(job, task));
  ctx.device.set_device_type("CPU");
  ctx.device.set_incarnation(NewIncarnation());
  ctx.state = std::make_shared<SessionState>(rep->task_name);
  ctx.workers = std::make_shared<distributed_internal::WorkerCache>(cluster, options.security);
  ctx.inter_op_threads = options.inter_op_threads;
  ctx.intra_op_threads = options.intra_op_threads;
  ctx.max_step_bytes = options.max_step_bytes;
  ctx.env = options.env;
  rep->worker = std::make_unique<Worker>(ctx);
  ctx.local_worker = rep->worker.get();
  rep->master = std::make_unique<Master>(ctx);
  rep->state_service =
      std::make_unique<distributed_internal::StateService>(ctx, rep->master.get());

  distributed_internal::InstallGrpcLogSink();  // a client's bytes in gRPC's messages come escaped
  grpc::ServerBuilder builder;
  builder.AddListeningPort(bind, distributed_internal::ServerCredentials(options.security),
                           &rep->port);
  builder.SetMaxReceiveMessageSize(distributed_internal::kMaxMessageBytes);
  builder.SetMaxSendMessageSize(distributed_internal::kMaxMessageBytes);
  // One process per port: a second server on the same port fails to bind
  // instead of silently sharing it.
  builder.AddChannelArgument(GRPC_ARG_ALLOW_REUSEPORT, 0);
  // Bounded threads and streams, whatever clients send.
  grpc::ResourceQuota quota(absl::StrCat("server ", rep->task_name));
  quota.SetMaxThreads(options.max_call_threads);
  builder.SetResourceQuota(quota);
  builder.AddChannelArgument(GRPC_ARG_MAX_CONCURRENT_STREAMS,
                             options.max_streams_per_connection);
  builder.RegisterService(rep->master.get());
  builder.RegisterService(rep->worker.get());
  builder.RegisterService(rep->state_service.get());
  rep->server = builder.BuildAndStart();
  if (rep->server == nullptr || rep->port == 0) {
    return absl::UnavailableError(
        absl::StrCat("server ", rep->task_name, ": cannot listen on ", bind,
                     " (address in use, or not an address of this machine)"));
  }
  const std::string host = options.bind_host == "0.0.0.0" || options.bind_host == "[::]"
                               ? HostOf(address)
                               : options.bind_host;
  // A free port picked now: calls this task makes to itself (StateService's
  // watches) go where it listens, not to port 0.
  if (port == 0) ctx.workers->SetAddress(rep->task_name, absl::StrCat(host, ":", rep->port));
  rep->target = absl::StrCat("grpc://", host, ":", rep->port);
  MG_LOG(INFO) << "server " << rep->task_name << " serving at " << host << ":" << rep->port
               << (options.security.tls() ? " over TLS" : "")
               << (options.security.token.empty() ? "" : ", token required") << " (cluster "
               << ClusterSpecString(cluster) << ")";
  return std::unique_ptr<Server>(new Server(std::move(rep)));
}

Server::Server(std::unique_ptr<Rep> rep) : rep_(std::move(rep)) {}

Server::~Server() { Stop(); }

const std::string& Server::target() const { return rep_->target; }
int Server::port() const { return rep_->port; }
const std::string& Server::task_name() const { return rep_->task_name; }

void Server::Stop() {
  bool first = false;
  {
    absl::MutexLock l(&rep_->mu);
    first = !rep_->stopping;
    rep_->stopping = true;
  }
  if (!first) {
    rep_->stopped.WaitForNotification();
    return;
  }
  // Steps in flight get a few seconds to finish; then the server stops
  // listening and cancels what still runs. (gRPC's own Shutdown deadline
  // would also wait out clients that merely keep a connection open.)
  const int running = rep_->master->Drain(absl::Seconds(5));
  if (running > 0) MG_LOG(WARNING) << "cancelling " << running << " call(s) still running";
  // Steps still waiting on values end now, so no RecvTensor holds the
  // server's shutdown up.
  rep_->worker->AbortAll();
  rep_->server->Shutdown(std::chrono::system_clock::now());
  rep_->server->Wait();
  rep_->master->CloseAll();
  MG_LOG(INFO) << "server " << rep_->task_name << " stopped";
  rep_->stopped.Notify();
}

void Server::Join() { rep_->stopped.WaitForNotification(); }

}  // namespace minigraph
