// TensorFlow 1.x's MonitoredSession and MonitoredTrainingSession
// (monitored_session.py, session_run_hook.py): a session that runs hooks
// around every step and re-creates itself when a task of the cluster was
// preempted.
//
//   MG_ASSIGN_OR_RETURN(Scaffold scaffold, Scaffold::Finalize(root));
//   MonitoredTrainingSessionOptions o;
//   o.scaffold = &scaffold;
//   o.master = "grpc://ps0:2222";
//   o.checkpoint_dir = "/logs";
//   o.hooks = {std::make_shared<StopAtStepHook>(StopAtStepHook::LastStep(1000))};
//   MG_ASSIGN_OR_RETURN(auto sess, MonitoredTrainingSession(o));
//   while (!sess->ShouldStop()) {
//     MG_RETURN_IF_ERROR(sess->Run({{"x:0", batch}}, {"loss:0"}, {"train"}, &out));
//   }
//   MG_RETURN_IF_ERROR(sess->Close());
//
// Each Run calls every hook's BeforeRun (which may add fetches, targets
// and feeds), runs one step with the caller's and the hooks' requests, and
// calls every hook's AfterRun with what it asked for (a hook may request a
// stop). A step that fails with Aborted or Unavailable (a ps task restarted
// and lost its variables, or cannot be reached) closes the session, makes a
// new one through the SessionCreator (the chief restores the newest
// checkpoint; a worker waits for the chief), calls every hook's
// AfterCreateSession again, and runs the step again, as _RecoverableSession
// does. Other errors return to the caller.
//
// Python's RuntimeError is FailedPrecondition here, ValueError
// InvalidArgument. Not safe for concurrent Run calls (nor is TensorFlow's:
// its hooks count steps); one MonitoredSession per training thread.

#ifndef MINIGRAPH_SESSION_MONITORED_SESSION_H_
#define MINIGRAPH_SESSION_MONITORED_SESSION_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "core/env.h"
#include "core/events_writer.h"
#include "core/proto/graph.pb.h"
#include "session/scaffold.h"
#include "session/queue_runner.h"
#include "session/session.h"

namespace minigraph {

using FeedList = std::vector<std::pair<std::string, Tensor>>;

// What a hook asks a step for (TensorFlow's SessionRunArgs).
struct SessionRunArgs {
  std::vector<std::string> fetches = {};  // tensors, "node:k"
  std::vector<std::string> targets = {};  // ops run for their effects
  FeedList feeds = {};
  // Merged with the caller's and the other hooks' as the largest (0: none).
  int64_t timeout_in_ms = 0;
  // TensorFlow's RunOptions(trace_level=FULL_TRACE): the step runs traced
  // when a hook or the caller asks, and every hook gets its stats.
  bool full_trace = false;
};

// What AfterRun gets: one tensor per fetch of the hook's SessionRunArgs, and
// the step's stats when it ran traced (TensorFlow's run_metadata).
struct SessionRunValues {
  std::vector<Tensor> results;
  const tensorflow::StepStats* step_stats = nullptr;
};

class SessionRunContext {
 public:
  SessionRunContext(const SessionRunArgs& original_args, Session* session)
      : original_args_(original_args), session_(session) {}

  // The caller's fetches, targets and feeds.
  const SessionRunArgs& original_args() const { return original_args_; }
  // The session underneath: runs on it call no hooks.
  Session* session() const { return session_; }
  // ShouldStop() is true once the step ends.
  void RequestStop() { stop_requested_ = true; }
  bool stop_requested() const { return stop_requested_; }

 private:
  const SessionRunArgs& original_args_;
  Session* const session_;
  bool stop_requested_ = false;
};

// TensorFlow's SessionRunHook. Every method may fail; the error ends the
// MonitoredSession call that called it.
class SessionRunHook {
 public:
  virtual ~SessionRunHook() = default;
  // Once, before the first session is made. `graph` is the graph the
  // sessions run.
  virtual absl::Status Begin(const GraphDef& graph) { return absl::OkStatus(); }
  // After each session is made, the first and every one recovery makes.
  // `coord` is the session's (TensorFlow's `coord` argument): threads a
  // hook starts under it (a queue runner) are stopped and joined before the
  // session closes, and a stop it gets stops the MonitoredSession.
  virtual absl::Status AfterCreateSession(Session* session, Coordinator* coord) {
    return absl::OkStatus();
  }
  // Before each step: fills `request` with what the hook wants the step to
  // fetch, run and feed (left empty: nothing).
  virtual absl::Status BeforeRun(SessionRunContext* context, SessionRunArgs* request) {
    return absl::OkStatus();
  }
  // After each step that succeeded.
  virtual absl::Status AfterRun(SessionRunContext* context, const SessionRunValues& values) {
    return absl::OkStatus();
  }
  // At Close(), when the training loop ended normally (not after an error).
  virtual absl::Status End(Session* session) { return absl::OkStatus(); }
  // Beyond TensorFlow: just before each session is closed and destroyed (at
  // Close, when recovery drops a lost one, at destruction), for a hook
  // whose background work still uses it to finish.
  virtual void BeforeSessionClose(Session* session) {}
};

using HookList = std::vector<std::shared_ptr<SessionRunHook>>;

// Makes the sessions a MonitoredSession runs (TensorFlow's SessionCreator).
class SessionCreator {
 public:
  virtual ~SessionCreator() = default;
  virtual absl::StatusOr<std::unique_ptr<Session>> CreateSession() = 0;
  // The graph its sessions run (what hooks' Begin gets).
  virtual const GraphDef& graph() const = 0;
};

// TensorFlow's ChiefSessionCreator: CreateChiefSession (session/scaffold.h)
// with the scaffold's pieces: restores the newest checkpoint of
// `checkpoint_dir`, else initializes.
std::unique_ptr<SessionCreator> NewChiefSessionCreator(Scaffold scaffold, std::string master,
                                                       std::string checkpoint_dir = "",
                                                       SessionOptions config = {});
// TensorFlow's WorkerSessionCreator: waits up to `max_wait` for the chief.
std::unique_ptr<SessionCreator> NewWorkerSessionCreator(
    Scaffold scaffold, std::string master, SessionOptions config = {},
    absl::Duration max_wait = absl::Minutes(30));

struct MonitoredSessionOptions {
  // Recover from Aborted and Unavailable (MonitoredSession: true;
  // SingularMonitoredSession: false).
  bool should_recover = true;
  // Beyond TensorFlow, which retries forever: give up (returning the last
  // error) once making a session has failed with Aborted or Unavailable
  // for this long, sleeping `retry_every` between attempts, or once one
  // step has failed so on new sessions for this long.
  absl::Duration give_up_after = absl::Hours(2);
  absl::Duration retry_every = absl::Seconds(1);
  // The clock of those waits; not owned.
  Env* env = Env::Default();
  // The graph's queue runners (a meta graph's "queue_runners" collection:
  // QueueRunnersOf in session/queue_runner.h), started on each session made,
  // before the hooks' AfterCreateSession, under a Coordinator of the
  // session's; a stop it gets (a runner's error) stops this session too
  // (ShouldStop). Closing stops and joins them, after the hooks' End and
  // before the session closes, waiting `stop_grace_period` for them (those
  // still running after it are let be, as TensorFlow's MonitoredSession
  // does); a runner's error is then Close's.
  std::vector<QueueRunnerDef> queue_runners = {};
  absl::Duration stop_grace_period = absl::Minutes(2);
};

class MonitoredSession {
 public:
  // Calls every hook's Begin, makes the first session, and calls every
  // hook's AfterCreateSession.
  static absl::StatusOr<std::unique_ptr<MonitoredSession>> Create(
      std::unique_ptr<SessionCreator> creator, HookList hooks,
      MonitoredSessionOptions options = {});
  // Closes the session without calling the hooks' End (as leaving a `with`
  // block on an exception does). Call Close() to end normally.
  ~MonitoredSession();

  // One step with the hooks (see above). FailedPrecondition "Run called
  // even after should_stop requested." once ShouldStop() is true;
  // FailedPrecondition naming the tensors when two hooks, or a hook and the
  // caller, feed the same tensor.
  absl::Status Run(const FeedList& feeds, const std::vector<std::string>& fetches,
                   const std::vector<std::string>& targets, std::vector<Tensor>* outputs,
                   const RunOptions& options = {});

  // Whether a hook (or a step function) asked to stop, or the session is
  // closed.
  bool ShouldStop() const {
    return session_ == nullptr || should_stop_ || (coord_ != nullptr && coord_->ShouldStop());
  }

  // TensorFlow's StepContext: a step function reaches the raw session
  // (no hooks), runs a step with the hooks, or asks to stop.
  class StepContext {
   public:
    Session* session() const { return owner_->session_.get(); }
    absl::Status RunWithHooks(const FeedList& feeds, const std::vector<std::string>& fetches,
                              const std::vector<std::string>& targets,
                              std::vector<Tensor>* outputs) {
      return owner_->RunHooked(feeds, fetches, targets, outputs, RunOptions());
    }
    // ShouldStop() is true after the step function returns.
    void RequestStop() { stop_requested_ = true; }

   private:
    friend class MonitoredSession;
    explicit StepContext(MonitoredSession* owner) : owner_(owner) {}
    MonitoredSession* owner_;
    bool stop_requested_ = false;
  };
  // Calls `step_fn` (TensorFlow's run_step_fn), again on a new session when
  // it fails with Aborted or Unavailable.
  absl::Status RunStepFn(const std::function<absl::Status(StepContext&)>& step_fn);

  // The session underneath (null once closed): runs on it call no hooks.
  Session* raw_session() const { return session_.get(); }

  // Calls every hook's End (stopping at the first error), then closes the
  // session. FailedPrecondition "Session is already closed." the second
  // time.
  absl::Status Close();

  // How many sessions were made: 1, plus one per recovery.
  int sessions_created() const { return sessions_created_; }

 private:
  MonitoredSession(std::unique_ptr<SessionCreator> creator, HookList hooks,
                   MonitoredSessionOptions options)
      : creator_(std::move(creator)), hooks_(std::move(hooks)), options_(options) {}

  // Makes a session and calls the hooks' AfterCreateSession, retrying on a
  // preemption error while options_ allow it.
  absl::Status CreateSession();
  absl::Status RunHooked(const FeedList& feeds, const std::vector<std::string>& fetches,
                         const std::vector<std::string>& targets, std::vector<Tensor>* outputs,
                         const RunOptions& options);
  // Runs `attempt` until it returns something other than a preemption error
  // (re-creating the session in between) or recovery is off.
  absl::Status WithRecovery(const std::function<absl::Status()>& attempt);
  void CloseSession();
  // Stops and joins the queue runners, if any; their first error.
  absl::Status StopQueueRunners();

  std::unique_ptr<SessionCreator> creator_;
  HookList hooks_;
  const MonitoredSessionOptions options_;
  std::unique_ptr<Session> session_;
  std::unique_ptr<Coordinator> coord_;  // session_'s: its queue runners' and hooks' threads
  bool should_stop_ = false;
  bool closed_ = false;
  int sessions_created_ = 0;
};

// TensorFlow's USE_DEFAULT for MonitoredTrainingSession's schedules; 0
// turns a schedule off.
inline constexpr int64_t kUseDefault = -1;

struct MonitoredTrainingSessionOptions {
  std::string master = {};
  bool is_chief = true;
  // Where the chief restores from and saves checkpoints; "" for neither.
  std::string checkpoint_dir = {};
  // Required; not owned. Its graph needs a global step for the hooks below.
  const Scaffold* scaffold = nullptr;
  HookList hooks = {};
  HookList chief_only_hooks = {};
  // TensorFlow's defaults: a checkpoint every 600 s, summaries every 100
  // steps; giving one of a pair turns the other off.
  int64_t save_checkpoint_secs = kUseDefault;
  int64_t save_checkpoint_steps = kUseDefault;
  int64_t save_summaries_steps = kUseDefault;
  int64_t save_summaries_secs = kUseDefault;
  // global_step/sec every this many steps (0: no StepCounterHook).
  int64_t log_step_count_steps = 100;
  // A worker's wait for the chief.
  absl::Duration max_wait = absl::Seconds(7200);
  SessionOptions config = {};
  // Where event files go; "" = checkpoint_dir.
  std::string summary_dir = {};
  // graph.pbtxt, the graph in the event file, and a .meta per checkpoint.
  bool save_graph_def = true;
  // The event files' flush schedule (their Env is the scaffold's).
  absl::Duration flush_summaries_every = absl::Seconds(120);
  MonitoredSessionOptions session = {};
};

// TensorFlow's MonitoredTrainingSession: a chief gets a
// ChiefSessionCreator and the chief_only_hooks plus, with a summary
// directory, a StepCounterHook and a SummarySaverHook, and with a
// checkpoint directory a CheckpointSaverHook (one event file per directory
// shared by them, as SummaryWriterCache shares it); a worker gets a
// WorkerSessionCreator and only `hooks`. InvalidArgument without a
// scaffold, or when a hook that needs the global step finds none.
absl::StatusOr<std::unique_ptr<MonitoredSession>> MonitoredTrainingSession(
    MonitoredTrainingSessionOptions options);

}  // namespace minigraph

#endif  // MINIGRAPH_SESSION_MONITORED_SESSION_H_
