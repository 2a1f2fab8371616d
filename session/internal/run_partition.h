// A LocalSession's step as one partition of a distributed step: for the
// distributed runtime's workers and master only.
#ifndef MINIGRAPH_SESSION_INTERNAL_RUN_PARTITION_H_
#define MINIGRAPH_SESSION_INTERNAL_RUN_PARTITION_H_

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "runtime/engine/rendezvous.h"
#include "session/local_session.h"

namespace minigraph {
namespace session_internal {

// Runs `targets` of `session`'s graph (and what they need; none: every node
// of the graph, in loops too) as one partition of a distributed step: its
// _Send and _Recv nodes meet their peers in `rendezvous` (not owned), and
// the step has the master's `step_id`.
absl::Status RunPartition(LocalSession* session, const RunOptions& options,
                          const std::vector<std::string>& targets, Rendezvous* rendezvous,
                          int64_t step_id);

}  // namespace session_internal
}  // namespace minigraph

#endif  // MINIGRAPH_SESSION_INTERNAL_RUN_PARTITION_H_
