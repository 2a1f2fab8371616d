#include "session/basic_session_run_hooks.h"

#include <cmath>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "core/logging.h"
#include "core/path.h"
#include "core/proto/config.pb.h"
#include "core/proto/step_stats.pb.h"
#include "core/status_macros.h"
#include "session/chrome_trace.h"
#include "session/graph_files.h"

namespace minigraph {
namespace {

// Options::global_step, or the graph's.
absl::Status ResolveGlobalStep(const GraphDef& graph, absl::string_view hook, std::string* name) {
  if (!name->empty()) return absl::OkStatus();
  MG_ASSIGN_OR_RETURN(*name, FindGlobalStepTensor(graph, hook));
  return absl::OkStatus();
}

void LogOr(const std::function<void(const std::string&)>& log, const std::string& line) {
  if (log) {
    log(line);
  } else {
    MG_LOG(INFO) << line;
  }
}

// A scalar's value as Python prints it; tensors of more elements by
// Tensor::DebugString.
std::string ValueText(const Tensor& t) {
  if (t.NumElements() == 1) {
    switch (t.dtype()) {
      case DT_FLOAT: return absl::StrFormat("%g", *t.data<float>());
      case DT_DOUBLE: return absl::StrFormat("%g", *t.data<double>());
      case DT_INT32: return absl::StrCat(*t.data<int32_t>());
      case DT_INT64: return absl::StrCat(*t.data<int64_t>());
      case DT_BOOL: return *t.data<bool>() ? "True" : "False";
      case DT_STRING: return *t.data<std::string>();
      default: break;
    }
  }
  return t.DebugString();
}

}  // namespace

absl::StatusOr<int64_t> StepValue(const Tensor& t, const std::string& name) {
  if (t.NumElements() == 1 && t.dtype() == DT_INT64) return *t.data<int64_t>();
  if (t.NumElements() == 1 && t.dtype() == DT_INT32) return *t.data<int32_t>();
  return absl::InvalidArgumentError(absl::StrCat(
      "the global step ", name, " is a tensor of dtype ", DataTypeString(t.dtype()),
      " and shape ", t.shape().DebugString(), "; the hooks need an int64 scalar"));
}

absl::StatusOr<int64_t> ReadStep(Session* session, const std::string& name) {
  std::vector<Tensor> out;
  MG_RETURN_IF_ERROR(session->Run({}, {name}, {}, &out));
  return StepValue(out[0], name);
}

absl::StatusOr<std::string> FindGlobalStepTensor(const GraphDef& graph, absl::string_view hook) {
  const NodeDef* var = nullptr;
  for (const NodeDef& n : graph.node()) {
    if (n.name() == "global_step") var = &n;
  }
  if (var != nullptr && var->op() == "VarHandleOp") {
    for (const NodeDef& n : graph.node()) {
      if (n.op() == "ReadVariableOp" && n.input_size() > 0 && n.input(0) == "global_step") {
        return absl::StrCat(n.name(), ":0");
      }
    }
  } else if (var != nullptr) {
    for (const NodeDef& n : graph.node()) {
      if (n.name() == "global_step/read") return std::string("global_step/read:0");
    }
    return std::string("global_step:0");
  }
  return absl::FailedPreconditionError(
      absl::StrCat("Global step should be created to use ", hook, "."));
}

// SecondOrStepTimer --------------------------------------------------------

absl::StatusOr<SecondOrStepTimer> SecondOrStepTimer::Create(std::optional<double> every_secs,
                                                            std::optional<int64_t> every_steps,
                                                            Env* env) {
  if (!every_secs && !every_steps) {
    return absl::InvalidArgumentError("Either every_secs or every_steps should be provided.");
  }
  if (every_secs && every_steps) {
    return absl::InvalidArgumentError("Can not provide both every_secs and every_steps.");
  }
  if ((every_secs && !(*every_secs > 0)) || (every_steps && *every_steps <= 0)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "a hook's schedule must be positive, got ",
        every_secs ? absl::StrCat("every_secs=", *every_secs)
                   : absl::StrCat("every_steps=", *every_steps)));
  }
  if (env == nullptr) return absl::InvalidArgumentError("SecondOrStepTimer needs an Env");
  return SecondOrStepTimer(every_secs, every_steps, env);
}

bool SecondOrStepTimer::ShouldTriggerForStep(int64_t step) const {
  if (!last_step_) return true;
  if (*last_step_ == step) return false;
  if (every_secs_ &&
      env_->NowMicros() >= last_micros_ + static_cast<uint64_t>(*every_secs_ * 1e6)) {
    return true;
  }
  return every_steps_ && step >= *last_step_ + *every_steps_;
}

std::optional<SecondOrStepTimer::Elapsed> SecondOrStepTimer::UpdateLastTriggeredStep(
    int64_t step) {
  const uint64_t now = env_->NowMicros();
  std::optional<Elapsed> elapsed;
  if (last_step_) elapsed = Elapsed{(now - last_micros_) * 1e-6, step - *last_step_};
  last_micros_ = now;
  last_step_ = step;
  return elapsed;
}

// StopAtStepHook -----------------------------------------------------------

absl::StatusOr<std::shared_ptr<StopAtStepHook>> StopAtStepHook::Create(Options options) {
  if (!options.num_steps && !options.last_step) {
    return absl::InvalidArgumentError("One of num_steps or last_step must be specified.");
  }
  if (options.num_steps && options.last_step) {
    return absl::InvalidArgumentError("Only one of num_steps or last_step can be specified.");
  }
  return std::shared_ptr<StopAtStepHook>(new StopAtStepHook(std::move(options)));
}

absl::Status StopAtStepHook::Begin(const GraphDef& graph) {
  return ResolveGlobalStep(graph, "StopAtStepHook", &global_step_);
}

absl::Status StopAtStepHook::AfterCreateSession(Session* session, Coordinator*) {
  if (!last_step_) {
    MG_ASSIGN_OR_RETURN(int64_t step, ReadStep(session, global_step_));
    last_step_ = step + *num_steps_;
  }
  return absl::OkStatus();
}

absl::Status StopAtStepHook::BeforeRun(SessionRunContext*, SessionRunArgs* request) {
  request->fetches = {global_step_};
  return absl::OkStatus();
}

absl::Status StopAtStepHook::AfterRun(SessionRunContext* context,
                                      const SessionRunValues& values) {
  MG_ASSIGN_OR_RETURN(int64_t stale, StepValue(values.results[0], global_step_));
  if (stale + 1 >= *last_step_) {
    // The fetched value may predate this step's increment: read it again.
    MG_ASSIGN_OR_RETURN(int64_t step, ReadStep(context->session(), global_step_));
    if (step >= *last_step_) context->RequestStop();
  }
  return absl::OkStatus();
}

// CheckpointSaverHook ------------------------------------------------------

absl::StatusOr<std::shared_ptr<CheckpointSaverHook>> CheckpointSaverHook::Create(
    Options options) {
  if (options.saver == nullptr) {
    return absl::InvalidArgumentError("CheckpointSaverHook needs a saver");
  }
  if (options.checkpoint_dir.empty()) {
    return absl::InvalidArgumentError("CheckpointSaverHook needs a checkpoint directory");
  }
  MG_ASSIGN_OR_RETURN(SecondOrStepTimer timer, SecondOrStepTimer::Create(
                                                   options.save_secs, options.save_steps,
                                                   options.env));
  return std::shared_ptr<CheckpointSaverHook>(
      new CheckpointSaverHook(std::move(options), std::move(timer)));
}

absl::Status CheckpointSaverHook::Begin(const GraphDef& graph) {
  MG_RETURN_IF_ERROR(ResolveGlobalStep(graph, "CheckpointSaverHook", &o_.global_step));
  for (const auto& l : o_.listeners) MG_RETURN_IF_ERROR(l->Begin());
  return absl::OkStatus();
}

void CheckpointSaverHook::BeforeSessionClose(Session*) {
  if (absl::StatusOr<std::string> last = o_.saver->Wait(); !last.ok()) {
    MG_LOG(WARNING) << "the checkpoint being written when the session closed failed: "
                    << last.status();
  }
}

absl::Status CheckpointSaverHook::AfterCreateSession(Session* session, Coordinator*) {
  MG_ASSIGN_OR_RETURN(int64_t step, ReadStep(session, o_.global_step));
  if (o_.save_graph_def && o_.meta_graph != nullptr) {
    MG_RETURN_IF_ERROR(WriteGraphText(o_.env, o_.meta_graph->graph_def(), o_.checkpoint_dir));
    if (o_.writer != nullptr) {
      MG_RETURN_IF_ERROR(o_.writer->AddGraph(o_.meta_graph->graph_def()));
      MG_RETURN_IF_ERROR(o_.writer->AddMetaGraph(*o_.meta_graph));
    }
  }
  // A stop asked for here is seen at the first step's schedule.
  MG_RETURN_IF_ERROR(Save(session, step).status());
  timer_.UpdateLastTriggeredStep(step);
  return absl::OkStatus();
}

absl::Status CheckpointSaverHook::BeforeRun(SessionRunContext*, SessionRunArgs* request) {
  request->fetches = {o_.global_step};
  return absl::OkStatus();
}

absl::Status CheckpointSaverHook::AfterRun(SessionRunContext* context,
                                           const SessionRunValues& values) {
  MG_ASSIGN_OR_RETURN(int64_t stale, StepValue(values.results[0], o_.global_step));
  if (!timer_.ShouldTriggerForStep(stale + 1)) return absl::OkStatus();
  MG_ASSIGN_OR_RETURN(int64_t step, ReadStep(context->session(), o_.global_step));
  if (!timer_.ShouldTriggerForStep(step)) return absl::OkStatus();
  timer_.UpdateLastTriggeredStep(step);
  MG_ASSIGN_OR_RETURN(bool stop, Save(context->session(), step, o_.async_save));
  if (stop) context->RequestStop();
  return absl::OkStatus();
}

absl::Status CheckpointSaverHook::End(Session* session) {
  MG_ASSIGN_OR_RETURN(int64_t step, ReadStep(session, o_.global_step));
  if (timer_.last_triggered_step() != step) MG_RETURN_IF_ERROR(Save(session, step).status());
  for (const auto& l : o_.listeners) MG_RETURN_IF_ERROR(l->End(session, step));
  return absl::OkStatus();
}

absl::StatusOr<bool> CheckpointSaverHook::Save(Session* session, int64_t step, bool async) {
  for (const auto& l : o_.listeners) MG_RETURN_IF_ERROR(l->BeforeSave(session, step));
  const std::string prefix = JoinPath(o_.checkpoint_dir, o_.checkpoint_basename);
  MG_LOG(INFO) << "Saving checkpoints for " << step << " into " << prefix << ".";
  SaveOptions save;
  save.global_step = step;
  if (o_.save_graph_def) save.meta_graph = o_.meta_graph;
  if (async) {
    MG_RETURN_IF_ERROR(o_.saver->SaveAsync(session, prefix, save).status());
  } else {
    MG_RETURN_IF_ERROR(o_.saver->Save(session, prefix, save).status());
  }
  if (o_.writer != nullptr) {
    SessionLog log;
    log.set_status(SessionLog::CHECKPOINT);
    log.set_checkpoint_path(prefix);
    MG_RETURN_IF_ERROR(o_.writer->AddSessionLog(log, step));
  }
  bool stop = false;
  for (const auto& l : o_.listeners) {
    MG_ASSIGN_OR_RETURN(bool asked, l->AfterSave(session, step));
    if (asked) {
      MG_LOG(INFO) << "A CheckpointSaverListener requested that training be stopped.";
      stop = true;
    }
  }
  return stop;
}

// StepCounterHook ----------------------------------------------------------

absl::StatusOr<std::shared_ptr<StepCounterHook>> StepCounterHook::Create(Options options) {
  if (options.every_n_steps.has_value() == options.every_n_secs.has_value()) {
    return absl::InvalidArgumentError(
        "exactly one of every_n_steps and every_n_secs should be provided.");
  }
  MG_ASSIGN_OR_RETURN(SecondOrStepTimer timer,
                      SecondOrStepTimer::Create(options.every_n_secs, options.every_n_steps,
                                                options.env));
  return std::shared_ptr<StepCounterHook>(
      new StepCounterHook(std::move(options), std::move(timer)));
}

absl::Status StepCounterHook::Begin(const GraphDef& graph) {
  MG_RETURN_IF_ERROR(ResolveGlobalStep(graph, "StepCounterHook", &o_.global_step));
  // The variable's name, as TensorFlow's get_global_step().op.name.
  std::string var = o_.global_step.substr(0, o_.global_step.find(':'));
  if (absl::EndsWith(var, "/read")) var.resize(var.size() - 5);
  if (absl::EndsWith(var, "/Read/ReadVariableOp")) var.resize(var.size() - 20);
  tag_ = absl::StrCat(var, "/sec");
  return absl::OkStatus();
}

absl::Status StepCounterHook::BeforeRun(SessionRunContext*, SessionRunArgs* request) {
  request->fetches = {o_.global_step};
  return absl::OkStatus();
}

absl::Status StepCounterHook::AfterRun(SessionRunContext* context,
                                       const SessionRunValues& values) {
  MG_ASSIGN_OR_RETURN(int64_t stale, StepValue(values.results[0], o_.global_step));
  if (timer_.ShouldTriggerForStep(stale + 1)) {
    MG_ASSIGN_OR_RETURN(int64_t step, ReadStep(context->session(), o_.global_step));
    if (timer_.ShouldTriggerForStep(step)) {
      std::optional<SecondOrStepTimer::Elapsed> e = timer_.UpdateLastTriggeredStep(step);
      if (e && e->secs > 0) {
        const double per_sec = e->steps / e->secs;
        if (o_.writer != nullptr) {
          MG_RETURN_IF_ERROR(o_.writer->AddScalar(tag_, static_cast<float>(per_sec), step));
        }
        LogOr(o_.log, absl::StrFormat("%s: %g", tag_, per_sec));
      }
    }
  }
  if (last_global_step_ == stale && warnings_ < 5) {
    ++warnings_;
    MG_LOG(WARNING) << "It seems that global step has not been increased. Current value (could "
                       "be stable): "
                    << stale << " vs previous value: " << *last_global_step_
                    << ". You could increase the global step by passing the global step to "
                       "Optimizer::Minimize or ApplyGradients.";
  }
  last_global_step_ = stale;
  return absl::OkStatus();
}

// SummarySaverHook ---------------------------------------------------------

absl::StatusOr<std::shared_ptr<SummarySaverHook>> SummarySaverHook::Create(Options options) {
  MG_ASSIGN_OR_RETURN(SecondOrStepTimer timer,
                      SecondOrStepTimer::Create(options.save_secs, options.save_steps,
                                                options.env));
  return std::shared_ptr<SummarySaverHook>(
      new SummarySaverHook(std::move(options), std::move(timer)));
}

absl::Status SummarySaverHook::Begin(const GraphDef& graph) {
  next_step_.reset();
  return ResolveGlobalStep(graph, "SummarySaverHook", &o_.global_step);
}

absl::Status SummarySaverHook::BeforeRun(SessionRunContext*, SessionRunArgs* request) {
  request_summary_ = !next_step_ || timer_.ShouldTriggerForStep(*next_step_);
  request->fetches = {o_.global_step};
  if (request_summary_) {
    request->fetches.insert(request->fetches.end(), o_.summary_op.begin(), o_.summary_op.end());
  }
  return absl::OkStatus();
}

absl::Status SummarySaverHook::AfterRun(SessionRunContext* context,
                                        const SessionRunValues& values) {
  if (o_.writer == nullptr) return absl::OkStatus();
  MG_ASSIGN_OR_RETURN(int64_t stale, StepValue(values.results[0], o_.global_step));
  int64_t step = stale + 1;
  if (!next_step_ || request_summary_) {
    MG_ASSIGN_OR_RETURN(step, ReadStep(context->session(), o_.global_step));
  }
  if (!next_step_) {
    SessionLog log;
    log.set_status(SessionLog::START);
    MG_RETURN_IF_ERROR(o_.writer->AddSessionLog(log, step));
  }
  if (request_summary_) {
    timer_.UpdateLastTriggeredStep(step);
    for (size_t i = 1; i < values.results.size(); ++i) {
      const Tensor& t = values.results[i];
      if (t.dtype() != DT_STRING || t.NumElements() != 1) {
        return absl::InvalidArgumentError(absl::StrCat(
            "the summary op ", o_.summary_op[i - 1], " gave a tensor of dtype ",
            DataTypeString(t.dtype()), " and shape ", t.shape().DebugString(),
            ", not a serialized Summary"));
      }
      MG_RETURN_IF_ERROR(o_.writer->AddSummary(*t.data<std::string>(), step));
    }
  }
  next_step_ = step + 1;
  return absl::OkStatus();
}

absl::Status SummarySaverHook::End(Session*) {
  return o_.writer != nullptr ? o_.writer->Flush() : absl::OkStatus();
}

// NanTensorHook ------------------------------------------------------------

absl::Status NanTensorHook::BeforeRun(SessionRunContext*, SessionRunArgs* request) {
  request->fetches = {loss_};
  return absl::OkStatus();
}

absl::Status NanTensorHook::AfterRun(SessionRunContext* context,
                                     const SessionRunValues& values) {
  const Tensor& t = values.results[0];
  double v = 0;
  if (t.NumElements() == 1 && t.dtype() == DT_FLOAT) {
    v = *t.data<float>();
  } else if (t.NumElements() == 1 && t.dtype() == DT_DOUBLE) {
    v = *t.data<double>();
  } else {
    return absl::InvalidArgumentError(
        absl::StrCat("NanTensorHook's loss ", loss_, " is a tensor of dtype ",
                     DataTypeString(t.dtype()), " and shape ", t.shape().DebugString(),
                     ", not a float scalar"));
  }
  if (!std::isnan(v)) return absl::OkStatus();
  if (fail_) {
    MG_LOG(ERROR) << "Model diverged with loss = NaN.";
    return absl::InternalError(absl::StrCat("NaN loss during training (", loss_, ")."));
  }
  MG_LOG(WARNING) << "Model diverged with loss = NaN.";
  context->RequestStop();
  return absl::OkStatus();
}

// LoggingTensorHook --------------------------------------------------------

absl::StatusOr<std::shared_ptr<LoggingTensorHook>> LoggingTensorHook::Create(Options options) {
  const bool only_at_end = options.at_end && !options.every_n_iter && !options.every_n_secs;
  if (!only_at_end && options.every_n_iter.has_value() == options.every_n_secs.has_value()) {
    return absl::InvalidArgumentError(
        "either at_end and/or exactly one of every_n_iter and every_n_secs must be provided.");
  }
  if (options.every_n_iter && *options.every_n_iter <= 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("invalid every_n_iter=", *options.every_n_iter, "."));
  }
  std::optional<SecondOrStepTimer> timer;
  if (!only_at_end) {
    MG_ASSIGN_OR_RETURN(timer, SecondOrStepTimer::Create(options.every_n_secs,
                                                         options.every_n_iter, options.env));
  }
  return std::shared_ptr<LoggingTensorHook>(
      new LoggingTensorHook(std::move(options), std::move(timer)));
}

absl::Status LoggingTensorHook::Begin(const GraphDef&) {
  if (timer_) timer_->Reset();
  iter_count_ = 0;
  return absl::OkStatus();
}

absl::Status LoggingTensorHook::BeforeRun(SessionRunContext*, SessionRunArgs* request) {
  should_trigger_ = timer_ && timer_->ShouldTriggerForStep(iter_count_);
  if (should_trigger_) {
    for (const auto& [tag, tensor] : o_.tensors) request->fetches.push_back(tensor);
  }
  return absl::OkStatus();
}

void LoggingTensorHook::Log(const std::vector<Tensor>& values) {
  std::optional<SecondOrStepTimer::Elapsed> e;
  if (timer_) e = timer_->UpdateLastTriggeredStep(iter_count_);
  std::vector<std::pair<std::string, Tensor>> tagged;
  for (size_t i = 0; i < values.size(); ++i) tagged.emplace_back(o_.tensors[i].first, values[i]);
  if (o_.formatter) {
    LogOr(o_.log, o_.formatter(tagged));
    return;
  }
  std::vector<std::string> stats;
  for (const auto& [tag, value] : tagged) {
    stats.push_back(absl::StrCat(tag, " = ", ValueText(value)));
  }
  std::string line = absl::StrJoin(stats, ", ");
  if (e) absl::StrAppendFormat(&line, " (%.3f sec)", e->secs);
  LogOr(o_.log, line);
}

absl::Status LoggingTensorHook::AfterRun(SessionRunContext*, const SessionRunValues& values) {
  if (should_trigger_) Log(values.results);
  ++iter_count_;
  return absl::OkStatus();
}

absl::Status LoggingTensorHook::End(Session* session) {
  if (!o_.at_end) return absl::OkStatus();
  std::vector<std::string> fetches;
  for (const auto& [tag, tensor] : o_.tensors) fetches.push_back(tensor);
  std::vector<Tensor> values;
  MG_RETURN_IF_ERROR(session->Run({}, fetches, {}, &values));
  Log(values);
  return absl::OkStatus();
}

// FinalOpsHook -------------------------------------------------------------

absl::Status FinalOpsHook::End(Session* session) {
  absl::Status s = session->Run(feeds_, fetches_, targets_, &values_);
  if (absl::IsOutOfRange(s)) {
    MG_LOG(WARNING) << "An OutOfRange error came from the ops of a FinalOpsHook: they depend on "
                       "an input source, which they should not (a metric's value op should "
                       "read variables only, not another batch).";
  }
  return s;
}

// ProfilerHook -------------------------------------------------------------

absl::StatusOr<std::shared_ptr<ProfilerHook>> ProfilerHook::Create(Options options) {
  if (options.output_dir.empty()) {
    return absl::InvalidArgumentError("ProfilerHook needs an output directory");
  }
  MG_ASSIGN_OR_RETURN(SecondOrStepTimer timer,
                      SecondOrStepTimer::Create(options.save_secs, options.save_steps,
                                                options.env));
  return std::shared_ptr<ProfilerHook>(new ProfilerHook(std::move(options), std::move(timer)));
}

absl::Status ProfilerHook::Begin(const GraphDef& graph) {
  next_step_.reset();
  return ResolveGlobalStep(graph, "ProfilerHook", &o_.global_step);
}

absl::Status ProfilerHook::BeforeRun(SessionRunContext*, SessionRunArgs* request) {
  request_trace_ = next_step_ && timer_.ShouldTriggerForStep(*next_step_);
  request->fetches = {o_.global_step};
  request->full_trace = request_trace_;
  return absl::OkStatus();
}

absl::Status ProfilerHook::AfterRun(SessionRunContext* context, const SessionRunValues& values) {
  MG_ASSIGN_OR_RETURN(int64_t stale, StepValue(values.results[0], o_.global_step));
  if (!next_step_) timer_.UpdateLastTriggeredStep(stale);
  int64_t step = stale + 1;
  if (request_trace_ && values.step_stats != nullptr) {
    MG_ASSIGN_OR_RETURN(step, ReadStep(context->session(), o_.global_step));
    timer_.UpdateLastTriggeredStep(step);
    const std::string path = JoinPath(o_.output_dir, absl::StrCat("timeline-", step, ".json"));
    MG_LOG(INFO) << "Saving timeline for " << step << " into '" << path << "'.";
    MG_ASSIGN_OR_RETURN(std::string trace, ChromeTrace(*values.step_stats, o_.show_dataflow));
    MG_RETURN_IF_ERROR(o_.env->CreateDir(o_.output_dir));
    MG_RETURN_IF_ERROR(WriteStringToFile(o_.env, path, trace));
    if (o_.writer != nullptr) {
      tensorflow::RunMetadata metadata;
      *metadata.mutable_step_stats() = *values.step_stats;
      MG_RETURN_IF_ERROR(o_.writer->AddRunMetadata(absl::StrCat("step_", step),
                                                   metadata.SerializeAsString(), step));
    }
  }
  next_step_ = step + 1;
  return absl::OkStatus();
}

}  // namespace minigraph
