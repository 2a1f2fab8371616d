// TensorFlow 1's queues: the state a FIFOQueue, PaddingFIFOQueue,
// RandomShuffleQueue or PriorityQueue op makes, shared by name with every
// step that uses it (the session's ResourceMgr holds it), which the
// enqueue, dequeue and close ops wait on.
//
//   std::unique_ptr<Queue> q = Queue::Create({.kind = Queue::Kind::kFifo, .name = "q",
//                                             .dtypes = {DT_INT32}, .shapes = {{}}});
//   MG_RETURN_IF_ERROR(q->EnqueueMany({batch}, waiter));     // waits for room
//   MG_ASSIGN_OR_RETURN(Queue::Tuple t, q->DequeueMany(32, false, waiter));
//
// TensorFlow's semantics (its queue_base.cc and the four queues), checked
// against TensorFlow 2.21: pending enqueues and pending dequeues are each
// served strictly in arrival order, only the first of each kind at a time;
// a dequeue of many takes elements as they arrive and puts them back when
// the queue closes before it has enough; closing without
// cancel_pending_enqueues waits behind the pending enqueues; an enqueue
// into a closed queue is Cancelled, a dequeue from a closed queue without
// enough elements OutOfRange; a RandomShuffleQueue picks each element with
// TensorFlow's Philox stream for its seeds and keeps min_after_dequeue
// elements until closed; a PriorityQueue returns the smallest int64
// priority first (ties as TensorFlow's std::priority_queue breaks them);
// a PaddingFIFOQueue pads a batch's elements with zeros to the largest.
//
// Beyond TensorFlow: a waiting call also ends when its step is cancelled or
// passes its deadline (Waiter), and a dequeue of many that ends so puts the
// elements it had taken back (TensorFlow drops them).
//
// Thread-safe. The blocking calls wait on the caller's thread.

#ifndef MINIGRAPH_RUNTIME_ENGINE_KERNELS_INTERNAL_QUEUE_H_
#define MINIGRAPH_RUNTIME_ENGINE_KERNELS_INTERNAL_QUEUE_H_

#include <atomic>
#include <cstdint>
#include <deque>
#include <functional>
#include <list>
#include <memory>
#include <queue>
#include <string>
#include <utility>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "core/tensor.h"
#include "runtime/engine/kernels/internal/philox_random.h"
#include "runtime/engine/resource_mgr.h"
#include "runtime/graph/partial_shape.h"

namespace minigraph {
namespace kernels_internal {

class Queue : public Resource {
 public:
  using Tuple = std::vector<Tensor>;
  enum class Kind { kFifo, kPaddingFifo, kRandomShuffle, kPriority };

  // As the queue op's attrs say (the op checks them: CheckOptions).
  struct Options {
    Kind kind = Kind::kFifo;
    std::string name;  // in messages; the shared name or the node's
    // The components; a PriorityQueue's first is the int64 priority.
    std::vector<DataType> dtypes;
    // Empty (any shapes), or one per component: fully defined, except a
    // PaddingFIFOQueue's, whose dimensions may be unknown (-1).
    std::vector<PartialShape> shapes;
    int64_t capacity = -1;  // below 0: unbounded
    int64_t min_after_dequeue = 0;  // RandomShuffleQueue
    int64_t seed = 0, seed2 = 0;    // RandomShuffleQueue; both 0: random
  };

  // What a waiting call gives up on besides the queue: its step's
  // cancellation (Cancelled) and deadline (DeadlineExceeded).
  struct Waiter {
    const std::atomic<bool>* cancelled = nullptr;
    absl::Time deadline = absl::InfiniteFuture();
  };

  // InvalidArgument naming `node` when `options` make no queue: a capacity
  // of 0 (TensorFlow accepts it, and then every enqueue waits forever),
  // shapes not one per component, or not fully defined (a
  // PaddingFIFOQueue's need a known rank, and must be given), a
  // RandomShuffleQueue's min_after_dequeue negative or not below capacity.
  static absl::Status CheckOptions(const Options& options, absl::string_view node);
  static std::unique_ptr<Queue> Create(Options options);
  // TensorFlow's type name of a queue, as its handles and errors carry it.
  static constexpr char kHandleTypeName[] = "N10tensorflow14QueueInterfaceE";

  Queue(const Queue&) = delete;
  Queue& operator=(const Queue&) = delete;

  // "FIFOQueue", "PaddingFIFOQueue", "RandomShuffleQueue", "PriorityQueue".
  std::string TypeName() const override;
  const std::vector<DataType>& dtypes() const { return options_.dtypes; }

  // For a shared queue found by name: OK when `requested` (another node's
  // attrs) describes this queue; else TensorFlow's InvalidArgument
  // ("Shared queue 'q' has capacity 10 but requested capacity was 5").
  absl::Status Matches(const Options& requested) const;

  // The element or batch an enqueue op was given: its components' dtypes
  // and, where the queue has shapes, shapes (a batch's after its first
  // dimension, which every component shares).
  absl::Status ValidateTuple(const Tuple& tuple) const;
  absl::Status ValidateManyTuple(const Tuple& batch) const;

  // Adds one element (a validated tuple) once there is room. Cancelled when
  // the queue is or gets closed first.
  absl::Status Enqueue(Tuple tuple, const Waiter& waiter);
  // Adds each row of a validated batch, as room comes.
  absl::Status EnqueueMany(Tuple batch, const Waiter& waiter);
  // Takes one element.
  absl::StatusOr<Tuple> Dequeue(const Waiter& waiter);
  // Takes `n` (>= 0) elements as a batch; with `allow_small_batch`
  // (DequeueUpTo) fewer once the queue is closed, if it has any.
  absl::StatusOr<Tuple> DequeueMany(int64_t n, bool allow_small_batch, const Waiter& waiter);
  // Closes the queue: pending and later enqueues fail, dequeues drain what
  // is left. Without `cancel_pending_enqueues` it waits for the pending
  // enqueues to finish first; Cancelled when it was closed already.
  absl::Status Close(bool cancel_pending_enqueues, const Waiter& waiter);

  int64_t size() const ABSL_LOCKS_EXCLUDED(mu_);
  bool is_closed() const ABSL_LOCKS_EXCLUDED(mu_);

 private:
  enum class Progress { kNone, kSome, kComplete };
  // A pending call: served (by whichever thread changes the queue) while
  // it is at the front of its list, until `run` completes it.
  struct Attempt {
    std::function<Progress(Attempt*)> run;
    int64_t requested = 0;     // elements still to add or take
    std::vector<Tuple> taken;  // a dequeue's elements so far
    absl::Status status;
    bool done = false;
  };

  explicit Queue(Options options);

  // Queues `attempt` on `list`, serves, and waits until it is done or its
  // waiter gives up (then it leaves the list; a dequeue's elements go
  // back). Returns the attempt's status.
  absl::Status Wait(Attempt* attempt, std::list<Attempt*>* list, bool is_enqueue,
                    const Waiter& waiter) ABSL_LOCKS_EXCLUDED(mu_);
  // Runs the front attempts of both lists until neither progresses.
  void ServeLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  bool ServeListLocked(std::list<Attempt*>* list) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // One serving of a dequeue of `n` (FIFO, padding, random shuffle).
  Progress RunDequeueManyLocked(Attempt* a, int64_t n, bool allow_small_batch)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  Progress RunPriorityDequeueManyLocked(Attempt* a, bool allow_small_batch)
      ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // The storage of the four kinds.
  int64_t SizeLocked() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  void PushLocked(Tuple element) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  Tuple PopLocked() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);
  // Puts back what a dequeue of many took (`taken`, in the order taken).
  void RestoreLocked(std::vector<Tuple> taken) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  // The batch of `elements` (DequeueMany's output), padded for a
  // PaddingFIFOQueue.
  absl::StatusOr<Tuple> Batch(const std::vector<Tuple>& elements) const;
  // "FIFOQueue 'q'".
  std::string Describe() const;

  const Options options_;
  const int64_t capacity_;  // options_.capacity, or the largest int32 when unbounded
  mutable absl::Mutex mu_;
  bool closed_ ABSL_GUARDED_BY(mu_) = false;
  std::list<Attempt*> enqueues_ ABSL_GUARDED_BY(mu_);
  std::list<Attempt*> dequeues_ ABSL_GUARDED_BY(mu_);
  std::deque<Tuple> fifo_ ABSL_GUARDED_BY(mu_);       // kFifo, kPaddingFifo
  std::vector<Tuple> shuffled_ ABSL_GUARDED_BY(mu_);  // kRandomShuffle
  PhiloxRandom generator_ ABSL_GUARDED_BY(mu_);
  PhiloxSamples samples_ ABSL_GUARDED_BY(mu_);
  // kPriority: smallest priority on top, TensorFlow's comparison.
  struct LaterPriority {
    bool operator()(const std::pair<int64_t, Tuple>& a, const std::pair<int64_t, Tuple>& b) const {
      return a.first > b.first;
    }
  };
  std::priority_queue<std::pair<int64_t, Tuple>, std::vector<std::pair<int64_t, Tuple>>,
                      LaterPriority>
      heap_ ABSL_GUARDED_BY(mu_);
};

}  // namespace kernels_internal
}  // namespace minigraph

#endif  // MINIGRAPH_RUNTIME_ENGINE_KERNELS_INTERNAL_QUEUE_H_
