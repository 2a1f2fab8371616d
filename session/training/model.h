// The model a training run builds (session/training/trainer.h): a
// built-in one or an imported TensorFlow 1 meta graph, what one step runs of
// it, and the batches a built-in model is fed. Internal to
// session/training.
//
// Thread rules: a Model is built on one thread and then only read; a
// BatchCycle belongs to one thread.

#ifndef MINIGRAPH_SESSION_TRAINING_MODEL_H_
#define MINIGRAPH_SESSION_TRAINING_MODEL_H_

#include <algorithm>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "checkpoint/bundle_reader.h"
#include "core/env.h"
#include "core/tensor.h"
#include "runtime/cc/ops.h"
#include "runtime/cc/scope.h"
#include "runtime/cc/sync_replicas_optimizer.h"
#include "session/monitored_session.h"
#include "session/queue_runner.h"
#include "session/saver.h"
#include "session/training/options.h"

namespace minigraph {

// A run's model, and what the loop runs of it.
struct Model {
  explicit Model(const TrainOptions& options) : o(options) {}

  const TrainOptions& o;
  Scope root = Scope::NewRootScope();
  int inputs = 0, classes = 0;
  bool images = false;  // inputs are 28x28 images (cnn)
  Output loss;
  Operation train, init;
  Output ready;  // the uninitialized variables' names (SessionManager's ready_op)
  std::unique_ptr<Saver> saver;
  std::string summary;  // the merged summaries (loss, learning_rate)
  MetaGraphDef meta_graph;  // the graph, its collections and SaverDef
  int warm_started = 0;  // assignment_map pairs, with --warm_start_from
  // The --warm_start_from checkpoint, open and leased until the session's
  // initializers have read it.
  std::unique_ptr<BundleReader> warm_start_reader;
  // What the loop runs, by name: the built-in model's, or --graph's.
  std::string train_op;
  std::string loss_tensor = "loss:0";
  std::string global_step = "global_step/read:0";
  // --graph: the graph reads its own input (nothing is fed to its steps);
  // its iterators are initialized once per session, with these feeds.
  bool reads_own_input = false;
  // --graph: its local variables' initializer, run by every session ("" when
  // it has none).
  std::string local_init;
  std::vector<std::string> iterator_inits;
  FeedList iterator_feeds;
  // --graph: its queue runners (TensorFlow 1's input pipelines), which the
  // MonitoredSession starts; the end of their input ends training.
  std::vector<QueueRunnerDef> queue_runners;
  // --graph=SAVED_MODEL_DIR: the checkpoint a run without one of its own
  // starts from (the SavedModel's variables).
  std::string start_from;
  // --sync_replicas: how many tasks train (set before BuildModel), whether
  // this one is the chief, and what its SyncReplicasHook runs.
  int replicas = 1;
  bool chief = true;
  std::optional<SyncReplicasHookOps> sync;
};

// Builds `m` from its options: --graph's meta graph (its nodes placed by
// `device_fn` in a cluster, a worker's or chief's on `own_task`), or the
// built-in --model with its optimizer, global step, Saver (sharded by
// device in a cluster) and summaries. `env` is the sessions' (the Saver's
// too). InvalidArgument or NotFound naming the option, file or node.
absl::Status BuildModel(Model* m, const DeviceFunction& device_fn, const std::string& own_task,
                        Env* env);

// Batch number k of a seed's: a pure function of (seed, k). Labels follow
// a fixed teacher the model can learn, so the loss can fall.
void MakeBatch(const Model& m, uint64_t seed, int64_t k, Tensor* x, Tensor* labels);

// The batches a run feeds: step k's is batch k mod a period, each made the
// first time a step needs it and kept, so that making inputs (normal
// numbers by the million) costs nothing once the first period has passed
// and the rate `train` prints is the engine's. The period holds at most
// kCycleBytes of inputs (and at least one batch), so it depends only on
// the model and --batch: a resumed run feeds what an uninterrupted one
// would. Not thread-safe; one per thread.
class BatchCycle {
 public:
  static constexpr int64_t kMaxPeriod = 64;
  static constexpr int64_t kCycleBytes = int64_t{64} << 20;

  BatchCycle(const Model& m, uint64_t seed, int batch)
      : m_(m),
        seed_(seed),
        batch_(batch),
        period_(Period(m, batch)),
        made_(period_) {}

  static int64_t Period(const Model& m, int batch) {
    const int64_t bytes = std::max<int64_t>(int64_t{4} * batch * m.inputs, 1);
    return std::clamp<int64_t>(kCycleBytes / bytes, 1, kMaxPeriod);
  }

  // Step k's inputs, as feeds for "x" and "labels".
  FeedList Feeds(int64_t k);

 private:
  struct Made {
    Tensor x, labels;
  };
  const Model& m_;
  const uint64_t seed_;
  const int batch_;
  const int64_t period_;
  std::vector<Made> made_;
};

}  // namespace minigraph

#endif  // MINIGRAPH_SESSION_TRAINING_MODEL_H_
