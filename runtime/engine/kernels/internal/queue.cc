#include "runtime/engine/kernels/internal/queue.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <random>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "core/status_macros.h"
#include "runtime/engine/kernels/internal/tensor_util.h"

namespace minigraph {
namespace kernels_internal {
namespace {

// TensorFlow's kUnbounded: a capacity below 0 is the largest int32.
constexpr int64_t kUnbounded = std::numeric_limits<int32_t>::max();

const char* KindName(Queue::Kind kind) {
  switch (kind) {
    case Queue::Kind::kFifo:
      return "FIFOQueue";
    case Queue::Kind::kPaddingFifo:
      return "PaddingFIFOQueue";
    case Queue::Kind::kRandomShuffle:
      return "RandomShuffleQueue";
    case Queue::Kind::kPriority:
      return "PriorityQueue";
  }
  return "Queue";
}

std::string DtypesString(const std::vector<DataType>& dtypes) {
  return absl::StrJoin(dtypes, ", ", [](std::string* out, DataType d) {
    absl::StrAppend(out, DataTypeString(d));
  });
}

std::string ShapesString(const std::vector<PartialShape>& shapes) {
  return absl::StrCat("[", absl::StrJoin(shapes, ", ", [](std::string* out, const PartialShape& s) {
                        absl::StrAppend(out, s.DebugString());
                      }), "]");
}

bool SameShapes(const std::vector<PartialShape>& a, const std::vector<PartialShape>& b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (a[i].rank() != b[i].rank() || a[i].dims() != b[i].dims()) return false;
  }
  return true;
}

PhiloxRandom Seeded(const Queue::Options& o) {
  uint64_t seed = o.seed, seed2 = o.seed2;
  if (seed == 0 && seed2 == 0) {
    // As TensorFlow: both unset means seeds of its own.
    std::random_device rd;
    seed = (uint64_t{rd()} << 32) | rd();
    seed2 = (uint64_t{rd()} << 32) | rd();
  }
  return PhiloxRandom::FromSeedPair(seed, seed2);
}

// Row `row` of each component of `batch`.
Queue::Tuple Row(const Queue::Tuple& batch, int64_t row) {
  Queue::Tuple element;
  element.reserve(batch.size());
  for (const Tensor& t : batch) {
    const TensorShape shape(t.shape().dim_sizes().subspan(1));
    Tensor e(t.dtype(), shape);
    const int64_t n = shape.num_elements();
    CopyElements(t, row * n, &e, 0, n);
    element.push_back(std::move(e));
  }
  return element;
}

// Copies `element` into row `row` of `batch`, whose row may be larger in
// each dimension (a padded batch): the element's rows go to the start of
// the batch row's, the rest stays as it was.
void CopyPadded(const Tensor& element, int64_t row, Tensor* batch) {
  const auto dims = element.shape().dim_sizes();
  const auto slot = batch->shape().dim_sizes().subspan(1);
  const int rank = static_cast<int>(dims.size());
  int64_t slot_elements = 1;
  for (int64_t d : slot) slot_elements *= d;
  if (rank == 0 || std::equal(dims.begin(), dims.end(), slot.begin(), slot.end())) {
    CopyElements(element, 0, batch, row * slot_elements, element.NumElements());
    return;
  }
  const int64_t inner = dims[rank - 1];
  if (inner == 0) return;
  // Walk the element's rows (all dimensions but the last) in order.
  std::vector<int64_t> index(rank - 1, 0);
  for (int64_t src = 0; src < element.NumElements(); src += inner) {
    int64_t dst = 0;
    for (int d = 0; d < rank - 1; ++d) dst = dst * slot[d] + index[d];
    dst = dst * slot[rank - 1];
    CopyElements(element, src, batch, row * slot_elements + dst, inner);
    for (int d = rank - 2; d >= 0; --d) {
      if (++index[d] < dims[d]) break;
      index[d] = 0;
    }
  }
}

void ZeroFill(Tensor* t) {
  if (DataTypeCanUseMemcpy(t->dtype()) && t->NumElements() > 0) {
    std::memset(t->raw_data(), 0, t->TotalBytes());
  }
  // Strings start empty.
}

}  // namespace

absl::Status Queue::CheckOptions(const Options& o, absl::string_view node) {
  const std::string what = absl::StrCat(KindName(o.kind), " '", node, "': ");
  if (o.capacity == 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, "capacity 0: no element could ever be enqueued (TensorFlow makes such a queue, "
              "and every enqueue then waits forever); a capacity below 0 is unbounded"));
  }
  if (o.kind == Kind::kPaddingFifo && o.shapes.size() != o.dtypes.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        what, "Shapes must be provided for all components, but received ", o.dtypes.size(),
        " types and ", o.shapes.size(), " shapes."));
  }
  if (!o.shapes.empty() && o.shapes.size() != o.dtypes.size()) {
    return absl::InvalidArgumentError(absl::StrCat(what, o.dtypes.size(), " component types but ",
                                                   o.shapes.size(), " shapes"));
  }
  for (size_t i = 0; i < o.shapes.size(); ++i) {
    const PartialShape& s = o.shapes[i];
    if (o.kind == Kind::kPaddingFifo ? !s.rank_known() : !s.IsFullyDefined()) {
      return absl::InvalidArgumentError(absl::StrCat(
          what, "the shape of component ", i, ", ", s.DebugString(),
          o.kind == Kind::kPaddingFifo ? ", has no known rank"
                                       : ", is not fully defined (only a PaddingFIFOQueue "
                                         "takes unknown dimensions)"));
    }
  }
  if (o.kind == Kind::kRandomShuffle) {
    const int64_t capacity = o.capacity < 0 ? kUnbounded : o.capacity;
    if (o.min_after_dequeue < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, "min_after_dequeue ", o.min_after_dequeue, " must be >= 0"));
    }
    if (o.min_after_dequeue >= capacity) {
      return absl::InvalidArgumentError(absl::StrCat(
          what, "min_after_dequeue ", o.min_after_dequeue, " must be < capacity ", capacity));
    }
  }
  return absl::OkStatus();
}

std::unique_ptr<Queue> Queue::Create(Options options) {
  return std::unique_ptr<Queue>(new Queue(std::move(options)));
}

Queue::Queue(Options options)
    : options_(std::move(options)),
      capacity_(options_.capacity < 0 ? kUnbounded : options_.capacity),
      generator_(Seeded(options_)),
      samples_(&generator_) {}

std::string Queue::TypeName() const { return KindName(options_.kind); }

std::string Queue::Describe() const { return absl::StrCat(TypeName(), " '", options_.name, "'"); }

absl::Status Queue::Matches(const Options& r) const {
  const Options& o = options_;
  const std::string shared = absl::StrCat("Shared queue '", o.name, "'");
  if (r.kind != o.kind) {
    return absl::InvalidArgumentError(
        absl::StrCat(shared, " is a ", TypeName(), ", not a ", KindName(r.kind)));
  }
  const int64_t requested_capacity = r.capacity < 0 ? kUnbounded : r.capacity;
  if (requested_capacity != capacity_) {
    return absl::InvalidArgumentError(absl::StrCat(shared, " has capacity ", capacity_,
                                                   " but requested capacity was ",
                                                   requested_capacity));
  }
  if (o.kind == Kind::kRandomShuffle) {
    if (r.min_after_dequeue != o.min_after_dequeue) {
      return absl::InvalidArgumentError(
          absl::StrCat(shared, " has min_after_dequeue ", o.min_after_dequeue,
                       " but requested min_after_dequeue was ", r.min_after_dequeue, "."));
    }
    if ((r.seed != 0 || r.seed2 != 0) && (r.seed != o.seed || r.seed2 != o.seed2)) {
      return absl::InvalidArgumentError(absl::StrCat(shared, " has random seeds (", o.seed, ", ",
                                                     o.seed2, ") but requested seeds are (",
                                                     r.seed, ", ", r.seed2, ")."));
    }
  }
  if (r.dtypes != o.dtypes) {
    return absl::InvalidArgumentError(absl::StrCat(shared, " has component types ",
                                                   DtypesString(o.dtypes),
                                                   " but requested component types were ",
                                                   DtypesString(r.dtypes)));
  }
  if (!SameShapes(r.shapes, o.shapes)) {
    return absl::InvalidArgumentError(absl::StrCat(shared, " has component shapes ",
                                                   ShapesString(o.shapes),
                                                   " but requested component shapes were ",
                                                   ShapesString(r.shapes)));
  }
  return absl::OkStatus();
}

absl::Status Queue::ValidateTuple(const Tuple& tuple) const {
  const std::vector<DataType>& dtypes = options_.dtypes;
  if (tuple.size() != dtypes.size()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Wrong number of components in tuple. Expected ", dtypes.size(), ", got ", tuple.size()));
  }
  for (size_t i = 0; i < tuple.size(); ++i) {
    if (tuple[i].dtype() != dtypes[i]) {
      return absl::InvalidArgumentError(absl::StrCat("Type mismatch in tuple component ", i,
                                                     ". Expected ", DataTypeString(dtypes[i]),
                                                     ", got ", DataTypeString(tuple[i].dtype())));
    }
    if (!options_.shapes.empty() && !options_.shapes[i].IsCompatibleWith(tuple[i].shape())) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Shape mismatch in tuple component ", i, ". Expected ",
          options_.shapes[i].DebugString(), ", got ", tuple[i].shape().DebugString()));
    }
  }
  if (options_.kind == Kind::kPriority && tuple[0].shape().dims() != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat("Expected the priority element to be a scalar, but received shape: ",
                     tuple[0].shape().DebugString()));
  }
  return absl::OkStatus();
}

absl::Status Queue::ValidateManyTuple(const Tuple& batch) const {
  if (batch.size() != options_.dtypes.size()) return ValidateTuple(batch);
  for (size_t i = 0; i < batch.size(); ++i) {
    // (TensorFlow aborts the process on such a batch.)
    if (batch[i].shape().dims() == 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Component ", i, " of an enqueue of many elements is a scalar; each component needs "
          "a first dimension, the batch"));
    }
  }
  const int64_t n = batch[0].shape().dim_size(0);
  for (size_t i = 1; i < batch.size(); ++i) {
    if (batch[i].shape().dim_size(0) != n) {
      return absl::InvalidArgumentError(absl::StrCat(
          "All input tensors must have the same size in the 0th dimension. Component ", i,
          " has ", batch[i].shape().dim_size(0), ", and should have ", n));
    }
  }
  // A row's shape is the batch's without its first dimension.
  Tuple rows;
  for (const Tensor& t : batch) {
    rows.emplace_back(t.dtype(), TensorShape(t.shape().dim_sizes().subspan(1)));
  }
  absl::Status s = ValidateTuple(rows);
  if (!s.ok() && !options_.shapes.empty()) {
    // TensorFlow names the expected batch shape.
    for (size_t i = 0; i < batch.size(); ++i) {
      if (options_.shapes[i].IsCompatibleWith(rows[i].shape())) continue;
      std::vector<int64_t> want = {n};
      want.insert(want.end(), options_.shapes[i].dims().begin(), options_.shapes[i].dims().end());
      return absl::InvalidArgumentError(absl::StrCat(
          "Shape mismatch in tuple component ", i, ". Expected ",
          PartialShape(want).DebugString(), ", got ", batch[i].shape().DebugString()));
    }
  }
  return s;
}

absl::Status Queue::Enqueue(Tuple tuple, const Waiter& waiter) {
  Attempt a;
  a.requested = 1;
  a.run = [this, &tuple](Attempt* a) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (closed_) {
      a->status = absl::CancelledError(absl::StrCat(Describe(), " is closed."));
      return Progress::kComplete;
    }
    if (SizeLocked() >= capacity_) return Progress::kNone;
    PushLocked(std::move(tuple));
    return Progress::kComplete;
  };
  return Wait(&a, &enqueues_, /*is_enqueue=*/true, waiter);
}

absl::Status Queue::EnqueueMany(Tuple batch, const Waiter& waiter) {
  const int64_t n = batch[0].shape().dim_size(0);
  if (n == 0) return absl::OkStatus();
  Attempt a;
  a.requested = n;
  a.run = [this, &batch, n](Attempt* a) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (closed_) {
      a->status = absl::CancelledError(absl::StrCat(Describe(), " is closed."));
      return Progress::kComplete;
    }
    Progress progress = Progress::kNone;
    while (SizeLocked() < capacity_) {
      progress = Progress::kSome;
      PushLocked(Row(batch, n - a->requested));
      if (--a->requested == 0) return Progress::kComplete;
    }
    return progress;
  };
  return Wait(&a, &enqueues_, /*is_enqueue=*/true, waiter);
}

absl::StatusOr<Queue::Tuple> Queue::Dequeue(const Waiter& waiter) {
  Attempt a;
  a.requested = 1;
  a.run = [this](Attempt* a) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    int64_t size = SizeLocked();
    if (closed_ && size == 0) {
      a->status = absl::OutOfRangeError(absl::StrCat(
          Describe(), " is closed and has insufficient elements (requested 1, current size 0)"));
      return Progress::kComplete;
    }
    if (!closed_) size -= options_.min_after_dequeue;
    if (size <= 0) return Progress::kNone;
    a->taken.push_back(PopLocked());
    return Progress::kComplete;
  };
  MG_RETURN_IF_ERROR(Wait(&a, &dequeues_, /*is_enqueue=*/false, waiter));
  return std::move(a.taken[0]);
}

absl::StatusOr<Queue::Tuple> Queue::DequeueMany(int64_t n, bool allow_small_batch,
                                                const Waiter& waiter) {
  if (options_.kind != Kind::kPaddingFifo && options_.shapes.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        TypeName(), options_.kind == Kind::kPriority
                        ? "'s DequeueMany requires the components to have specified shapes."
                        : "'s DequeueMany and DequeueUpTo require the components to have "
                          "specified shapes."));
  }
  if (n == 0) return Batch({});
  Attempt a;
  a.requested = n;
  a.run = [this, allow_small_batch, n](Attempt* a) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    return options_.kind == Kind::kPriority ? RunPriorityDequeueManyLocked(a, allow_small_batch)
                                            : RunDequeueManyLocked(a, n, allow_small_batch);
  };
  MG_RETURN_IF_ERROR(Wait(&a, &dequeues_, /*is_enqueue=*/false, waiter));
  return Batch(a.taken);
}

Queue::Progress Queue::RunDequeueManyLocked(Attempt* a, int64_t n, bool allow_small_batch) {
  int64_t size = SizeLocked();
  if (closed_ && size < a->requested) {
    // Not enough will come: what was taken goes back.
    if (!a->taken.empty()) {
      RestoreLocked(std::exchange(a->taken, {}));
      a->requested = n;
    }
    if (allow_small_batch && SizeLocked() > 0) {
      size = a->requested = SizeLocked();
    } else {
      // A pending enqueue may still add elements to the closed queue.
      if (allow_small_batch && !enqueues_.empty()) return Progress::kSome;
      a->status = absl::OutOfRangeError(absl::StrCat(
          Describe(), " is closed and has insufficient elements (requested ", a->requested,
          ", current size ", size, ")"));
      return Progress::kComplete;
    }
  }
  if (!closed_) size -= options_.min_after_dequeue;
  Progress progress = Progress::kNone;
  for (; size > 0; --size) {
    progress = Progress::kSome;
    a->taken.push_back(PopLocked());
    if (--a->requested == 0) return Progress::kComplete;
  }
  return progress;
}

// A PriorityQueue's batch comes out sorted, so it is taken at once, when
// there are enough. TensorFlow's DequeueUpTo of a closed PriorityQueue
// holding fewer than asked takes them and then fails OutOfRange, losing
// them; here it returns them, as DequeueUpTo promises.
Queue::Progress Queue::RunPriorityDequeueManyLocked(Attempt* a, bool allow_small_batch) {
  const int64_t size = SizeLocked();
  if (closed_ && (size == 0 || (!allow_small_batch && size < a->requested))) {
    a->status = absl::OutOfRangeError(absl::StrCat(
        Describe(), " is closed and has insufficient elements (requested ", a->requested,
        ", current size ", size, ")"));
    return Progress::kComplete;
  }
  if (size < a->requested && !(closed_ && allow_small_batch)) return Progress::kNone;
  const int64_t take = std::min(size, a->requested);
  for (int64_t i = 0; i < take; ++i) a->taken.push_back(PopLocked());
  a->requested = 0;
  return Progress::kComplete;
}

absl::Status Queue::Close(bool cancel_pending_enqueues, const Waiter& waiter) {
  if (cancel_pending_enqueues) {
    absl::MutexLock l(&mu_);
    closed_ = true;
    for (Attempt* a : enqueues_) {
      a->status = absl::CancelledError("Enqueue operation was cancelled");
      a->done = true;
    }
    enqueues_.clear();
    ServeLocked();
    return absl::OkStatus();
  }
  Attempt a;
  a.run = [this](Attempt* a) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    if (closed_) {
      a->status =
          absl::CancelledError(absl::StrCat("Queue '", options_.name, "' is already closed."));
    }
    closed_ = true;
    return Progress::kComplete;
  };
  return Wait(&a, &enqueues_, /*is_enqueue=*/true, waiter);
}

int64_t Queue::size() const {
  absl::MutexLock l(&mu_);
  return SizeLocked();
}

bool Queue::is_closed() const {
  absl::MutexLock l(&mu_);
  return closed_;
}

absl::Status Queue::Wait(Attempt* attempt, std::list<Attempt*>* list, bool is_enqueue,
                         const Waiter& waiter) {
  absl::MutexLock l(&mu_);
  list->push_back(attempt);
  ServeLocked();
  while (!attempt->done) {
    const bool cancelled = waiter.cancelled != nullptr && waiter.cancelled->load();
    const absl::Time now = absl::Now();
    if (cancelled || now >= waiter.deadline) {
      list->remove(attempt);
      const char* what = is_enqueue ? "Enqueue" : "Dequeue";
      attempt->status =
          cancelled ? absl::CancelledError(absl::StrCat(what, " operation was cancelled"))
                    : absl::DeadlineExceededError(absl::StrCat(
                          what, " operation on ", Describe(), " passed its step's deadline"));
      if (!attempt->taken.empty()) RestoreLocked(std::exchange(attempt->taken, {}));
      ServeLocked();  // the attempts behind it may proceed now
      return attempt->status;
    }
    // The step's cancellation flag notifies no one: it is looked at every
    // 50 ms, as a _Recv does.
    mu_.AwaitWithDeadline(absl::Condition(&attempt->done),
                          std::min(waiter.deadline, now + absl::Milliseconds(50)));
  }
  return attempt->status;
}

void Queue::ServeLocked() {
  bool changed;
  do {
    changed = ServeListLocked(&enqueues_);
    changed = ServeListLocked(&dequeues_) || changed;
  } while (changed);
}

bool Queue::ServeListLocked(std::list<Attempt*>* list) {
  bool progress = false;
  while (!list->empty()) {
    Attempt* a = list->front();
    switch (a->run(a)) {
      case Progress::kNone:
        return progress;
      case Progress::kSome:
        return true;
      case Progress::kComplete:
        a->done = true;
        list->pop_front();
        progress = true;
        break;
    }
  }
  return progress;
}

int64_t Queue::SizeLocked() const {
  switch (options_.kind) {
    case Kind::kRandomShuffle:
      return static_cast<int64_t>(shuffled_.size());
    case Kind::kPriority:
      return static_cast<int64_t>(heap_.size());
    default:
      return static_cast<int64_t>(fifo_.size());
  }
}

void Queue::PushLocked(Tuple element) {
  switch (options_.kind) {
    case Kind::kRandomShuffle:
      shuffled_.push_back(std::move(element));
      return;
    case Kind::kPriority: {
      const int64_t priority = element[0].data<int64_t>()[0];
      heap_.emplace(priority, std::move(element));
      return;
    }
    default:
      fifo_.push_back(std::move(element));
  }
}

Queue::Tuple Queue::PopLocked() {
  Tuple out;
  switch (options_.kind) {
    case Kind::kRandomShuffle: {
      // TensorFlow's pick: the next 32-bit sample modulo the size; the last
      // element takes the chosen one's place.
      const size_t i = samples_() % shuffled_.size();
      out = std::move(shuffled_[i]);
      if (i + 1 != shuffled_.size()) shuffled_[i] = std::move(shuffled_.back());
      shuffled_.pop_back();
      return out;
    }
    case Kind::kPriority:
      out = std::move(const_cast<std::pair<int64_t, Tuple>&>(heap_.top()).second);
      heap_.pop();
      return out;
    default:
      out = std::move(fifo_.front());
      fifo_.pop_front();
      return out;
  }
}

void Queue::RestoreLocked(std::vector<Tuple> taken) {
  if (options_.kind == Kind::kFifo || options_.kind == Kind::kPaddingFifo) {
    // Back to the front, in their order.
    for (auto it = taken.rbegin(); it != taken.rend(); ++it) fifo_.push_front(std::move(*it));
    return;
  }
  // As TensorFlow's RandomShuffleQueue: the last taken first.
  for (auto it = taken.rbegin(); it != taken.rend(); ++it) PushLocked(std::move(*it));
}

absl::StatusOr<Queue::Tuple> Queue::Batch(const std::vector<Tuple>& elements) const {
  const int64_t n = static_cast<int64_t>(elements.size());
  Tuple batch;
  for (size_t c = 0; c < options_.dtypes.size(); ++c) {
    // The row shape: the queue's, or (padding) each dimension's largest.
    std::vector<int64_t> row;
    if (!options_.shapes.empty()) row = options_.shapes[c].dims();
    if (options_.shapes.empty() && n > 0) {
      const auto d = elements[0][c].shape().dim_sizes();
      row.assign(d.begin(), d.end());
    }
    if (options_.kind == Kind::kPaddingFifo) {
      for (size_t d = 0; d < row.size(); ++d) {
        if (row[d] >= 0) continue;
        row[d] = 0;
        for (const Tuple& e : elements) row[d] = std::max(row[d], e[c].shape().dim_size(d));
      }
    }
    std::vector<int64_t> dims = {n};
    dims.insert(dims.end(), row.begin(), row.end());
    MG_ASSIGN_OR_RETURN(TensorShape shape, TensorShape::Build(dims));
    Tensor t(options_.dtypes[c], shape);
    if (options_.kind == Kind::kPaddingFifo) ZeroFill(&t);
    for (int64_t i = 0; i < n; ++i) CopyPadded(elements[i][c], i, &t);
    batch.push_back(std::move(t));
  }
  return batch;
}

}  // namespace kernels_internal
}  // namespace minigraph
