#include "session/session_manager.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "checkpoint/checkpoint_directory.h"
#include "checkpoint/checkpoint_state.h"
#include "core/logging.h"
#include "core/status_macros.h"
#include "session/targets.h"

namespace minigraph {
namespace {

// An entry's op or tensor name, without the "^" of a target.
absl::string_view Bare(absl::string_view name) {
  return absl::StartsWith(name, "^") ? name.substr(1) : name;
}

// Python's "%s" of an op argument: None, the op's name, or a list.
std::string OpString(const std::vector<std::string>& op) {
  if (op.empty()) return "None";
  if (op.size() == 1) return std::string(Bare(op[0]));
  return absl::StrCat("[", absl::StrJoin(op, ", ", [](std::string* out, const std::string& n) {
                        absl::StrAppend(out, Bare(n));
                      }), "]");
}

// _maybe_name: the name of one op or tensor, "None", or Python's text for a list.
std::string MaybeName(const std::vector<std::string>& op) {
  if (op.empty()) return "None";
  if (op.size() == 1) return std::string(Bare(op[0]));
  return "<no name for <class 'list'>>";
}

// Splits names into fetched tensors ("node:k") and target nodes ("node" or
// "^node").
void SplitFetches(const std::vector<std::string>& op, std::vector<std::string>* fetches,
                  std::vector<std::string>* targets) {
  for (const std::string& n : op) {
    if (absl::StartsWith(n, "^")) {
      targets->push_back(n.substr(1));
    } else {
      (absl::StrContains(n, ':') ? fetches : targets)->push_back(n);
    }
  }
}

absl::Status RunOp(Session* s, const std::vector<std::string>& op,
                   const std::vector<std::pair<std::string, Tensor>>& feeds,
                   const RunOptions& run_options = RunOptions(),
                   std::vector<Tensor>* out = nullptr) {
  std::vector<std::string> fetches, targets;
  SplitFetches(op, &fetches, &targets);
  std::vector<Tensor> ignored;
  return s->Run(run_options, feeds, fetches, targets, out != nullptr ? out : &ignored);
}

}  // namespace

namespace {
int CountVariables(const GraphDef& graph) {
  int n = 0;
  for (const NodeDef& node : graph.node()) {
    n += node.op() == "VariableV2" || node.op() == "Variable" || node.op() == "VarHandleOp";
  }
  return n;
}
}  // namespace

// The manager's graph and options, and its work, behind the header's
// interface.
class SessionManager::Impl {
 public:
  Impl(GraphDef graph, Options options);

  // As SessionManager's.
  absl::StatusOr<std::unique_ptr<Session>> PrepareSession(const std::string& master,
                                                          const PrepareOptions& options);
  absl::StatusOr<RecoverResult> RecoverSession(const std::string& master,
                                               const PrepareOptions& options);
  absl::StatusOr<std::unique_ptr<Session>> WaitForSession(
      const std::string& master, SessionOptions config, std::optional<absl::Duration> max_wait,
      const absl::Notification* cancel);
  absl::StatusOr<ReadinessReport> CheckReady(const std::string& master, SessionOptions config);

 private:
  // REQUIRES: CheckEnv(config) is OK.
  absl::StatusOr<std::unique_ptr<Session>> NewSessionOn(const std::string& master,
                                                        SessionOptions config) const;
  // InvalidArgument when `config` or `saver` names an Env other than
  // options_.env.
  absl::Status CheckEnv(const SessionOptions& config, const Saver* saver) const;
  // (session, restored)
  absl::StatusOr<std::pair<std::unique_ptr<Session>, bool>> RestoreCheckpoint(
      const std::string& master, const PrepareOptions& options);
  // What to restore from `dir` (options.checkpoint_dir), its state file
  // waited for as `options` say; nullopt when there is nothing to restore
  // (after the strict check).
  absl::StatusOr<std::optional<CheckpointDirectory::Restore>> CheckpointToRestore(
      const CheckpointDirectory& dir, const PrepareOptions& options);
  // Restores `*chosen`'s newest checkpoint into `sess` under the
  // directory's lease (when its Saver takes leases; `*lease` holds it for
  // the caller), following the state file to a newer one when the chosen
  // one went meanwhile; returns the prefix.
  absl::StatusOr<std::string> RestoreUnderLease(Session* sess, const CheckpointDirectory& dir,
                                                const PrepareOptions& options,
                                                CheckpointDirectory::Restore* chosen,
                                                std::unique_ptr<FileLock>* lease);
  // Restores the state file's newest checkpoint into `sess`, or with
  // fallback_to_valid_checkpoint the newest one that restores. Returns the
  // prefix restored.
  absl::StatusOr<std::string> RestoreNewestValid(Session* sess, const CheckpointState& state,
                                                 const PrepareOptions& options);
  // One readiness attempt: the ready session (report.ready), or null and
  // why. `watch` (may be null) receives a watch of the target's state taken
  // before the checks when waiting can use one.
  absl::StatusOr<std::pair<std::unique_ptr<Session>, ReadinessReport>> Attempt(
      const std::string& master, const SessionOptions& config, std::unique_ptr<StateWatch>* watch);
  // Ready: OK(nullopt). Not ready: OK(message). Other errors propagate.
  absl::StatusOr<std::optional<std::string>> Ready(const std::vector<std::string>& op,
                                                   Session* session, absl::string_view what);
  absl::StatusOr<std::optional<std::string>> TryRunLocalInitOp(Session* session);

  const GraphDef graph_;
  const Options options_;
  const int num_variables_;  // the graph's variable nodes, for chief_seen
};

SessionManager::Impl::Impl(GraphDef graph, Options options)
    : graph_(std::move(graph)),
      options_(std::move(options)),
      num_variables_(CountVariables(graph_)) {}

absl::StatusOr<std::unique_ptr<SessionManager>> SessionManager::Create(GraphDef graph,
                                                                       Options options) {
  if (!options.ready_for_local_init_op.empty() && options.local_init_op.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("If you pass a ready_for_local_init_op you must also pass a local_init_op , "
                     "ready_for_local_init_op [",
                     OpString(options.ready_for_local_init_op), "]"));
  }
  for (const auto* op : {&options.ready_op, &options.ready_for_local_init_op}) {
    const char* what = op == &options.ready_op ? "ready_op" : "ready_for_local_init_op";
    for (const std::string& name : *op) {
      if (!absl::StrContains(name, ':') && !absl::StartsWith(name, "^")) {
        return absl::InvalidArgumentError(
            absl::StrCat(what, " \"", name, "\" is a bare node name; pass the tensor \"", name,
                         ":0\" (Output::tensor_name()) to check what it reports, or \"^", name,
                         "\" to run the op, which reports nothing and so always counts as ready"));
      }
    }
  }
  return std::unique_ptr<SessionManager>(
      new SessionManager(std::make_unique<Impl>(std::move(graph), std::move(options))));
}

absl::Status SessionManager::Impl::CheckEnv(const SessionOptions& config,
                                            const Saver* saver) const {
  // The default Env in a config means "not set": the manager's is used.
  if (config.env != options_.env && config.env != Env::Default()) {
    return absl::InvalidArgumentError(
        "the session config's Env differs from SessionManager::Options::env; set the Env once, "
        "in SessionManager::Options (sessions the manager creates use it)");
  }
  if (saver != nullptr && saver->env() != options_.env) {
    return absl::InvalidArgumentError(
        "the Saver's Env differs from SessionManager::Options::env, so checkpoints would be "
        "looked for in one and written through the other; create the Saver with the "
        "SessionManager's Env");
  }
  return absl::OkStatus();
}

absl::StatusOr<std::unique_ptr<Session>> SessionManager::Impl::NewSessionOn(
    const std::string& master, SessionOptions config) const {
  config.target = master;
  config.env = options_.env;
  MG_ASSIGN_OR_RETURN(std::unique_ptr<Session> s, NewSession(config));
  MG_RETURN_IF_ERROR(s->Create(graph_));
  return s;
}

absl::StatusOr<std::optional<std::string>> SessionManager::Impl::Ready(
    const std::vector<std::string>& op, Session* session, absl::string_view what) {
  if (op.empty()) return std::nullopt;
  std::vector<Tensor> out;
  absl::Status s = RunOp(session, op, {}, RunOptions(), &out);
  if (!s.ok()) {
    if (absl::IsFailedPrecondition(s) && absl::StrContains(s.message(), "uninitialized")) {
      return std::optional<std::string>(std::string(s.message()));
    }
    if (absl::IsFailedPrecondition(s)) MG_LOG(WARNING) << what << " : error [" << s << "]";
    return s;
  }
  // An op (no value), an int32 result, or an empty result means ready.
  std::vector<std::string> names;
  for (const Tensor& t : out) {
    if (t.dtype() == DT_INT32 || t.NumElements() == 0) continue;
    if (t.dtype() != DT_STRING) {
      return absl::InvalidArgumentError(absl::StrCat(
          what, ": the ready op returned ", DataTypeString(t.dtype()),
          " values; it must return the names of uninitialized variables (string) or int32"));
    }
    for (int64_t i = 0; i < t.NumElements(); ++i) names.push_back(t.data<std::string>()[i]);
  }
  if (names.empty()) return std::nullopt;
  return std::optional<std::string>(
      absl::StrCat("Variables not initialized: ", absl::StrJoin(names, ", ")));
}

absl::StatusOr<std::optional<std::string>> SessionManager::Impl::TryRunLocalInitOp(
    Session* session) {
  if (options_.local_init_op.empty()) return std::nullopt;
  MG_ASSIGN_OR_RETURN(
      std::optional<std::string> not_ready,
      Ready(options_.ready_for_local_init_op, session, "Model not ready for local init"));
  if (not_ready) return not_ready;
  MG_LOG(INFO) << "Running local_init_op.";
  MG_RETURN_IF_ERROR(RunOp(session, options_.local_init_op, options_.local_init_feed_dict,
                           options_.local_init_run_options));
  MG_LOG(INFO) << "Done running local_init_op.";
  return std::nullopt;
}

absl::StatusOr<std::pair<std::unique_ptr<Session>, bool>> SessionManager::Impl::RestoreCheckpoint(
    const std::string& master, const PrepareOptions& options) {
  MG_ASSIGN_OR_RETURN(std::unique_ptr<Session> sess, NewSessionOn(master, options.config));
  if (!options.checkpoint_dir.empty() && !options.checkpoint_filename_with_path.empty()) {
    return absl::InvalidArgumentError(
        "Can not provide both checkpoint_dir and checkpoint_filename_with_path.");
  }
  if (options.saver == nullptr ||
      (options.checkpoint_dir.empty() && options.checkpoint_filename_with_path.empty())) {
    return std::make_pair(std::move(sess), false);
  }
  if (!options.checkpoint_filename_with_path.empty()) {
    MG_RETURN_IF_ERROR(options.saver->Restore(sess.get(), options.checkpoint_filename_with_path));
    return std::make_pair(std::move(sess), true);
  }
  const CheckpointDirectory dir(options.checkpoint_dir,
                                {.env = options_.env,
                                 .recover_state = options.recover_state_from_directory,
                                 .strict = options.strict});
  MG_ASSIGN_OR_RETURN(std::optional<CheckpointDirectory::Restore> chosen,
                      CheckpointToRestore(dir, options));
  if (!chosen) return std::make_pair(std::move(sess), false);
  std::unique_ptr<FileLock> dir_lease;  // held until the state is recorded
  MG_ASSIGN_OR_RETURN(std::string restored,
                      RestoreUnderLease(sess.get(), dir, options, &*chosen, &dir_lease));
  options.saver->RecoverLastCheckpoints(dir.Restored(*chosen, restored));
  if (options.restored_from != nullptr) *options.restored_from = std::move(restored);
  return std::make_pair(std::move(sess), true);
}

absl::StatusOr<std::optional<CheckpointDirectory::Restore>>
SessionManager::Impl::CheckpointToRestore(const CheckpointDirectory& dir,
                                          const PrepareOptions& options) {
  // Poll for the state file, counting nominal (not wall-clock) time; or,
  // with wake_on_state_change, sleep on a watch of the directory (taken
  // before each look, so a checkpoint written during it is not missed).
  Env* env = options_.env;
  std::unique_ptr<DirectoryWatch> watch;
  auto try_watch = [&] {
    if (watch != nullptr || !options.wait_for_checkpoint || !options_.wake_on_state_change) return;
    absl::StatusOr<std::unique_ptr<DirectoryWatch>> w = env->WatchDirectory(options.checkpoint_dir);
    if (w.ok()) watch = *std::move(w);  // else poll (no such directory yet, no inotify)
  };
  try_watch();
  absl::Duration waited = absl::ZeroDuration();
  MG_ASSIGN_OR_RETURN(std::optional<CheckpointState> ckpt, dir.ReadState());
  while (!ckpt && options.wait_for_checkpoint && waited < options.max_wait) {
    MG_LOG(INFO) << "Waiting for checkpoint to be available.";
    const int64_t micros = absl::ToInt64Microseconds(options_.recovery_wait);
    if (watch != nullptr) {
      const uint64_t start = env->NowMicros();
      // Woken early, the time actually waited counts.
      waited += watch->Wait(micros) ? absl::Microseconds(env->NowMicros() - start)
                                    : options_.recovery_wait;
    } else {
      env->SleepForMicroseconds(micros);
      waited += options_.recovery_wait;
    }
    try_watch();
    MG_ASSIGN_OR_RETURN(ckpt, dir.ReadState());
  }
  return dir.ChooseRestore(std::move(ckpt));
}

absl::StatusOr<std::string> SessionManager::Impl::RestoreUnderLease(
    Session* sess, const CheckpointDirectory& dir, const PrepareOptions& options,
    CheckpointDirectory::Restore* chosen, std::unique_ptr<FileLock>* lease) {
  MG_ASSIGN_OR_RETURN(*lease, dir.LeaseForRestore(chosen));
  absl::StatusOr<std::string> newest = RestoreNewestValid(sess, chosen->state, options);
  // The newest checkpoint went while this restored it (a trainer saving
  // meanwhile, its retention deleting): the state file names a newer one by
  // now; take that, a few times at most. (TensorFlow fails here.)
  for (int retry = 0;
       retry < 3 && (absl::IsNotFound(newest.status()) || absl::IsInvalidArgument(newest.status()));
       ++retry) {
    absl::StatusOr<std::optional<CheckpointState>> again =
        GetCheckpointState(options_.env, options.checkpoint_dir);
    if (!again.ok() || !again->has_value() ||
        (*again)->model_checkpoint_path() == chosen->state.model_checkpoint_path()) {
      break;
    }
    *chosen = {**again, /*rebuilt=*/false};
    newest = RestoreNewestValid(sess, chosen->state, options);
  }
  return newest;
}

absl::StatusOr<std::string> SessionManager::Impl::RestoreNewestValid(
    Session* sess, const CheckpointState& state, const PrepareOptions& options) {
  const std::string& newest = state.model_checkpoint_path();
  if (!options.fallback_to_valid_checkpoint) {
    MG_RETURN_IF_ERROR(options.saver->Restore(sess, newest));
    return newest;
  }
  const std::vector<std::string> candidates =
      CheckpointDirectory::RestoreCandidates(state, /*fallback=*/true);
  std::vector<std::string> reasons;
  absl::StatusCode first_code = absl::StatusCode::kOk;
  for (const std::string& candidate : candidates) {
    absl::Status s = options.saver->Restore(sess, candidate);
    if (s.ok()) {
      if (candidate != newest) {
        MG_LOG(WARNING) << "Restored " << candidate << ", an older checkpoint: the newest, "
                        << newest << ", could not be restored (" << reasons.front() << ")";
      }
      return candidate;
    }
    // Only what is wrong with a checkpoint moves on to an older one; a
    // session or cluster failure would fail them all the same.
    const bool checkpoint_problem = absl::IsDataLoss(s) || absl::IsNotFound(s) ||
                                    absl::IsInvalidArgument(s) || absl::IsOutOfRange(s) ||
                                    absl::IsUnimplemented(s);
    if (!checkpoint_problem) return s;
    if (first_code == absl::StatusCode::kOk) first_code = s.code();
    // The first line is the reason; the Saver's advice after it is the same
    // for every candidate.
    absl::string_view message = s.message();
    if (const size_t original = message.find("Original error:\n\n");
        original != absl::string_view::npos) {
      message.remove_prefix(original + 17);
    }
    const std::string reason(message.substr(0, message.find('\n')));
    MG_LOG(WARNING) << "Skipping checkpoint " << candidate << ": " << reason;
    reasons.push_back(absl::StrCat(candidate, ": ", reason));
  }
  return absl::Status(
      first_code,
      absl::StrCat("No checkpoint in ", options.checkpoint_dir, " could be restored (",
                   candidates.size(), " tried, newest first): ", absl::StrJoin(reasons, "; ")));
}

absl::StatusOr<std::unique_ptr<Session>> SessionManager::Impl::PrepareSession(
    const std::string& master, const PrepareOptions& options) {
  MG_RETURN_IF_ERROR(CheckEnv(options.config, options.saver));
  MG_ASSIGN_OR_RETURN(auto restored, RestoreCheckpoint(master, options));
  auto& [sess, is_loaded] = restored;
  const std::string init_fn_text = options.init_fn ? "<init_fn>" : "None";
  if (!is_loaded) {
    if (options.init_op.empty() && !options.init_fn && options_.local_init_op.empty()) {
      return absl::FailedPreconditionError(
          "Model is not initialized and no init_op or init_fn or local_init_op was given");
    }
    if (!options.init_op.empty()) {
      MG_RETURN_IF_ERROR(RunOp(sess.get(), options.init_op, options.init_feed_dict));
    }
    if (options.init_fn) MG_RETURN_IF_ERROR(options.init_fn(sess.get()));
  }
  MG_ASSIGN_OR_RETURN(std::optional<std::string> not_ready_local, TryRunLocalInitOp(sess.get()));
  if (not_ready_local) {
    return absl::FailedPreconditionError(absl::StrCat(
        "Init operations did not make model ready for local_init.  Init op: ",
        MaybeName(options.init_op), ", init fn: ", init_fn_text, ", error: ", *not_ready_local));
  }
  MG_ASSIGN_OR_RETURN(std::optional<std::string> not_ready,
                      Ready(options_.ready_op, sess.get(), "Model not ready"));
  if (not_ready) {
    return absl::FailedPreconditionError(absl::StrCat(
        "Init operations did not make model ready.  Init op: ", MaybeName(options.init_op),
        ", init fn: ", init_fn_text, ", local_init_op: ", OpString(options_.local_init_op),
        ", error: ", *not_ready));
  }
  // The model is ready: it outlives this session on a local:// target, so
  // workers waiting between attempts do not lose it.
  MG_RETURN_IF_ERROR(KeepTargetAlive(master));
  return std::move(sess);
}

absl::StatusOr<SessionManager::RecoverResult> SessionManager::Impl::RecoverSession(
    const std::string& master, const PrepareOptions& options) {
  MG_RETURN_IF_ERROR(CheckEnv(options.config, options.saver));
  MG_ASSIGN_OR_RETURN(auto restored, RestoreCheckpoint(master, options));
  RecoverResult result;
  result.session = std::move(restored.first);
  const bool is_loaded = restored.second;
  MG_ASSIGN_OR_RETURN(std::optional<std::string> not_ready_local,
                      TryRunLocalInitOp(result.session.get()));
  if (!is_loaded) return result;
  const std::string restoring_file = !options.checkpoint_dir.empty()
                                         ? options.checkpoint_dir
                                         : options.checkpoint_filename_with_path;
  if (not_ready_local) {
    MG_LOG(INFO) << "Restoring model from " << restoring_file
                 << " did not make model ready for local init: " << *not_ready_local;
    return result;
  }
  MG_ASSIGN_OR_RETURN(std::optional<std::string> not_ready,
                      Ready(options_.ready_op, result.session.get(), "Model not ready"));
  if (not_ready) {
    MG_LOG(INFO) << "Restoring model from " << restoring_file
                 << " did not make model ready: " << *not_ready;
    return result;
  }
  MG_LOG(INFO) << "Restored model from " << restoring_file;
  result.initialized = true;
  return result;
}

absl::StatusOr<std::pair<std::unique_ptr<Session>, SessionManager::ReadinessReport>>
SessionManager::Impl::Attempt(const std::string& master, const SessionOptions& config,
                              std::unique_ptr<StateWatch>* watch) {
  ReadinessReport report;
  report.num_variables = num_variables_;
  auto not_ready = [&](absl::string_view by, std::string message) {
    report.reported_by = std::string(by);
    constexpr absl::string_view kNames = "Variables not initialized: ";
    if (absl::StartsWith(message, kNames)) {
      report.uninitialized = absl::StrSplit(message.substr(kNames.size()), ", ");
    }
    report.message = std::move(message);
    // Names known and fewer than the graph's variables: someone initialized
    // the others.
    report.chief_seen = !report.uninitialized.empty() &&
                        static_cast<int>(report.uninitialized.size()) < num_variables_;
  };
  absl::StatusOr<std::unique_ptr<Session>> sess = NewSessionOn(master, config);
  if (!sess.ok()) {
    // A server in another process that cannot be reached yet (a worker
    // started before its ps) is a model not ready yet, as TensorFlow's
    // MonitoredSession treats Unavailable.
    if (!absl::IsUnavailable(sess.status())) return sess.status();
    not_ready("server", absl::StrCat("server unreachable: ", sess.status().message()));
    return std::make_pair(std::unique_ptr<Session>(), std::move(report));
  }
  // Target "": each session has its own state, which no one else changes.
  if (watch != nullptr && options_.wake_on_state_change && !master.empty()) {
    absl::StatusOr<std::unique_ptr<StateWatch>> w = (*sess)->WatchState();
    if (w.ok()) *watch = *std::move(w);  // else: poll
  }
  absl::Status s = [&]() -> absl::Status {
    MG_ASSIGN_OR_RETURN(std::optional<std::string> local, TryRunLocalInitOp(sess->get()));
    if (local) {
      not_ready("ready_for_local_init_op", *std::move(local));
      return absl::OkStatus();
    }
    MG_ASSIGN_OR_RETURN(std::optional<std::string> model,
                        Ready(options_.ready_op, sess->get(), "Model not ready"));
    if (model) not_ready("ready_op", *std::move(model));
    return absl::OkStatus();
  }();
  if (s.ok() && report.reported_by.empty()) {
    report.ready = true;
    report.chief_seen = true;
    return std::make_pair(*std::move(sess), std::move(report));
  }
  (*sess)->Close().IgnoreError();  // _safe_close
  if (!s.ok()) {
    if (!absl::IsUnavailable(s)) return s;
    not_ready("server", absl::StrCat("server unreachable: ", s.message()));
  }
  return std::make_pair(std::unique_ptr<Session>(), std::move(report));
}

absl::StatusOr<SessionManager::ReadinessReport> SessionManager::Impl::CheckReady(
    const std::string& master, SessionOptions config) {
  MG_RETURN_IF_ERROR(CheckEnv(config, nullptr));
  MG_ASSIGN_OR_RETURN(auto attempt, Attempt(master, config, nullptr));
  if (attempt.first != nullptr) attempt.first->Close().IgnoreError();
  attempt.second.attempts = 1;
  return std::move(attempt.second);
}

absl::StatusOr<std::unique_ptr<Session>> SessionManager::Impl::WaitForSession(
    const std::string& master, SessionOptions config, std::optional<absl::Duration> max_wait,
    const absl::Notification* cancel) {
  MG_RETURN_IF_ERROR(CheckEnv(config, nullptr));
  Env* env = options_.env;
  const uint64_t start = env->NowMicros();
  const absl::Notification never;
  const absl::Notification& stop = cancel != nullptr ? *cancel : never;
  const auto cancelled = [&master] {
    return absl::CancelledError(absl::StrCat("WaitForSession on \"", master, "\" was cancelled"));
  };
  // A change of state is logged (and reported) at once; the same state
  // again at most once a minute, instead of once per attempt.
  constexpr int64_t kRepeatMicros = 60'000'000;
  std::string last_state;
  uint64_t last_logged = 0;
  int attempts = 0;
  while (true) {
    if (stop.HasBeenNotified()) return cancelled();
    // Taken before the checks, so a change during them wakes the sleep.
    std::unique_ptr<StateWatch> watch;
    MG_ASSIGN_OR_RETURN(auto attempt, Attempt(master, config, &watch));
    ReadinessReport& report = attempt.second;
    report.attempts = ++attempts;
    const uint64_t now = env->NowMicros();
    report.waited = absl::Microseconds(now - start);
    if (max_wait.has_value()) {
      report.deadline_left = std::max(absl::ZeroDuration(), *max_wait - report.waited);
    }
    if (report.ready) {
      if (options_.on_readiness && attempts > 1) options_.on_readiness(report);
      return std::move(attempt.first);
    }
    if (max_wait.has_value() &&
        *report.deadline_left - options_.recovery_wait < absl::ZeroDuration()) {
      return absl::DeadlineExceededError(
          absl::StrCat("Session was not ready after waiting ",
                       static_cast<int64_t>(absl::ToDoubleSeconds(*max_wait)), " secs."));
    }
    const std::string state = absl::StrCat(report.reported_by, ": ", report.message);
    if (state != last_state || now - last_logged >= kRepeatMicros) {
      last_state = state;
      last_logged = now;
      MG_LOG(INFO) << "Waiting for model to be ready.  Ready_for_local_init_op:  "
                   << (report.reported_by == "ready_for_local_init_op" ? report.message : "None")
                   << ", ready: "
                   << (report.reported_by != "ready_for_local_init_op" ? report.message : "None")
                   << " (" << report.ToString() << ")";
      if (options_.on_readiness) options_.on_readiness(report);
    }
    const int64_t wait_micros = absl::ToInt64Microseconds(options_.recovery_wait);
    if (watch == nullptr) {
      if (env->SleepUnlessNotified(stop, wait_micros)) return cancelled();
      continue;
    }
    absl::Notification changed;
    watch->Start(options_.recovery_wait, [&changed] { changed.Notify(); });
    bool was_cancelled = false;
    if (cancel == nullptr) {
      env->SleepUnlessNotified(changed, wait_micros);
    } else {
      // Two notifications cannot be waited on at once: look at `cancel`
      // every 50 ms while the watch sleeps.
      for (int64_t left = wait_micros; left > 0 && !changed.HasBeenNotified() && !was_cancelled;
           left -= 50'000) {
        was_cancelled = stop.HasBeenNotified();
        if (!was_cancelled) env->SleepUnlessNotified(changed, std::min<int64_t>(left, 50'000));
      }
      was_cancelled = was_cancelled || stop.HasBeenNotified();
    }
    watch.reset();  // before `changed` goes
    if (was_cancelled) return cancelled();
  }
}

SessionManager::SessionManager(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

SessionManager::~SessionManager() = default;

absl::StatusOr<std::unique_ptr<Session>> SessionManager::PrepareSession(
    const std::string& master, const PrepareOptions& options) {
  return impl_->PrepareSession(master, options);
}

absl::StatusOr<SessionManager::RecoverResult> SessionManager::RecoverSession(
    const std::string& master, const PrepareOptions& options) {
  return impl_->RecoverSession(master, options);
}

absl::StatusOr<std::unique_ptr<Session>> SessionManager::WaitForSession(
    const std::string& master, SessionOptions config, std::optional<absl::Duration> max_wait,
    const absl::Notification* cancel) {
  return impl_->WaitForSession(master, std::move(config), max_wait, cancel);
}

absl::StatusOr<SessionManager::ReadinessReport> SessionManager::CheckReady(
    const std::string& master, SessionOptions config) {
  return impl_->CheckReady(master, std::move(config));
}

std::string SessionManager::ReadinessReport::ToString() const {
  std::string out;
  if (ready) {
    absl::StrAppend(&out, "ready");
  } else {
    absl::StrAppend(&out, "not ready (", reported_by, "): ");
    if (!uninitialized.empty()) {
      constexpr size_t kShown = 5;
      std::vector<std::string> shown(
          uninitialized.begin(), uninitialized.begin() + std::min(kShown, uninitialized.size()));
      absl::StrAppend(&out, uninitialized.size(), " of ", num_variables,
                      " variables uninitialized (", absl::StrJoin(shown, ", "),
                      uninitialized.size() > kShown ? ", ..." : "", ")");
    } else {
      absl::StrAppend(&out, message);
    }
    absl::StrAppend(&out,
                    chief_seen ? "; the chief has been at work" : "; no sign of the chief yet");
  }
  if (attempts > 0) absl::StrAppend(&out, "; attempt ", attempts);
  absl::StrAppend(&out, "; waited ", absl::FormatDuration(absl::Trunc(waited, absl::Seconds(1))));
  if (deadline_left.has_value()) {
    absl::StrAppend(&out, ", ", absl::FormatDuration(absl::Trunc(*deadline_left, absl::Seconds(1))),
                    " left");
  }
  return out;
}

}  // namespace minigraph
