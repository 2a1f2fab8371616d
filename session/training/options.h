// Train's options and result (session/training/trainer.h tells what a run
// does with them). Plain values: copy them freely; a run only reads its
// options.

#ifndef MINIGRAPH_SESSION_TRAINING_OPTIONS_H_
#define MINIGRAPH_SESSION_TRAINING_OPTIONS_H_

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>

#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "core/env.h"
#include "session/distributed/server.h"

namespace minigraph {

struct TrainOptions {
  // The checkpoint directory: checkpoints, their state file, the event
  // file and train.lock. Required of the chief.
  std::string logdir;
  // The session target: "" (in process) or local://NAME; in a cluster, set
  // from the server.
  std::string target;

  // The model: a built-in one ("mlp": 784-128-10, ReLU, softmax cross
  // entropy; "linear"; "cnn": 28x28 images through two 5x5 convolutions
  // with ReLU and 2x2 max pools, 8 and 16 channels, then 784-10), trained
  // on batches that are a pure function of (seed, step)...
  std::string model = "mlp";
  int batch = 32;
  std::string optimizer = "sgd";  // momentum, adam, rmsprop, adagrad, adadelta, ftrl
  double learning_rate = 0.01;
  // Variables (and slots) as TensorFlow 2's resource variables.
  bool resource_variables = false;
  uint64_t seed = 1;  // the initial weights' and the data's
  // ...or `graph`: a TensorFlow 1 meta graph (MODEL.meta, binary or text,
  // or a SavedModel directory's graph tagged exactly {"train"}, starting
  // from its variables), with its own train op (the "train_op"
  // collection's, or `train_op`), loss ("losses", or `loss`), global step,
  // Saver, summaries and input pipeline; `input` (comma-separated files or
  // globs) is fed to its filename placeholder (`input_placeholder`, or its
  // one string placeholder) when its iterators are initialized.
  std::string graph;
  std::string train_op;
  std::string loss;
  std::string input;
  std::string input_placeholder;

  // Train until the global step reaches this.
  int64_t steps = 1000;
  // A checkpoint every this many steps (0: at the start and the end only),
  // keeping the newest `max_to_keep`.
  int64_t save_every = 100;
  int max_to_keep = 5;
  // Periodic saves written in the background (Saver::SaveAsync).
  bool async_save = false;
  // Every tensor of the checkpoints at a multiple of 64 bytes (restores use
  // the file's pages in place).
  bool align_tensors = false;
  // Other processes reading this run's checkpoints lease them: retention
  // deletes one only once no reader holds it.
  bool lease_checkpoints = true;
  // Intra-op threads (1 keeps runs bitwise reproducible), and threads of
  // this process that train the shared model beside the main loop (needs a
  // local:// target).
  int threads = 1;
  int workers = 0;

  // A checkpoint (prefix, or a directory: its newest) the trainable
  // variables start from when `logdir` has none of its own, mapped as
  // TensorFlow's assignment_map (ParseAssignmentMap; empty: every
  // trainable variable from the tensor of its own name).
  std::string warm_start_from;
  std::map<std::string, std::string> warm_start_map;

  // The restore policy (SessionManager::PrepareOptions): the newest valid
  // checkpoint when the newest cannot be restored; the newest complete one
  // when the state file is missing or stale; refuse to start from scratch
  // over checkpoints nothing restores; or restore nothing and overwrite.
  bool fallback_to_valid_checkpoint = false;
  bool recover_state = true;
  bool strict = true;
  bool start_over = false;

  // The loss and learning rate (summaries) and global_step/sec to the
  // event file every this many steps (0: never).
  int64_t summary_every = 100;
  int64_t log_every = 100;
  // How long a waiting worker sleeps between looks at the model, and the
  // MonitoredSession between tries at a session.
  absl::Duration recovery_wait = absl::Seconds(30);

  // In a cluster: this task's server (a "worker" or "chief" job's task).
  std::optional<ServerOptions> cluster;
  // In a cluster, a built-in model: synchronous training (TensorFlow's
  // SyncReplicasOptimizer): each update applies the mean of one step's
  // gradients from every worker task (the chief's included), and no
  // worker steps on weights older than the last update.
  bool sync_replicas = false;

  // Files and time; null: Env::Default(). Not owned.
  Env* env = nullptr;
  // The run's progress lines ("restored step 300 from ...", "step 400 loss
  // 0.2131 (812 steps/s)", "saved checkpoint at step 500"), each without
  // its newline; null: standard output.
  std::function<void(absl::string_view line)> log;
  // Read once a step: when true, the run finishes its step, saves (the
  // chief) and returns with TrainResult::stopped. May be set from a signal
  // handler. Not owned.
  const std::atomic<bool>* stop = nullptr;
  // Called once the session is made and restored, as the first step is
  // about to run (`train` makes its signals stop gracefully from then on).
  std::function<void()> on_training;
};

// How a run ended.
struct TrainResult {
  bool chief = true;
  int task_index = 0;
  int64_t step = 0;       // the global step at the end
  int64_t steps_run = 0;  // the steps this process ran
  float loss = 0;         // the last step's
  bool stopped = false;   // by TrainOptions::stop
  // The chief's last checkpoint (logdir/model.ckpt-STEP).
  std::string checkpoint;
};

}  // namespace minigraph

#endif  // MINIGRAPH_SESSION_TRAINING_OPTIONS_H_
