// One task of a cluster: the equivalent of tf.train.Server. Serves
// TensorFlow's MasterService and WorkerService over gRPC, keeps its task's
// variables for as long as it runs, and stops cleanly on SIGTERM or SIGINT.
//
//   server --cluster='ps=127.0.0.1:2222;worker=127.0.0.1:2223,127.0.0.1:2224' \
//          --job_name=ps --task_index=0
//   server --cluster_file=cluster.pbtxt --job_name=worker --task_index=1
//   server                                   # one task, /job:localhost, any free port
//   server ... --tls_cert=s.pem --tls_key=s.key --auth_token_file=token   # TLS and a token
//
// Prints "server /job:ps/replica:0/task:0 serving at 127.0.0.1:2222 ..." once
// it accepts calls, one line per session created or closed, and exits 0
// after a clean stop.
#include <csignal>
#include <cstdio>

#include "absl/flags/flag.h"
#include "absl/flags/usage.h"
#include "absl/strings/str_cat.h"
#include "core/env.h"
#include "core/logging.h"
#include "session/distributed/server.h"
#include "tools/cluster_flags.h"
#include "tools/flag_checks.h"

ABSL_FLAG(int, inter_op_threads, 0, "Threads running independent nodes; 0 = number of cores");
ABSL_FLAG(int, intra_op_threads, 0, "Threads one kernel may use; 0 = number of cores");

namespace minigraph {
namespace {

int Fail(const absl::Status& s) {
  std::fprintf(stderr, "server: %s\n", std::string(s.ToString()).c_str());
  return 1;
}

int Main() {
  absl::StatusOr<ServerOptions> flags = ServerOptionsFromFlags();
  if (!flags.ok()) return Fail(flags.status());
  ServerOptions opts = *std::move(flags);
  opts.inter_op_threads = absl::GetFlag(FLAGS_inter_op_threads);
  opts.intra_op_threads = absl::GetFlag(FLAGS_intra_op_threads);

  // Block the stop signals in every thread (gRPC's included, which start
  // in Create), and take them here.
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGTERM);
  sigaddset(&stop, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop, nullptr);

  absl::StatusOr<std::unique_ptr<Server>> server = Server::Create(opts);
  if (!server.ok()) return Fail(server.status());
  int sig = 0;
  sigwait(&stop, &sig);
  MG_LOG(INFO) << "server " << (*server)->task_name() << ": "
               << (sig == SIGTERM ? "SIGTERM" : "SIGINT") << ", stopping";
  (*server)->Stop();
  return 0;
}

}  // namespace
}  // namespace minigraph

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "Serves one task of a cluster (tf.train.Server): "
      "server --cluster='ps=127.0.0.1:2222;worker=127.0.0.1:2223' --job_name=ps --task_index=0");
  // A server's memory follows its clients' steps down again.
  minigraph::DefaultToReturningFreedMemory();
  std::vector<char*> rest = minigraph::ParseFlags(argc, argv);
  // A server makes the tensors of the graphs its clients register: the
  // limit matters most here.
  absl::Status s = minigraph::NoPositionalArguments(rest);
  if (s.ok()) s = minigraph::ApplyMaxTensorBytes();
  if (!s.ok()) return minigraph::UsageError("server", s);
  return minigraph::Main();
}
