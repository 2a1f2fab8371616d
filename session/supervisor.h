// TensorFlow 1's Supervisor (tf.compat.v1.train.Supervisor), the training
// loop's manager most TensorFlow 1 programs were written against: a chief
// restores the newest checkpoint of its log directory or initializes the
// model, writes the graph, and runs the standard services (a checkpoint
// every save_model_secs, summaries and steps/sec every save_summaries_secs);
// a worker waits until the chief's model is ready; both start the graph's
// queue runners, and every thread stops together through one Coordinator.
//
//   SupervisorOptions o;
//   o.logdir = "/logs";
//   MG_ASSIGN_OR_RETURN(std::unique_ptr<Supervisor> sv, Supervisor::Create(root, o));
//   MG_RETURN_IF_ERROR(sv->ManagedSession("", {}, [&](Session* session) -> absl::Status {
//     while (!sv->ShouldStop()) MG_RETURN_IF_ERROR(session->Run({}, {}, {"train"}, nullptr));
//     return absl::OkStatus();
//   }));
//
// Behaviour, defaults and order of operations follow
// tensorflow/python/training/supervisor.py (checked against it in
// tests/tf_interop/supervisor_interop_test.py): Python's ValueError is
// InvalidArgument, RuntimeError FailedPrecondition, an exception a Status.
// Differences: the graph written to graph.pbtxt has no _output_shapes
// (TensorFlow's add_shapes=True); a non-chief's "Variables must have their
// device set" names the node and op rather than printing its NodeDef.
//
// The services and queue runners use the session PrepareOrWaitForSession
// returns until Stop(): close it only after Stop (ManagedSession does).
// Time (the services' timers, the waits) and files go through
// SupervisorOptions::env. Thread-safe, but PrepareOrWaitForSession, Stop and
// ManagedSession are meant for the one thread that runs the training loop.

#ifndef MINIGRAPH_SESSION_SUPERVISOR_H_
#define MINIGRAPH_SESSION_SUPERVISOR_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "core/env.h"
#include "core/events_writer.h"
#include "core/proto/meta_graph.pb.h"
#include "core/proto/queue_runner.pb.h"
#include "runtime/cc/scope.h"
#include "session/coordinator.h"
#include "session/saver.h"
#include "session/session.h"
#include "session/session_manager.h"

namespace minigraph {

// An op option is TensorFlow's USE_DEFAULT when nullopt: the first entry of
// the graph's collection of that name, else (where TensorFlow has one) a
// default built into the graph and recorded in that collection. An empty
// list is TensorFlow's None: no such op. Op lists are as for SessionManager:
// node names, or "node:k" tensors.
struct SupervisorOptions {
  // Default: "ready_op", else report_uninitialized_variables().
  std::optional<std::vector<std::string>> ready_op = std::nullopt;
  // Default: "ready_for_local_init_op", else None.
  std::optional<std::vector<std::string>> ready_for_local_init_op = std::nullopt;
  bool is_chief = true;
  // Default: "init_op", else global_variables_initializer() ("init").
  std::optional<std::vector<std::string>> init_op = std::nullopt;
  std::vector<std::pair<std::string, Tensor>> init_feed_dict = {};
  // Default: "local_init_op", else group(local_variables_initializer(), the
  // "table_initializer" collection) ("group_deps").
  std::optional<std::vector<std::string>> local_init_op = std::nullopt;
  // Where a chief restores from, saves checkpoints and writes events; ""
  // for none of it (a non-chief never uses it).
  std::string logdir = {};
  // Default: "summary_op", else summary.merge_all() of "summaries", if any.
  std::optional<std::vector<std::string>> summary_op = std::nullopt;
  // nullopt: the graph's "savers" collection, else a Saver() of the global
  // variables (none when there are none). nullptr: none. Not owned.
  std::optional<Saver*> saver = std::nullopt;
  // nullopt: the "global_step" collection's variable, else "global_step:0"
  // if the graph has an integer node of that name. "": none.
  std::optional<std::string> global_step = std::nullopt;
  // TensorFlow's defaults; zero turns a service off.
  absl::Duration save_summaries = absl::Seconds(120);
  absl::Duration save_model = absl::Seconds(600);
  absl::Duration recovery_wait = absl::Seconds(30);
  absl::Duration stop_grace = absl::Seconds(120);
  std::string checkpoint_basename = "model.ckpt";
  // nullopt: a chief with a logdir writes its own event file there.
  // nullptr: none.
  std::optional<std::shared_ptr<EventsWriter>> summary_writer = std::nullopt;
  std::function<absl::Status(Session*)> init_fn = {};
  RunOptions local_init_run_options = {};
  // Files and time, for the services, the SessionManager, the Saver made
  // here and the event file; not owned.
  Env* env = Env::Default();
};

class Supervisor {
 public:
  // Fills the unset ops (adding defaults to `scope`'s graph and its
  // collections) and takes the graph as it then is (TensorFlow's
  // graph.finalize()). A non-chief returns InvalidArgument "When using
  // replicas, all Variables must have their device set: ..." for a
  // Variable(V2) node without a device; the builder's errors otherwise.
  static absl::StatusOr<std::unique_ptr<Supervisor>> Create(const Scope& scope,
                                                            SupervisorOptions options = {});
  // Stops and joins every thread (without writing a STOP event).
  ~Supervisor();
  Supervisor(const Supervisor&) = delete;
  Supervisor& operator=(const Supervisor&) = delete;

  // A session whose model is ready. A chief: the SessionManager's
  // PrepareSession with init_op, init_feed_dict, init_fn, the saver and
  // logdir; then graph.pbtxt and the graph and meta graph in the event
  // file (once per writer); then, with `start_standard_services`, the
  // services. A non-chief: WaitForSession. Both then start the graph's
  // queue runners (with `start_standard_services`). Clears an earlier stop
  // and reopens a closed summary writer first, as TensorFlow's does.
  absl::StatusOr<std::unique_ptr<Session>> PrepareOrWaitForSession(
      const std::string& master = "", SessionOptions config = {},
      bool wait_for_checkpoint = false, absl::Duration max_wait = absl::Seconds(7200),
      bool start_standard_services = true);

  // A START session log at the current step (with a global step and a
  // writer); a summary thread (summary_op) and a steps/sec thread (global
  // step) every save_summaries, with a writer; a checkpoint thread every
  // save_model, with a saver; each runs at once, then on its timer.
  // FailedPrecondition on a non-chief; nothing (a WARNING) without a logdir.
  absl::Status StartStandardServices(Session* session);
  // Starts runners for `queue_runners`, by default the graph's
  // "queue_runners" collection.
  absl::Status StartQueueRunners(Session* session,
                                 std::optional<std::vector<QueueRunnerDef>> queue_runners = {});
  // A thread that calls `target` every `interval` (back to back when
  // nullopt) until the stop; its error stops the supervisor.
  void Loop(std::optional<absl::Duration> interval, std::function<absl::Status()> target,
            std::string name = "Supervisor.loop");

  // Asks every thread to stop and joins them within stop_grace; then (with
  // `close_summary_writer`) writes a STOP session log and closes the
  // writer. Returns the first error a thread (or RequestStop) stopped with,
  // else DeadlineExceeded naming threads still running (a WARNING instead
  // with `ignore_live_threads`). Does not close the session.
  absl::Status Stop(bool close_summary_writer = true, bool ignore_live_threads = false);
  void RequestStop(absl::Status status = absl::OkStatus()) {
    coord_.RequestStop(std::move(status));
  }
  bool ShouldStop() const { return coord_.ShouldStop(); }
  void WaitForStop() const { coord_.WaitForStop(); }

  // Writes a serialized Summary at `step`, by default the global step's
  // value. FailedPrecondition "Writing a summary requires a summary
  // writer." without one.
  absl::Status SummaryComputed(Session* session, absl::string_view summary,
                               std::optional<int64_t> step = std::nullopt);

  // TensorFlow's managed_session as a call: prepares a session, runs
  // `body` on it, then stops (Stop) and closes the session, ignoring the
  // close's error. Returns the first error of the preparation, `body` or a
  // thread; OutOfRange (the input's end) counts as a clean end.
  absl::Status ManagedSession(const std::string& master, SessionOptions config,
                              const std::function<absl::Status(Session*)>& body,
                              bool start_standard_services = true,
                              bool close_summary_writer = true);

  bool is_chief() const { return o_.is_chief; }
  Coordinator* coord() { return &coord_; }
  SessionManager* session_manager() const { return session_manager_.get(); }
  const std::vector<std::string>& init_op() const { return *o_.init_op; }
  const std::vector<std::string>& ready_op() const { return *o_.ready_op; }
  const std::vector<std::string>& ready_for_local_init_op() const {
    return *o_.ready_for_local_init_op;
  }
  const std::vector<std::string>& local_init_op() const { return *o_.local_init_op; }
  const std::vector<std::string>& summary_op() const { return *o_.summary_op; }
  Saver* saver() const { return *o_.saver; }
  // The global step tensor ("" when none).
  const std::string& global_step() const { return *o_.global_step; }
  // Null on a non-chief, or without a logdir or a given writer.
  EventsWriter* summary_writer() const { return writer_.get(); }
  // logdir/checkpoint_basename; "" on a non-chief or without a logdir.
  const std::string& save_path() const { return save_path_; }
  const MetaGraphDef& meta_graph() const { return meta_graph_; }

 private:
  explicit Supervisor(SupervisorOptions options) : o_(std::move(options)), coord_(o_.stop_grace) {}
  absl::Status WriteGraph();

  SupervisorOptions o_;  // every optional filled by Create
  MetaGraphDef meta_graph_;
  std::unique_ptr<Saver> owned_saver_;
  std::shared_ptr<EventsWriter> writer_;
  std::unique_ptr<SessionManager> session_manager_;
  std::string save_path_;
  std::string step_tag_;  // the steps/sec summary's tag: "global_step/sec"
  bool graph_added_to_summary_ = false;
  Coordinator coord_;
};

}  // namespace minigraph

#endif  // MINIGRAPH_SESSION_SUPERVISOR_H_
