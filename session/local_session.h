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

#include "absl/status/status.h"
#include "session/session.h"
#include "session/session_state.h"

namespace minigraph {

class LocalSession;
class Rendezvous;
namespace session_internal {
// Declared in session/internal/run_partition.h, for the distributed runtime.
absl::Status RunPartition(LocalSession* session, const RunOptions& options,
                          const std::vector<std::string>& targets, Rendezvous* rendezvous,
                          int64_t step_id);
}  // namespace session_internal

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

  SessionState* state() const;

 private:
  friend absl::Status session_internal::RunPartition(LocalSession* session,
                                                     const RunOptions& options,
                                                     const std::vector<std::string>& targets,
                                                     Rendezvous* rendezvous, int64_t step_id);
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace minigraph

#endif  // MINIGRAPH_SESSION_LOCAL_SESSION_H_
