// The master's graph work for a step across tasks (TensorFlow's placer and
// graph partitioner): give every node a task, prune the graph to what the
// step needs, and split it per task with _Send/_Recv pairs on the edges that
// cross. Internal to session/distributed.

#ifndef MINIGRAPH_SESSION_DISTRIBUTED_INTERNAL_PARTITION_H_
#define MINIGRAPH_SESSION_DISTRIBUTED_INTERNAL_PARTITION_H_

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "core/proto/cluster.pb.h"
#include "core/proto/graph.pb.h"
#include "runtime/graph/graph.h"

namespace minigraph {
namespace distributed_internal {

// The device of every node of `graph` (by node id), as a full task device
// name ("/job:ps/replica:0/task:0/device:CPU:0"):
//   - a node's own device wins; a missing task is 0 and a missing job is
//     `default_job`;
//   - a node that takes a variable by reference (Assign, ApplyGradientDescent,
//     ...), an Identity of one (the variable's "read"), or a node naming
//     one in "_class: loc:@NAME" goes where the variable is (colocation wins
//     over its own device);
//   - every other node goes to the default task.
// Returns InvalidArgument naming the node for a device string that does
// not parse, a device type other than CPU, or a task not in `cluster`.
absl::StatusOr<std::vector<std::string>> PlaceGraph(const Graph& graph,
                                                    const tensorflow::ClusterDef& cluster,
                                                    const std::string& default_job,
                                                    int default_task);

// One task's share of a step.
struct Partition {
  std::string device;
  GraphDef graph;
  // Feeds the master sends with RunGraph, and the fetches it gets back:
  // (tensor name, rendezvous key).
  std::vector<std::pair<std::string, std::string>> feeds;
  std::vector<std::pair<std::string, std::string>> fetches;
};

// Prunes `graph` to the nodes `fetches` and `targets` need, where fed
// tensors cut their edges, and splits it by `placement`. An edge between
// tasks becomes a _Send on the producer's task and a _Recv on the
// consumer's (one pair per tensor and receiving task; a constant is copied
// to the consumer's task instead; the control edges into a node from one
// task share one dummy scalar). Feeds become client-terminated _Recvs where
// they are consumed, fetches client-terminated _Sends where they are
// produced, keyed with that device at both ends: RunGraph hands a task only
// tensors of its own devices, as TensorFlow's workers require ("Invalid
// rendezvous key" otherwise). `incarnations` holds every task device's. Returns
// InvalidArgument for an unknown feed, fetch or target, and Unimplemented
// for an edge between tasks that enters or leaves control flow (Switch,
// Merge, Enter, Exit, NextIteration): loops and conds run within one task.
absl::StatusOr<std::vector<Partition>> PartitionGraph(
    const Graph& graph, const std::vector<std::string>& placement,
    const absl::flat_hash_map<std::string, uint64_t>& incarnations,
    const std::vector<std::string>& feeds, const std::vector<std::string>& fetches,
    const std::vector<std::string>& targets);

}  // namespace distributed_internal
}  // namespace minigraph

#endif  // MINIGRAPH_SESSION_DISTRIBUTED_INTERNAL_PARTITION_H_
