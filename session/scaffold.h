// TensorFlow 1.x's Scaffold and its chief and worker session creators
// (tensorflow/python/training/monitored_session.py): the
// pieces a training session is prepared with, each taken from the caller,
// else from the graph's collection of that name, else built by default and
// recorded in that collection:
//
//   init_op                  "init_op"                  group(global_variables_initializer())
//   ready_op                 "ready_op"                 concat([report_uninitialized_variables(),
//                                                        report_uninitialized_resources()], 0)
//   ready_for_local_init_op  "ready_for_local_init_op"  the same over global variables only
//   local_init_op            "local_init_op"            group(local_variables_initializer())
//   saver                    "savers" (SaverDefs)       Saver(sharded, allow_empty)
//   summary_op               "summary_op"               merge_all() of "summaries", if any
//
// and the global step's value, from the "global_step" collection (what the
// training hooks read; empty when the graph has none).
//
// minigraph has no resource variables, lookup tables or SavedModel
// initializers, so those parts of TensorFlow's defaults are empty (the
// resource report is an empty string constant, as TensorFlow's is when
// there are none).
//
//   MG_ASSIGN_OR_RETURN(Scaffold scaffold, Scaffold::Finalize(root));
//   // the chief: restores the newest checkpoint in /logs, or initializes
//   MG_ASSIGN_OR_RETURN(auto chief, CreateChiefSession(scaffold, "local://ps", "/logs"));
//   // a worker: waits (up to 30 min) until the chief has made the model ready
//   MG_ASSIGN_OR_RETURN(auto worker, CreateWorkerSession(scaffold, "local://ps"));
//
// Finalize builds on the Scope (one thread, as Scope requires). A finalized
// Scaffold is only read, and threads may share it; its Saver, though, is
// thread-compatible, so chief sessions (which restore through it) are
// created one at a time. Worker sessions do not use it.

#ifndef MINIGRAPH_SESSION_SCAFFOLD_H_
#define MINIGRAPH_SESSION_SCAFFOLD_H_

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "core/env.h"
#include "core/proto/graph.pb.h"
#include "core/proto/meta_graph.pb.h"
#include "runtime/cc/scope.h"
#include "session/saver.h"
#include "session/session.h"
#include "session/session_manager.h"

namespace minigraph {

// Collection keys (TensorFlow's GraphKeys).
inline constexpr char kInitOpCollection[] = "init_op";
inline constexpr char kReadyOpCollection[] = "ready_op";
inline constexpr char kReadyForLocalInitOpCollection[] = "ready_for_local_init_op";
inline constexpr char kLocalInitOpCollection[] = "local_init_op";
inline constexpr char kSaversCollection[] = "savers";

// Empty means "from the collection, else the default" (TensorFlow's None).
// Op lists are as for SessionManager: node names, or "node:k" tensors.
struct ScaffoldOptions {
  std::vector<std::string> init_op = {};
  std::vector<std::pair<std::string, Tensor>> init_feed_dict = {};
  std::function<absl::Status(Session*)> init_fn = {};
  std::vector<std::string> ready_op = {};
  std::vector<std::string> ready_for_local_init_op = {};
  std::vector<std::string> local_init_op = {};
  std::vector<std::pair<std::string, Tensor>> local_init_feed_dict = {};
  Saver* saver = nullptr;  // Not owned; must outlive the Scaffold.
  // Tensors of serialized Summary protos, written by SummarySaverHook.
  std::vector<std::string> summary_op = {};
  // Files and time for the Saver and the sessions' waits; not owned.
  Env* env = Env::Default();
};

class Scaffold {
 public:
  // Fills every unset piece (adding default ops to `scope`'s graph and to
  // its collections) and takes the graph as it then is (TensorFlow's
  // graph.finalize()). Returns FailedPrecondition naming the collection
  // when one has more than one element, or the builder's error.
  static absl::StatusOr<Scaffold> Finalize(const Scope& scope, ScaffoldOptions options = {});

  const std::vector<std::string>& init_op() const { return options_.init_op; }
  const std::vector<std::string>& ready_op() const { return options_.ready_op; }
  const std::vector<std::string>& ready_for_local_init_op() const {
    return options_.ready_for_local_init_op;
  }
  const std::vector<std::string>& local_init_op() const { return options_.local_init_op; }
  Saver* saver() const { return options_.saver; }
  const std::vector<std::string>& summary_op() const { return options_.summary_op; }
  // "global_step/read:0" (the global step variable's value), or empty.
  const std::string& global_step_tensor() const { return global_step_; }
  const GraphDef& graph() const { return meta_graph_.graph_def(); }
  // The graph with its collections and SaverDef, as CheckpointSaverHook
  // writes it next to each checkpoint (".meta") and to event files.
  const MetaGraphDef& meta_graph() const { return meta_graph_; }
  const ScaffoldOptions& options() const { return options_; }

 private:
  Scaffold() = default;
  ScaffoldOptions options_;
  std::shared_ptr<Saver> owned_saver_;  // the default Saver, when built
  MetaGraphDef meta_graph_;
  std::string global_step_;
};

// TensorFlow's ChiefSessionCreator: a SessionManager with the scaffold's
// ops prepares a session on `master`, restoring the newest checkpoint in
// `checkpoint_dir` (if any) or running init_op/init_fn. `recovery_wait` is
// the SessionManager's (TensorFlow's default, 30 s).
absl::StatusOr<std::unique_ptr<Session>> CreateChiefSession(
    const Scaffold& scaffold, const std::string& master, const std::string& checkpoint_dir = "",
    SessionOptions config = {}, absl::Duration recovery_wait = absl::Seconds(30));

// TensorFlow's WorkerSessionCreator: waits up to `max_wait` (TensorFlow's
// default, 30 min) for the model on `master` to be ready, running
// local_init_op itself; DeadlineExceeded past it.
absl::StatusOr<std::unique_ptr<Session>> CreateWorkerSession(
    const Scaffold& scaffold, const std::string& master, SessionOptions config = {},
    absl::Duration max_wait = absl::Minutes(30), absl::Duration recovery_wait = absl::Seconds(30));

}  // namespace minigraph

#endif  // MINIGRAPH_SESSION_SCAFFOLD_H_
