#include "session/supervisor.h"

#include <limits>
#include <tuple>
#include <utility>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/logging.h"
#include "core/path.h"
#include "core/proto/event.pb.h"
#include "core/proto/saver_def.pb.h"
#include "core/status_macros.h"
#include "runtime/cc/ops.h"
#include "runtime/cc/optimizers.h"
#include "runtime/cc/summary.h"
#include "runtime/cc/variables.h"
#include "session/basic_session_run_hooks.h"
#include "session/graph_files.h"
#include "session/queue_runner.h"
#include "session/scaffold.h"

namespace minigraph {
namespace {

// TensorFlow's _get_first_op_from_collection: the collection's first entry
// (a note when it has more), nullopt when it is empty.
std::optional<std::string> FirstOf(const Scope& scope, const std::string& key) {
  const std::vector<std::string> items = scope.GetCollection(key);
  if (items.size() > 1) {
    MG_LOG(INFO) << "Found " << items.size() << " " << key
                 << " operations. Returning the first one.";
  }
  if (items.empty()) return std::nullopt;
  return items[0];
}

// Fills `op` when it is USE_DEFAULT: from the collection `key`, else with
// `make()`'s op (when it makes one; it is recorded in the collection), else
// None.
absl::Status FillOp(const Scope& scope, const std::string& key,
                    const std::function<std::optional<std::string>()>& make,
                    std::optional<std::vector<std::string>>* op) {
  if (op->has_value()) return absl::OkStatus();
  std::optional<std::string> item = FirstOf(scope, key);
  if (!item && make) {
    item = make();
    MG_RETURN_IF_ERROR(scope.status());
    if (item) scope.AddToCollection(key, *item);
  }
  *op = item ? std::vector<std::string>{*item} : std::vector<std::string>{};
  return absl::OkStatus();
}

// TensorFlow's default local_init_op: group(local_variables_initializer(),
// tables_initializer()), the tables being the "table_initializer"
// collection's ops.
std::optional<std::string> DefaultLocalInit(const Scope& scope) {
  std::vector<Operation> inits = {LocalVariablesInitializer(scope)};
  for (const std::string& name : scope.GetCollection("table_initializer")) {
    absl::StatusOr<Operation> op = scope.FindOp(name.substr(0, name.find(':')));
    if (!op.ok()) {
      scope.UpdateStatus(absl::InvalidArgumentError(absl::StrCat(
          "the \"table_initializer\" collection names ", name, ", which the graph does not have")));
      return std::nullopt;
    }
    inits.push_back(*op);
  }
  return ops::Group(scope.WithOpName("group_deps"), inits).name();
}

// The global step's tensor and its counter's tag ("global_step/sec"), by
// TensorFlow's rule: the "global_step" collection's first variable, else
// the integer node "global_step".
std::pair<std::string, std::string> DefaultGlobalStep(const Scope& scope) {
  if (std::optional<std::string> entry = FirstOf(scope, kGlobalStepCollection)) {
    for (const Variable& v : GlobalVariables(scope)) {
      if (v.name() == *entry) return {v.value().tensor_name(), absl::StrCat(v.name(), "/sec")};
    }
    VariableDef def;
    if (def.ParseFromString(*entry) && !def.variable_name().empty()) {
      if (absl::StatusOr<Variable> v = Variable::FromDef(scope, def); v.ok()) {
        return {v->value().tensor_name(), absl::StrCat(v->name(), "/sec")};
      }
    }
  }
  absl::StatusOr<Operation> node = scope.FindOp("global_step");
  if (!node.ok() || node->num_outputs() == 0) return {"", ""};
  const DataType dtype = BaseType(node->output(0).dtype());
  if (dtype != DT_INT32 && dtype != DT_INT64) {
    MG_LOG(WARNING) << "Found 'global_step' is not an int type: " << DataTypeString(dtype);
    return {"", ""};
  }
  return {"global_step:0", "global_step/sec"};
}

// TensorFlow's _verify_setup: replicas need every variable placed.
absl::Status VerifySetup(const GraphDef& graph) {
  for (const NodeDef& n : graph.node()) {
    if ((n.op() == "Variable" || n.op() == "VariableV2") && n.device().empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "When using replicas, all Variables must have their device set: name: \"", n.name(),
          "\" op: \"", n.op(), "\""));
    }
  }
  return absl::OkStatus();
}

SessionLog Log(SessionLog::SessionStatus status, const std::string& checkpoint_path = "") {
  SessionLog log;
  log.set_status(status);
  if (!checkpoint_path.empty()) log.set_checkpoint_path(checkpoint_path);
  return log;
}

}  // namespace

absl::StatusOr<std::unique_ptr<Supervisor>> Supervisor::Create(const Scope& scope,
                                                               SupervisorOptions options) {
  MG_RETURN_IF_ERROR(scope.status());
  if (options.env == nullptr) return absl::InvalidArgumentError("SupervisorOptions::env is null");
  std::unique_ptr<Supervisor> sv(new Supervisor(std::move(options)));
  SupervisorOptions& o = sv->o_;
  MG_RETURN_IF_ERROR(FillOp(scope, kReadyOpCollection, [&]() -> std::optional<std::string> {
    return ReportUninitializedVariables(scope).tensor_name();
  }, &o.ready_op));
  MG_RETURN_IF_ERROR(FillOp(scope, kReadyForLocalInitOpCollection, {},
                            &o.ready_for_local_init_op));
  MG_RETURN_IF_ERROR(FillOp(scope, kInitOpCollection, [&]() -> std::optional<std::string> {
    return GlobalVariablesInitializer(scope).name();
  }, &o.init_op));
  MG_RETURN_IF_ERROR(FillOp(scope, kLocalInitOpCollection,
                            [&] { return DefaultLocalInit(scope); }, &o.local_init_op));
  if (!o.saver.has_value()) {
    o.saver = nullptr;
    if (std::optional<std::string> def = FirstOf(scope, kSaversCollection)) {
      SaverDef saver_def;
      if (!saver_def.ParseFromString(*def)) {
        return absl::InvalidArgumentError(
            absl::StrCat("the \"", kSaversCollection, "\" collection holds a malformed SaverDef"));
      }
      sv->owned_saver_ = Saver::FromSaverDef(saver_def, o.env);
    } else if (!GlobalVariables(scope).empty()) {
      MG_ASSIGN_OR_RETURN(sv->owned_saver_, Saver::Create(scope, {}, o.env));
      scope.AddBytesToCollection(kSaversCollection,
                                 sv->owned_saver_->saver_def().SerializeAsString());
    }
    o.saver = sv->owned_saver_.get();
  }
  MG_RETURN_IF_ERROR(FillOp(scope, summary::kSummaryOpCollection,
                            [&]() -> std::optional<std::string> {
    std::optional<Output> merged = summary::MergeAll(scope);
    if (!merged) return std::nullopt;  // no summaries: None
    return merged->tensor_name();
  }, &o.summary_op));
  if (!o.global_step.has_value()) {
    std::tie(o.global_step, sv->step_tag_) = DefaultGlobalStep(scope);
  } else if (!o.global_step->empty()) {
    sv->step_tag_ = absl::StrCat(o.global_step->substr(0, o.global_step->find(':')), "/sec");
  }
  if (*o.saver != nullptr) scope.SetSaverDef((*o.saver)->saver_def());
  MG_RETURN_IF_ERROR(scope.status());
  MG_ASSIGN_OR_RETURN(sv->meta_graph_, scope.ToMetaGraphDef());
  if (o.is_chief) {
    if (!o.logdir.empty()) sv->save_path_ = JoinPath(o.logdir, o.checkpoint_basename);
    if (!o.summary_writer.has_value()) {
      if (!o.logdir.empty()) {
        MG_ASSIGN_OR_RETURN(sv->writer_, EventsWriter::Create(o.logdir, {.env = o.env}));
      }
    } else {
      sv->writer_ = *o.summary_writer;
    }
  } else {
    o.logdir.clear();
    MG_RETURN_IF_ERROR(VerifySetup(sv->meta_graph_.graph_def()));
  }
  SessionManager::Options sm;
  sm.local_init_op = *o.local_init_op;
  sm.ready_op = *o.ready_op;
  sm.ready_for_local_init_op = *o.ready_for_local_init_op;
  sm.recovery_wait = o.recovery_wait;
  sm.local_init_run_options = o.local_init_run_options;
  sm.env = o.env;
  MG_ASSIGN_OR_RETURN(sv->session_manager_,
                      SessionManager::Create(sv->meta_graph_.graph_def(), std::move(sm)));
  return sv;
}

Supervisor::~Supervisor() { coord_.RequestStop(); }

absl::Status Supervisor::WriteGraph() {
  if (!o_.logdir.empty()) {
    MG_RETURN_IF_ERROR(WriteGraphText(o_.env, meta_graph_.graph_def(), o_.logdir));
  }
  if (writer_ != nullptr && !graph_added_to_summary_) {
    MG_RETURN_IF_ERROR(writer_->AddGraph(meta_graph_.graph_def()));
    MG_RETURN_IF_ERROR(writer_->AddMetaGraph(meta_graph_));
    graph_added_to_summary_ = true;
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<Session>> Supervisor::PrepareOrWaitForSession(
    const std::string& master, SessionOptions config, bool wait_for_checkpoint,
    absl::Duration max_wait, bool start_standard_services) {
  coord_.ClearStop();
  if (writer_ != nullptr) MG_RETURN_IF_ERROR(writer_->Reopen());
  std::unique_ptr<Session> session;
  // A failure once threads may run on the session stops them before the
  // session goes.
  auto fail = [this](absl::Status s) {
    coord_.RequestStop();
    coord_.Join(/*ignore_live_threads=*/true).IgnoreError();
    return s;
  };
  if (o_.is_chief) {
    SessionManager::PrepareOptions p;
    p.init_op = *o_.init_op;
    p.saver = *o_.saver;
    p.checkpoint_dir = o_.logdir;
    p.wait_for_checkpoint = wait_for_checkpoint;
    p.max_wait = max_wait;
    p.config = std::move(config);
    p.init_feed_dict = o_.init_feed_dict;
    p.init_fn = o_.init_fn;
    MG_ASSIGN_OR_RETURN(session, session_manager_->PrepareSession(master, p));
    MG_RETURN_IF_ERROR(WriteGraph());
    if (start_standard_services) {
      MG_LOG(INFO) << "Starting standard services.";
      if (absl::Status s = StartStandardServices(session.get()); !s.ok()) return fail(s);
    }
  } else {
    MG_ASSIGN_OR_RETURN(session,
                        session_manager_->WaitForSession(master, std::move(config), max_wait));
  }
  if (start_standard_services) {
    MG_LOG(INFO) << "Starting queue runners.";
    if (absl::Status s = StartQueueRunners(session.get()); !s.ok()) return fail(s);
  }
  return session;
}

absl::Status Supervisor::StartStandardServices(Session* session) {
  if (!o_.is_chief) {
    return absl::FailedPreconditionError(
        "Only chief supervisor can start standard services. Because only chief supervisors "
        "can write events.");
  }
  if (o_.logdir.empty()) {
    MG_LOG(WARNING) << "Standard services need a 'logdir' passed to the SessionManager";
    return absl::OkStatus();
  }
  const bool has_step = !o_.global_step->empty();
  if (has_step && writer_ != nullptr) {
    MG_ASSIGN_OR_RETURN(int64_t step, ReadStep(session, *o_.global_step));
    MG_RETURN_IF_ERROR(writer_->AddSessionLog(Log(SessionLog::START), step));
  }
  Env* env = o_.env;
  if (o_.save_summaries > absl::ZeroDuration() && writer_ != nullptr) {
    if (!o_.summary_op->empty()) {
      StartLooper(&coord_, "SVSummaryThread", o_.save_summaries, env,
                  [this, session, has_step]() -> absl::Status {
        std::vector<std::string> fetches = *o_.summary_op;
        if (has_step) fetches.push_back(*o_.global_step);
        std::vector<Tensor> out;
        MG_RETURN_IF_ERROR(session->Run({}, fetches, {}, &out));
        int64_t step = 0;
        if (has_step) {
          MG_ASSIGN_OR_RETURN(step, StepValue(out.back(), *o_.global_step));
        }
        if (out[0].dtype() != DT_STRING || out[0].NumElements() != 1) {
          return absl::InvalidArgumentError(absl::StrCat(
              "the summary op ", fetches[0], " gave a ", DataTypeString(out[0].dtype()),
              " tensor of shape ", out[0].shape().DebugString(),
              ", not a serialized Summary (a string scalar)"));
        }
        MG_LOG(INFO) << "Recording summary at step " << step << ".";
        return writer_->AddSummary(out[0].data<std::string>()[0], step);
      });
    }
    if (has_step) {
      // Steps per second since the last call (TensorFlow's SVStepCounterThread).
      struct Counter {
        double last_time = 0;
        int64_t last_step = 0;
        int logged = 0;
      };
      auto counter = std::make_shared<Counter>();
      StartLooper(
          &coord_, "SVStepCounterThread", o_.save_summaries, env,
          [this, session, env, counter]() -> absl::Status {
            MG_ASSIGN_OR_RETURN(int64_t step, ReadStep(session, *o_.global_step));
            const double now = env->NowSeconds();
            const double elapsed = now - counter->last_time;
            const double rate = elapsed > 0 ? (step - counter->last_step) / elapsed
                                            : std::numeric_limits<double>::infinity();
            counter->last_step = step;
            counter->last_time = now;
            if (counter->logged < 10) {
              ++counter->logged;
              MG_LOG(INFO) << step_tag_ << ": " << rate;
            }
            return writer_->AddScalar(step_tag_, static_cast<float>(rate), step);
          },
          [this, session, env, counter]() -> absl::Status {
            counter->last_time = env->NowSeconds();
            MG_ASSIGN_OR_RETURN(counter->last_step, ReadStep(session, *o_.global_step));
            return absl::OkStatus();
          });
    }
  }
  if (*o_.saver != nullptr && o_.save_model > absl::ZeroDuration()) {
    StartLooper(&coord_, "SVTimerCheckpointThread", o_.save_model, env,
                [this, session, has_step]() -> absl::Status {
      MG_LOG(INFO) << "Saving checkpoint to path " << save_path_;
      SaveOptions save;
      save.meta_graph = &meta_graph_;
      if (has_step) {
        MG_ASSIGN_OR_RETURN(save.global_step, ReadStep(session, *o_.global_step));
      }
      MG_RETURN_IF_ERROR((*o_.saver)->Save(session, save_path_, save).status());
      if (writer_ != nullptr && has_step) {
        MG_ASSIGN_OR_RETURN(int64_t step, ReadStep(session, *o_.global_step));
        MG_RETURN_IF_ERROR(
            writer_->AddSessionLog(Log(SessionLog::CHECKPOINT, save_path_), step));
      }
      return absl::OkStatus();
    });
  }
  return absl::OkStatus();
}

absl::Status Supervisor::StartQueueRunners(Session* session,
                                           std::optional<std::vector<QueueRunnerDef>> runners) {
  if (!runners) {
    MG_ASSIGN_OR_RETURN(runners, QueueRunnersOf(meta_graph_));
  }
  for (const QueueRunnerDef& def : *runners) {
    MG_RETURN_IF_ERROR(StartQueueRunner(def, session, &coord_));
  }
  return absl::OkStatus();
}

void Supervisor::Loop(std::optional<absl::Duration> interval,
                      std::function<absl::Status()> target, std::string name) {
  StartLooper(&coord_, std::move(name), interval, o_.env, std::move(target));
}

absl::Status Supervisor::Stop(bool close_summary_writer, bool ignore_live_threads) {
  coord_.RequestStop();
  absl::Status s = coord_.Join(ignore_live_threads);
  // The writer last, in case a thread was still using it.
  if (close_summary_writer && writer_ != nullptr) {
    // Not at a step: the session may be gone.
    absl::Status closed = writer_->AddSessionLog(Log(SessionLog::STOP), 0);
    closed.Update(writer_->Close());
    if (!closed.ok()) MG_LOG(WARNING) << "closing the summary writer: " << closed;
    graph_added_to_summary_ = false;
  }
  return s;
}

absl::Status Supervisor::SummaryComputed(Session* session, absl::string_view summary,
                                         std::optional<int64_t> step) {
  if (writer_ == nullptr) {
    return absl::FailedPreconditionError("Writing a summary requires a summary writer.");
  }
  if (!step && !o_.global_step->empty()) {
    MG_ASSIGN_OR_RETURN(step, ReadStep(session, *o_.global_step));
  }
  return writer_->AddSummary(summary, step.value_or(0));
}

absl::Status Supervisor::ManagedSession(const std::string& master, SessionOptions config,
                                        const std::function<absl::Status(Session*)>& body,
                                        bool start_standard_services,
                                        bool close_summary_writer) {
  absl::StatusOr<std::unique_ptr<Session>> session = PrepareOrWaitForSession(
      master, std::move(config), false, absl::Seconds(7200), start_standard_services);
  if (!session.ok()) {
    RequestStop(session.status());
  } else if (absl::Status s = body(session->get()); !s.ok()) {
    RequestStop(std::move(s));
  }
  absl::Status stopped = Stop(close_summary_writer);
  if (session.ok()) {
    // As TensorFlow's: an error closing is not the run's.
    if (absl::Status c = (*session)->Close(); !c.ok()) MG_LOG(INFO) << "Ignored: " << c;
  }
  return stopped;
}

}  // namespace minigraph
