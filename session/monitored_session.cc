#include "session/monitored_session.h"

#include <algorithm>
#include <map>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/logging.h"
#include "core/proto/step_stats.pb.h"
#include "core/status_macros.h"
#include "session/basic_session_run_hooks.h"

namespace minigraph {
namespace {

// TensorFlow's _PREEMPTION_ERRORS: a ps or worker task restarted (its
// state is gone: Aborted) or cannot be reached (Unavailable).
bool IsPreemption(const absl::Status& s) {
  return absl::IsAborted(s) || absl::IsUnavailable(s);
}

// "x" and "x:0" name the same tensor.
std::string TensorKey(const std::string& name) {
  return name.find(':') == std::string::npos ? absl::StrCat(name, ":0") : name;
}

class ChiefCreator : public SessionCreator {
 public:
  ChiefCreator(Scaffold scaffold, std::string master, std::string checkpoint_dir,
               SessionOptions config)
      : scaffold_(std::move(scaffold)),
        master_(std::move(master)),
        checkpoint_dir_(std::move(checkpoint_dir)),
        config_(std::move(config)) {}
  absl::StatusOr<std::unique_ptr<Session>> CreateSession() override {
    return CreateChiefSession(scaffold_, master_, checkpoint_dir_, config_);
  }
  const GraphDef& graph() const override { return scaffold_.graph(); }

 private:
  const Scaffold scaffold_;
  const std::string master_;
  const std::string checkpoint_dir_;
  const SessionOptions config_;
};

class WorkerCreator : public SessionCreator {
 public:
  WorkerCreator(Scaffold scaffold, std::string master, SessionOptions config,
                absl::Duration max_wait)
      : scaffold_(std::move(scaffold)),
        master_(std::move(master)),
        config_(std::move(config)),
        max_wait_(max_wait) {}
  absl::StatusOr<std::unique_ptr<Session>> CreateSession() override {
    return CreateWorkerSession(scaffold_, master_, config_, max_wait_);
  }
  const GraphDef& graph() const override { return scaffold_.graph(); }

 private:
  const Scaffold scaffold_;
  const std::string master_;
  const SessionOptions config_;
  const absl::Duration max_wait_;
};

constexpr char kPreemptionAdvice[] =
    "This may be due to a preemption in a connected worker or parameter server. This error may "
    "also occur due to a gRPC failure caused by high memory or network bandwidth usage in the "
    "parameter servers. If this error occurs repeatedly, try increasing the number of parameter "
    "servers assigned to the job.";

}  // namespace

std::unique_ptr<SessionCreator> NewChiefSessionCreator(Scaffold scaffold, std::string master,
                                                       std::string checkpoint_dir,
                                                       SessionOptions config) {
  return std::make_unique<ChiefCreator>(std::move(scaffold), std::move(master),
                                        std::move(checkpoint_dir), std::move(config));
}

std::unique_ptr<SessionCreator> NewWorkerSessionCreator(Scaffold scaffold, std::string master,
                                                        SessionOptions config,
                                                        absl::Duration max_wait) {
  return std::make_unique<WorkerCreator>(std::move(scaffold), std::move(master),
                                         std::move(config), max_wait);
}

absl::StatusOr<std::unique_ptr<MonitoredSession>> MonitoredSession::Create(
    std::unique_ptr<SessionCreator> creator, HookList hooks, MonitoredSessionOptions options) {
  if (creator == nullptr) return absl::InvalidArgumentError("MonitoredSession needs a creator");
  if (options.env == nullptr) return absl::InvalidArgumentError("MonitoredSessionOptions::env");
  for (const auto& h : hooks) {
    if (h == nullptr) return absl::InvalidArgumentError("a hook of the MonitoredSession is null");
  }
  std::unique_ptr<MonitoredSession> s(
      new MonitoredSession(std::move(creator), std::move(hooks), options));
  for (const auto& h : s->hooks_) MG_RETURN_IF_ERROR(h->Begin(s->creator_->graph()));
  MG_RETURN_IF_ERROR(s->CreateSession());
  return s;
}

MonitoredSession::~MonitoredSession() { CloseSession(); }

absl::Status MonitoredSession::StopQueueRunners() {
  if (coord_ == nullptr) return absl::OkStatus();
  coord_->RequestStop();
  absl::Status s = coord_->Join();
  if (absl::IsDeadlineExceeded(s) && coord_->status().ok()) {
    MG_LOG(WARNING) << s.message() << "; closing the session all the same";
    s = absl::OkStatus();
  }
  coord_.reset();
  return s;
}

void MonitoredSession::CloseSession() {
  if (session_ == nullptr) return;
  if (absl::Status s = StopQueueRunners(); !s.ok()) MG_LOG(ERROR) << "A queue runner failed: " << s;
  for (const auto& h : hooks_) h->BeforeSessionClose(session_.get());
  if (absl::Status s = session_->Close(); !s.ok() && IsPreemption(s)) {
    MG_LOG(ERROR) << "An error occurred when attempting to close the session. This may be due "
                     "to a preemption in a connected worker or parameter server. Error: "
                  << s;
  }
  session_.reset();
}

absl::Status MonitoredSession::CreateSession() {
  const uint64_t start = options_.env->NowMicros();
  while (true) {
    absl::Status s = [&]() -> absl::Status {
      MG_ASSIGN_OR_RETURN(session_, creator_->CreateSession());
      ++sessions_created_;
      coord_ = std::make_unique<Coordinator>(options_.stop_grace_period);
      for (const QueueRunnerDef& def : options_.queue_runners) {
        MG_RETURN_IF_ERROR(StartQueueRunner(def, session_.get(), coord_.get()));
      }
      for (const auto& h : hooks_) {
        MG_RETURN_IF_ERROR(h->AfterCreateSession(session_.get(), coord_.get()));
      }
      return absl::OkStatus();
    }();
    if (s.ok()) return s;
    CloseSession();
    if (!options_.should_recover || !IsPreemption(s)) return s;
    const absl::Duration waited =
        absl::Microseconds(options_.env->NowMicros() - start);
    if (waited >= options_.give_up_after) {
      return absl::Status(s.code(), absl::StrCat("gave up making a session after ",
                                                 absl::FormatDuration(waited), ": ",
                                                 s.message()));
    }
    MG_LOG(INFO) << "An error was raised while a session was being created. " << kPreemptionAdvice
                 << " A new session will be created. Error: " << s;
    options_.env->SleepForMicroseconds(absl::ToInt64Microseconds(options_.retry_every));
  }
}

absl::Status MonitoredSession::WithRecovery(const std::function<absl::Status()>& attempt) {
  std::optional<uint64_t> first_failure;
  while (true) {
    if (session_ == nullptr) {
      if (closed_) return absl::FailedPreconditionError("Session is already closed.");
      MG_RETURN_IF_ERROR(CreateSession());
    }
    absl::Status s = attempt();
    if (!options_.should_recover || !IsPreemption(s)) return s;
    // A step that fails so again on a new session waits retry_every before
    // the next try, and ends once give_up_after has passed since its first
    // failure (not a restart, then).
    const uint64_t now = options_.env->NowMicros();
    if (first_failure) {
      if (absl::Microseconds(now - *first_failure) >= options_.give_up_after) {
        return absl::Status(s.code(),
                            absl::StrCat("gave up retrying the step on new sessions after ",
                                         absl::FormatDuration(options_.give_up_after), ": ",
                                         s.message()));
      }
      options_.env->SleepForMicroseconds(absl::ToInt64Microseconds(options_.retry_every));
    } else {
      first_failure = now;
    }
    MG_LOG(INFO) << "An error was raised. " << kPreemptionAdvice
                 << " The current session will be closed and a new session will be created. "
                    "Error: "
                 << s;
    CloseSession();
  }
}

absl::Status MonitoredSession::Run(const FeedList& feeds, const std::vector<std::string>& fetches,
                                   const std::vector<std::string>& targets,
                                   std::vector<Tensor>* outputs, const RunOptions& options) {
  return WithRecovery([&] { return RunHooked(feeds, fetches, targets, outputs, options); });
}

absl::Status MonitoredSession::RunStepFn(
    const std::function<absl::Status(StepContext&)>& step_fn) {
  return WithRecovery([&] {
    StepContext context(this);
    absl::Status s = step_fn(context);
    if (context.stop_requested_) should_stop_ = true;
    return s;
  });
}

absl::Status MonitoredSession::RunHooked(const FeedList& feeds,
                                         const std::vector<std::string>& fetches,
                                         const std::vector<std::string>& targets,
                                         std::vector<Tensor>* outputs,
                                         const RunOptions& options) {
  if (ShouldStop()) {
    return absl::FailedPreconditionError("Run called even after should_stop requested.");
  }
  if (hooks_.empty()) {  // nothing to merge or hand back
    std::vector<Tensor> results;
    return session_->Run(options, feeds, fetches, targets,
                         outputs != nullptr ? outputs : &results);
  }
  const SessionRunArgs original{fetches, targets, feeds, options.timeout_in_ms,
                                options.step_stats != nullptr};
  SessionRunContext context(original, session_.get());
  // Every hook's request, then one step for all of them and the caller.
  std::vector<SessionRunArgs> requests(hooks_.size());
  std::map<std::string, std::string> hook_fed;  // tensor -> its feed's name
  FeedList all_feeds;
  RunOptions run_options = options;
  for (size_t i = 0; i < hooks_.size(); ++i) {
    MG_RETURN_IF_ERROR(hooks_[i]->BeforeRun(&context, &requests[i]));
    std::vector<std::string> clash;
    for (const auto& [name, value] : requests[i].feeds) {
      if (!hook_fed.emplace(TensorKey(name), name).second) clash.push_back(name);
      all_feeds.emplace_back(name, value);
    }
    if (!clash.empty()) {
      return absl::FailedPreconditionError(absl::StrCat(
          "Same tensor is fed by two hooks. Conflict(s): ", absl::StrJoin(clash, ", ")));
    }
    run_options.timeout_in_ms = std::max(run_options.timeout_in_ms, requests[i].timeout_in_ms);
  }
  tensorflow::StepStats traced;
  for (const SessionRunArgs& r : requests) {
    if (r.full_trace && run_options.step_stats == nullptr) run_options.step_stats = &traced;
  }
  std::vector<std::string> clash;
  for (const auto& [name, value] : feeds) {
    if (hook_fed.count(TensorKey(name)) > 0) clash.push_back(name);
    all_feeds.emplace_back(name, value);
  }
  if (!clash.empty()) {
    return absl::FailedPreconditionError(absl::StrCat(
        "Same tensor is fed by a SessionRunHook and user. Conflict(s): ",
        absl::StrJoin(clash, ", ")));
  }
  std::vector<std::string> all_fetches = fetches;
  std::vector<std::string> all_targets = targets;
  for (const SessionRunArgs& r : requests) {
    all_fetches.insert(all_fetches.end(), r.fetches.begin(), r.fetches.end());
    for (const std::string& t : r.targets) {
      // (A few targets: a linear search beats building a set every step.)
      if (std::find(all_targets.begin(), all_targets.end(), t) == all_targets.end()) {
        all_targets.push_back(t);
      }
    }
  }
  std::vector<Tensor> results;
  MG_RETURN_IF_ERROR(session_->Run(run_options, all_feeds, all_fetches, all_targets, &results));
  size_t at = fetches.size();
  for (size_t i = 0; i < hooks_.size(); ++i) {
    SessionRunValues values;
    values.step_stats = run_options.step_stats;
    const size_t n = requests[i].fetches.size();
    values.results.assign(std::make_move_iterator(results.begin() + at),
                          std::make_move_iterator(results.begin() + at + n));
    at += n;
    MG_RETURN_IF_ERROR(hooks_[i]->AfterRun(&context, values));
  }
  should_stop_ = should_stop_ || context.stop_requested();
  if (outputs != nullptr) {
    results.resize(fetches.size());
    *outputs = std::move(results);
  }
  return absl::OkStatus();
}

absl::Status MonitoredSession::Close() {
  if (closed_) return absl::FailedPreconditionError("Session is already closed.");
  closed_ = true;
  absl::Status s;
  if (session_ != nullptr) {
    for (const auto& h : hooks_) {
      s = h->End(session_.get());
      if (!s.ok()) break;
    }
  }
  if (absl::Status runners = StopQueueRunners(); s.ok()) s = runners;
  CloseSession();
  return s;
}

absl::StatusOr<std::unique_ptr<MonitoredSession>> MonitoredTrainingSession(
    MonitoredTrainingSessionOptions o) {
  if (o.scaffold == nullptr) {
    return absl::InvalidArgumentError("MonitoredTrainingSession needs a scaffold");
  }
  const Scaffold& scaffold = *o.scaffold;
  if (!o.is_chief) {
    return MonitoredSession::Create(
        NewWorkerSessionCreator(scaffold, o.master, o.config, o.max_wait), std::move(o.hooks),
        o.session);
  }
  // TensorFlow's USE_DEFAULT: one of a pair given turns the other off.
  auto defaults = [](int64_t* steps, int64_t* secs, bool steps_by_default, int64_t value) {
    if (*steps == kUseDefault && *secs == kUseDefault) {
      *(steps_by_default ? steps : secs) = value;
      *(steps_by_default ? secs : steps) = 0;
    }
    if (*steps == kUseDefault) *steps = 0;
    if (*secs == kUseDefault) *secs = 0;
  };
  defaults(&o.save_summaries_steps, &o.save_summaries_secs, true, 100);
  defaults(&o.save_checkpoint_steps, &o.save_checkpoint_secs, false, 600);

  Env* env = scaffold.options().env;
  std::map<std::string, std::shared_ptr<EventsWriter>> writers;  // SummaryWriterCache
  auto writer_for = [&](const std::string& dir) -> absl::StatusOr<std::shared_ptr<EventsWriter>> {
    std::shared_ptr<EventsWriter>& w = writers[dir];
    if (w == nullptr) {
      MG_ASSIGN_OR_RETURN(std::unique_ptr<EventsWriter> made,
                          EventsWriter::Create(dir, {.env = env,
                                                     .flush_every = o.flush_summaries_every}));
      w = std::move(made);
      // TensorFlow's SummaryWriterCache opens its FileWriter with the graph.
      MG_RETURN_IF_ERROR(w->AddGraph(scaffold.graph()));
      MG_RETURN_IF_ERROR(w->AddMetaGraph(scaffold.meta_graph()));
    }
    return w;
  };
  HookList all = std::move(o.chief_only_hooks);
  const std::string summary_dir = o.summary_dir.empty() ? o.checkpoint_dir : o.summary_dir;
  const std::string& step = scaffold.global_step_tensor();
  if (!summary_dir.empty()) {
    if (o.log_step_count_steps > 0) {
      MG_ASSIGN_OR_RETURN(auto writer, writer_for(summary_dir));
      MG_ASSIGN_OR_RETURN(auto hook, StepCounterHook::Create({.every_n_steps =
                                                                  o.log_step_count_steps,
                                                              .writer = writer,
                                                              .global_step = step,
                                                              .env = env}));
      all.push_back(std::move(hook));
    }
    if (o.save_summaries_steps > 0 || o.save_summaries_secs > 0) {
      MG_ASSIGN_OR_RETURN(auto writer, writer_for(summary_dir));
      SummarySaverHook::Options so;
      if (o.save_summaries_steps > 0) so.save_steps = o.save_summaries_steps;
      if (o.save_summaries_secs > 0) so.save_secs = o.save_summaries_secs;
      so.writer = writer;
      so.summary_op = scaffold.summary_op();
      so.global_step = step;
      so.env = env;
      MG_ASSIGN_OR_RETURN(auto hook, SummarySaverHook::Create(std::move(so)));
      all.push_back(std::move(hook));
    }
  }
  if (!o.checkpoint_dir.empty() && (o.save_checkpoint_steps > 0 || o.save_checkpoint_secs > 0)) {
    MG_ASSIGN_OR_RETURN(auto writer, writer_for(o.checkpoint_dir));
    CheckpointSaverHook::Options co;
    co.checkpoint_dir = o.checkpoint_dir;
    if (o.save_checkpoint_steps > 0) co.save_steps = o.save_checkpoint_steps;
    if (o.save_checkpoint_secs > 0) co.save_secs = o.save_checkpoint_secs;
    co.saver = scaffold.saver();
    co.writer = writer;
    co.meta_graph = &scaffold.meta_graph();
    co.save_graph_def = o.save_graph_def;
    co.global_step = step;
    co.env = env;
    MG_ASSIGN_OR_RETURN(auto hook, CheckpointSaverHook::Create(std::move(co)));
    all.push_back(std::move(hook));
  }
  for (auto& h : o.hooks) all.push_back(std::move(h));
  return MonitoredSession::Create(
      NewChiefSessionCreator(scaffold, o.master, o.checkpoint_dir, o.config), std::move(all),
      o.session);
}

}  // namespace minigraph
