#include "session/distributed/internal/master.h"

#include <chrono>
#include <map>
#include <utility>
#include <vector>

#include "absl/random/random.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/logging.h"
#include "core/status_macros.h"
#include "core/tensor_proto.h"
#include "google/protobuf/unknown_field_set.h"
#include "session/distributed/cluster.h"
#include "session/distributed/internal/grpc_util.h"
#include "session/distributed/internal/worker_cache.h"

namespace minigraph {
namespace distributed_internal {

namespace {}  // namespace

std::string NewHandle() {
  static absl::Mutex mu(absl::kConstInit);
  static absl::BitGen* gen = new absl::BitGen;
  absl::MutexLock l(&mu);
  return absl::StrFormat("%016x", absl::Uniform<uint64_t>(*gen));
}

namespace {

// Fields of TensorFlow's RunOptions that minigraph does not model arrive as
// unknown fields. One asks for what minigraph cannot do, and is refused by
// name rather than dropped: debug_options (6), tfdbg's tensor watches, whose
// dumps would silently be missing. The others (experimental: a collective
// graph key, run handler pools) only tune TensorFlow's own scheduling.
absl::Status CheckRunOptions(const tensorflow::RunOptions& options, absl::string_view call) {
  // A watch with nowhere to write does nothing, on TensorFlow's server too;
  // one with a URL would write dumps, which minigraph does not.
  for (const tensorflow::DebugTensorWatch& w : options.debug_options().debug_tensor_watch_opts()) {
    if (!w.debug_urls().empty()) {
      return absl::UnimplementedError(absl::StrCat(
          call, ": RunOptions.debug_options watches ", w.node_name(), ":", w.output_slot(),
          " into ", w.debug_urls(0),
          ", and minigraph writes no tfdbg dumps; run the step without the watch"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<std::pair<std::string, Tensor>>> Feeds(
    const google::protobuf::RepeatedPtrField<tensorflow::NamedTensorProto>& feeds) {
  std::vector<std::pair<std::string, Tensor>> out;
  out.reserve(feeds.size());
  for (const tensorflow::NamedTensorProto& f : feeds) {
    absl::StatusOr<Tensor> t = TensorFromProto(f.tensor());
    if (!t.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("feed '", f.name(), "': ", t.status().message()));
    }
    out.emplace_back(f.name(), *std::move(t));
  }
  return out;
}

}  // namespace

void ClearContainers(SessionState* state,
                     const google::protobuf::RepeatedPtrField<std::string>& containers) {
  if (containers.empty()) state->resource_mgr()->Cleanup("");
  for (const std::string& c : containers) state->resource_mgr()->Cleanup(c);
}

Master::Master(TaskContext task)
    : task_(std::move(task)), task_name_(TaskName(task_.job_name, task_.task_index)) {}

Master::~Master() { CloseAll(); }

class Master::CallScope {
 public:
  explicit CallScope(Master* m) : m_(m) {
    absl::MutexLock l(&m_->mu_);
    entered_ = !m_->draining_;
    if (entered_) ++m_->in_flight_;
  }
  ~CallScope() {
    if (!entered_) return;
    absl::MutexLock l(&m_->mu_);
    --m_->in_flight_;
  }
  bool entered() const { return entered_; }
  static grpc::Status Refused() {
    return grpc::Status(grpc::StatusCode::UNAVAILABLE, "server is shutting down");
  }

 private:
  Master* const m_;
  bool entered_ = false;
};

int Master::Drain(absl::Duration timeout) {
  absl::MutexLock l(&mu_);
  draining_ = true;
  mu_.AwaitWithTimeout(absl::Condition(
                           +[](int* n) { return *n == 0; }, &in_flight_),
                       timeout);
  return in_flight_;
}

void Master::CloseAll() {
  absl::flat_hash_map<std::string, std::shared_ptr<MasterSession>> sessions;
  {
    absl::MutexLock l(&mu_);
    closed_ = true;
    sessions.swap(sessions_);
  }
  for (auto& [handle, s] : sessions) {
    s->Close().IgnoreError();
    MG_LOG(INFO) << "session " << handle << " closed (server shutting down)";
  }
}

absl::Status Master::NotFound(const std::string& handle) {
  return absl::AbortedError(
      absl::StrCat("Session ", handle, " is not found. Possibly, this master has restarted."));
}

absl::StatusOr<std::shared_ptr<MasterSession>> Master::Find(const std::string& handle) {
  absl::MutexLock l(&mu_);
  auto it = sessions_.find(handle);
  if (it == sessions_.end()) return NotFound(handle);
  return it->second;
}

absl::StatusOr<std::vector<std::string>> Master::StateDevices(const std::string& handle) {
  MG_ASSIGN_OR_RETURN(std::shared_ptr<MasterSession> session, Find(handle));
  return session->StateDevices();
}

grpc::Status Master::CreateSession(grpc::ServerContext* ctx,
                                   const tensorflow::CreateSessionRequest* req,
                                   tensorflow::CreateSessionResponse* resp) {
  if (grpc::Status a = CheckToken(task_.workers->security().token, ctx); !a.ok()) return a;
  CallScope call(this);
  if (!call.entered()) return CallScope::Refused();
  const tensorflow::ConfigProto& config = req->config();
  SessionOptions options;
  options.inter_op_threads = config.inter_op_parallelism_threads() > 0
                                 ? config.inter_op_parallelism_threads()
                                 : task_.inter_op_threads;
  options.intra_op_threads = config.intra_op_parallelism_threads() > 0
                                 ? config.intra_op_parallelism_threads()
                                 : task_.intra_op_threads;
  options.env = task_.env;
  options.max_step_bytes = task_.max_step_bytes;
  options.device_name = TaskDeviceName(task_.job_name, task_.task_index);
  const std::string handle = NewHandle();
  std::shared_ptr<SessionState> state =
      config.isolate_session_state() ? std::make_shared<SessionState>(handle) : task_.state;
  auto s = std::make_shared<MasterSession>(handle, &task_, options, std::move(state),
                                           config.operation_timeout_in_ms());
  absl::Status created = s->Create(req->graph_def());
  if (!created.ok()) return ToGrpcStatus(created);
  {
    absl::MutexLock l(&mu_);
    if (closed_) return CallScope::Refused();
    sessions_[handle] = s;
  }
  resp->set_session_handle(handle);
  resp->set_graph_version(0);
  MG_LOG(INFO) << "session " << handle << " created by " << ctx->peer() << " ("
               << req->graph_def().node_size() << " nodes)";
  return grpc::Status::OK;
}

grpc::Status Master::ExtendSession(grpc::ServerContext* ctx,
                                   const tensorflow::ExtendSessionRequest* req,
                                   tensorflow::ExtendSessionResponse* resp) {
  if (grpc::Status a = CheckToken(task_.workers->security().token, ctx); !a.ok()) return a;
  CallScope call(this);
  if (!call.entered()) return CallScope::Refused();
  absl::StatusOr<std::shared_ptr<MasterSession>> s = Find(req->session_handle());
  if (!s.ok()) return ToGrpcStatus(s.status());
  int64_t version = 0;
  absl::Status extended = (*s)->Extend(req->graph_def(), req->current_graph_version(), &version);
  if (!extended.ok()) return ToGrpcStatus(extended);
  resp->set_new_graph_version(version);
  return grpc::Status::OK;
}

grpc::Status Master::PartialRunSetup(grpc::ServerContext* ctx,
                                     const tensorflow::PartialRunSetupRequest* req,
                                     tensorflow::PartialRunSetupResponse* resp) {
  if (grpc::Status a = CheckToken(task_.workers->security().token, ctx); !a.ok()) return a;
  return ToGrpcStatus(absl::UnimplementedError("PartialRunSetup: partial runs are not supported"));
}

grpc::Status Master::RunStep(grpc::ServerContext* ctx, const tensorflow::RunStepRequest* req,
                             tensorflow::RunStepResponse* resp) {
  if (grpc::Status a = CheckToken(task_.workers->security().token, ctx); !a.ok()) return a;
  CallScope call(this);
  if (!call.entered()) return CallScope::Refused();
  auto run = [&]() -> absl::Status {
    if (!req->partial_run_handle().empty()) {
      return absl::UnimplementedError(
          "RunStep: partial_run_handle is set, and partial runs are not supported");
    }
    MG_RETURN_IF_ERROR(CheckRunOptions(req->options(), "RunStep"));
    MG_ASSIGN_OR_RETURN(std::shared_ptr<MasterSession> s, Find(req->session_handle()));
    MG_ASSIGN_OR_RETURN(auto feeds, Feeds(req->feed()));
    RunOptions options;
    options.timeout_in_ms = req->options().timeout_in_ms() > 0 ? req->options().timeout_in_ms()
                                                               : s->operation_timeout_in_ms;
    // A client that disconnects (or cancels its call) cancels the step, as
    // TensorFlow's master does, instead of leaving it to run to its end.
    options.cancelled = [ctx] { return ctx->IsCancelled(); };
    // TensorFlow's master traces a FULL_TRACE step only.
    if (req->options().trace_level() == tensorflow::RunOptions::FULL_TRACE) {
      options.step_stats = resp->mutable_metadata()->mutable_step_stats();
    }
    const std::vector<std::string> fetches(req->fetch().begin(), req->fetch().end());
    const std::vector<std::string> targets(req->target().begin(), req->target().end());
    std::vector<Tensor> outputs;
    MG_RETURN_IF_ERROR(s->Run(options, feeds, fetches, targets, &outputs));
    for (size_t i = 0; i < outputs.size(); ++i) {
      tensorflow::NamedTensorProto* t = resp->add_tensor();
      t->set_name(fetches[i]);
      TensorToProto(outputs[i], t->mutable_tensor());
    }
    if (req->options().output_partition_graphs()) {
      MG_ASSIGN_OR_RETURN(std::vector<GraphDef> graphs,
                          s->PartitionGraphs(feeds, fetches, targets));
      for (GraphDef& g : graphs) *resp->mutable_metadata()->add_partition_graphs() = std::move(g);
    }
    return absl::OkStatus();
  };
  absl::Status status = run();
  if (absl::IsCancelled(status) && ctx->IsCancelled()) {
    MG_LOG(INFO) << "session " << req->session_handle() << ": step cancelled, its client "
                 << ctx->peer() << " went away";
  }
  return Answer(status, req->store_errors_in_response_body(), resp);
}

grpc::Status Master::CloseSession(grpc::ServerContext* ctx,
                                  const tensorflow::CloseSessionRequest* req,
                                  tensorflow::CloseSessionResponse* resp) {
  if (grpc::Status a = CheckToken(task_.workers->security().token, ctx); !a.ok()) return a;
  CallScope call(this);
  if (!call.entered()) return CallScope::Refused();
  std::shared_ptr<MasterSession> s;
  {
    absl::MutexLock l(&mu_);
    auto it = sessions_.find(req->session_handle());
    if (it == sessions_.end()) return ToGrpcStatus(NotFound(req->session_handle()));
    s = std::move(it->second);
    sessions_.erase(it);
  }
  absl::Status closed = s->Close();
  MG_LOG(INFO) << "session " << s->handle() << " closed by " << ctx->peer();
  return ToGrpcStatus(closed);
}

grpc::Status Master::ListDevices(grpc::ServerContext* ctx,
                                 const tensorflow::ListDevicesRequest* req,
                                 tensorflow::ListDevicesResponse* resp) {
  if (grpc::Status a = CheckToken(task_.workers->security().token, ctx); !a.ok()) return a;
  if (!req->session_handle().empty()) {
    absl::StatusOr<std::shared_ptr<MasterSession>> s = Find(req->session_handle());
    if (!s.ok()) return ToGrpcStatus(s.status());
  }
  *resp->add_local_device() = task_.device;
  // The other tasks' devices, from those that answer within a second.
  for (const tensorflow::JobDef& job : task_.workers->cluster().job()) {
    for (const auto& [index, address] : job.tasks()) {
      if (job.name() == task_.job_name && index == task_.task_index) continue;
      absl::StatusOr<WorkerCache::Worker*> w =
          task_.workers->ForDevice(TaskName(job.name(), index));
      if (!w.ok()) continue;
      std::unique_ptr<grpc::ClientContext> c = task_.workers->NewContext(1000);
      tensorflow::GetStatusRequest sreq;
      tensorflow::GetStatusResponse sresp;
      if ((*w)->stub->GetStatus(c.get(), sreq, &sresp).ok()) {
        for (const auto& d : sresp.device_attributes()) *resp->add_remote_device() = d;
      }
    }
  }
  return grpc::Status::OK;
}

grpc::Status Master::Reset(grpc::ServerContext* ctx, const tensorflow::ResetRequest* req,
                           tensorflow::ResetResponse* resp) {
  if (grpc::Status a = CheckToken(task_.workers->security().token, ctx); !a.ok()) return a;
  CallScope call(this);
  if (!call.entered()) return CallScope::Refused();
  if (!req->device_filters().empty()) {
    return ToGrpcStatus(absl::UnimplementedError("Reset: device_filters are not supported"));
  }
  absl::flat_hash_map<std::string, std::shared_ptr<MasterSession>> sessions;
  {
    absl::MutexLock l(&mu_);
    sessions.swap(sessions_);
  }
  for (auto& [handle, s] : sessions) s->Close().IgnoreError();
  ClearContainers(task_.state.get(), req->container());
  MG_LOG(INFO) << "reset by " << ctx->peer() << ": " << sessions.size()
               << " session(s) closed, containers cleared";
  return grpc::Status::OK;
}

grpc::Status Master::MakeCallable(grpc::ServerContext* ctx,
                                  const tensorflow::MakeCallableRequest* req,
                                  tensorflow::MakeCallableResponse* resp) {
  if (grpc::Status a = CheckToken(task_.workers->security().token, ctx); !a.ok()) return a;
  const tensorflow::CallableOptions& o = req->options();
  if (o.tensor_connection_size() > 0) {
    return ToGrpcStatus(absl::UnimplementedError(
        "MakeCallable: CallableOptions.tensor_connection is not supported"));
  }
  if (absl::Status st = CheckRunOptions(o.run_options(), "MakeCallable"); !st.ok()) {
    return ToGrpcStatus(st);
  }
  absl::StatusOr<std::shared_ptr<MasterSession>> s = Find(req->session_handle());
  if (!s.ok()) return ToGrpcStatus(s.status());
  resp->set_handle((*s)->AddCallable(o));
  return grpc::Status::OK;
}

grpc::Status Master::RunCallable(grpc::ServerContext* ctx,
                                 const tensorflow::RunCallableRequest* req,
                                 tensorflow::RunCallableResponse* resp) {
  if (grpc::Status a = CheckToken(task_.workers->security().token, ctx); !a.ok()) return a;
  CallScope call(this);
  if (!call.entered()) return CallScope::Refused();
  auto run = [&]() -> absl::Status {
    MG_ASSIGN_OR_RETURN(std::shared_ptr<MasterSession> s, Find(req->session_handle()));
    MG_ASSIGN_OR_RETURN(tensorflow::CallableOptions o, s->GetCallable(req->handle()));
    if (req->feed_size() != o.feed_size()) {
      return absl::InvalidArgumentError(
          absl::StrCat("RunCallable: expected ", o.feed_size(), " feeds, got ", req->feed_size()));
    }
    std::vector<std::pair<std::string, Tensor>> feeds;
    for (int i = 0; i < o.feed_size(); ++i) {
      absl::StatusOr<Tensor> t = TensorFromProto(req->feed(i));
      if (!t.ok()) {
        return absl::InvalidArgumentError(
            absl::StrCat("feed '", o.feed(i), "': ", t.status().message()));
      }
      feeds.emplace_back(o.feed(i), *std::move(t));
    }
    RunOptions options;
    options.timeout_in_ms = o.run_options().timeout_in_ms() > 0 ? o.run_options().timeout_in_ms()
                                                                : s->operation_timeout_in_ms;
    if (o.run_options().trace_level() == tensorflow::RunOptions::FULL_TRACE) {
      options.step_stats = resp->mutable_metadata()->mutable_step_stats();
    }
    std::vector<Tensor> outputs;
    MG_RETURN_IF_ERROR(
        s->Run(options, feeds, std::vector<std::string>(o.fetch().begin(), o.fetch().end()),
               std::vector<std::string>(o.target().begin(), o.target().end()), &outputs));
    for (const Tensor& t : outputs) TensorToProto(t, resp->add_fetch());
    return absl::OkStatus();
  };
  return ToGrpcStatus(run());
}

grpc::Status Master::ReleaseCallable(grpc::ServerContext* ctx,
                                     const tensorflow::ReleaseCallableRequest* req,
                                     tensorflow::ReleaseCallableResponse* resp) {
  if (grpc::Status a = CheckToken(task_.workers->security().token, ctx); !a.ok()) return a;
  absl::StatusOr<std::shared_ptr<MasterSession>> s = Find(req->session_handle());
  if (!s.ok()) return ToGrpcStatus(s.status());
  if (!(*s)->ReleaseCallable(req->handle())) {
    return ToGrpcStatus(absl::InvalidArgumentError(
        absl::StrCat("ReleaseCallable: no callable with handle ", req->handle())));
  }
  return grpc::Status::OK;
}

}  // namespace distributed_internal
}  // namespace minigraph
