// A self-contained training binary: builds a model, prepares it through the
// SessionManager (restoring the newest checkpoint of --logdir, or
// initializing), trains on data that is a pure function of (--seed, step),
// saves every --save_every steps and at the end, and on SIGTERM or SIGINT
// finishes the current step, saves and exits 0. The loop is TensorFlow's
// MonitoredTrainingSession (session/monitored_session.h): its hooks stop at
// --steps, save checkpoints (also when the session starts, as TensorFlow's
// CheckpointSaverHook does) and write TensorBoard's event file in --logdir
// (the loss and learning rate every --summary_every steps, global_step/sec
// every --log_every, the graph, each checkpoint); a step that fails because
// a ps restarted makes a new session (the chief restores the newest
// checkpoint) and goes on.
//
//   train --logdir=/tmp/run --model=mlp --steps=500 --save_every=50
//
// Between-graph replication across processes, as TensorFlow 1.x does it:
// every process of the cluster runs `train` with the same --cluster and
// its own --job_name/--task_index (or TensorFlow's TF_CONFIG environment
// variable instead of the three), and hosts its task's server. ps tasks
// only serve (the variables live there, placed round robin); the chief (task
// 0 of a "chief" job, else worker task 0) restores or initializes and saves;
// the other workers wait for it (WaitForSession) and train the shared model
// on their own data.
//
//   C='ps=127.0.0.1:2222;worker=127.0.0.1:2223,127.0.0.1:2224'
//   train --cluster=$C --job_name=ps --task_index=0 &
//   train --cluster=$C --job_name=worker --task_index=0 --logdir=/tmp/run &   # chief
//   train --cluster=$C --job_name=worker --task_index=1 --logdir=/tmp/run
//
// The training itself is session/training/trainer.h's Train; this file maps
// the flags to its options, handles the signals, serves a ps task and
// prints the run's last line.
#include <unistd.h>

#include <atomic>
#include <csignal>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "absl/flags/flag.h"
#include "absl/flags/usage.h"
#include "absl/strings/str_cat.h"
#include "core/env.h"
#include "core/logging.h"
#include "core/status_macros.h"
#include "session/distributed/server.h"
#include "session/training/trainer.h"
#include "tools/cluster_flags.h"
#include "tools/flag_checks.h"
#include "tools/train_env.h"

ABSL_FLAG(std::string, logdir, "", "Checkpoint directory (required)");
ABSL_FLAG(std::string, target, "", "Session target: \"\" or local://NAME");
ABSL_FLAG(std::string, model, "mlp",
          "mlp (784-128-10, ReLU, softmax cross entropy), linear, or cnn (28x28 images: two 5x5 "
          "convolutions with ReLU and 2x2 max pools, 8 and 16 channels, then 784-10)");
ABSL_FLAG(int64_t, steps, 1000, "Train until global_step reaches this");
ABSL_FLAG(int, batch, 32, "Examples per step");
ABSL_FLAG(std::string, optimizer, "sgd", "sgd, momentum, adam, rmsprop, adagrad, adadelta or ftrl");
ABSL_FLAG(double, learning_rate, 0.01, "Learning rate");
ABSL_FLAG(int64_t, save_every, 100, "Save a checkpoint every this many steps (0: only at the end)");
ABSL_FLAG(int, max_to_keep, 5, "Checkpoints kept");
ABSL_FLAG(bool, resource_variables, false,
          "Build the model's variables (and the optimizer's slots) as resource variables, as "
          "TensorFlow 2 does: VarHandleOp, ReadVariableOp, ResourceApply*");
ABSL_FLAG(bool, async_save, false,
          "Write the periodic checkpoints in the background (Saver::SaveAsync): the step goes on "
          "while a snapshot of the variables is written; the final save waits");
ABSL_FLAG(bool, align_tensors, false,
          "Start every tensor of the checkpoints at a multiple of 64 bytes of the data file "
          "(SaverOptions::align_tensors): restores then use the file's pages in place instead of "
          "copying them; TensorFlow reads such checkpoints too. Not for a --graph with a Saver "
          "of its own");
ABSL_FLAG(uint64_t, seed, 1, "Seed of the initial weights and of the data");
ABSL_FLAG(int, threads, 1, "Intra-op threads (1 keeps runs bitwise reproducible)");
ABSL_FLAG(int, workers, 0,
          "Worker threads that wait for the chief (SessionManager::WaitForSession) and train "
          "the shared model with it; needs --target=local://NAME");
ABSL_FLAG(bool, sync_replicas, false,
          "In a cluster: synchronous training (TensorFlow's SyncReplicasOptimizer), each update "
          "the mean of one step of every worker task, the chief's included");

ABSL_FLAG(std::string, warm_start_from, "",
          "A checkpoint (prefix, or a directory: its latest) the model's trainable variables "
          "start from when --logdir has no checkpoint of its own (Estimator's warm start, "
          "tf.train.init_from_checkpoint); optimizer slots and global_step start afresh");
ABSL_FLAG(bool, lease_checkpoints, true,
          "Readers of this run's checkpoints in other processes (an evaluator, another run's "
          "--warm_start_from) lease them: retention deletes a checkpoint only once no reader "
          "holds it (a CHECKPOINT.lease file beside each, and checkpoint.lease)");
ABSL_FLAG(std::string, warm_start_map, "",
          "With --warm_start_from: TensorFlow's assignment_map as CHECKPOINT=VARIABLE pairs, "
          "comma-separated, each a name or a scope ending in / (old_model/=layer1/); default: "
          "every trainable variable from the tensor of its own name");
ABSL_FLAG(bool, fallback_to_valid_checkpoint, false,
          "When the newest checkpoint cannot be restored (missing, corrupt, truncated, another "
          "shape), restore the newest one that can, warning which and why");
ABSL_FLAG(bool, recover_state, true,
          "When --logdir's state file (checkpoint) is missing, unreadable, or names a newest "
          "checkpoint that does not exist, restore the newest complete checkpoint in --logdir "
          "and rewrite the state file (TensorFlow restarts from step 0)");
ABSL_FLAG(bool, strict, true,
          "Refuse to start from scratch while --logdir holds checkpoint files that nothing "
          "restores (they would be overwritten); --nostrict starts from step 0 as TensorFlow does");
ABSL_FLAG(bool, start_over, false,
          "Train from step 0 whatever --logdir holds: restore nothing, and overwrite its "
          "checkpoints as the run reaches their steps");
ABSL_FLAG(std::string, graph, "",
          "Train a TensorFlow 1 meta graph instead of --model: MODEL.meta (binary or text), or a "
          "SavedModel directory's graph tagged \"train\" (starting from its variables). Its "
          "train op (the \"train_op\" collection, or --train_op), loss (\"losses\", or "
          "--loss), global step, Saver, summaries and input pipeline; in a cluster, the "
          "devices it records");
ABSL_FLAG(std::string, train_op, "", "With --graph: the op one step runs");
ABSL_FLAG(std::string, loss, "", "With --graph: the loss tensor");
ABSL_FLAG(std::string, input, "",
          "With --graph: the files (comma-separated, globs allowed) fed to its filename "
          "placeholder when its iterators are initialized");
ABSL_FLAG(std::string, input_placeholder, "",
          "With --input: the placeholder to feed (default: the graph's one string placeholder)");
ABSL_FLAG(int64_t, summary_every, 100,
          "Write the loss and the learning rate to --logdir's event file (TensorBoard) every this "
          "many steps (0: never)");
ABSL_FLAG(int64_t, log_every, 100,
          "Write global_step/sec to the event file every this many steps (0: never)");
ABSL_FLAG(double, recovery_wait_secs, 30,
          "How long a waiting worker sleeps between looks at the model (TensorFlow's 30 s)");
namespace minigraph {
namespace {

// SIGTERM and SIGINT. Once the training loop runs, the first stops it; the
// run then saves and exits 0. Before that (building, waiting for the
// cluster, restoring, the first save), or at a second signal, the process
// ends at once, wherever it is blocked: nothing has been trained yet, and
// whatever a save was writing is as safe as after SIGKILL.
std::atomic<bool> stop_requested{false};
std::atomic<bool> training{false};
void OnSignal(int sig) {
  if (stop_requested.exchange(true) || !training.load()) {
    static constexpr char kMessage[] = "train: stopped by signal, saving nothing more\n";
    ssize_t ignored = write(STDERR_FILENO, kMessage, sizeof(kMessage) - 1);
    (void)ignored;
    // Ended by the signal itself, as without a handler: the signal is
    // blocked until this handler returns, and then kills.
    std::signal(sig, SIG_DFL);
    std::raise(sig);
  }
}

int Fail(const absl::Status& s) {
  std::fprintf(stderr, "train: %s\n", std::string(s.ToString()).c_str());
  return 1;
}

// A ps task: serves its variables until SIGTERM or SIGINT.
int ServePs(ServerOptions options) {
  options.intra_op_threads = absl::GetFlag(FLAGS_threads);
  options.inter_op_threads = 2;
  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGTERM);
  sigaddset(&stop, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop, nullptr);  // before the server's threads start
  auto server = Server::Create(options);
  if (!server.ok()) return Fail(server.status());
  std::printf("ps task %d serving at %s\n", options.task_index, (*server)->target().c_str());
  std::fflush(stdout);
  int sig = 0;
  sigwait(&stop, &sig);
  (*server)->Stop();
  return 0;
}

// The flags as Train's options (the cluster's are added by Run); every
// value out of range is an error that names its flag, before any work.
absl::StatusOr<TrainOptions> OptionsFromFlags(const std::vector<char*>& rest) {
  MG_RETURN_IF_ERROR(NoPositionalArguments(rest));
  TrainOptions o;
  o.logdir = absl::GetFlag(FLAGS_logdir);
  o.target = absl::GetFlag(FLAGS_target);
  o.model = absl::GetFlag(FLAGS_model);
  o.steps = absl::GetFlag(FLAGS_steps);
  o.batch = absl::GetFlag(FLAGS_batch);
  o.optimizer = absl::GetFlag(FLAGS_optimizer);
  o.learning_rate = absl::GetFlag(FLAGS_learning_rate);
  o.save_every = absl::GetFlag(FLAGS_save_every);
  o.max_to_keep = absl::GetFlag(FLAGS_max_to_keep);
  o.resource_variables = absl::GetFlag(FLAGS_resource_variables);
  o.async_save = absl::GetFlag(FLAGS_async_save);
  o.align_tensors = absl::GetFlag(FLAGS_align_tensors);
  o.seed = absl::GetFlag(FLAGS_seed);
  o.threads = absl::GetFlag(FLAGS_threads);
  o.workers = absl::GetFlag(FLAGS_workers);
  o.sync_replicas = absl::GetFlag(FLAGS_sync_replicas);
  o.warm_start_from = absl::GetFlag(FLAGS_warm_start_from);
  const std::string map = absl::GetFlag(FLAGS_warm_start_map);
  if (!map.empty() && o.warm_start_from.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--warm_start_map=", map, " needs --warm_start_from"));
  }
  MG_ASSIGN_OR_RETURN(o.warm_start_map, ParseAssignmentMap(map));
  o.lease_checkpoints = absl::GetFlag(FLAGS_lease_checkpoints);
  o.fallback_to_valid_checkpoint = absl::GetFlag(FLAGS_fallback_to_valid_checkpoint);
  o.recover_state = absl::GetFlag(FLAGS_recover_state);
  o.strict = absl::GetFlag(FLAGS_strict);
  o.start_over = absl::GetFlag(FLAGS_start_over);
  o.graph = absl::GetFlag(FLAGS_graph);
  o.train_op = absl::GetFlag(FLAGS_train_op);
  o.loss = absl::GetFlag(FLAGS_loss);
  o.input = absl::GetFlag(FLAGS_input);
  o.input_placeholder = absl::GetFlag(FLAGS_input_placeholder);
  o.summary_every = absl::GetFlag(FLAGS_summary_every);
  o.log_every = absl::GetFlag(FLAGS_log_every);
  const double wait = absl::GetFlag(FLAGS_recovery_wait_secs);
  MG_RETURN_IF_ERROR(FlagInRange("recovery_wait_secs", wait, 1e-3, 86400.0));
  o.recovery_wait = absl::Seconds(wait);
  MG_RETURN_IF_ERROR(CheckTrainOptions(o));
  return o;
}

// The run's last line.
void PrintSummary(const TrainResult& r) {
  const auto step = static_cast<long long>(r.step);
  const auto mine = static_cast<long long>(r.steps_run);
  if (r.stopped) {
    if (!r.chief) {
      std::printf("worker stopped on signal after %lld steps\n", mine);
    } else {
      std::printf("saved checkpoint at step %lld on signal\n", step);
    }
  } else if (!r.chief) {
    std::printf("worker %d done: ran %lld steps, global step %lld, loss %.4f\n", r.task_index,
                mine, step, r.loss);
  } else {
    std::printf("done: step %lld loss %.4f (this process ran %lld steps), saved %s\n", step,
                r.loss, mine, r.checkpoint.c_str());
  }
}

int Run(TrainOptions o) {
  // Every step makes the same tensors again (and, with --async_save, copies
  // of the variables a save still reads): reuse their pages.
  ApplyMemoryFlags();
  if (ClusterFlagsGiven()) {
    absl::StatusOr<ServerOptions> so = ServerOptionsFromFlags();
    if (!so.ok()) return Fail(so.status());
    const std::string job = so->job_name;
    if (job != "ps" && job != "worker" && job != "chief") {
      return Fail(absl::InvalidArgumentError(absl::StrCat(
          "--job_name (or TF_CONFIG's task.type) must be ps, worker or chief in a cluster, got '",
          job, "'")));
    }
    if (!o.target.empty() || o.workers > 0) {
      return Fail(absl::InvalidArgumentError(
          "--cluster runs one task per process: --target and --workers do not apply"));
    }
    if (job == "ps") return ServePs(*so);
    o.cluster = *so;
  }
  std::signal(SIGTERM, OnSignal);
  std::signal(SIGINT, OnSignal);
  SetMinLogLevel(LogLevel::kWarning);
  const std::unique_ptr<Env> test_env = TestEnvFromEnvironment();
  o.env = test_env != nullptr ? test_env.get() : Env::Default();
  o.stop = &stop_requested;
  o.on_training = [] { training.store(true); };
  absl::StatusOr<TrainResult> result = Train(o);
  if (!result.ok()) return Fail(result.status());
  PrintSummary(*result);
  return 0;
}

}  // namespace
}  // namespace minigraph

int main(int argc, char** argv) {
  absl::SetProgramUsageMessage(
      "Trains a model with checkpoints, resuming from the newest one.\n"
      "  train --logdir=D [--model=mlp|linear|cnn] [--steps=N] [--save_every=N] "
      "[--optimizer=sgd|momentum|adam]");
  std::vector<char*> rest = minigraph::ParseFlags(argc, argv);
  absl::StatusOr<minigraph::TrainOptions> options = minigraph::OptionsFromFlags(rest);
  absl::Status s = options.status();
  if (s.ok()) s = minigraph::ApplyMaxTensorBytes();
  if (!s.ok()) return minigraph::UsageError("train", s);
  return minigraph::Run(*std::move(options));
}
