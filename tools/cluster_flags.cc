#include "tools/cluster_flags.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "core/allocator.h"
#include "core/env.h"
#include "core/status_macros.h"
#include "session/distributed/cluster.h"
#include "session/distributed/security.h"

ABSL_FLAG(std::string, cluster, "",
          "The cluster: JOB=HOST:PORT[,HOST:PORT...][;JOB=...]; task i of a job is its i-th "
          "address");
ABSL_FLAG(std::string, cluster_file, "",
          "The cluster as a tensorflow.ClusterDef in protobuf text format (instead of --cluster)");
ABSL_FLAG(std::string, job_name, "", "This task's job (required with a cluster)");
ABSL_FLAG(int, task_index, 0, "This task's index in its job");
ABSL_FLAG(std::string, bind, "127.0.0.1",
          "The address to listen on; the port is the task's in the cluster. Serving other "
          "machines is explicit: --bind=0.0.0.0");
ABSL_FLAG(std::string, tls_cert, "",
          "PEM certificate chain: this server's (TLS on), and the client certificate its calls "
          "present");
ABSL_FLAG(std::string, tls_key, "", "PEM private key of --tls_cert");
ABSL_FLAG(std::string, tls_ca, "",
          "PEM CA: servers' certificates must chain to it (TLS on for calls), and clients "
          "must present a certificate from it");
ABSL_FLAG(bool, retain_freed_memory, true,
          "Keep freed memory for reuse instead of returning it to the kernel (fewer page faults "
          "on large tensors; memory stays at its peak)");
ABSL_FLAG(std::string, auth_token_file, "",
          "A file holding a shared token: every RPC must carry it, and this process's carry it");

namespace minigraph {

bool ClusterFlagsGiven() {
  return !absl::GetFlag(FLAGS_cluster).empty() || !absl::GetFlag(FLAGS_cluster_file).empty();
}

void ApplyMemoryFlags() {
  if (absl::GetFlag(FLAGS_retain_freed_memory)) RetainFreedMemory();
}

absl::StatusOr<ServerOptions> ServerOptionsFromFlags() {
  ApplyMemoryFlags();
  ServerOptions opts;
  const std::string spec = absl::GetFlag(FLAGS_cluster);
  const std::string file = absl::GetFlag(FLAGS_cluster_file);
  if (!spec.empty() && !file.empty()) {
    return absl::InvalidArgumentError("give --cluster or --cluster_file, not both");
  }
  if (!spec.empty()) {
    MG_ASSIGN_OR_RETURN(opts.cluster, ParseClusterSpec(spec));
  } else if (!file.empty()) {
    MG_ASSIGN_OR_RETURN(opts.cluster, ReadClusterFile(Env::Default(), file));
  }
  opts.job_name = absl::GetFlag(FLAGS_job_name);
  if (!opts.cluster.job().empty() && opts.job_name.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--job_name is required with a cluster (jobs: ", ClusterSpecString(opts.cluster), ")"));
  }
  opts.task_index = absl::GetFlag(FLAGS_task_index);
  if (opts.task_index < 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("--task_index=", opts.task_index, " is negative"));
  }
  if (!opts.cluster.job().empty()) {
    absl::StatusOr<std::string> address = TaskAddress(opts.cluster, opts.job_name, opts.task_index);
    if (!address.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--job_name/--task_index: ", address.status().message()));
    }
  }
  opts.bind_host = absl::GetFlag(FLAGS_bind);
  MG_ASSIGN_OR_RETURN(opts.security, LoadTransportSecurity(
                                         Env::Default(), absl::GetFlag(FLAGS_tls_cert),
                                         absl::GetFlag(FLAGS_tls_key), absl::GetFlag(FLAGS_tls_ca),
                                         absl::GetFlag(FLAGS_auth_token_file)));
  SetClientTransportSecurity(opts.security);
  return opts;
}

absl::StatusOr<int> FreeLoopbackPort() {
  const int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return absl::InternalError(absl::StrCat("socket: ", std::strerror(errno)));
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(a);
  if (bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof(a)) != 0 ||
      getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) != 0) {
    const int e = errno;
    close(fd);
    return absl::InternalError(absl::StrCat("bind 127.0.0.1:0: ", std::strerror(e)));
  }
  close(fd);
  return ntohs(a.sin_port);
}

}  // namespace minigraph
