// A cluster as TensorFlow's ClusterSpec describes it: named jobs, each a
// dense list of task addresses, and the device names of their tasks.
//
//   MG_ASSIGN_OR_RETURN(tensorflow::ClusterDef cluster,
//       ParseClusterSpec("ps=127.0.0.1:2222;worker=127.0.0.1:2223,127.0.0.1:2224"));
//   MG_ASSIGN_OR_RETURN(std::string addr, TaskAddress(cluster, "worker", 1));
//   TaskDeviceName("ps", 0)   // "/job:ps/replica:0/task:0/device:CPU:0"
//
// Pure functions of their arguments (ReadClusterFile reads through the
// Env): safe from any thread.

#ifndef MINIGRAPH_SESSION_DISTRIBUTED_CLUSTER_H_
#define MINIGRAPH_SESSION_DISTRIBUTED_CLUSTER_H_

#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "core/env.h"
#include "core/proto/cluster.pb.h"

namespace minigraph {

// Parses "JOB=HOST:PORT,HOST:PORT;JOB=HOST:PORT" (task i of a job is its
// i-th address). Returns InvalidArgument naming the part at fault for an
// empty or repeated job name, a job without tasks, or an address that is
// not HOST:PORT with a port in 0..65535.
absl::StatusOr<tensorflow::ClusterDef> ParseClusterSpec(absl::string_view spec);

// Reads a ClusterDef in protobuf text format, as TensorFlow writes one
// (`job { name: "ps" tasks { key: 0 value: "127.0.0.1:2222" } }`). Returns
// the Env's error for a missing file and InvalidArgument naming the file
// for text that does not parse or a cluster that does not validate.
absl::StatusOr<tensorflow::ClusterDef> ReadClusterFile(Env* env, const std::string& path);

// TensorFlow's TF_CONFIG environment variable, as its cluster resolvers
// read it (Kubernetes operators and SageMaker set it):
//   {"cluster": {"chief": ["c:2222"], "worker": ["w0:2222", "w1:2222"],
//                "ps": ["p:2222"]},
//    "task": {"type": "worker", "index": 1}, "rpc_layer": "grpc"}
// A job's tasks are a list of addresses, or an object of index -> address.
struct TfConfig {
  tensorflow::ClusterDef cluster;
  std::string task_type;  // empty when the JSON names no task
  int task_index = 0;
  std::string rpc_layer;
};
// Returns InvalidArgument starting "TF_CONFIG" and naming the part at fault
// for JSON that does not parse, a field of the wrong kind, a task whose job
// the cluster does not have or whose index is past its tasks, or a cluster
// that does not validate.
absl::StatusOr<TfConfig> ParseTfConfig(absl::string_view json);

// OK when every job has a unique non-empty name, its task indices are
// 0..n-1, and every address is HOST:PORT; else InvalidArgument naming the
// job and task.
absl::Status ValidateCluster(const tensorflow::ClusterDef& cluster);

// The address of task `task_index` of `job`. Returns NotFound naming the
// job (and the jobs there are) or the task (and how many the job has).
absl::StatusOr<std::string> TaskAddress(const tensorflow::ClusterDef& cluster,
                                        absl::string_view job, int task_index);

// "/job:JOB/replica:0/task:N" and that task's CPU device.
std::string TaskName(absl::string_view job, int task_index);
std::string TaskDeviceName(absl::string_view job, int task_index);

// The parts of a TensorFlow device string ("/job:ps/replica:0/task:1/device:CPU:0",
// "/job:worker/task:0", "/cpu:0", "" ...). Absent parts are empty or -1.
struct DeviceSpec {
  std::string job = {};
  int replica = -1;
  int task = -1;
  std::string type = {};  // "CPU", upper case
  int id = -1;
};
// Returns InvalidArgument naming the string for a part it does not know.
absl::StatusOr<DeviceSpec> ParseDeviceSpec(absl::string_view device);

// The cluster in the --cluster form ("ps=a:1;worker=b:2,c:3"), for logs.
std::string ClusterSpecString(const tensorflow::ClusterDef& cluster);

// n distinct TCP ports on 127.0.0.1 that nothing listens on right now (the
// kernel's picks for port 0, all held at once), for a cluster a tool starts
// on loopback. Another process could take one first; the kernel hands ports
// out in turn, which makes that unlikely.
absl::StatusOr<std::vector<int>> FreeLoopbackPorts(int n);

}  // namespace minigraph

#endif  // MINIGRAPH_SESSION_DISTRIBUTED_CLUSTER_H_
