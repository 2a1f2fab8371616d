#include "session/training/trainer.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <optional>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "absl/cleanup/cleanup.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_split.h"
#include "checkpoint/naming.h"
#include "core/env.h"
#include "core/events_writer.h"
#include "core/path.h"
#include "core/status_macros.h"
#include "session/basic_session_run_hooks.h"
#include "session/distributed/cluster.h"
#include "session/distributed/server.h"
#include "session/monitored_session.h"
#include "session/saver.h"
#include "session/session_manager.h"
#include "session/sync_replicas_hook.h"
#include "session/training/logdir_lock.h"
#include "session/training/model.h"

// The options carry the names of train's flags, and comments and errors
// here spell them as the flags ("--graph", "--steps").

namespace minigraph {
namespace {

// Larger batches would not fit in memory as one step's activations.
constexpr int kMaxBatch = 1 << 16;

// One progress line to `o.log`, or to standard output.
void Log(const TrainOptions& o, const std::string& line) {
  if (o.log) {
    o.log(line);
    return;
  }
  std::printf("%s\n", line.c_str());
  std::fflush(stdout);
}

// InvalidArgument naming the option as train's flag unless lo <= value <=
// hi (and, for floating point, value is finite). As tools/flag_checks.h's
// FlagInRange, which the library cannot reach (tools/ is above it).
template <typename T>
absl::Status InRange(absl::string_view option, T value, T lo, T hi) {
  bool ok = lo <= value && value <= hi;
  if constexpr (std::is_floating_point_v<T>) ok = ok && std::isfinite(value);
  if (ok) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("--", option, "=", value, " is out of range: give ", lo, " to ", hi));
}

// Where this process stands in the job.
struct Role {
  bool chief = true;
  bool in_cluster = false;
  int task_index = 0;
  std::string target;
  std::unique_ptr<Server> server;  // this task's, in a cluster
  DeviceFunction device_fn;        // ReplicaDeviceSetter, in a cluster
  std::string own_task;            // "/job:worker/task:1", in a cluster
  int replicas = 1;                // the tasks that train: the worker and chief jobs'
  uint64_t seed = 0;
};

// The Role of a run of `o`: in a cluster, this task's server and
// placement. The options are checked (CheckTrainOptions).
absl::Status JoinCluster(const TrainOptions& o, Role* role) {
  role->target = o.target;
  role->seed = o.seed;
  if (!o.cluster.has_value()) {
    if (!o.sync_replicas) return absl::OkStatus();
    return absl::InvalidArgumentError(
        "--sync_replicas synchronizes the workers of a cluster: give --cluster or TF_CONFIG");
  }
  role->in_cluster = true;
  ServerOptions so = *o.cluster;
  const std::string job = so.job_name;
  const int task = so.task_index;
  role->task_index = task;
  so.intra_op_threads = o.threads;
  so.inter_op_threads = 2;
  int num_ps = 0;
  bool chief_job = false;  // TensorFlow's "chief" job: then no worker is the chief
  role->replicas = 0;
  for (const auto& j : so.cluster.job()) {
    if (j.name() == "ps") num_ps = j.tasks_size();
    if (j.name() == "chief") chief_job = true;
    if (j.name() == "chief" || j.name() == "worker") role->replicas += j.tasks_size();
  }
  MG_ASSIGN_OR_RETURN(role->server, Server::Create(so));
  role->target = role->server->target();
  role->own_task = absl::StrCat("/job:", job, "/task:", task);
  role->device_fn = ReplicaDeviceSetter(num_ps, role->own_task);
  role->chief = job == "chief" || (!chief_job && task == 0);
  // Each worker trains on its own data; a chief job's task on the seed's.
  if (job == "worker") role->seed += chief_job ? task + 1 : task;
  return absl::OkStatus();
}

// How the MonitoredSession gets its sessions: the chief through the
// SessionManager's PrepareSession with train's restore policy (and a line
// saying what it restored), a worker by waiting for the chief.
class TrainSessionCreator : public SessionCreator {
 public:
  TrainSessionCreator(SessionManager* sm, const GraphDef* graph,
                      SessionManager::PrepareOptions prepare, const Role* role, const Model* m,
                      Env* env, std::string logdir)
      : sm_(sm),
        graph_(graph),
        prepare_(std::move(prepare)),
        role_(role),
        m_(m),
        env_(env),
        logdir_(std::move(logdir)) {
    prepare_.restored_from = &restored_from_;
  }

  absl::StatusOr<std::unique_ptr<Session>> CreateSession() override {
    if (!role_->chief) {
      Log(m_->o, absl::StrCat("worker ", role_->task_index, " waiting for the chief"));
      return sm_->WaitForSession(role_->target, prepare_.config);
    }
    const auto t0 = std::chrono::steady_clock::now();
    absl::StatusOr<std::unique_ptr<Session>> session =
        sm_->PrepareSession(role_->target, prepare_);
    if (role_->in_cluster && absl::IsUnavailable(session.status())) {
      // The ps may come up after the chief, or be restarting: the
      // MonitoredSession tries again every --recovery_wait_secs.
      Log(m_->o, absl::StrCat("chief waiting for the cluster: ", session.status().message()));
    }
    if (!session.ok()) return session.status();
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    MG_RETURN_IF_ERROR(Report(session->get(), ms));
    return session;
  }
  const GraphDef& graph() const override { return *graph_; }

 private:
  absl::Status Report(Session* session, double ms) {
    if (restored_from_.empty()) {
      if (!m_->start_from.empty()) {
        Log(m_->o, absl::StrCat("initialized from the SavedModel's variables, ", m_->start_from));
      } else if (m_->warm_started > 0) {
        Log(m_->o, absl::StrCat("initialized from scratch, warm-started from ",
                                m_->o.warm_start_from, " (", m_->warm_started, " assignment",
                                m_->warm_started == 1 ? "" : "s", ")"));
      } else {
        Log(m_->o, "initialized from scratch");
      }
      return absl::OkStatus();
    }
    uint64_t bytes = 0;
    const std::string base(Basename(restored_from_));
    for (const std::string& f : env_->GetChildren(logdir_).value_or(std::vector<std::string>())) {
      if (IsDataFilenameOf(base, f)) bytes += env_->GetFileSize(JoinPath(logdir_, f)).value_or(0);
    }
    // The checkpoint's step, from its name (in a cluster, workers may
    // already have moved global_step on since the restore).
    int64_t restored = CheckpointStep(restored_from_);
    if (restored < 0) {
      std::vector<Tensor> gs;
      MG_RETURN_IF_ERROR(session->Run({}, {m_->global_step}, {}, &gs));
      restored = *gs[0].data<int64_t>();
    }
    Log(m_->o, absl::StrFormat("restored step %d from %s in %.1f ms (%.2f MB, %.2f GB/s)",
                               restored, restored_from_, ms, bytes / 1e6,
                               bytes / 1e9 / (ms / 1e3)));
    return absl::OkStatus();
  }

  SessionManager* const sm_;
  const GraphDef* const graph_;
  SessionManager::PrepareOptions prepare_;
  const Role* const role_;
  const Model* const m_;
  Env* const env_;
  const std::string logdir_;
  std::string restored_from_;
};

absl::Status Diverged(float value, int64_t at, int64_t mine, const std::string& logdir) {
  return absl::InternalError(absl::StrCat("loss is ", value, " at step ", at, " (", mine,
                                          " steps into this run); stopped without saving, the "
                                          "checkpoints in ",
                                          logdir, " are as they were. Lower --learning_rate?"));
}

// Around each of the chief's saves: TensorFlow's NanTensorHook stops on a
// non-finite loss, but a step's update can make the model diverge after its
// own loss was finite, so the loss of the model about to be saved is
// checked first (one forward pass); after it, the line saying so.
class TrainSaveListener : public CheckpointSaverListener {
 public:
  // `lock`, the log directory's (none in a test), is checked before each save.
  TrainSaveListener(const Model* m, uint64_t seed, const int64_t* mine, std::string logdir,
                    const FileLock* lock)
      : m_(m), seed_(seed), mine_(mine), logdir_(std::move(logdir)), lock_(lock) {}
  absl::Status BeforeSave(Session* session, int64_t step) override {
    MG_RETURN_IF_ERROR(CheckLogdirLock(lock_, logdir_));
    // A graph that reads its own input would consume a batch here.
    if (m_->reads_own_input) return absl::OkStatus();
    const int batch = m_->o.batch;
    Tensor x(DT_FLOAT, TensorShape({batch, m_->inputs}));
    Tensor labels(DT_INT64, TensorShape({batch}));
    // The batch step `step` trained on (BatchCycle's).
    MakeBatch(*m_, seed_, step % BatchCycle::Period(*m_, batch), &x, &labels);
    std::vector<Tensor> check;
    MG_RETURN_IF_ERROR(
        session->Run({{"x", x}, {"labels", labels}}, {m_->loss_tensor}, {}, &check));
    if (const float l = *check[0].data<float>(); !std::isfinite(l)) {
      return Diverged(l, step, *mine_, logdir_);
    }
    return absl::OkStatus();
  }
  absl::StatusOr<bool> AfterSave(Session*, int64_t step) override {
    // As TensorFlow's CheckpointSaverHook logs each save; the final one
    // is told by train's last line.
    if (!quiet_) {
      Log(m_->o, absl::StrCat(m_->o.async_save ? "saving" : "saved", " checkpoint at step ", step));
    }
    return false;
  }
  // The step of the checkpoint the hook's End saved or found saved: the
  // file the run's last line names. Other workers still training can move
  // the global step after the training loop last read it and before End
  // reads it.
  absl::Status End(Session*, int64_t step) override {
    final_step_ = step;
    return absl::OkStatus();
  }
  void set_quiet() { quiet_ = true; }
  std::optional<int64_t> final_step() const { return final_step_; }

 private:
  const Model* const m_;
  const uint64_t seed_;
  const int64_t* const mine_;
  const std::string logdir_;
  const FileLock* const lock_;
  bool quiet_ = false;
  std::optional<int64_t> final_step_;
};

// The chief's hooks: the last step, checkpoints (every --save_every steps;
// at the start and at the end), summaries and the step rate to event files.
absl::StatusOr<HookList> ChiefHooks(const Model& m, const std::string& logdir, Env* env,
                                    std::shared_ptr<TrainSaveListener> listener,
                                    const FileLock* lock,
                                    std::shared_ptr<EventsWriter>* events) {
  const TrainOptions& o = m.o;
  // First: no other hook's work before a step once the lock is gone.
  HookList hooks = {std::make_shared<LogdirLockHook>(lock, logdir, env)};
  MG_ASSIGN_OR_RETURN(auto stop, StopAtStepHook::Create({.last_step = o.steps,
                                                          .global_step = m.global_step}));
  hooks.push_back(stop);
  // No file until the session is made: a run that is refused (a strict
  // restart, a bad checkpoint) leaves --logdir as it was.
  MG_ASSIGN_OR_RETURN(*events, EventsWriter::Create(logdir, {.env = env,
                                                             .flush_every = absl::Seconds(10),
                                                             .open_on_first_event = true}));
  CheckpointSaverHook::Options co;
  co.checkpoint_dir = logdir;
  // 0: only at the start and the end.
  const int64_t save_every = o.save_every;
  co.save_steps = save_every > 0 ? save_every : INT64_MAX / 2;
  co.saver = m.saver.get();
  co.listeners = {listener};
  co.writer = *events;
  co.meta_graph = &m.meta_graph;
  co.async_save = o.async_save;
  co.global_step = m.global_step;
  co.env = env;
  MG_ASSIGN_OR_RETURN(auto saver_hook, CheckpointSaverHook::Create(std::move(co)));
  hooks.push_back(saver_hook);
  if (const int64_t every = o.summary_every; every > 0) {
    SummarySaverHook::Options so;
    so.save_steps = every;
    so.writer = *events;
    if (!m.summary.empty()) so.summary_op = {m.summary};
    so.global_step = m.global_step;
    so.env = env;
    MG_ASSIGN_OR_RETURN(auto summaries, SummarySaverHook::Create(std::move(so)));
    hooks.push_back(summaries);
  }
  if (const int64_t every = o.log_every; every > 0) {
    MG_ASSIGN_OR_RETURN(auto counter, StepCounterHook::Create({.every_n_steps = every,
                                                               .writer = *events,
                                                               .global_step = m.global_step,
                                                               .env = env}));
    hooks.push_back(counter);
  }
  return hooks;
}

// The SessionManager of `m`'s graph: its ready op, the iterators each
// session initializes, and waiting workers that say why they wait.
absl::StatusOr<std::unique_ptr<SessionManager>> NewSessionManager(const Model& m, Env* env) {
  SessionManager::Options options;
  options.env = env;
  options.ready_op = {m.ready.tensor_name()};
  // Each session (the chief's, a worker's) gets its own iterators, and its
  // local variables.
  options.local_init_op = m.iterator_inits;
  if (!m.local_init.empty()) options.local_init_op.push_back(m.local_init);
  if (!m.iterator_inits.empty()) options.local_init_feed_dict = m.iterator_feeds;
  options.recovery_wait = m.o.recovery_wait;
  // Waiting workers say why, on a change and then once a minute.
  const TrainOptions* o = &m.o;
  options.on_readiness = [o](const SessionManager::ReadinessReport& r) {
    Log(*o, absl::StrCat("waiting for the model: ", r.ToString()));
  };
  return SessionManager::Create(m.meta_graph.graph_def(), options);
}

// How each session is prepared: init_op, then --graph's SavedModel
// variables if any; or the newest checkpoint of `logdir`, with the recovery
// flags. `m` must outlive the options.
SessionManager::PrepareOptions TrainPrepareOptions(Model* m, const std::string& logdir,
                                                   Env* env) {
  const TrainOptions& o = m->o;
  SessionManager::PrepareOptions prepare;
  prepare.init_op = {m->init.name()};
  prepare.saver = m->saver.get();
  if (!m->start_from.empty()) {
    // After init_op (local variables, anything the SavedModel lacks), its
    // variables, through the graph's Saver.
    prepare.init_fn = [m](Session* s) { return m->saver->Restore(s, m->start_from); };
  }
  // --start_over: nothing is restored, so nothing refuses either.
  if (!o.start_over) prepare.checkpoint_dir = logdir;
  prepare.fallback_to_valid_checkpoint = o.fallback_to_valid_checkpoint;
  prepare.strict = o.strict;
  prepare.recover_state_from_directory = o.recover_state;
  prepare.config.intra_op_threads = o.threads;
  prepare.config.inter_op_threads = 1;
  prepare.config.env = env;
  return prepare;
}

// The chief's hooks (ChiefHooks, which makes `*events`), or a worker's:
// only the stop at --steps.
absl::StatusOr<HookList> TrainHooks(const Model& m, const Role& role, const std::string& logdir,
                                    Env* env, std::shared_ptr<TrainSaveListener> listener,
                                    const FileLock* lock,
                                    std::shared_ptr<EventsWriter>* events) {
  HookList hooks;
  if (role.chief) {
    MG_ASSIGN_OR_RETURN(hooks, ChiefHooks(m, logdir, env, std::move(listener), lock, events));
  } else {
    MG_ASSIGN_OR_RETURN(auto stop, StopAtStepHook::Create({.last_step = m.o.steps,
                                                            .global_step = m.global_step}));
    hooks.push_back(stop);
  }
  // --sync_replicas: the replica's local step; the chief's first tokens
  // and the runner that applies the aggregated gradients.
  if (m.sync.has_value()) hooks.push_back(std::make_shared<SyncReplicasHook>(*m.sync));
  return hooks;
}

// --workers: threads of this process that train the shared local:// model
// beside the main loop, each in a session of its own, until the global step
// reaches --steps or Join.
class LocalWorkers {
 public:
  LocalWorkers(SessionManager* sm, const SessionOptions& config, const Role& role,
               const Model& m) {
    const int64_t steps = m.o.steps;
    const int batch = m.o.batch;
    for (int w = 0; w < m.o.workers; ++w) {
      threads_.emplace_back(
          [this, sm, config, &role, &m, w, steps, batch] {
            Train(sm, config, role, m, w, steps, batch);
          });
    }
  }
  ~LocalWorkers() { Join(); }

  void Join() {
    stop_.store(true);
    for (auto& t : threads_) t.join();
    threads_.clear();
  }

 private:
  void Train(SessionManager* sm, const SessionOptions& config, const Role& role, const Model& m,
             int w, int64_t steps, int batch) {
    auto session = sm->WaitForSession(role.target, config, absl::Seconds(60));
    if (!session.ok()) {
      Log(m.o, absl::StrCat("worker ", w, ": ", session.status().message()));
      return;
    }
    BatchCycle batches(m, role.seed + 1 + w, batch);
    std::vector<Tensor> out;
    int64_t ran = 0;
    while (!stop_.load()) {
      if (!(*session)->Run({}, {m.global_step}, {}, &out).ok()) break;
      const int64_t at = *out[0].data<int64_t>();
      if (at >= steps) break;
      if (!(*session)->Run(batches.Feeds(at), {}, {m.train_op}, &out).ok()) break;
      ++ran;
    }
    Log(m.o, absl::StrCat("worker ", w, " ran ", ran, " steps"));
  }

  std::vector<std::thread> threads_;
  std::atomic<bool> stop_{false};
};

// Trains from `r->step` until --steps, a hook's stop, the end of the
// graph's input or TrainOptions::stop, keeping `r` (the global step, this
// process's steps, the last loss, whether stopped) as it goes; logs the
// loss and the step rate once a second. A diverged loss is an error
// (TensorFlow's NanTensorHook), before a save puts the model over the good
// checkpoints.
absl::Status TrainLoop(MonitoredSession* session, const Model& m, const Role& role,
                       const std::string& logdir, TrainResult* r) {
  const TrainOptions& o = m.o;
  const int batch = o.batch;
  const int64_t steps = o.steps;
  BatchCycle batches(m, role.seed, batch);
  std::vector<Tensor> out;
  auto last_print = std::chrono::steady_clock::now();
  int64_t printed_step = r->step;
  // Others (threads, worker processes) move the shared global_step too: it
  // is fetched with every step.
  // A run that starts at --steps or past it trains no step (as Estimator
  // skips training there; the MonitoredSession alone would run one).
  while (r->step < steps && !session->ShouldStop()) {
    FeedList feeds;
    if (!m.reads_own_input) feeds = batches.Feeds(r->step);
    if (absl::Status s =
            session->Run(feeds, {m.loss_tensor, m.global_step}, {m.train_op}, &out);
        !s.ok()) {
      if (m.reads_own_input && absl::IsOutOfRange(s)) {
        // The graph's input ended: the end of training, as a
        // MonitoredSession's `with` block takes it.
        Log(o, absl::StrCat("end of input at step ", r->step));
        return absl::OkStatus();
      }
      if (m.sync.has_value() && !role.chief && absl::IsOutOfRange(s)) {
        // The chief closed the token queue: it has finished.
        Log(o, absl::StrCat("the chief has finished, at step ", r->step));
        return absl::OkStatus();
      }
      return s;
    }
    ++r->steps_run;
    // Synchronous steps move the global step together (an update per
    // replicas' worth of steps); others move it at least by their own.
    r->step = m.sync.has_value() ? *out[1].data<int64_t>()
                                 : std::max(r->step + 1, *out[1].data<int64_t>());
    r->loss = *out[0].data<float>();
    if (!std::isfinite(r->loss)) {
      return Diverged(r->loss, r->step, r->steps_run, logdir);
    }
    const auto now = std::chrono::steady_clock::now();
    const double since = std::chrono::duration<double>(now - last_print).count();
    if (since >= 1.0) {
      Log(o, absl::StrFormat("step %d loss %.4f (%.0f steps/s)", r->step, r->loss,
                             (r->step - printed_step) / since));
      last_print = now;
      printed_step = r->step;
    }
    if (o.stop != nullptr && o.stop->load()) {
      r->stopped = true;
      break;
    }
  }
  return absl::OkStatus();
}

absl::Status ReadGlobalStep(MonitoredSession* session, const Model& m, int64_t* step) {
  std::vector<Tensor> gs;
  MG_RETURN_IF_ERROR(session->raw_session()->Run({}, {m.global_step}, {}, &gs));
  *step = *gs[0].data<int64_t>();
  return absl::OkStatus();
}

// Checks the options of this process's role and takes the log directory
// (the chief).
absl::Status TakeLogdir(const TrainOptions& o, const Role& role, const std::string& logdir,
                        Env* env, std::unique_ptr<FileLock>* logdir_lock) {
  if (logdir.empty() && role.chief) return absl::InvalidArgumentError("--logdir is required");
  if (o.workers > 0 && role.target.rfind("local://", 0) != 0) {
    return absl::InvalidArgumentError("--workers needs --target=local://NAME");
  }
  if (!role.chief) return absl::OkStatus();
  MG_RETURN_IF_ERROR(env->CreateDir(logdir));
  MG_ASSIGN_OR_RETURN(*logdir_lock, LockLogdir(env, logdir));
  return absl::OkStatus();
}


// Trains `o` (checked) in the role `role`, whose log directory `lock` holds
// (the chief's; null for a worker).
absl::StatusOr<TrainResult> TrainAs(const TrainOptions& o, const Role& role, Env* env,
                                    const FileLock* lock) {
  const std::string& logdir = o.logdir;
  Model m(o);
  m.replicas = role.replicas;
  m.chief = role.chief;
  MG_RETURN_IF_ERROR(BuildModel(&m, role.device_fn, role.own_task, env));
  MG_ASSIGN_OR_RETURN(std::unique_ptr<SessionManager> sm, NewSessionManager(m, env));
  const SessionManager::PrepareOptions prepare = TrainPrepareOptions(&m, logdir, env);
  TrainResult result;
  result.chief = role.chief;
  result.task_index = role.task_index;
  std::shared_ptr<EventsWriter> events;
  auto listener =
      std::make_shared<TrainSaveListener>(&m, role.seed, &result.steps_run, logdir, lock);
  MG_ASSIGN_OR_RETURN(HookList hooks, TrainHooks(m, role, logdir, env, listener, lock, &events));
  // An asynchronous save still running uses the session: finish it before
  // the session goes, whatever path leaves this function. Its error is the
  // run's unless the run failed first.
  std::unique_ptr<MonitoredSession> session;
  absl::Status saves;
  absl::Cleanup finish_saves = [&] { saves = m.saver->Wait().status(); };
  {
    MG_ASSIGN_OR_RETURN(
        session, MonitoredSession::Create(
                     std::make_unique<TrainSessionCreator>(sm.get(), &m.meta_graph.graph_def(),
                                                           prepare, &role, &m, env, logdir),
                     hooks,
                     {.give_up_after = absl::Minutes(10),
                      .retry_every = o.recovery_wait,
                      .env = env,
                      .queue_runners = m.queue_runners}));
  }
  m.warm_start_reader.reset();  // read by the initializers, or not needed
  MG_RETURN_IF_ERROR(ReadGlobalStep(session.get(), m, &result.step));
  {
    LocalWorkers workers(sm.get(), prepare.config, role, m);
    if (o.on_training) o.on_training();
    // No Close after a divergence: it would save.
    MG_RETURN_IF_ERROR(TrainLoop(session.get(), m, role, logdir, &result));
  }
  MG_RETURN_IF_ERROR(ReadGlobalStep(session.get(), m, &result.step));
  // Closing runs the hooks' End: the chief saves at the last step.
  listener->set_quiet();
  MG_RETURN_IF_ERROR(session->Close());
  if (listener->final_step().has_value()) result.step = *listener->final_step();
  if (events != nullptr) MG_RETURN_IF_ERROR(events->Close());
  std::move(finish_saves).Invoke();
  MG_RETURN_IF_ERROR(saves);
  if (role.chief) result.checkpoint = JoinPath(logdir, absl::StrCat("model.ckpt-", result.step));
  return result;
}

}  // namespace

absl::StatusOr<std::map<std::string, std::string>> ParseAssignmentMap(absl::string_view spec) {
  std::map<std::string, std::string> map;
  if (spec.empty()) return map;
  for (absl::string_view pair : absl::StrSplit(spec, ',')) {
    std::vector<std::string> sides = absl::StrSplit(pair, '=');
    if (sides.size() != 2 || sides[0].empty() || sides[1].empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("--warm_start_map=", spec,
                       ": wants CHECKPOINT=VARIABLE pairs separated by commas, got '", pair, "'"));
    }
    map[sides[0]] = sides[1];
  }
  return map;
}

absl::Status CheckTrainOptions(const TrainOptions& o) {
  MG_RETURN_IF_ERROR(InRange("batch", o.batch, 1, kMaxBatch));
  MG_RETURN_IF_ERROR(InRange<int64_t>("steps", o.steps, 0, INT64_MAX));
  MG_RETURN_IF_ERROR(InRange("learning_rate", o.learning_rate, 1e-30, 1e38));
  MG_RETURN_IF_ERROR(InRange<int64_t>("save_every", o.save_every, 0, INT64_MAX));
  MG_RETURN_IF_ERROR(InRange("max_to_keep", o.max_to_keep, 0, INT_MAX));
  MG_RETURN_IF_ERROR(InRange("threads", o.threads, 1, 1024));
  MG_RETURN_IF_ERROR(InRange("workers", o.workers, 0, 1024));
  MG_RETURN_IF_ERROR(InRange<int64_t>("summary_every", o.summary_every, 0, INT64_MAX));
  MG_RETURN_IF_ERROR(InRange<int64_t>("log_every", o.log_every, 0, INT64_MAX));
  if (!o.warm_start_map.empty() && o.warm_start_from.empty()) {
    return absl::InvalidArgumentError("--warm_start_map needs --warm_start_from");
  }
  const bool graph = !o.graph.empty();
  for (const auto& [flag, value] : std::vector<std::pair<std::string, std::string>>{
           {"train_op", o.train_op},
           {"loss", o.loss},
           {"input", o.input},
           {"input_placeholder", o.input_placeholder}}) {
    if (!value.empty() && !graph) {
      return absl::InvalidArgumentError(absl::StrCat("--", flag, "=", value, " needs --graph"));
    }
  }
  if (graph && (o.workers > 0 || !o.warm_start_from.empty())) {
    return absl::InvalidArgumentError(
        "--graph trains the graph as it is: --workers and --warm_start_from do not apply");
  }
  if (o.sync_replicas && graph) {
    return absl::InvalidArgumentError(
        "--sync_replicas builds the optimizer of a built-in model; a --graph brings its own (a "
        "SyncReplicasOptimizer built by TensorFlow trains as it is)");
  }
  if (o.cluster.has_value()) {
    const std::string& job = o.cluster->job_name;
    if (job != "worker" && job != "chief") {
      return absl::InvalidArgumentError(absl::StrCat(
          "--job_name (or TF_CONFIG's task.type) must be worker or chief to train in a cluster "
          "(a ps task serves: Server), got '", job, "'"));
    }
    if (!o.target.empty() || o.workers > 0) {
      return absl::InvalidArgumentError(
          "--cluster runs one task per process: --target and --workers do not apply");
    }
  }
  return InRange("recovery_wait_secs", absl::ToDoubleSeconds(o.recovery_wait), 1e-3, 86400.0);
}

absl::StatusOr<TrainResult> Train(const TrainOptions& o) {
  MG_RETURN_IF_ERROR(CheckTrainOptions(o));
  Env* env = o.env != nullptr ? o.env : Env::Default();
  Role role;
  MG_RETURN_IF_ERROR(JoinCluster(o, &role));
  std::unique_ptr<FileLock> logdir_lock;
  MG_RETURN_IF_ERROR(TakeLogdir(o, role, o.logdir, env, &logdir_lock));
  return TrainAs(o, role, env, logdir_lock.get());
}

}  // namespace minigraph
