#include "tools/cluster_flags.h"

#include <cstdlib>
#include <optional>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/strings/str_cat.h"
#include "core/allocator.h"
#include "core/env.h"
#include "core/status_macros.h"
#include "session/distributed/cluster.h"
#include "session/distributed/security.h"
#include "tools/flag_checks.h"

ABSL_FLAG(std::string, cluster, "",
          "The cluster: JOB=HOST:PORT[,HOST:PORT...][;JOB=...]; task i of a job is its i-th "
          "address. Without --cluster or --cluster_file, the TF_CONFIG environment variable "
          "(TensorFlow's JSON) gives the cluster and this task");
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
          "Keep freed memory for reuse instead of returning it to the kernel (the C library's, "
          "and up to 4 GiB of freed large tensors: fewer page faults on large tensors; memory "
          "stays at its peak). On for train; server sets it off unless given");
ABSL_FLAG(int64_t, max_step_bytes, 0,
          "The most bytes of tensors one step of a session on this server may hold at once; "
          "past it the step fails with RESOURCE_EXHAUSTED naming the node (0: no bound)");
ABSL_FLAG(int, max_call_threads, 256,
          "The most threads the server runs calls on; past it a new call fails at once with "
          "RESOURCE_EXHAUSTED (at least 8)");
ABSL_FLAG(int, max_streams_per_connection, 1024,
          "The most calls one client connection may have open at once");
ABSL_FLAG(std::string, auth_token_file, "",
          "A file holding a shared token: every RPC must carry it, and this process's carry it");

namespace minigraph {

namespace {

// TF_CONFIG's text, when it is set and not empty.
std::optional<std::string> TfConfigVariable() {
  const char* v = std::getenv("TF_CONFIG");
  if (v == nullptr || *v == '\0') return std::nullopt;
  return std::string(v);
}

}  // namespace

bool ClusterFlagsGiven() {
  if (!absl::GetFlag(FLAGS_cluster).empty() || !absl::GetFlag(FLAGS_cluster_file).empty()) {
    return true;
  }
  // A TF_CONFIG that does not parse counts, so that its error is reported.
  std::optional<std::string> tf_config = TfConfigVariable();
  if (!tf_config) return false;
  absl::StatusOr<TfConfig> c = ParseTfConfig(*tf_config);
  return !c.ok() || !c->cluster.job().empty();
}

void ApplyMemoryFlags() {
  if (absl::GetFlag(FLAGS_retain_freed_memory)) {
    RetainFreedMemory();
  } else {
    SetDefaultAllocatorCacheBytes(0);
  }
}

void DefaultToReturningFreedMemory() { absl::SetFlag(&FLAGS_retain_freed_memory, false); }

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
  opts.task_index = absl::GetFlag(FLAGS_task_index);
  // Without cluster flags, TensorFlow's TF_CONFIG (its task unless
  // --job_name says otherwise).
  if (std::optional<std::string> tf_config = TfConfigVariable();
      tf_config && spec.empty() && file.empty()) {
    MG_ASSIGN_OR_RETURN(TfConfig c, ParseTfConfig(*tf_config));
    opts.cluster = std::move(c.cluster);
    if (opts.job_name.empty()) {
      opts.job_name = c.task_type;
      opts.task_index = c.task_index;
    }
  }
  if (!opts.cluster.job().empty() && opts.job_name.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--job_name is required with a cluster (jobs: ", ClusterSpecString(opts.cluster), ")"));
  }
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
  opts.max_step_bytes = absl::GetFlag(FLAGS_max_step_bytes);
  MG_RETURN_IF_ERROR(FlagInRange<int64_t>("max_step_bytes", opts.max_step_bytes, 0, INT64_MAX));
  opts.max_call_threads = absl::GetFlag(FLAGS_max_call_threads);
  opts.max_streams_per_connection = absl::GetFlag(FLAGS_max_streams_per_connection);
  MG_RETURN_IF_ERROR(FlagInRange("max_call_threads", opts.max_call_threads, 8, 1 << 16));
  MG_RETURN_IF_ERROR(
      FlagInRange("max_streams_per_connection", opts.max_streams_per_connection, 1, 1 << 20));
  MG_ASSIGN_OR_RETURN(opts.security, LoadTransportSecurity(
                                         Env::Default(), absl::GetFlag(FLAGS_tls_cert),
                                         absl::GetFlag(FLAGS_tls_key), absl::GetFlag(FLAGS_tls_ca),
                                         absl::GetFlag(FLAGS_auth_token_file)));
  SetClientTransportSecurity(opts.security);
  return opts;
}

}  // namespace minigraph
