// One client session on a master: the graph, how each step signature runs,
// and the partitions registered on workers for it. A step whose nodes all
// sit on the master's own task runs in a LocalSession on the task's state;
// any other is pruned, partitioned per task, registered on the tasks'
// workers once, and run with one RunGraph per task, in parallel.
// Internal to session/distributed.

#ifndef MINIGRAPH_SESSION_DISTRIBUTED_INTERNAL_MASTER_SESSION_H_
#define MINIGRAPH_SESSION_DISTRIBUTED_INTERNAL_MASTER_SESSION_H_

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/synchronization/mutex.h"
#include "core/proto/config.pb.h"
#include "runtime/graph/graph.h"
#include "session/distributed/internal/task_context.h"
#include "session/local_session.h"

namespace minigraph {
namespace distributed_internal {

class MasterSession {
 public:
  MasterSession(std::string handle, const TaskContext* task, const SessionOptions& options,
                std::shared_ptr<SessionState> state, int64_t operation_timeout_in_ms);
  ~MasterSession();

  const std::string& handle() const { return handle_; }

  // Returns InvalidArgument naming the node for a graph that does not
  // validate or places a node on a device the cluster does not have.
  absl::Status Create(const GraphDef& graph);
  // Aborted (TensorFlow's text) when `current_version` is not the graph's.
  absl::Status Extend(const GraphDef& graph, int64_t current_version, int64_t* new_version);
  absl::Status Run(const RunOptions& options,
                   const std::vector<std::pair<std::string, Tensor>>& feeds,
                   const std::vector<std::string>& fetches, const std::vector<std::string>& targets,
                   std::vector<Tensor>* outputs);
  // The graphs a step of these feeds, fetches and targets runs, one per
  // task (RunOptions.output_partition_graphs asks for them in the step's
  // RunMetadata).
  absl::StatusOr<std::vector<GraphDef>> PartitionGraphs(
      const std::vector<std::pair<std::string, Tensor>>& feeds,
      const std::vector<std::string>& fetches, const std::vector<std::string>& targets);
  // Releases the partitions registered on workers.
  absl::Status Close();
  // The devices of the tasks that hold the graph's state (the nodes that
  // own resources: variables), sorted, for StateService.
  std::vector<std::string> StateDevices();

  // Callables (MakeCallable / RunCallable): their options by handle.
  int64_t AddCallable(tensorflow::CallableOptions options);
  absl::StatusOr<tensorflow::CallableOptions> GetCallable(int64_t handle);
  bool ReleaseCallable(int64_t handle);

 private:
  struct Plan;
  // The graph as of the last Create/Extend, and where its nodes go.
  struct Program {
    GraphDef def;
    std::unique_ptr<Graph> graph;
    std::vector<std::string> placement;
    bool all_local = true;
    // Devices that hold a node owning a resource (a stateful op with a
    // "container" attr: VariableV2, VarHandleOp, queues), sorted.
    std::vector<std::string> state_devices;
  };
  // The program for `def` (validated, placed), and installing it.
  absl::StatusOr<std::shared_ptr<Program>> Prepare(GraphDef def) const;
  void Install(std::shared_ptr<Program> program);
  absl::StatusOr<std::shared_ptr<Plan>> GetPlan(
      const std::vector<std::pair<std::string, Tensor>>& feeds,
      const std::vector<std::string>& fetches, const std::vector<std::string>& targets);
  absl::StatusOr<uint64_t> Incarnation(const std::string& device);
  absl::Status RunPartitions(const Plan& plan, const RunOptions& options,
                             const std::vector<std::pair<std::string, Tensor>>& feeds,
                             const std::vector<std::string>& fetches, std::vector<Tensor>* outputs);
  // One partition's RunGraph call of a step.
  struct PartitionCall;
  using FeedValues = absl::flat_hash_map<std::string, const Tensor*>;
  // The step's RunGraph requests, one per partition, with their feeds.
  std::vector<PartitionCall> NewCalls(const Plan& plan, const RunOptions& options,
                                      int64_t step_id, const FeedValues& feed_value) const;
  // The fetched tensors, from the fed values and the calls' responses.
  static absl::Status CollectFetches(const Plan& plan, const std::vector<PartitionCall>& calls,
                                     const FeedValues& feed_value,
                                     const std::vector<std::string>& fetches,
                                     std::vector<Tensor>* outputs);
  void Deregister(const Plan& plan);
  // Creates this session's worker session on `w` (TensorFlow's
  // CreateWorkerSession, naming this task and its incarnation, so that the
  // worker deletes what the session leaves there if this task dies), once.
  absl::Status WorkerSessionOn(WorkerCache::Worker* w);

  const std::string handle_;
  const TaskContext* const task_;
  const std::string own_device_;
  const std::unique_ptr<LocalSession> local_;
  // Set by Close: the session's steps still running end Cancelled.
  std::atomic<bool> closed_{false};

 public:
  const int64_t operation_timeout_in_ms;

 private:
  absl::Mutex mu_;
  std::shared_ptr<Program> program_ ABSL_GUARDED_BY(mu_);
  int64_t graph_version_ ABSL_GUARDED_BY(mu_) = 0;
  absl::flat_hash_map<std::string, std::shared_ptr<Plan>> plans_ ABSL_GUARDED_BY(mu_);
  absl::flat_hash_map<std::string, uint64_t> incarnations_ ABSL_GUARDED_BY(mu_);
  // The workers this session created its worker session on.
  std::set<WorkerCache::Worker*> worker_sessions_ ABSL_GUARDED_BY(mu_);
  int64_t next_callable_ ABSL_GUARDED_BY(mu_) = 0;
  std::map<int64_t, tensorflow::CallableOptions> callables_ ABSL_GUARDED_BY(mu_);
};

}  // namespace distributed_internal
}  // namespace minigraph

#endif  // MINIGRAPH_SESSION_DISTRIBUTED_INTERNAL_MASTER_SESSION_H_
