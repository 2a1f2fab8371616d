// TensorFlow 1's QueueRunner (tf.train.QueueRunner): threads that keep a
// queue filled by running its enqueue ops, one thread per op, until the
// input ends or their Coordinator stops.
//
//   Coordinator coord;
//   MG_RETURN_IF_ERROR(StartQueueRunners(meta_graph, session, &coord));
//   ... steps that dequeue ...
//   coord.RequestStop();
//   MG_RETURN_IF_ERROR(coord.Join());
//
// As TensorFlow's: an enqueue op that fails with one of the runner's
// queue-closed errors (OutOfRange by default: its own input was a queue
// that closed) ends its thread quietly, and the last thread to end so runs
// the close op, so the steps that dequeue drain the queue and then get
// OutOfRange, which is how a queue-fed training run ends. Any other error
// stops the coordinator with it. When the coordinator stops, the cancel op
// closes the queue and cancels pending enqueues, and the runner's own steps
// still running are cancelled (beyond TensorFlow, whose runner stays blocked
// in an op the cancel op does not reach, such as an accumulator's take), so
// no thread stays blocked.
//
// Thread-safe; the session must outlive the threads (Coordinator::Join).

#ifndef MINIGRAPH_SESSION_QUEUE_RUNNER_H_
#define MINIGRAPH_SESSION_QUEUE_RUNNER_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/proto/meta_graph.pb.h"
#include "core/proto/queue_runner.pb.h"
#include "session/coordinator.h"
#include "session/session.h"

namespace minigraph {

// The key of a meta graph's collection of serialized QueueRunnerDefs.
inline constexpr char kQueueRunnersCollection[] = "queue_runners";

// The runners of `meta_graph`'s "queue_runners" collection, or
// InvalidArgument naming the entry that does not parse or names no enqueue
// op.
absl::StatusOr<std::vector<QueueRunnerDef>> QueueRunnersOf(const MetaGraphDef& meta_graph);

// Starts `def`'s threads on `session` under `coord`, which joins them.
// InvalidArgument naming the queue for a def without enqueue ops or
// without a cancel op (its threads could not be stopped).
absl::Status StartQueueRunner(const QueueRunnerDef& def, Session* session, Coordinator* coord);

// Starts every runner of `meta_graph` (tf.train.start_queue_runners).
absl::Status StartQueueRunners(const MetaGraphDef& meta_graph, Session* session,
                               Coordinator* coord);

}  // namespace minigraph

#endif  // MINIGRAPH_SESSION_QUEUE_RUNNER_H_
