// TensorFlow 1.x's SessionManager: creates sessions whose model is ready to
// use, by restoring a checkpoint, running initializers, or waiting for
// another process or thread (the chief) to do so.
//
//   SessionManager::Options o;
//   o.ready_op = {ready.tensor_name()};          // e.g. ReportUninitializedVariables
//   MG_ASSIGN_OR_RETURN(auto sm, SessionManager::Create(graph_def, o));
//   SessionManager::PrepareOptions p;
//   p.init_op = {init.name()};
//   p.saver = saver.get();
//   p.checkpoint_dir = "/logs";
//   MG_ASSIGN_OR_RETURN(std::unique_ptr<Session> s, sm->PrepareSession("", p));
//
// Behaviour, order of operations and messages follow
// tensorflow/python/training/session_manager.py (checked against it in
// tests/tf_interop/session_manager_interop_test.py); Python's ValueError is
// InvalidArgument, RuntimeError FailedPrecondition. An "op" option holds node
// names (run as targets; "node" or "^node") and/or tensor names "node:k"
// (fetched; the ":k" is required, see Output::tensor_name), as a Python
// caller passes an op, a tensor or a list; empty means None. In ready_op and
// ready_for_local_init_op an op must be written "^node": an op reports
// nothing, so it always counts as ready, and a bare "node" there is far more
// often a tensor missing its ":0" than a readiness check left out on purpose.
//
// One Env (Options::env) serves files and time: the waiting loops use its
// clock, so tests use a fake one, and the sessions the manager creates use it
// unless their config names another, which is InvalidArgument, as is a Saver
// whose Env differs.
//
// On a "local://NAME" target, a successful PrepareSession keeps the model
// alive after its sessions close (KeepTargetAlive in session/targets.h), as
// a TensorFlow server keeps its variables; ResetTarget drops it. Safe for
// concurrent use.

#ifndef MINIGRAPH_SESSION_SESSION_MANAGER_H_
#define MINIGRAPH_SESSION_SESSION_MANAGER_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "core/env.h"
#include "core/proto/graph.pb.h"
#include "session/saver.h"
#include "session/session.h"

namespace minigraph {


class SessionManager {
 public:
  // Beyond TensorFlow: what a readiness check found, instead of the opaque
  // "Waiting for model to be ready" line.
  struct ReadinessReport {
    bool ready = false;
    // The check that said not ready: "ready_for_local_init_op", "ready_op",
    // or "server" (unreachable); empty when ready.
    std::string reported_by;
    // The variables it named as uninitialized, in its order (empty when it
    // gave only a message, as an assert-style ready op does).
    std::vector<std::string> uninitialized;
    int num_variables = 0;  // the graph's variables
    // Its text, in TensorFlow's words ("Variables not initialized: w, b").
    std::string message;
    // Whether anyone (the chief) has initialized part of the model: fewer
    // variables are uninitialized than the graph has.
    bool chief_seen = false;
    int attempts = 0;
    absl::Duration waited = absl::ZeroDuration();
    std::optional<absl::Duration> deadline_left;  // nullopt: no deadline
    // One status line: "not ready (ready_op): 2 of 3 variables uninitialized
    // (w, b); the chief has been at work; waited 12s, 48s left".
    std::string ToString() const;
  };

  struct Options {
    std::vector<std::string> local_init_op = {};
    std::vector<std::string> ready_op = {};
    std::vector<std::string> ready_for_local_init_op = {};
    absl::Duration recovery_wait = absl::Seconds(30);
    RunOptions local_init_run_options = {};
    std::vector<std::pair<std::string, Tensor>> local_init_feed_dict = {};
    // Files and time for the waiting loops; not owned.
    Env* env = Env::Default();
    // Beyond TensorFlow: WaitForSession sleeps between attempts until the
    // target's shared state changes (Session::WatchState: a variable gets
    // its first value, on this process's local:// target or on the tasks
    // of a grpc:// cluster) or recovery_wait passes, whichever comes first,
    // instead of always recovery_wait; and wait_for_checkpoint sleeps on a
    // watch of the checkpoint directory (Env::WatchDirectory, inotify). Same attempts, results and
    // messages; a worker just starts milliseconds after its chief's model is ready. Where the
    // session cannot watch (a TensorFlow server) it polls as TensorFlow does. false = TensorFlow's
    // fixed sleep.
    bool wake_on_state_change = true;
    // Beyond TensorFlow: WaitForSession reports each change of readiness
    // (and, while nothing changes, once a minute; and once when ready) here,
    // and logs it on the same schedule instead of a line per attempt.
    std::function<void(const ReadinessReport&)> on_readiness = {};
  };

  struct PrepareOptions {
    std::vector<std::string> init_op = {};
    Saver* saver = nullptr;  // Not owned.
    std::string checkpoint_dir = {};
    std::string checkpoint_filename_with_path = {};
    bool wait_for_checkpoint = false;
    absl::Duration max_wait = absl::Seconds(7200);
    // The session config (threads); its target is replaced by `master` and
    // its Env by Options::env.
    SessionOptions config = {};
    std::vector<std::pair<std::string, Tensor>> init_feed_dict = {};
    std::function<absl::Status(Session*)> init_fn = {};
    // Beyond TensorFlow (both off by default):
    // When the newest checkpoint of checkpoint_dir cannot be restored
    // (missing files, DataLoss, truncated, a key or shape the graph does not
    // match), try the older ones of the state file, newest first. Each one
    // skipped is logged with its reason; restoring an older one is a WARNING
    // naming both. With none restorable, the error lists every reason.
    bool fallback_to_valid_checkpoint = false;
    // Never initialize from scratch while checkpoint_dir holds a state file
    // or checkpoint files that name no restorable checkpoint (the "my run
    // restarted from step 0" accident): FailedPrecondition naming them.
    bool strict = false;
    // When checkpoint_dir's state file is missing, cannot be read or parsed,
    // or its newest checkpoint does not exist, restore the newest complete
    // checkpoint the directory itself holds (RebuildCheckpointState in
    // checkpoint/checkpoint_files.h: what `inspect_checkpoint
    // --repair_state` computes) with a WARNING giving the reason, and once
    // it is restored, rewrite the state file from the directory. TensorFlow
    // initializes from scratch instead (or fails, on a state file naming a
    // missing checkpoint): one bad byte would cost the whole run.
    bool recover_state_from_directory = false;
    // If set, receives the prefix of the checkpoint restored, or "" when the
    // model was not restored. Not owned.
    std::string* restored_from = nullptr;
  };

  struct RecoverResult {
    std::unique_ptr<Session> session;
    bool initialized = false;
  };

  // Returns InvalidArgument with TensorFlow's text when ready_for_local_init_op
  // is given without local_init_op, and InvalidArgument naming the entry
  // when ready_op or ready_for_local_init_op holds a bare node name (neither
  // "node:k" nor "^node").
  static absl::StatusOr<std::unique_ptr<SessionManager>> Create(GraphDef graph, Options options);
  ~SessionManager();
  SessionManager(const SessionManager&) = delete;
  SessionManager& operator=(const SessionManager&) = delete;

  // A session whose model is ready: restored from a checkpoint if one is
  // found (waiting for it if asked), else initialized with init_op/init_fn;
  // then local_init_op; then checked with ready_op. Returns
  // FailedPrecondition "Model is not initialized and no init_op or init_fn
  // or local_init_op was given", "Init operations did not make model ready
  // for local_init.  ..." or "Init operations did not make model ready.  ...".
  absl::StatusOr<std::unique_ptr<Session>> PrepareSession(const std::string& master,
                                                          const PrepareOptions& options);

  // Like PrepareSession without init_op/init_fn: reports whether the model
  // was restored and made ready instead of failing.
  absl::StatusOr<RecoverResult> RecoverSession(const std::string& master,
                                               const PrepareOptions& options);

  // Creates sessions on `master` until local_init_op and ready_op say the
  // model is ready (someone else initializes it), sleeping recovery_wait
  // between attempts (or less: Options::wake_on_state_change). Returns DeadlineExceeded "Session
  // was not ready after waiting N secs." when less than recovery_wait would remain after a sleep.
  // `max_wait` nullopt = forever. Returns Cancelled as soon as `cancel` (not owned; may be null) is
  // notified, even mid-sleep. A server that cannot be reached (Unavailable: a worker started before
  // its ps) counts as not ready yet, as in TensorFlow's MonitoredSession; other errors end the
  // wait.
  absl::StatusOr<std::unique_ptr<Session>> WaitForSession(
      const std::string& master, SessionOptions config = {},
      std::optional<absl::Duration> max_wait = std::nullopt,
      const absl::Notification* cancel = nullptr);

  // Beyond TensorFlow: one attempt of WaitForSession, without waiting: a
  // session on `master`, local_init_op run if ready_for_local_init_op allows
  // it (as each of WaitForSession's attempts does), ready_op checked, the
  // session closed. Errors other than an unreachable server propagate.
  absl::StatusOr<ReadinessReport> CheckReady(const std::string& master, SessionOptions config = {});

 private:
  class Impl;
  explicit SessionManager(std::unique_ptr<Impl> impl);

  std::unique_ptr<Impl> impl_;
};

}  // namespace minigraph

#endif  // MINIGRAPH_SESSION_SESSION_MANAGER_H_
