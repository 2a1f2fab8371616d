#include "session/distributed/grpc_session.h"

#include <algorithm>
#include <chrono>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "core/status_macros.h"
#include "core/tensor_proto.h"
#include "grpcpp/grpcpp.h"
#include "session/distributed/internal/grpc_util.h"
#include "session/distributed/master_service.grpc.pb.h"
#include "session/distributed/state_service.grpc.pb.h"

namespace minigraph {

using distributed_internal::FromBody;
using distributed_internal::FromGrpcStatus;

struct GrpcSession::Stub {
  std::shared_ptr<grpc::Channel> channel;
  std::unique_ptr<tensorflow::MasterService::Stub> master;
};

namespace {

// The registrar that makes NewSession build GrpcSessions for grpc:// targets
// whenever this target is linked (alwayslink).
const bool kGrpcSessionsRegistered = [] {
  absl::Status s = RegisterSessionFactory(
      "grpc", [](const SessionOptions& options) -> absl::StatusOr<std::unique_ptr<Session>> {
        MG_ASSIGN_OR_RETURN(std::unique_ptr<GrpcSession> s, GrpcSession::Create(options));
        return std::unique_ptr<Session>(std::move(s));
      });
  return s.ok();
}();

// The client half of the long poll (state_service.proto): the token taken
// when the watch was made, then one WatchSessionState call.
class GrpcStateWatch : public StateWatch {
 public:
  GrpcStateWatch(std::shared_ptr<grpc::Channel> channel, TransportSecurity security,
                 distributed::StateToken token)
      : stub_(distributed::StateService::NewStub(std::move(channel))),
        security_(std::move(security)) {
    *req_.mutable_token() = std::move(token);
  }
  ~GrpcStateWatch() override {
    if (!started_) return;
    ctx_.TryCancel();
    ended_.WaitForNotification();
  }
  void Start(absl::Duration timeout, std::function<void()> on_change) override {
    // Nothing of the session's holds state: nothing to wake on.
    if (req_.token().task().empty()) return;
    started_ = true;
    const int64_t ms = std::max<int64_t>(1, absl::ToInt64Milliseconds(timeout));
    req_.set_timeout_ms(ms);
    // The server answers by `ms`; the slack covers the trip.
    ctx_.set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(ms + 5000));
    distributed_internal::AddToken(security_, &ctx_);
    stub_->async()->WatchSessionState(
        &ctx_, &req_, &resp_, [this, fn = std::move(on_change)](grpc::Status s) {
          // A failed call (the server stopped, an old server without the
          // service) is no news: the waiter's own timeout stands.
          if (s.ok() && resp_.changed()) fn();
          ended_.Notify();
        });
  }

 private:
  const std::unique_ptr<distributed::StateService::Stub> stub_;
  const TransportSecurity security_;
  grpc::ClientContext ctx_;
  distributed::WatchSessionStateRequest req_;
  distributed::WatchSessionStateResponse resp_;
  bool started_ = false;
  absl::Notification ended_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<GrpcSession>> GrpcSession::Create(const SessionOptions& options) {
  MG_ASSIGN_OR_RETURN(std::string address, distributed_internal::AddressFromTarget(options.target));
  TransportSecurity security = ClientTransportSecurity();
  auto stub = std::make_unique<Stub>();
  stub->channel = distributed_internal::NewChannel(address, security);
  stub->master = tensorflow::MasterService::NewStub(stub->channel);
  return std::unique_ptr<GrpcSession>(
      new GrpcSession(options, address, std::move(security), std::move(stub)));
}

GrpcSession::GrpcSession(const SessionOptions& options, std::string address,
                         TransportSecurity security, std::unique_ptr<Stub> stub)
    : options_(options),
      address_(std::move(address)),
      security_(std::move(security)),
      stub_(std::move(stub)) {}

// A context with the token and a deadline `ms` from now (none for ms <= 0).
std::unique_ptr<grpc::ClientContext> GrpcSession::Context(int64_t ms) const {
  auto ctx = std::make_unique<grpc::ClientContext>();
  if (ms > 0) {
    ctx->set_deadline(std::chrono::system_clock::now() + std::chrono::milliseconds(ms));
  }
  distributed_internal::AddToken(security_, ctx.get());
  return ctx;
}

GrpcSession::~GrpcSession() { Close().IgnoreError(); }

absl::StatusOr<std::unique_ptr<StateWatch>> GrpcSession::WatchState() {
  MG_ASSIGN_OR_RETURN(std::string handle, Handle());
  distributed::GetSessionStateRequest req;
  req.set_session_handle(handle);
  distributed::StateToken token;
  auto stub = distributed::StateService::NewStub(stub_->channel);
  auto ctx = Context(options_.connect_timeout_ms);
  MG_RETURN_IF_ERROR(Unreachable(FromGrpcStatus(stub->GetSessionState(ctx.get(), req, &token))));
  return std::unique_ptr<StateWatch>(
      new GrpcStateWatch(stub_->channel, security_, std::move(token)));
}

// Transport failures name the server; errors the server returned pass
// through untouched.
absl::Status GrpcSession::Unreachable(absl::Status s) const {
  if (s.code() != absl::StatusCode::kUnavailable &&
      s.code() != absl::StatusCode::kDeadlineExceeded) {
    return s;
  }
  return absl::Status(s.code(),
                      absl::StrCat("server grpc://", address_, " did not answer: ", s.message()));
}

absl::Status GrpcSession::Create(const GraphDef& graph) {
  absl::MutexLock l(&mu_);
  if (closed_) return absl::CancelledError("session is closed");
  if (!handle_.empty()) return absl::AlreadyExistsError("session already has a graph; use Extend");
  return CreateLocked(graph);
}

absl::Status GrpcSession::CreateLocked(const GraphDef& graph) {
  tensorflow::CreateSessionRequest req;
  *req.mutable_graph_def() = graph;
  req.set_target(options_.target);
  if (options_.inter_op_threads > 0) {
    req.mutable_config()->set_inter_op_parallelism_threads(options_.inter_op_threads);
  }
  if (options_.intra_op_threads > 0) {
    req.mutable_config()->set_intra_op_parallelism_threads(options_.intra_op_threads);
  }
  if (options_.operation_timeout_in_ms > 0) {
    req.mutable_config()->set_operation_timeout_in_ms(options_.operation_timeout_in_ms);
  }
  tensorflow::CreateSessionResponse resp;
  auto ctx = Context(options_.connect_timeout_ms);
  MG_RETURN_IF_ERROR(
      Unreachable(FromGrpcStatus(stub_->master->CreateSession(ctx.get(), req, &resp))));
  handle_ = resp.session_handle();
  graph_version_ = resp.graph_version();
  graph_ = graph;
  return absl::OkStatus();
}

absl::Status GrpcSession::Extend(const GraphDef& graph) {
  absl::MutexLock l(&mu_);
  if (closed_) return absl::CancelledError("session is closed");
  // As TensorFlow's GrpcSession: extending a session without a graph
  // creates it.
  if (handle_.empty()) return CreateLocked(graph);
  tensorflow::ExtendSessionRequest req;
  req.set_session_handle(handle_);
  *req.mutable_graph_def() = graph;
  req.set_current_graph_version(graph_version_);
  tensorflow::ExtendSessionResponse resp;
  auto ctx = Context(options_.connect_timeout_ms);
  MG_RETURN_IF_ERROR(
      Unreachable(FromGrpcStatus(stub_->master->ExtendSession(ctx.get(), req, &resp))));
  graph_version_ = resp.new_graph_version();
  graph_.MergeFrom(graph);
  return absl::OkStatus();
}

absl::Status GrpcSession::Run(const RunOptions& options,
                              const std::vector<std::pair<std::string, Tensor>>& feeds,
                              const std::vector<std::string>& fetches,
                              const std::vector<std::string>& targets,
                              std::vector<Tensor>* outputs) {
  tensorflow::RunStepRequest req;
  {
    absl::MutexLock l(&mu_);
    if (closed_) return absl::CancelledError("session is closed");
    if (handle_.empty()) {
      return absl::FailedPreconditionError("session has no graph: call Create first");
    }
    req.set_session_handle(handle_);
  }
  for (const auto& [name, t] : feeds) {
    tensorflow::NamedTensorProto* f = req.add_feed();
    f->set_name(name);
    TensorToProto(t, f->mutable_tensor());
  }
  // Each distinct fetch once; outputs follow `fetches`, repeats included.
  absl::flat_hash_map<std::string, int> first;
  for (const std::string& f : fetches) {
    if (first.emplace(f, req.fetch_size()).second) req.add_fetch(f);
  }
  for (const std::string& t : targets) req.add_target(t);
  req.mutable_options()->set_timeout_in_ms(options.timeout_in_ms);
  // The master gathers the step's stats from every task it ran on.
  if (options.step_stats != nullptr) {
    req.mutable_options()->set_trace_level(tensorflow::RunOptions::FULL_TRACE);
  }
  req.set_store_errors_in_response_body(true);

  tensorflow::RunStepResponse resp;
  // A step may run long: only the step's own timeout (or the session's,
  // which the master applies too) bounds the call.
  auto ctx =
      Context(options.timeout_in_ms > 0 ? options.timeout_in_ms : options_.operation_timeout_in_ms);
  grpc::Status called;
  if (!options.cancelled) {
    called = stub_->master->RunStep(ctx.get(), req, &resp);
  } else {
    // The caller may cancel the step (a queue runner whose coordinator
    // stopped): asked every 100 ms; cancelling the call makes the master
    // cancel the step, as TensorFlow's does when its client goes away.
    absl::Notification done;
    stub_->master->async()->RunStep(ctx.get(), &req, &resp, [&](grpc::Status s) {
      called = std::move(s);
      done.Notify();
    });
    bool cancelled = false;
    while (!done.WaitForNotificationWithTimeout(absl::Milliseconds(100))) {
      if (!cancelled && options.cancelled()) {
        cancelled = true;
        ctx->TryCancel();
      }
    }
  }
  MG_RETURN_IF_ERROR(Unreachable(FromGrpcStatus(called)));
  MG_RETURN_IF_ERROR(FromBody(resp.status_code(), resp.status_error_message()));
  if (options.step_stats != nullptr) options.step_stats->MergeFrom(resp.metadata().step_stats());

  // The response may list tensors in any order: match them by name.
  absl::flat_hash_map<std::string, const TensorProto*> by_name;
  for (const tensorflow::NamedTensorProto& t : resp.tensor()) by_name[t.name()] = &t.tensor();
  std::vector<Tensor> result;
  result.reserve(fetches.size());
  for (const std::string& f : fetches) {
    auto it = by_name.find(f);
    if (it == by_name.end()) {
      return absl::InternalError(
          absl::StrCat("server grpc://", address_, " returned no tensor for fetch '", f, "'"));
    }
    absl::StatusOr<Tensor> t = TensorFromProto(*it->second);
    if (!t.ok()) {
      return absl::InternalError(absl::StrCat("server grpc://", address_, " returned fetch '", f,
                                              "' that does not decode: ", t.status().message()));
    }
    result.push_back(*std::move(t));
  }
  if (outputs != nullptr) *outputs = std::move(result);
  return absl::OkStatus();
}

absl::Status GrpcSession::Close() {
  std::string handle;
  {
    absl::MutexLock l(&mu_);
    if (closed_) return absl::OkStatus();
    closed_ = true;
    handle.swap(handle_);
  }
  if (handle.empty()) return absl::OkStatus();
  tensorflow::CloseSessionRequest req;
  req.set_session_handle(handle);
  tensorflow::CloseSessionResponse resp;
  auto ctx = Context(options_.connect_timeout_ms);
  return Unreachable(FromGrpcStatus(stub_->master->CloseSession(ctx.get(), req, &resp)));
}

GraphDef GrpcSession::graph_def() const {
  absl::MutexLock l(&mu_);
  return graph_;
}

absl::StatusOr<std::vector<tensorflow::DeviceAttributes>> GrpcSession::ListDevices() {
  tensorflow::ListDevicesRequest req;
  {
    absl::MutexLock l(&mu_);
    req.set_session_handle(handle_);
  }
  tensorflow::ListDevicesResponse resp;
  auto ctx = Context(options_.connect_timeout_ms);
  MG_RETURN_IF_ERROR(
      Unreachable(FromGrpcStatus(stub_->master->ListDevices(ctx.get(), req, &resp))));
  std::vector<tensorflow::DeviceAttributes> devices(resp.local_device().begin(),
                                                    resp.local_device().end());
  devices.insert(devices.end(), resp.remote_device().begin(), resp.remote_device().end());
  return devices;
}

absl::StatusOr<std::string> GrpcSession::Handle() const {
  absl::MutexLock l(&mu_);
  if (closed_) return absl::CancelledError("session is closed");
  if (handle_.empty())
    return absl::FailedPreconditionError("session has no graph: call Create first");
  return handle_;
}

absl::StatusOr<int64_t> GrpcSession::MakeCallable(const std::vector<std::string>& feeds,
                                                  const std::vector<std::string>& fetches,
                                                  const std::vector<std::string>& targets) {
  tensorflow::MakeCallableRequest req;
  MG_ASSIGN_OR_RETURN(*req.mutable_session_handle(), Handle());
  for (const std::string& f : feeds) req.mutable_options()->add_feed(f);
  for (const std::string& f : fetches) req.mutable_options()->add_fetch(f);
  for (const std::string& t : targets) req.mutable_options()->add_target(t);
  tensorflow::MakeCallableResponse resp;
  auto ctx = Context(options_.connect_timeout_ms);
  MG_RETURN_IF_ERROR(
      Unreachable(FromGrpcStatus(stub_->master->MakeCallable(ctx.get(), req, &resp))));
  return resp.handle();
}

absl::Status GrpcSession::RunCallable(int64_t handle, const std::vector<Tensor>& feeds,
                                      std::vector<Tensor>* fetches) {
  tensorflow::RunCallableRequest req;
  MG_ASSIGN_OR_RETURN(*req.mutable_session_handle(), Handle());
  req.set_handle(handle);
  for (const Tensor& t : feeds) TensorToProto(t, req.add_feed());
  tensorflow::RunCallableResponse resp;
  auto ctx = Context(0);
  MG_RETURN_IF_ERROR(
      Unreachable(FromGrpcStatus(stub_->master->RunCallable(ctx.get(), req, &resp))));
  std::vector<Tensor> out;
  for (const TensorProto& p : resp.fetch()) {
    absl::StatusOr<Tensor> t = TensorFromProto(p);
    if (!t.ok()) {
      return absl::InternalError(
          absl::StrCat("server grpc://", address_,
                       " returned a fetch that does not decode: ", t.status().message()));
    }
    out.push_back(*std::move(t));
  }
  if (fetches != nullptr) *fetches = std::move(out);
  return absl::OkStatus();
}

absl::Status GrpcSession::ReleaseCallable(int64_t handle) {
  tensorflow::ReleaseCallableRequest req;
  MG_ASSIGN_OR_RETURN(*req.mutable_session_handle(), Handle());
  req.set_handle(handle);
  tensorflow::ReleaseCallableResponse resp;
  auto ctx = Context(options_.connect_timeout_ms);
  return Unreachable(FromGrpcStatus(stub_->master->ReleaseCallable(ctx.get(), req, &resp)));
}

absl::Status GrpcSession::Reset(const SessionOptions& options,
                                const std::vector<std::string>& containers) {
  MG_ASSIGN_OR_RETURN(std::unique_ptr<GrpcSession> s, Create(options));
  tensorflow::ResetRequest req;
  for (const std::string& c : containers) req.add_container(c);
  tensorflow::ResetResponse resp;
  auto ctx = s->Context(options.connect_timeout_ms);
  return s->Unreachable(FromGrpcStatus(s->stub_->master->Reset(ctx.get(), req, &resp)));
}

}  // namespace minigraph
