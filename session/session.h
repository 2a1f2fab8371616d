// A session runs steps of one graph against state (variables) that persists
// across steps.
//
//   SessionOptions opts;                        // target "" = private state
//   MG_ASSIGN_OR_RETURN(std::unique_ptr<Session> s, NewSession(opts));
//   MG_RETURN_IF_ERROR(s->Create(graph_def));
//   std::vector<Tensor> out;
//   MG_RETURN_IF_ERROR(s->Run({{"x:0", x}}, {"loss:0"}, {"train"}, &out));
//
// Run takes feeds (tensor name -> value), fetches ("node:k"; "node" means
// "node:0"), and target nodes to run for their effects. Safe for concurrent
// Run calls; Extend and Close may be called concurrently with Run.

#ifndef MINIGRAPH_SESSION_SESSION_H_
#define MINIGRAPH_SESSION_SESSION_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "core/env.h"
#include "core/proto/graph.pb.h"
#include "core/tensor.h"

namespace tensorflow {
class StepStats;
}  // namespace tensorflow

namespace minigraph {

struct SessionOptions {
  // "" for a session with its own state, "local://NAME" for state shared in
  // this process (session/targets.h), "grpc://HOST:PORT" for a server in
  // another process (session/distributed/grpc_session.h).
  std::string target = {};
  // Threads that run independent nodes; 0 = number of cores.
  int inter_op_threads = 0;
  // Threads one kernel may use; 0 = number of cores.
  int intra_op_threads = 0;
  // Not owned; must outlive the session.
  Env* env = Env::Default();
  // grpc:// only: how long a call that is not a step (Create, Extend,
  // Close) waits for the server before it fails with Unavailable.
  int64_t connect_timeout_ms = 20000;
  // TensorFlow's ConfigProto.operation_timeout_in_ms: the deadline of every
  // step whose RunOptions set none (0 = none), the Saver's and a
  // SavedModel's init steps included. Past it the step fails with
  // DeadlineExceeded.
  int64_t operation_timeout_in_ms = 0;
  // Beyond TensorFlow: the most bytes of tensors one step's kernels may
  // hold at once (0 = no bound but the machine's). Past it the kernel whose
  // output does not fit fails the step with ResourceExhausted naming its
  // node. MaxTensorBytes bounds each tensor; this bounds a step that makes
  // many (a server's clients' steps, each on the server's memory).
  int64_t max_step_bytes = 0;
  // The device a traced step's stats name for the nodes this session runs
  // (a server's sessions: its task's CPU).
  std::string device_name = "/job:localhost/replica:0/task:0/device:CPU:0";
};

struct RunOptions {
  // 0 = no deadline; past it the step fails with DeadlineExceeded.
  int64_t timeout_in_ms = 0;
  // When set, asked now and then while the step runs (every few dozen
  // nodes, and every 100 ms while it waits); true cancels the step
  // (Cancelled). A server passes whether its caller went away.
  std::function<bool()> cancelled;
  // When set, the step runs traced (TensorFlow's trace_level FULL_TRACE)
  // and its nodes' runs are added here, as RunMetadata.step_stats has them:
  // one DeviceStepStats of the CPU, a NodeExecStats per node run. In
  // process sessions only; a remote one returns Unimplemented.
  tensorflow::StepStats* step_stats = nullptr;
};

// A watch on the state a session's target shares with other sessions,
// taken when the session made it (Session::WatchState); it may outlive the
// session. A worker that finds the model not ready sleeps on it until the
// model may have become ready, instead of polling on a fixed interval.
class StateWatch {
 public:
  // Ends the watch: `on_change` is not running and never runs after the
  // destructor returns.
  virtual ~StateWatch() = default;
  // Calls `on_change` once, from any thread, when the shared state has
  // changed since the watch was taken (a variable got its first value, a
  // container or the server was reset or restarted), at once if it already
  // has; possibly never if nothing changes within `timeout`. Call once.
  virtual void Start(absl::Duration timeout, std::function<void()> on_change) = 0;
};

class Session {
 public:
  virtual ~Session() = default;

  // Installs the graph. Returns InvalidArgument naming the node for a graph
  // that does not validate (see runtime/graph.h), AlreadyExists if a graph
  // was already created.
  virtual absl::Status Create(const GraphDef& graph) = 0;
  // Adds nodes to the graph (as TensorFlow's Session::Extend). The combined
  // graph must validate.
  virtual absl::Status Extend(const GraphDef& graph) = 0;

  // `outputs` gets one tensor per fetch; it may be null when the caller
  // wants none of them.
  virtual absl::Status Run(const RunOptions& options,
                           const std::vector<std::pair<std::string, Tensor>>& feeds,
                           const std::vector<std::string>& fetches,
                           const std::vector<std::string>& targets,
                           std::vector<Tensor>* outputs) = 0;
  absl::Status Run(const std::vector<std::pair<std::string, Tensor>>& feeds,
                   const std::vector<std::string>& fetches,
                   const std::vector<std::string>& targets, std::vector<Tensor>* outputs) {
    return Run(RunOptions(), feeds, fetches, targets, outputs);
  }

  // Releases the session's resources; later calls return Cancelled.
  virtual absl::Status Close() = 0;

  // The graph installed so far (empty before Create).
  virtual GraphDef graph_def() const = 0;

  // A watch on the state this session shares with others on its target,
  // taken now (see StateWatch). Unimplemented where the session kind or
  // server cannot watch (a TensorFlow server); callers then poll.
  virtual absl::StatusOr<std::unique_ptr<StateWatch>> WatchState() {
    return absl::UnimplementedError("this session cannot watch its target's state");
  }
};

// Makes a session for `options.target`. Returns InvalidArgument naming the
// target for an unknown scheme or a malformed target, FailedPrecondition
// when the session kind is not linked in ("" and local:// need
// //session:local_session).
absl::StatusOr<std::unique_ptr<Session>> NewSession(const SessionOptions& options);

// Sessions for targets "SCHEME://..." of a scheme registered here come from
// its factory (TensorFlow's SessionFactory): how sessions of another kind
// plug in, such as grpc:// or a wrapper that traces or injects faults. ""
// and local:// are built in. Returns InvalidArgument for a malformed scheme
// or "local", AlreadyExists for a scheme that has a factory. Thread-safe.
using SessionFactory =
    std::function<absl::StatusOr<std::unique_ptr<Session>>(const SessionOptions&)>;
absl::Status RegisterSessionFactory(const std::string& scheme, SessionFactory factory);

}  // namespace minigraph

#endif  // MINIGRAPH_SESSION_SESSION_H_
