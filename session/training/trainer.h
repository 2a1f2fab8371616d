// Training with checkpoints, as the `train` tool does it, for a binary of
// your own: a model (a built-in one, or a TensorFlow 1 meta graph with its
// train op, loss, global step, Saver, summaries and input pipeline) trained
// through TensorFlow's MonitoredTrainingSession machinery
// (session/monitored_session.h) from the newest checkpoint of a log
// directory, saving every `save_every` steps and at the end, with
// TensorBoard's event file beside the checkpoints.
//
//   TrainOptions o;
//   o.logdir = "/tmp/run";
//   o.graph = "model.meta";   // or o.model = "mlp"
//   o.steps = 10000;
//   absl::StatusOr<TrainResult> r = Train(o);
//   if (!r.ok()) { /* r.status() names the option, file, node or step */ }
//
// What a run does, in order: takes the log directory (one chief per
// directory: a "train.lock" file holding its pid, checked again before
// every step and save, so that a lock deleted or replaced under a run stops
// it within a second and before it writes anything more); builds the
// model; restores the directory's newest checkpoint through the
// SessionManager (recovering a missing or stale state file, refusing to
// start over checkpoints nothing restores, falling back to an older valid
// checkpoint: the options below), or initializes (warm-started from
// another checkpoint, or from a SavedModel's variables); trains until the
// global step reaches `steps`, a hook stops it, the graph's input ends or
// `stop` is set; and saves. A loss that is not finite stops the run without
// saving, before a save could put a diverged model over good checkpoints.
//
// In a cluster (`cluster`: this task's server options, a worker's or a
// chief's; a ps task only serves, with Server), TensorFlow 1's
// between-graph replication: the variables go round robin to the ps tasks,
// the chief restores or initializes and saves, and the other workers wait
// for it and train the shared model on their own data.
//
// Errors name the option at fault as `train`'s flag of the same name
// ("--graph=model.meta: ..."), and the file, node or step. Train may be
// called from any thread, one run per log directory at a time (a second
// run on the same directory fails with FailedPrecondition naming the pid
// holding it); the options' callbacks run on the calling thread or, for
// `log`, on a worker thread of the run.

#ifndef MINIGRAPH_SESSION_TRAINING_TRAINER_H_
#define MINIGRAPH_SESSION_TRAINING_TRAINER_H_

#include <map>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "session/training/options.h"

namespace minigraph {

// InvalidArgument naming the option when one is out of range or options
// contradict each other (as `train` checks its flags before any work).
absl::Status CheckTrainOptions(const TrainOptions& options);

// Trains as above.
absl::StatusOr<TrainResult> Train(const TrainOptions& options);

// TensorFlow's assignment_map written as CHECKPOINT=VARIABLE pairs,
// comma-separated, each a name or a scope ending in / ("old/=layer1/");
// InvalidArgument naming `spec` when it is malformed.
absl::StatusOr<std::map<std::string, std::string>> ParseAssignmentMap(absl::string_view spec);

}  // namespace minigraph

#endif  // MINIGRAPH_SESSION_TRAINING_TRAINER_H_
