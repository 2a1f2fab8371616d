// TensorFlow's _SyncReplicasOptimizerHook (SyncReplicasOptimizer's
// make_session_run_hook): after each session is made, checks that the
// global variables are initialized, runs the replica's local init op (its
// local step from the global step; the chief also sets the accumulators'
// step), and on the chief puts the first tokens in the token queue and
// starts the chief queue runner, which aggregates and applies the
// gradients, under the MonitoredSession's coordinator.
//
//   MG_ASSIGN_OR_RETURN(SyncReplicasHookOps ops, sync.HookOps(root, is_chief));
//   hooks.push_back(std::make_shared<SyncReplicasHook>(ops));

#ifndef MINIGRAPH_SESSION_SYNC_REPLICAS_HOOK_H_
#define MINIGRAPH_SESSION_SYNC_REPLICAS_HOOK_H_

#include <utility>

#include "absl/status/status.h"
#include "runtime/cc/sync_replicas_optimizer.h"
#include "session/monitored_session.h"

namespace minigraph {

class SyncReplicasHook : public SessionRunHook {
 public:
  explicit SyncReplicasHook(SyncReplicasHookOps ops) : ops_(std::move(ops)) {}
  // FailedPrecondition "Init operations did not make model ready for
  // SyncReplicasOptimizer local_init. Init op: OP, error: Variables not
  // initialized: ..." (TensorFlow's RuntimeError) when global variables are
  // uninitialized; the ops' errors.
  absl::Status AfterCreateSession(Session* session, Coordinator* coord) override;

 private:
  const SyncReplicasHookOps ops_;
};

}  // namespace minigraph

#endif  // MINIGRAPH_SESSION_SYNC_REPLICAS_HOOK_H_
