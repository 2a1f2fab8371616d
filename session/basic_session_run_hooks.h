// TensorFlow 1.x's hooks (basic_session_run_hooks.py) for a
// MonitoredSession (session/monitored_session.h), with its schedules:
//
//   StopAtStepHook       stops once the global step reaches a last step
//   CheckpointSaverHook  saves when the session is made, every N steps or
//                        seconds, and at the end; writes CHECKPOINT events
//   SummarySaverHook     writes the summary op's values every N steps or
//                        seconds, a START event first
//   StepCounterHook      writes and logs global_step/sec every N steps or seconds
//   NanTensorHook        fails (or stops) when the loss is NaN
//   LoggingTensorHook    logs tensors every N steps or seconds, or at the end
//   FinalOpsHook         runs ops at the end and keeps their values
//   FeedFnHook           feeds what a function returns to every step
//   ProfilerHook         writes a step's timing as a Chrome trace every N
//                        steps or seconds
//
// Schedules follow SecondOrStepTimer; time comes from the hook's Env, so
// tests use a fake clock. Hooks that read the global step take its tensor
// (Options::global_step) or find it in the graph at Begin: the value of the
// variable "global_step" ("global_step/read:0"; a resource variable's
// ReadVariableOp), else FailedPrecondition "Global step should be created
// to use <hook>." Not thread-safe: a hook belongs to one MonitoredSession,
// which calls it from the thread that runs the step (SecondOrStepTimer
// likewise).

#ifndef MINIGRAPH_SESSION_BASIC_SESSION_RUN_HOOKS_H_
#define MINIGRAPH_SESSION_BASIC_SESSION_RUN_HOOKS_H_

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/env.h"
#include "core/events_writer.h"
#include "core/proto/meta_graph.pb.h"
#include "session/monitored_session.h"
#include "session/saver.h"

namespace minigraph {

// The global step's value tensor in `graph` (see above); `hook` names the
// hook in the error.
absl::StatusOr<std::string> FindGlobalStepTensor(const GraphDef& graph, absl::string_view hook);

// The global step's value as fetched (`name` is its tensor, for the
// message): an int64 or int32 scalar, else InvalidArgument.
absl::StatusOr<int64_t> StepValue(const Tensor& t, const std::string& name);
// Fetches the global step tensor `name` and returns its value.
absl::StatusOr<int64_t> ReadStep(Session* session, const std::string& name);

// Triggers at most once per step: the first time it is asked, then once
// every_secs have passed or every_steps steps gone by since it last
// triggered.
class SecondOrStepTimer {
 public:
  // InvalidArgument unless exactly one of the two is given, and positive.
  static absl::StatusOr<SecondOrStepTimer> Create(std::optional<double> every_secs,
                                                  std::optional<int64_t> every_steps,
                                                  Env* env = Env::Default());
  bool ShouldTriggerForStep(int64_t step) const;
  struct Elapsed {
    double secs;
    int64_t steps;
  };
  // Records a trigger at `step`, now; what passed since the last one
  // (nullopt the first time).
  std::optional<Elapsed> UpdateLastTriggeredStep(int64_t step);
  std::optional<int64_t> last_triggered_step() const { return last_step_; }
  void Reset() { last_step_.reset(); }

 private:
  SecondOrStepTimer(std::optional<double> every_secs, std::optional<int64_t> every_steps,
                    Env* env)
      : every_secs_(every_secs), every_steps_(every_steps), env_(env) {}
  std::optional<double> every_secs_;
  std::optional<int64_t> every_steps_;
  Env* env_;
  std::optional<int64_t> last_step_;
  uint64_t last_micros_ = 0;
};

// Stops at last_step, or num_steps after the step the first session
// started at.
class StopAtStepHook : public SessionRunHook {
 public:
  struct Options {
    std::optional<int64_t> num_steps = {};
    std::optional<int64_t> last_step = {};
    std::string global_step = {};
  };
  // InvalidArgument "One of num_steps or last_step must be specified." /
  // "Only one of num_steps or last_step can be specified."
  static absl::StatusOr<std::shared_ptr<StopAtStepHook>> Create(Options options);

  absl::Status Begin(const GraphDef& graph) override;
  absl::Status AfterCreateSession(Session* session, Coordinator* coord) override;
  absl::Status BeforeRun(SessionRunContext* context, SessionRunArgs* request) override;
  absl::Status AfterRun(SessionRunContext* context, const SessionRunValues& values) override;

  std::optional<int64_t> last_step() const { return last_step_; }

 private:
  explicit StopAtStepHook(Options o)
      : num_steps_(o.num_steps), last_step_(o.last_step), global_step_(std::move(o.global_step)) {}
  std::optional<int64_t> num_steps_;
  std::optional<int64_t> last_step_;
  std::string global_step_;
};

// Called around each save of a CheckpointSaverHook.
class CheckpointSaverListener {
 public:
  virtual ~CheckpointSaverListener() = default;
  virtual absl::Status Begin() { return absl::OkStatus(); }
  virtual absl::Status BeforeSave(Session* session, int64_t step) { return absl::OkStatus(); }
  // Returns true to stop the training.
  virtual absl::StatusOr<bool> AfterSave(Session* session, int64_t step) { return false; }
  virtual absl::Status End(Session* session, int64_t step) { return absl::OkStatus(); }
};

class CheckpointSaverHook : public SessionRunHook {
 public:
  struct Options {
    std::string checkpoint_dir;
    std::optional<double> save_secs = {};
    std::optional<int64_t> save_steps = {};
    Saver* saver = nullptr;  // required; not owned
    std::string checkpoint_basename = "model.ckpt";
    std::vector<std::shared_ptr<CheckpointSaverListener>> listeners = {};
    // CHECKPOINT events, the graph and the meta graph go here (optional).
    std::shared_ptr<EventsWriter> writer = {};
    // With save_graph_def: written as graph.pbtxt, to the event file, and
    // next to every checkpoint (".meta"). Not owned.
    const MetaGraphDef* meta_graph = nullptr;
    bool save_graph_def = true;
    // Beyond TensorFlow: the scheduled saves are Saver::SaveAsync (the
    // steps go on while a snapshot is written); the saves at the session's
    // start and at the end wait. A save in flight when a session is lost
    // (a ps restarted) is waited for before the session closes, and its
    // error logged, not returned.
    bool async_save = false;
    std::string global_step = {};
    Env* env = Env::Default();
  };
  // InvalidArgument unless exactly one of save_secs and save_steps is
  // given, or without a saver.
  static absl::StatusOr<std::shared_ptr<CheckpointSaverHook>> Create(Options options);

  absl::Status Begin(const GraphDef& graph) override;
  absl::Status AfterCreateSession(Session* session, Coordinator* coord) override;
  absl::Status BeforeRun(SessionRunContext* context, SessionRunArgs* request) override;
  absl::Status AfterRun(SessionRunContext* context, const SessionRunValues& values) override;
  absl::Status End(Session* session) override;
  void BeforeSessionClose(Session* session) override;

 private:
  CheckpointSaverHook(Options o, SecondOrStepTimer timer)
      : o_(std::move(o)), timer_(std::move(timer)) {}
  // Saves at `step` (in the background when `async`); returns whether a
  // listener asked to stop.
  absl::StatusOr<bool> Save(Session* session, int64_t step, bool async = false);
  Options o_;
  SecondOrStepTimer timer_;
};

class StepCounterHook : public SessionRunHook {
 public:
  struct Options {
    std::optional<int64_t> every_n_steps = {};
    std::optional<double> every_n_secs = {};
    std::shared_ptr<EventsWriter> writer = {};  // optional
    std::string global_step = {};
    Env* env = Env::Default();
    // Where "global_step/sec: 12.5" goes; default: the log (INFO).
    std::function<void(const std::string&)> log = {};
  };
  static absl::StatusOr<std::shared_ptr<StepCounterHook>> Create(Options options);

  absl::Status Begin(const GraphDef& graph) override;
  absl::Status BeforeRun(SessionRunContext* context, SessionRunArgs* request) override;
  absl::Status AfterRun(SessionRunContext* context, const SessionRunValues& values) override;

 private:
  StepCounterHook(Options o, SecondOrStepTimer timer)
      : o_(std::move(o)), timer_(std::move(timer)) {}
  Options o_;
  SecondOrStepTimer timer_;
  std::string tag_;
  std::optional<int64_t> last_global_step_;
  int warnings_ = 0;
};

class SummarySaverHook : public SessionRunHook {
 public:
  struct Options {
    std::optional<int64_t> save_steps = {};
    std::optional<double> save_secs = {};
    std::shared_ptr<EventsWriter> writer = {};
    // Tensors of serialized Summary protos (Scaffold::summary_op); may be
    // empty (then only the START event is written).
    std::vector<std::string> summary_op = {};
    std::string global_step = {};
    Env* env = Env::Default();
  };
  static absl::StatusOr<std::shared_ptr<SummarySaverHook>> Create(Options options);

  absl::Status Begin(const GraphDef& graph) override;
  absl::Status BeforeRun(SessionRunContext* context, SessionRunArgs* request) override;
  absl::Status AfterRun(SessionRunContext* context, const SessionRunValues& values) override;
  absl::Status End(Session* session) override;

 private:
  SummarySaverHook(Options o, SecondOrStepTimer timer)
      : o_(std::move(o)), timer_(std::move(timer)) {}
  Options o_;
  SecondOrStepTimer timer_;
  std::optional<int64_t> next_step_;
  bool request_summary_ = false;
};

class NanTensorHook : public SessionRunHook {
 public:
  // Fails with Internal "NaN loss during training." when `loss` (a float
  // or double scalar) is NaN; with fail_on_nan_loss false, stops instead.
  explicit NanTensorHook(std::string loss, bool fail_on_nan_loss = true)
      : loss_(std::move(loss)), fail_(fail_on_nan_loss) {}
  absl::Status BeforeRun(SessionRunContext* context, SessionRunArgs* request) override;
  absl::Status AfterRun(SessionRunContext* context, const SessionRunValues& values) override;

 private:
  const std::string loss_;
  const bool fail_;
};

class LoggingTensorHook : public SessionRunHook {
 public:
  struct Options {
    // (tag, tensor) in the order they are printed.
    std::vector<std::pair<std::string, std::string>> tensors;
    std::optional<int64_t> every_n_iter = {};
    std::optional<double> every_n_secs = {};
    bool at_end = false;
    // Formats the values (in `tensors`' order); default "tag = value, ...".
    std::function<std::string(const std::vector<std::pair<std::string, Tensor>>&)> formatter =
        {};
    Env* env = Env::Default();
    // Where each line goes; default: the log (INFO).
    std::function<void(const std::string&)> log = {};
  };
  // InvalidArgument "either at_end and/or exactly one of every_n_iter and
  // every_n_secs must be provided." or "invalid every_n_iter=N."
  static absl::StatusOr<std::shared_ptr<LoggingTensorHook>> Create(Options options);

  absl::Status Begin(const GraphDef& graph) override;
  absl::Status BeforeRun(SessionRunContext* context, SessionRunArgs* request) override;
  absl::Status AfterRun(SessionRunContext* context, const SessionRunValues& values) override;
  absl::Status End(Session* session) override;

 private:
  LoggingTensorHook(Options o, std::optional<SecondOrStepTimer> timer)
      : o_(std::move(o)), timer_(std::move(timer)) {}
  void Log(const std::vector<Tensor>& values);
  Options o_;
  std::optional<SecondOrStepTimer> timer_;  // nullopt: only at the end
  int64_t iter_count_ = 0;
  bool should_trigger_ = false;
};

class FinalOpsHook : public SessionRunHook {
 public:
  FinalOpsHook(std::vector<std::string> fetches, std::vector<std::string> targets = {},
               FeedList feeds = {})
      : fetches_(std::move(fetches)), targets_(std::move(targets)), feeds_(std::move(feeds)) {}
  absl::Status End(Session* session) override;
  // The fetches' values after End.
  const std::vector<Tensor>& final_ops_values() const { return values_; }

 private:
  const std::vector<std::string> fetches_;
  const std::vector<std::string> targets_;
  const FeedList feeds_;
  std::vector<Tensor> values_;
};

class FeedFnHook : public SessionRunHook {
 public:
  explicit FeedFnHook(std::function<FeedList()> feed_fn) : feed_fn_(std::move(feed_fn)) {}
  absl::Status BeforeRun(SessionRunContext* context, SessionRunArgs* request) override {
    request->feeds = feed_fn_();
    return absl::OkStatus();
  }

 private:
  std::function<FeedList()> feed_fn_;
};

// TensorFlow's ProfilerHook: every save_steps steps (or save_secs; never
// the first step) the step runs traced (FULL_TRACE) and its stats go to
// output_dir/timeline-STEP.json as a Chrome trace (chrome://tracing,
// Perfetto), an event per op as TensorFlow's timeline makes it
// (session/chrome_trace.h), and, given a writer, to TensorBoard as the
// step's run metadata ("step_STEP").
class ProfilerHook : public SessionRunHook {
 public:
  struct Options {
    std::optional<int64_t> save_steps = {};
    std::optional<double> save_secs = {};
    std::string output_dir;
    std::string global_step = {};
    // TensorFlow's show_dataflow: arrows from producers to consumers.
    bool show_dataflow = true;
    // Where the run metadata goes (TensorFlow's FileWriter of output_dir);
    // none: only the trace files.
    std::shared_ptr<EventsWriter> writer = {};
    Env* env = Env::Default();
  };
  static absl::StatusOr<std::shared_ptr<ProfilerHook>> Create(Options options);

  absl::Status Begin(const GraphDef& graph) override;
  absl::Status BeforeRun(SessionRunContext* context, SessionRunArgs* request) override;
  absl::Status AfterRun(SessionRunContext* context, const SessionRunValues& values) override;

 private:
  ProfilerHook(Options o, SecondOrStepTimer timer) : o_(std::move(o)), timer_(std::move(timer)) {}
  Options o_;
  SecondOrStepTimer timer_;
  std::optional<int64_t> next_step_;
  bool request_trace_ = false;
};

}  // namespace minigraph

#endif  // MINIGRAPH_SESSION_BASIC_SESSION_RUN_HOOKS_H_
