// A task of a cluster, serving TensorFlow's MasterService and WorkerService
// over gRPC: the equivalent of tf.train.Server.
//
//   ServerOptions opts;
//   MG_ASSIGN_OR_RETURN(opts.cluster, ParseClusterSpec("ps=127.0.0.1:2222;worker=..."));
//   opts.job_name = "ps";
//   opts.task_index = 0;
//   MG_ASSIGN_OR_RETURN(std::unique_ptr<Server> server, Server::Create(opts));
//   // Any process: NewSession with target "grpc://127.0.0.1:2222".
//   server->Join();                     // until Stop() (e.g. on SIGTERM)
//
// The task's variables live in the server for as long as it runs, shared by
// every session created on it (TensorFlow's default; a session whose
// ConfigProto sets isolate_session_state gets its own). A session's steps
// run on this task, or, for nodes placed on other tasks of the cluster
// (Scope::WithDevice, ReplicaDeviceSetter), partly on theirs: this server is
// then their master. Logs one line per session created or closed.
// Thread-safe.

#ifndef MINIGRAPH_SESSION_DISTRIBUTED_SERVER_H_
#define MINIGRAPH_SESSION_DISTRIBUTED_SERVER_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "core/env.h"
#include "core/proto/cluster.pb.h"
#include "session/distributed/security.h"

namespace minigraph {

struct ServerOptions {
  // The cluster and this server's task in it. With an empty cluster the
  // server is a one-task cluster "/job:localhost/task:0" listening on
  // `bind_host` at a port the system picks (tf.train.Server.create_local_server).
  tensorflow::ClusterDef cluster = {};
  std::string job_name = {};
  int task_index = 0;
  // The address to listen on; the port is the task's port in the cluster
  // (0 = any free port; Server::port() tells which). Loopback by default:
  // serving other machines ("0.0.0.0") is an explicit choice.
  std::string bind_host = "127.0.0.1";
  // Threads for the sessions' steps; 0 = number of cores.
  int inter_op_threads = 0;
  int intra_op_threads = 0;
  // Not owned; must outlive the server.
  Env* env = Env::Default();
  // TLS and token, for this server and for its calls to the other tasks
  // (session/distributed/security.h). Default: plaintext, no token.
  TransportSecurity security = {};
  // The most threads gRPC runs this server's calls on (its ResourceQuota).
  // A call that blocks (RunStep, RunGraph, a session's creation) holds one
  // while it runs; past the bound a new call fails at once with
  // ResourceExhausted instead of starting a thread. Unbounded, one HTTP/2
  // connection opening and resetting streams as fast as it can send frames
  // ("rapid reset") started ~20,000 threads. At least 8.
  int max_call_threads = 256;
  // The most streams one connection may have open at once (HTTP/2's
  // SETTINGS_MAX_CONCURRENT_STREAMS); a client waits for a free one.
  int max_streams_per_connection = 1024;
  // The most bytes of tensors one step of a session on this task may hold
  // at once (SessionOptions::max_step_bytes; 0 = no bound): clients' steps
  // all take this process's memory. Beyond TensorFlow, which has none.
  int64_t max_step_bytes = 0;
};

class Server {
 public:
  // Starts serving. Returns InvalidArgument for a cluster that does not
  // validate or a bind_host that is not an address, NotFound when the
  // cluster has no such task, Unavailable naming the address when it cannot
  // be bound (in use, or not this machine's).
  static absl::StatusOr<std::unique_ptr<Server>> Create(const ServerOptions& options);

  // Stops serving and closes every session (the destructor does too).
  ~Server();

  // "grpc://HOST:PORT" with the port actually bound: what clients pass as
  // SessionOptions::target.
  const std::string& target() const;
  int port() const;
  // "/job:ps/replica:0/task:0".
  const std::string& task_name() const;

  // Stops accepting calls, lets calls in flight finish (up to a few
  // seconds), then closes every session. Idempotent; safe from any thread
  // but a call the server is serving.
  void Stop();
  // Blocks until Stop() has finished.
  void Join();

 private:
  struct Rep;
  explicit Server(std::unique_ptr<Rep> rep);
  std::unique_ptr<Rep> rep_;
};

}  // namespace minigraph

#endif  // MINIGRAPH_SESSION_DISTRIBUTED_SERVER_H_
