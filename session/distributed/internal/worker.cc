#include "session/distributed/internal/worker.h"

#include <chrono>
#include <set>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "core/logging.h"
#include "core/status_macros.h"
#include "core/tensor_proto.h"
#include "grpcpp/generic/generic_stub.h"
#include "grpcpp/support/proto_buffer_reader.h"
#include "runtime/engine/rendezvous.h"
#include "session/distributed/cluster.h"
#include "session/distributed/internal/grpc_util.h"
#include "session/distributed/internal/recv_tensor_coding.h"
#include "session/distributed/internal/worker_cache.h"
#include "session/local_session.h"

namespace minigraph {
namespace distributed_internal {

// A registered partition: a LocalSession on the task's state that runs all
// of its nodes.
struct Worker::Registered {
  std::unique_ptr<LocalSession> session;
};

// What the sweep deletes with a worker session.
struct Worker::Deleted {
  size_t graphs = 0;
  std::vector<int64_t> steps;  // ended once the lock is released
};

// One step's rendezvous on this task. Values this task's _Sends produce and
// the feeds RunGraph brings wait here; a _Recv of a value from another task
// fetches it from that task's worker with RecvTensor.
class Worker::StepRendezvous : public Rendezvous {
 public:
  StepRendezvous(int64_t step_id, std::string task_name, WorkerCache* workers)
      : step_id_(step_id), task_name_(std::move(task_name)), workers_(workers) {}

  LocalRendezvous* local() { return &local_; }

  // Guarded by the Worker's mu_: when the step appeared on this task (Env
  // micros), and the worker session of the RunGraph that ran it here ("":
  // none ran, or one without a session).
  int64_t created = 0;
  bool ran = false;
  std::string session;

  absl::Status Send(const std::string& key, const Tensor& value, bool is_dead) override {
    return local_.Send(key, value, is_dead);
  }

  absl::Status Recv(const std::string& key, const CancelledFn& cancelled, Tensor* value,
                    bool* is_dead) override {
    // Feeds were put here before the step started.
    if (local_.TryRecv(key, value, is_dead)) return absl::OkStatus();
    MG_ASSIGN_OR_RETURN(ParsedRendezvousKey parsed, ParseRendezvousKey(key));
    if (absl::StartsWith(parsed.send_device, task_name_ + "/")) {
      return local_.Recv(key, cancelled, value, is_dead);
    }
    MG_ASSIGN_OR_RETURN(WorkerCache::Worker * from, workers_->ForDevice(parsed.send_device));
    tensorflow::RecvTensorRequest req;
    req.set_step_id(step_id_);
    req.set_rendezvous_key(key);
    grpc::Slice req_slice(req.SerializeAsString());
    grpc::ByteBuffer request(&req_slice, 1);
    grpc::ByteBuffer response;
    std::unique_ptr<grpc::ClientContext> ctx = workers_->NewContext(0);
    {
      absl::MutexLock l(&mu_);
      if (!aborted_.ok()) return aborted_;
      calls_.insert(ctx.get());
    }
    // Raw bytes in and out, so the tensor is copied once, from gRPC's
    // buffers into its own (recv_tensor_coding.h).
    absl::Notification done;
    grpc::Status s;
    from->generic->UnaryCall(ctx.get(), "/tensorflow.WorkerService/RecvTensor", grpc::StubOptions(),
                             &request, &response, [&](grpc::Status st) {
                               s = std::move(st);
                               done.Notify();
                             });
    // The step's own cancellation (a timeout) ends the call too.
    while (!done.WaitForNotificationWithTimeout(absl::Milliseconds(50))) {
      if (cancelled && cancelled()) ctx->TryCancel();
    }
    {
      absl::MutexLock l(&mu_);
      calls_.erase(ctx.get());
      if (!aborted_.ok()) return aborted_;
    }
    if (!s.ok()) {
      absl::Status st = FromGrpcStatus(s);
      return absl::Status(st.code(), absl::StrCat("RecvTensor from ", from->task, " (",
                                                  from->address, "): ", st.message()));
    }
    return DecodeRecvTensorResponse(&response, value, is_dead);
  }

  void StartAbort(const absl::Status& status) override {
    local_.StartAbort(status);
    absl::MutexLock l(&mu_);
    if (aborted_.ok()) aborted_ = status;
    for (grpc::ClientContext* c : calls_) c->TryCancel();
  }

 private:
  const int64_t step_id_;
  const std::string task_name_;
  WorkerCache* const workers_;
  LocalRendezvous local_;
  absl::Mutex mu_;
  absl::Status aborted_ ABSL_GUARDED_BY(mu_);
  std::set<grpc::ClientContext*> calls_ ABSL_GUARDED_BY(mu_);
};

Worker::Worker(TaskContext task)
    : task_(std::move(task)), task_name_(TaskName(task_.job_name, task_.task_index)) {
  sweeper_ = std::thread([this] { SweepLoop(); });
}

Worker::~Worker() {
  stop_sweeping_.Notify();
  sweeper_.join();
  AbortAll();
}

int64_t Worker::NowMicros() const {
  return static_cast<int64_t>((task_.env != nullptr ? task_.env : Env::Default())->NowMicros());
}

void Worker::SweepLoop() {
  while (!stop_sweeping_.WaitForNotificationWithTimeout(absl::Seconds(1))) Sweep();
}

void Worker::Sweep() {
  absl::MutexLock sweeping(&sweep_mu_);
  const int64_t now = NowMicros();
  std::vector<int64_t> abandoned;
  std::vector<std::pair<std::string, WorkerSession>> idle;
  {
    absl::MutexLock l(&mu_);
    if (shutting_down_) return;
    for (const auto& [id, step] : steps_) {
      if (!step->ran && now - step->created > kAbandonStepAfterMicros) abandoned.push_back(id);
    }
    for (auto& [handle, session] : sessions_) {
      if (session.master_task.empty() || now - session.last_used < kProbeMasterAfterMicros ||
          now - session.last_probe < kProbeMasterAfterMicros) {
        continue;
      }
      session.last_probe = now;
      idle.emplace_back(handle, session);
    }
  }
  for (int64_t id : abandoned) {
    EndStep(id, absl::AbortedError(absl::StrCat(
                    "step ", id, " was abandoned: a peer asked ", task_name_,
                    " for its values, but no RunGraph of it came for ",
                    kAbandonStepAfterMicros / 1'000'000, " s (its master may have died)")));
  }
  for (const auto& [handle, session] : idle) {
    // Only a master that does not answer is gone: one that came back as a
    // new incarnation deletes its old sessions when it creates a new one.
    absl::StatusOr<WorkerCache::Worker*> master = task_.workers->ForDevice(session.master_task);
    if (!master.ok()) continue;  // not in this cluster: cannot be asked
    tensorflow::GetStatusRequest req;
    tensorflow::GetStatusResponse resp;
    std::unique_ptr<grpc::ClientContext> ctx = task_.workers->NewContext(5000);
    const grpc::Status answer = (*master)->stub->GetStatus(ctx.get(), req, &resp);
    if (answer.ok()) continue;
    Deleted deleted;
    {
      absl::MutexLock l(&mu_);
      auto it = sessions_.find(handle);
      if (it == sessions_.end() || it->second.last_used != session.last_used) continue;
      deleted = DeleteSessionLocked(handle);
    }
    MG_LOG(WARNING) << "master task " << session.master_task << " ("
                    << (*master)->address << ") does not answer (" << answer.error_message()
                    << ") after its worker session " << handle << " was idle for "
                    << (now - session.last_used) / 1'000'000 << " s: deleted the session, its "
                    << deleted.graphs << " graph(s) and " << deleted.steps.size() << " step(s)";
    for (int64_t id : deleted.steps) {
      EndStep(id, absl::AbortedError(absl::StrCat("step ", id, ": its master ",
                                                  session.master_task, " is gone")));
    }
  }
}

absl::Status Worker::UseSession(const std::string& handle, bool create_worker_session_called) {
  if (handle.empty() || !create_worker_session_called) return absl::OkStatus();
  auto it = sessions_.find(handle);
  if (it == sessions_.end()) {
    return absl::AbortedError(absl::StrCat("Session handle is not found: ", handle,
                                           ". Possibly this worker (\"", task_name_,
                                           "\") just restarted."));
  }
  it->second.last_used = NowMicros();
  return absl::OkStatus();
}

Worker::Deleted Worker::DeleteSessionLocked(const std::string& handle) {
  Deleted deleted;
  auto it = sessions_.find(handle);
  if (it == sessions_.end()) return deleted;
  for (const std::string& g : it->second.graphs) deleted.graphs += graphs_.erase(g);
  sessions_.erase(it);
  for (const auto& [id, step] : steps_) {
    if (step->session == handle) deleted.steps.push_back(id);
  }
  return deleted;
}

std::pair<size_t, size_t> Worker::SessionsAndGraphs() {
  absl::MutexLock l(&mu_);
  return {sessions_.size(), graphs_.size()};
}

void Worker::AbortAll() {
  absl::flat_hash_map<int64_t, std::shared_ptr<StepRendezvous>> steps;
  {
    absl::MutexLock l(&mu_);
    shutting_down_ = true;
    steps.swap(steps_);
  }
  for (auto& [id, r] : steps) r->StartAbort(absl::UnavailableError("worker is shutting down"));
}

std::shared_ptr<Worker::StepRendezvous> Worker::Step(int64_t step_id) {
  absl::MutexLock l(&mu_);
  auto ended = ended_.find(step_id);
  if (ended != ended_.end() || shutting_down_) {
    auto r = std::make_shared<StepRendezvous>(step_id, task_name_, task_.workers.get());
    r->StartAbort(shutting_down_ ? absl::UnavailableError("worker is shutting down")
                                 : ended->second);
    return r;
  }
  std::shared_ptr<StepRendezvous>& r = steps_[step_id];
  if (r == nullptr) {
    r = std::make_shared<StepRendezvous>(step_id, task_name_, task_.workers.get());
    r->created = NowMicros();
  }
  return r;
}

grpc::Status Worker::GetStatus(grpc::ServerContext* ctx, const tensorflow::GetStatusRequest* req,
                               tensorflow::GetStatusResponse* resp) {
  if (grpc::Status a = CheckToken(task_.workers->security().token, ctx); !a.ok()) return a;
  *resp->add_device_attributes() = task_.device;
  return grpc::Status::OK;
}

grpc::Status Worker::CreateWorkerSession(grpc::ServerContext* ctx,
                                         const tensorflow::CreateWorkerSessionRequest* req,
                                         tensorflow::CreateWorkerSessionResponse* resp) {
  if (grpc::Status a = CheckToken(task_.workers->security().token, ctx); !a.ok()) return a;
  if (req->session_handle().empty()) {
    return ToGrpcStatus(absl::InvalidArgumentError("Session must be non-empty."));
  }
  std::vector<int64_t> ended;
  {
    absl::MutexLock l(&mu_);
    // A master task that restarted (a new incarnation) leaves its old
    // sessions behind: as TensorFlow's SessionMgr, they go now.
    std::vector<std::string> old;
    for (const auto& [handle, session] : sessions_) {
      if (!req->master_task().empty() && session.master_task == req->master_task() &&
          session.master_incarnation != req->master_incarnation()) {
        old.push_back(handle);
      }
    }
    size_t graphs = 0;
    for (const std::string& handle : old) {
      Deleted deleted = DeleteSessionLocked(handle);
      graphs += deleted.graphs;
      ended.insert(ended.end(), deleted.steps.begin(), deleted.steps.end());
    }
    if (!old.empty()) {
      MG_LOG(INFO) << "When creating WorkerSession for master task " << req->master_task()
                   << ", found old WorkerSessions created by the same master task with a "
                      "different incarnation. These sessions will be garbage collected: "
                   << old.size() << " session(s), " << graphs << " graph(s)";
    }
    WorkerSession& session = sessions_[req->session_handle()];
    session.master_task = req->master_task();
    session.master_incarnation = req->master_incarnation();
    session.last_used = session.last_probe = NowMicros();
  }
  for (int64_t id : ended) {
    EndStep(id, absl::AbortedError(absl::StrCat("step ", id, ": its master ", req->master_task(),
                                                " restarted")));
  }
  return grpc::Status::OK;
}

grpc::Status Worker::DeleteWorkerSession(grpc::ServerContext* ctx,
                                         const tensorflow::DeleteWorkerSessionRequest* req,
                                         tensorflow::DeleteWorkerSessionResponse* resp) {
  if (grpc::Status a = CheckToken(task_.workers->security().token, ctx); !a.ok()) return a;
  Deleted deleted;
  {
    absl::MutexLock l(&mu_);
    deleted = DeleteSessionLocked(req->session_handle());
  }
  for (int64_t id : deleted.steps) {
    EndStep(id, absl::CancelledError(absl::StrCat("step ", id, ": its session was closed")));
  }
  return grpc::Status::OK;
}

grpc::Status Worker::RegisterGraph(grpc::ServerContext* ctx,
                                   const tensorflow::RegisterGraphRequest* req,
                                   tensorflow::RegisterGraphResponse* resp) {
  if (grpc::Status a = CheckToken(task_.workers->security().token, ctx); !a.ok()) return a;
  for (const NodeDef& n : req->graph_def().node()) {
    if (!n.device().empty() && !absl::StartsWith(n.device(), task_name_ + "/")) {
      return ToGrpcStatus(absl::InvalidArgumentError(
          absl::StrCat("RegisterGraph: node '", n.name(), "' is placed on ", n.device(),
                       ", not on this task (", task_name_, ")")));
    }
  }
  SessionOptions options;
  options.inter_op_threads = task_.inter_op_threads;
  options.intra_op_threads = task_.intra_op_threads;
  options.env = task_.env;
  options.max_step_bytes = task_.max_step_bytes;
  options.device_name = TaskDeviceName(task_.job_name, task_.task_index);
  auto r = std::make_shared<Registered>();
  r->session = std::make_unique<LocalSession>(options, task_.state);
  absl::Status created = r->session->Create(req->graph_def());
  if (!created.ok()) return ToGrpcStatus(created);
  const std::string handle = NewHandle();
  {
    absl::MutexLock l(&mu_);
    absl::Status in_session =
        UseSession(req->session_handle(), req->create_worker_session_called());
    if (!in_session.ok()) return ToGrpcStatus(in_session);
    graphs_[handle] = std::move(r);
    if (req->create_worker_session_called() && !req->session_handle().empty()) {
      sessions_.at(req->session_handle()).graphs.insert(handle);
    }
  }
  resp->set_graph_handle(handle);
  return grpc::Status::OK;
}

grpc::Status Worker::DeregisterGraph(grpc::ServerContext* ctx,
                                     const tensorflow::DeregisterGraphRequest* req,
                                     tensorflow::DeregisterGraphResponse* resp) {
  if (grpc::Status a = CheckToken(task_.workers->security().token, ctx); !a.ok()) return a;
  absl::MutexLock l(&mu_);
  graphs_.erase(req->graph_handle());
  return grpc::Status::OK;
}

absl::Status Worker::RunGraphLocally(const tensorflow::RunGraphRequest& req,
                                     tensorflow::RunGraphResponse* resp, int64_t timeout_ms,
                                     std::function<bool()> cancelled) {
  std::shared_ptr<StepRendezvous> step;
  auto run = [&]() -> absl::Status {
    if (req.is_partial()) {
      return absl::UnimplementedError(
          "RunGraph: is_partial is set; partial runs are not supported");
    }
    std::shared_ptr<Registered> g;
    const bool in_session = req.create_worker_session_called() && !req.session_handle().empty();
    {
      absl::MutexLock l(&mu_);
      MG_RETURN_IF_ERROR(UseSession(req.session_handle(), req.create_worker_session_called()));
      auto it = graphs_.find(req.graph_handle());
      if (it == graphs_.end()) {
        return absl::AbortedError(absl::StrCat("RunGraph: graph handle ", req.graph_handle(),
                                               " is not registered on ", task_name_,
                                               " (the task may have restarted)"));
      }
      g = it->second;
    }
    step = Step(req.step_id());
    {
      absl::MutexLock l(&mu_);
      step->ran = true;
      if (in_session) step->session = req.session_handle();
    }
    for (const tensorflow::NamedTensorProto& s : req.send()) {
      absl::StatusOr<Tensor> t = TensorFromProto(s.tensor());
      if (!t.ok()) {
        return absl::InvalidArgumentError(
            absl::StrCat("RunGraph: value sent for '", s.name(), "': ", t.status().message()));
      }
      MG_RETURN_IF_ERROR(step->local()->Send(s.name(), *t, false));
    }
    RunOptions options;
    options.timeout_in_ms = std::max<int64_t>(0, timeout_ms);
    options.cancelled = std::move(cancelled);
    if (req.exec_opts().record_timeline()) options.step_stats = resp->mutable_step_stats();
    // TensorFlow's master gathers RunOptions.output_partition_graphs this way.
    if (req.exec_opts().record_partition_graphs()) {
      *resp->add_partition_graph() = g->session->graph_def();
    }
    MG_RETURN_IF_ERROR(
        session_internal::RunPartition(g->session.get(), options, /*targets=*/{}, step.get(),
                                      req.step_id()));
    for (const std::string& key : req.recv_key()) {
      Tensor t;
      bool is_dead = false;
      if (!step->local()->TryRecv(key, &t, &is_dead) || is_dead) {
        return absl::InternalError(
            absl::StrCat("RunGraph: the partition produced no value for '", key, "'"));
      }
      tensorflow::NamedTensorProto* out = resp->add_recv();
      out->set_name(key);
      TensorToProto(t, out->mutable_tensor());
    }
    return absl::OkStatus();
  };
  absl::Status status = run();
  // Peers waiting on this step's values fail now instead of waiting.
  if (!status.ok() && step != nullptr) step->StartAbort(status);
  return status;
}

grpc::Status Worker::RunGraph(grpc::ServerContext* ctx, const tensorflow::RunGraphRequest* req,
                              tensorflow::RunGraphResponse* resp) {
  if (grpc::Status a = CheckToken(task_.workers->security().token, ctx); !a.ok()) return a;
  int64_t timeout_ms = 0;
  if (ctx->deadline() != std::chrono::system_clock::time_point::max()) {
    timeout_ms = std::max<int64_t>(1, std::chrono::duration_cast<std::chrono::milliseconds>(
                                          ctx->deadline() - std::chrono::system_clock::now())
                                          .count());
  }
  // A master that cancels its call (its client went away) ends the step.
  absl::Status status =
      RunGraphLocally(*req, resp, timeout_ms, [ctx] { return ctx->IsCancelled(); });
  if (absl::IsCancelled(status) && ctx->IsCancelled()) {
    MG_LOG(INFO) << "graph " << req->graph_handle() << ": step " << req->step_id()
                 << " cancelled, its master " << ctx->peer() << " went away";
  }
  return Answer(status, req->store_errors_in_response_body(), resp);
}

grpc::Status Worker::CleanupGraph(grpc::ServerContext* ctx,
                                  const tensorflow::CleanupGraphRequest* req,
                                  tensorflow::CleanupGraphResponse* resp) {
  if (grpc::Status a = CheckToken(task_.workers->security().token, ctx); !a.ok()) return a;
  EndStep(req->step_id());
  return grpc::Status::OK;
}

void Worker::EndStep(int64_t step_id) {
  EndStep(step_id, absl::CancelledError(absl::StrCat("step ", step_id, " has ended")));
}

void Worker::EndStep(int64_t step_id, const absl::Status& ended) {
  // Remembered for the last 4096 steps: enough for any call still in flight.
  constexpr size_t kRemembered = 4096;
  std::shared_ptr<StepRendezvous> step;
  {
    absl::MutexLock l(&mu_);
    if (ended_.emplace(step_id, ended).second) {
      ended_order_.push_back(step_id);
      if (ended_order_.size() > kRemembered) {
        ended_.erase(ended_order_.front());
        ended_order_.pop_front();
      }
    }
    auto it = steps_.find(step_id);
    if (it == steps_.end()) return;
    step = std::move(it->second);
    steps_.erase(it);
  }
  step->StartAbort(ended);
}

grpc::ServerUnaryReactor* Worker::RecvTensor(grpc::CallbackServerContext* ctx,
                                             const grpc::ByteBuffer* request,
                                             grpc::ByteBuffer* response) {
  grpc::ServerUnaryReactor* reactor = ctx->DefaultReactor();
  if (grpc::Status a = CheckToken(task_.workers->security().token, ctx); !a.ok()) {
    reactor->Finish(a);
    return reactor;
  }
  tensorflow::RecvTensorRequest req;
  grpc::ByteBuffer bytes(*request);  // shares the slices
  grpc::ProtoBufferReader reader(&bytes);
  if (!req.ParseFromZeroCopyStream(&reader)) {
    reactor->Finish(grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                                 "RecvTensor: the request is not a RecvTensorRequest"));
    return reactor;
  }
  std::shared_ptr<StepRendezvous> step = Step(req.step_id());
  // Answered when the value is sent (or the step ends), from that thread.
  step->local()->RecvAsync(
      req.rendezvous_key(),
      [reactor, response, step](const absl::Status& status, const Tensor& value, bool is_dead) {
        if (!status.ok()) {
          reactor->Finish(ToGrpcStatus(status));
          return;
        }
        *response = EncodeRecvTensorResponse(value, is_dead);
        reactor->Finish(grpc::Status::OK);
      });
  return reactor;
}

grpc::Status Worker::CleanupAll(grpc::ServerContext* ctx, const tensorflow::CleanupAllRequest* req,
                                tensorflow::CleanupAllResponse* resp) {
  if (grpc::Status a = CheckToken(task_.workers->security().token, ctx); !a.ok()) return a;
  ClearContainers(task_.state.get(), req->container());
  MG_LOG(INFO) << "containers cleared by " << ctx->peer();
  return grpc::Status::OK;
}

}  // namespace distributed_internal
}  // namespace minigraph
