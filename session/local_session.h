// An in-process Session over the executor.
//
//   auto state = std::make_shared<SessionState>("");
//   LocalSession s(options, state);
//
// Pruned execution plans are cached per (feeds, fetches, targets), as in
// TensorFlow's DirectSession. Safe for concurrent use.

#ifndef MINIGRAPH_SESSION_LOCAL_SESSION_H_
#define MINIGRAPH_SESSION_LOCAL_SESSION_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/container/flat_hash_map.h"
#include "absl/synchronization/mutex.h"
#include "runtime/engine/executor.h"
#include "runtime/graph/graph.h"
#include "session/session.h"
#include "session/session_state.h"

namespace Eigen {
class ThreadPoolInterface;
struct ThreadPoolDevice;
}  // namespace Eigen

namespace minigraph {

class LocalSession : public Session {
 public:
  // `state` holds the variables; other sessions may share it.
  LocalSession(const SessionOptions& options, std::shared_ptr<SessionState> state);
  ~LocalSession() override;

  absl::Status Create(const GraphDef& graph) override;
  absl::Status Extend(const GraphDef& graph) override;
  using Session::Run;
  absl::Status Run(const RunOptions& options,
                   const std::vector<std::pair<std::string, Tensor>>& feeds,
                   const std::vector<std::string>& fetches,
                   const std::vector<std::string>& targets,
                   std::vector<Tensor>* outputs) override;
  absl::Status Close() override;
  GraphDef graph_def() const override;
  // Watches the session's state (its ResourceMgr's version): a watch that
  // fires in-process as soon as a variable there gets its first value.
  absl::StatusOr<std::unique_ptr<StateWatch>> WatchState() override;

  // Runs `targets` (and what they need; none: every node of the graph, in
  // loops too) as one partition of a distributed step: its _Send and _Recv
  // nodes meet their peers in `rendezvous` (not owned), and the step has the
  // master's `step_id`.
  absl::Status RunPartition(const RunOptions& options, const std::vector<std::string>& targets,
                            Rendezvous* rendezvous, int64_t step_id);

  SessionState* state() const { return state_.get(); }

 private:
  // A graph, its kernels and the plans built for it. Replaced whole by
  // Extend, so a step in flight keeps the one it started with.
  struct Program;
  absl::Status Install(const GraphDef& graph);
  absl::Status RunStep(const RunOptions& options,
                       const std::vector<std::pair<std::string, Tensor>>& feeds,
                       const std::vector<std::string>& fetches,
                       const std::vector<std::string>& targets, bool every_node,
                       Rendezvous* rendezvous, int64_t step_id, std::vector<Tensor>* outputs);
  // See Executor::Create.
  absl::StatusOr<const Executor*> GetExecutor(
      Program* program, const std::vector<std::pair<std::string, Tensor>>& feeds,
      const std::vector<std::string>& fetches, const std::vector<std::string>& targets,
      bool every_node);

  const SessionOptions options_;
  const std::shared_ptr<SessionState> state_;
  // Process-wide pools for these thread counts.
  Eigen::ThreadPoolInterface* inter_op_pool_;  // Not owned.
  const Eigen::ThreadPoolDevice* device_;      // Not owned.

  mutable absl::Mutex mu_;
  std::shared_ptr<Program> program_ ABSL_GUARDED_BY(mu_);
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace minigraph

#endif  // MINIGRAPH_SESSION_LOCAL_SESSION_H_
