// Sessions on a server in another process: targets "grpc://HOST:PORT"
// (TensorFlow's GrpcSession). Linking :grpc_session makes NewSession build
// them; each call is one RPC to the server's MasterService.
//
//   SessionOptions opts;
//   opts.target = "grpc://127.0.0.1:2222";
//   MG_ASSIGN_OR_RETURN(std::unique_ptr<Session> s, NewSession(opts));
//   MG_RETURN_IF_ERROR(s->Create(graph));       // Unavailable if no server answers
//
// Errors come back with the server's code and message (an uninitialized
// variable is FailedPrecondition with TensorFlow's text). A server that
// cannot be reached is Unavailable naming the address, after at most
// SessionOptions::connect_timeout_ms. TLS and the token come from
// SetClientTransportSecurity (session/distributed/security.h).
// RunOptions::cancelled is asked every 100 ms while a step runs; true
// cancels the call, and with it the step on the server (Cancelled).
//
// Thread safety: a GrpcSession is safe for concurrent use, as every Session:
// steps run at once, each in RPCs of its own.

#ifndef MINIGRAPH_SESSION_DISTRIBUTED_GRPC_SESSION_H_
#define MINIGRAPH_SESSION_DISTRIBUTED_GRPC_SESSION_H_

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "core/proto/device_attributes.pb.h"
#include "session/distributed/security.h"
#include "session/session.h"

namespace grpc {
class Channel;
class ClientContext;
}  // namespace grpc

namespace minigraph {

class GrpcSession : public Session {
 public:
  // Returns InvalidArgument for a target that is not grpc://HOST:PORT. Does
  // not connect: the first call does.
  static absl::StatusOr<std::unique_ptr<GrpcSession>> Create(const SessionOptions& options);
  ~GrpcSession() override;

  absl::Status Create(const GraphDef& graph) override;
  absl::Status Extend(const GraphDef& graph) override;
  using Session::Run;
  absl::Status Run(const RunOptions& options,
                   const std::vector<std::pair<std::string, Tensor>>& feeds,
                   const std::vector<std::string>& fetches, const std::vector<std::string>& targets,
                   std::vector<Tensor>* outputs) override;
  absl::Status Close() override;
  GraphDef graph_def() const override;
  // A long poll on the tasks that hold this session's variables (our
  // StateService; not TensorFlow's protocol): the watch fires when one of
  // them changes, restarts, goes away or comes up. Unimplemented from a
  // TensorFlow server.
  absl::StatusOr<std::unique_ptr<StateWatch>> WatchState() override;

  // The devices the server's master can use: its own task's, then those of
  // the cluster's other tasks that answer within a second.
  absl::StatusOr<std::vector<tensorflow::DeviceAttributes>> ListDevices();

  // TensorFlow's callables: a step signature registered once on the
  // server, then run with only the feed values (in `feeds` order) and
  // returning the fetches (in `fetches` order). Handles are per session.
  absl::StatusOr<int64_t> MakeCallable(const std::vector<std::string>& feeds,
                                       const std::vector<std::string>& fetches,
                                       const std::vector<std::string>& targets);
  absl::Status RunCallable(int64_t handle, const std::vector<Tensor>& feeds,
                           std::vector<Tensor>* fetches);
  absl::Status ReleaseCallable(int64_t handle);

  // Closes every session on the server at `options.target` and releases the
  // resources (variables) in `containers` (empty = the default container),
  // as TensorFlow's Session.reset(target, containers).
  static absl::Status Reset(const SessionOptions& options,
                            const std::vector<std::string>& containers);

 private:
  struct Stub;
  GrpcSession(const SessionOptions& options, std::string address, TransportSecurity security,
              std::unique_ptr<Stub> stub);
  std::unique_ptr<grpc::ClientContext> Context(int64_t ms) const;
  absl::Status CreateLocked(const GraphDef& graph) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // The session's handle, or FailedPrecondition before Create.
  absl::StatusOr<std::string> Handle() const;
  absl::Status Unreachable(absl::Status s) const;

  const SessionOptions options_;
  const std::string address_;
  const TransportSecurity security_;
  const std::unique_ptr<Stub> stub_;

  mutable absl::Mutex mu_;
  std::string handle_ ABSL_GUARDED_BY(mu_);
  int64_t graph_version_ ABSL_GUARDED_BY(mu_) = 0;
  GraphDef graph_ ABSL_GUARDED_BY(mu_);
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace minigraph

#endif  // MINIGRAPH_SESSION_DISTRIBUTED_GRPC_SESSION_H_
