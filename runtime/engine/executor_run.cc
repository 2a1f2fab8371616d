// Running a step of a plan: the ready queue, deadness, while-loop frames and
// iterations, inline versus pool execution, and fetching.
#include <algorithm>
#include <atomic>
#include <tuple>
#include <utility>
#include <vector>

#if defined(__x86_64__)
#include <x86intrin.h>
#else
#include <chrono>
#endif

#include "absl/base/attributes.h"
#include "absl/base/optimization.h"
#include "absl/container/fixed_array.h"
#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "core/status_macros.h"
#include "runtime/engine/denormal.h"
#include "runtime/engine/internal/executor_plan.h"
#include "runtime/engine/step_stats.h"
#include "runtime/engine/variable.h"
#include "unsupported/Eigen/CXX11/ThreadPool"

namespace minigraph {
namespace executor_internal {
namespace {

// A cheap timestamp in cycles (the TSC on x86-64), for cost estimates only.
inline uint64_t Cycles() {
#if defined(__x86_64__)
  return __rdtsc();
#else
  return std::chrono::steady_clock::now().time_since_epoch().count();
#endif
}

// A node whose estimate is below this runs inline: handing it to another
// thread (a wake-up and a cache miss or two) costs more than running it.
constexpr uint64_t kExpensiveCycles = 8000;

// What a traced node's outputs held (a ref output: its variable's value).
// Out of line: only traced steps call it.
ABSL_ATTRIBUTE_NOINLINE std::vector<OutputRun> DescribeOutputs(const Node& node,
                                                               const TensorValue* outputs) {
  std::vector<OutputRun> runs;
  for (int i = 0; i < node.num_outputs(); ++i) {
    const TensorValue& v = outputs[i];
    Tensor t = v.tensor;
    if (v.ref != nullptr) {
      absl::StatusOr<Tensor> value = v.ref->Read();
      if (!value.ok()) continue;
      t = *std::move(value);
    }
    if (v.dead || t.dtype() == DT_INVALID) continue;
    runs.push_back({i, t.dtype(), t.shape(), static_cast<int64_t>(t.TotalBytes())});
  }
  return runs;
}

}  // namespace

// One iteration of one frame instance: the inputs and counts of the frame's
// nodes. The root frame has one, for the whole step.
struct Iteration {
  Frame* frame = nullptr;  // the frame instance this iteration belongs to
  int64_t num = 0;
  std::unique_ptr<TensorValue[]> slots;
  std::unique_ptr<std::atomic<int>[]> pending;
  // Only for plans with Switch/Merge: dead control inputs per item; for
  // each Merge, the input slot it takes (-1 undecided, -2 all dead), the
  // control inputs still to come, and whether it has been made ready.
  std::unique_ptr<std::atomic<bool>[]> dead_control;
  std::unique_ptr<std::atomic<int>[]> merge_winner;
  std::unique_ptr<std::atomic<int>[]> merge_control;
  std::unique_ptr<std::atomic<bool>[]> merge_fired;
  // Loop plans only, under StepState::loop_mu: nodes of this iteration that
  // are ready or running, and child frames started here and not finished.
  int outstanding_ops = 0;
  int outstanding_frames = 0;
};

// One instance of a loop: one per (parent frame, parent iteration, frame).
// Everything here is under StepState::loop_mu.
struct Frame {
  int info = 0;
  Frame* parent = nullptr;
  Iteration* parent_iter = nullptr;
  int64_t iteration_count = 0;  // the newest iteration
  int num_pending_inputs = 0;   // Enter nodes that have not delivered yet
  int num_outstanding_iterations = 1;
  int max_parallel = 1;
  // Live iterations, oldest first; first_iter is the oldest's number.
  // (At most parallel_iterations of them; inline, so a step without loops
  // allocates nothing here.)
  absl::InlinedVector<std::unique_ptr<Iteration>, 2> iterations;
  int64_t first_iter = 0;
  // Exits that came dead in the newest iteration: if the frame ends with
  // them (the whole loop was dead), deadness goes on to the parent.
  std::vector<int> dead_exits;
  // NextIteration values held back by parallel_iterations.
  std::vector<std::pair<int, TensorValue>> next_iter_roots;
  // Loop invariants (constant Enter values), given to every new iteration.
  std::vector<std::pair<int, TensorValue>> inv_values;

  Iteration* Get(int64_t num) {
    if (num < first_iter || num >= first_iter + static_cast<int64_t>(iterations.size())) {
      return nullptr;
    }
    return iterations[num - first_iter].get();
  }
};

struct Task {
  int item;
  Iteration* iter;
};

// The threads that blocking nodes (a _Recv waiting for another process)
// wait on, shared by every step in the process. Each waiting node holds one,
// so there are many; they cost nothing while idle.
Eigen::ThreadPoolInterface* BlockingPool() {
  static auto* const pool = new DenormalFlushingThreadPool(64);
  return pool;
}

struct StepState {
  explicit StepState(size_t num_fetches) : fetched(num_fetches) {
    for (std::atomic<bool>& f : fetched) f.store(false, std::memory_order_relaxed);
  }

  const Executor::Args* args;
  // The step's pool: args->pool, or the blocking pool for a plan with
  // blocking nodes and no pool given; null runs every node inline.
  Eigen::ThreadPoolInterface* pool = nullptr;
  std::vector<Tensor>* fetches;
  // Per fetch: set by the one node output that delivers it, from any thread.
  absl::FixedArray<std::atomic<bool>, 8> fetched;
  Frame root;
  std::atomic<int> outstanding{0};
  std::atomic<bool> cancelled{false};
  absl::Mutex mu;
  absl::Status status ABSL_GUARDED_BY(mu);
  absl::Notification done;
  StepContext step;
  // Past it (when the step has a timeout), the step fails. Checked by the
  // waiting caller, and every few nodes by the threads running them, since
  // the caller may be one of them (or the only one).
  absl::Time deadline = absl::InfiniteFuture();
  // Without a pool every node runs on the calling thread, from this queue.
  std::vector<Task> inline_queue;
  // Loop plans: all frame and iteration bookkeeping, and the frame
  // instances by (parent, parent iteration, static frame).
  absl::Mutex loop_mu;
  absl::flat_hash_map<std::tuple<const Frame*, int64_t, int>, std::unique_ptr<Frame>> frames;

  void Fail(const absl::Status& s) {
    absl::MutexLock l(&mu);
    if (status.ok()) status = s;
    cancelled.store(true);
  }
  void FailCancelled() { Fail(absl::CancelledError("step cancelled: its caller gave up")); }
  void FailTimedOut() {
    Fail(absl::DeadlineExceededError(
        args->timeout > absl::ZeroDuration()
            ? absl::StrCat("step timed out after ", absl::FormatDuration(args->timeout))
            : std::string("step timed out (the deadline of the step that called this function "
                          "passed)")));
  }
};

std::unique_ptr<Iteration> Plan::NewIteration(Frame* frame, int64_t num) const {
  const FrameInfo& info = frames_[frame->info];
  const size_t n = info.items.size();
  auto it = std::make_unique<Iteration>();
  it->frame = frame;
  it->num = num;
  it->slots.reset(new TensorValue[std::max(info.num_slots, 1)]);
  it->pending.reset(new std::atomic<int>[n]);
  for (size_t i = 0; i < n; ++i) {
    it->pending[i].store(items_[info.items[i]].initial_pending, std::memory_order_relaxed);
  }
  if (has_control_flow_) {
    it->dead_control.reset(new std::atomic<bool>[n]);
    it->merge_winner.reset(new std::atomic<int>[n]);
    it->merge_control.reset(new std::atomic<int>[n]);
    it->merge_fired.reset(new std::atomic<bool>[n]);
    for (size_t i = 0; i < n; ++i) {
      it->dead_control[i].store(false, std::memory_order_relaxed);
      it->merge_winner[i].store(-1, std::memory_order_relaxed);
      it->merge_control[i].store(items_[info.items[i]].num_control, std::memory_order_relaxed);
      it->merge_fired[i].store(false, std::memory_order_relaxed);
    }
  }
  return it;
}

namespace {

// Waits until the step is done; fails it when its deadline passes or its
// caller gives up (args.cancelled, asked every 100 ms).
ABSL_ATTRIBUTE_ALWAYS_INLINE inline void WaitForStep(StepState* state, const Executor::Args& args) {
  if (args.cancelled) {
    while (!state->done.WaitForNotificationWithDeadline(
        std::min(state->deadline, absl::Now() + absl::Milliseconds(100)))) {
      if (absl::Now() > state->deadline) {
        state->FailTimedOut();
      } else if (args.cancelled()) {
        state->FailCancelled();
      } else {
        continue;
      }
      state->done.WaitForNotification();
      break;
    }
  } else if (state->deadline != absl::InfiniteFuture()) {
    if (!state->done.WaitForNotificationWithDeadline(state->deadline)) {
      state->FailTimedOut();
      state->done.WaitForNotification();
    }
  } else {
    state->done.WaitForNotification();
  }
}

}  // namespace

ABSL_ATTRIBUTE_ALWAYS_INLINE inline absl::Status Plan::CheckFeeds(const Args& args) const {
  if (args.feeds.size() != feeds_.size()) {
    return absl::InvalidArgumentError(absl::StrCat("expected ", feeds_.size(),
                                                   " feed values, got ", args.feeds.size()));
  }
  for (size_t i = 0; i < feeds_.size(); ++i) {
    const Tensor& t = args.feeds[i];
    if (t.dtype() != feed_types_[i]) {
      return absl::InvalidArgumentError(absl::StrCat(
          "cannot feed a ", DataTypeString(t.dtype()), " tensor to '", feeds_[i].ToString(),
          "', which is ", DataTypeString(feed_types_[i])));
    }
    // (A handle's inferred shape is its variable's: any handle is a scalar.)
    if (feed_types_[i] != DT_RESOURCE && !feed_shapes_[i].IsCompatibleWith(t.shape())) {
      return absl::InvalidArgumentError(absl::StrCat(
          "cannot feed a value of shape ", t.shape().DebugString(), " to '",
          feeds_[i].ToString(), "', which has shape ", feed_shapes_[i].DebugString()));
    }
  }
  return absl::OkStatus();
}

ABSL_ATTRIBUTE_ALWAYS_INLINE inline void Plan::Start(StepState* state, Iteration* root_iter) const {
  auto task = [&](int item) { return Task{item, root_iter}; };
  // The calling thread runs the first initial node that is not blocking;
  // the others go to the pools (or, without a pool, to the inline queue).
  state->outstanding.store(1);
  int first = -1;
  for (size_t i = 0; i < initial_ready_.size(); ++i) {
    const Task t = task(initial_ready_[i]);
    if (first < 0 && !items_[t.item].blocking) {
      first = static_cast<int>(i);
    } else if (state->pool != nullptr) {
      Schedule(state, t);
    } else {
      state->inline_queue.push_back(t);
    }
  }
  if (first >= 0) {
    Process(state, task(initial_ready_[first]));
  } else {
    NodeDone(state);
  }
}

ABSL_ATTRIBUTE_ALWAYS_INLINE inline absl::Status Plan::CheckAllFetched(
    const StepState& state) const {
  // Every node that could run has run. A fetch still missing sits behind
  // a loop that never delivered it: a malformed graph, not a hang.
  for (size_t k = 0; k < state.fetched.size(); ++k) {
    if (fetch_from_feed_[k] >= 0 || state.fetched[k].load(std::memory_order_relaxed)) continue;
    for (const Item& item : items_) {
      for (const auto& [output, fetch] : item.fetches) {
        if (fetch == static_cast<int>(k)) {
          return absl::InvalidArgumentError(absl::StrCat(
              "fetched tensor '", item.node->name(), ":", output,
              "' was never computed: the step ended with its inputs incomplete (a while "
              "loop that did not exit?)"));
        }
      }
    }
  }
  return absl::OkStatus();
}

absl::Status Plan::Run(const Args& args, std::vector<Tensor>* fetches) const {
  MG_RETURN_IF_ERROR(CheckFeeds(args));
  fetches->assign(fetch_from_feed_.size(), Tensor());
  for (size_t k = 0; k < fetch_from_feed_.size(); ++k) {
    if (fetch_from_feed_[k] >= 0) (*fetches)[k] = args.feeds[fetch_from_feed_[k]];
  }
  if (items_.empty()) return absl::OkStatus();

  // Declared before the state, so that it outlives every node of the step.
  ResourceMgr step_resources;
  StepState state(fetch_from_feed_.size());
  state.args = &args;
  state.fetches = fetches;
  state.step = args.step;
  if (state.step.step_resources == nullptr) state.step.step_resources = &step_resources;
  state.step.cancelled = &state.cancelled;
  // A function's step keeps the deadline of the step that calls it.
  state.deadline = args.step.deadline;
  if (args.timeout > absl::ZeroDuration()) {
    state.deadline = std::min(state.deadline, absl::Now() + args.timeout);
  }
  state.step.deadline = state.deadline;
  state.root.iterations.push_back(NewIteration(&state.root, 0));
  Iteration* root_iter = state.root.iterations.front().get();
  root_iter->outstanding_ops = static_cast<int>(initial_ready_.size());
  for (const auto& [slot, feed] : fed_slots_) root_iter->slots[slot].tensor = args.feeds[feed];
  state.pool = args.pool != nullptr ? args.pool : has_blocking_ ? BlockingPool() : nullptr;

  Start(&state, root_iter);
  WaitForStep(&state, args);
  absl::MutexLock l(&state.mu);
  if (state.status.ok()) state.status = CheckAllFetched(state);
  if (!state.status.ok()) fetches->clear();
  return state.status;
}

ABSL_ATTRIBUTE_ALWAYS_INLINE inline absl::Status Plan::Compute(StepState* state, int item_index,
                                                               TensorValue* inputs,
                                                               TensorValue* outputs) const {
  const Item& item = items_[item_index];
  OpKernelContext ctx(item.kernel, &state->step, inputs, outputs);
  if (ABSL_PREDICT_FALSE(state->step.stats != nullptr)) {
    const int64_t start = absl::GetCurrentTimeNanos();
    absl::Status s = item.kernel->Compute(&ctx);
    const int64_t end = absl::GetCurrentTimeNanos();
    state->step.stats->Record(*item.node, start, end, DescribeOutputs(*item.node, outputs));
    return s;
  }
  if (state->pool == nullptr || item.cheap) return item.kernel->Compute(&ctx);
  const uint64_t start = Cycles();
  absl::Status s = item.kernel->Compute(&ctx);
  const uint64_t end = Cycles();
  // Decaying average: 7/8 of the old estimate, 1/8 of this run (skipped if
  // the thread moved to a core whose counter lags).
  if (end >= start) {
    std::atomic<uint64_t>& cost = cost_cycles_[item_index];
    const uint64_t old = cost.load(std::memory_order_relaxed);
    cost.store(old - old / 8 + (end - start) / 8, std::memory_order_relaxed);
  }
  return s;
}

ABSL_ATTRIBUTE_ALWAYS_INLINE inline absl::Status Plan::RunItem(StepState* state, const Task& task,
                                                               TensorValue* outputs,
                                                               bool* dead) const {
  const Item& item = items_[task.item];
  Iteration* iter = task.iter;
  TensorValue* inputs = &iter->slots[item.input_start];
  if (item.is_merge) {
    // Late arrivals may still write other input slots: read only the
    // winner's, and leave the slots for the iteration to free.
    const int w = iter->merge_winner[item.local].load(std::memory_order_acquire);
    if (w < 0) {
      *dead = true;
    } else {
      outputs[0] = inputs[w];
      outputs[1].tensor = Tensor::Scalar<int32_t>(w);
    }
    return absl::OkStatus();
  }
  if (has_control_flow_ && !item.control_trigger) {
    *dead = iter->dead_control[item.local].load(std::memory_order_relaxed);
    for (int i = 0; i < item.num_inputs && !*dead; ++i) *dead = inputs[i].dead;
  }
  absl::Status s;
  if ((!*dead || item.is_send) && !item.skip) {
    for (size_t k = 0; !*dead && k < item.deref_inputs.size(); ++k) {
      const int i = item.deref_inputs[k];
      absl::StatusOr<Tensor> value = inputs[i].ref->Read();
      if (!value.ok()) {
        s = value.status();
        break;
      }
      inputs[i].tensor = *std::move(value);
      inputs[i].ref = nullptr;
    }
    if (s.ok()) s = Compute(state, task.item, inputs, outputs);
  }
  for (int i = 0; i < item.num_inputs; ++i) inputs[i] = TensorValue();
  return s;
}

ABSL_ATTRIBUTE_ALWAYS_INLINE inline void Plan::Dispatch(StepState* state, const ReadyList& ready,
                                                        ReadyList* cheap) const {
  // Of the expensive ones, one stays on this thread when nothing cheap
  // is waiting; the others go to the pool.
  bool keep_one = cheap->empty();
  for (const Task& t : ready) {
    if (items_[t.item].blocking) {
      Schedule(state, t);
    } else if (items_[t.item].cheap ||
               cost_cycles_[t.item].load(std::memory_order_relaxed) < kExpensiveCycles) {
      cheap->push_back(t);
    } else if (keep_one) {
      cheap->push_back(t);
      keep_one = false;
    } else {
      Schedule(state, t);
    }
  }
}

void Plan::Process(StepState* state, Task task) const {
  const ScopedFlushDenormal flush;  // as TensorFlow's executor
  ReadyList ready;
  // Cheap nodes made ready here run here, after the current one: handing a
  // Switch or an Identity to another thread costs more than running it.
  ReadyList cheap;
  absl::InlinedVector<TensorValue, 4> outputs;
  const bool has_deadline = state->deadline != absl::InfiniteFuture();
  const bool may_cancel = static_cast<bool>(state->args->cancelled);
  for (uint32_t count = 1;; ++count) {
    if ((has_deadline || may_cancel) && count % 64 == 0 &&
        !state->cancelled.load(std::memory_order_relaxed)) {
      if (has_deadline && absl::Now() > state->deadline) {
        state->FailTimedOut();
      } else if (may_cancel && state->args->cancelled()) {
        state->FailCancelled();
      }
    }
    ready.clear();
    if (!state->cancelled.load(std::memory_order_relaxed)) {
      const Item& item = items_[task.item];
      outputs.assign(item.node->num_outputs(), TensorValue());
      bool dead = false;
      absl::Status s = RunItem(state, task, outputs.data(), &dead);
      if (dead) {
        for (TensorValue& v : outputs) v.dead = true;
      }
      if (s.ok()) s = Fetch(state, item, outputs.data());
      if (!s.ok()) {
        state->Fail(WithNodeName(s, item.node->name()));
      } else if (has_loops_) {
        PropagateLoop(state, task, dead, outputs.data(), &ready);
      } else {
        Propagate(state, task, dead, outputs.data(), &ready);
      }
      outputs.clear();
    }
    if (state->pool == nullptr) {
      state->inline_queue.insert(state->inline_queue.end(), ready.begin(), ready.end());
      if (state->inline_queue.empty()) break;
      task = state->inline_queue.back();
      state->inline_queue.pop_back();
      continue;
    }
    Dispatch(state, ready, &cheap);
    if (cheap.empty()) break;
    task = cheap.back();
    cheap.pop_back();
  }
  NodeDone(state);
}

absl::Status Plan::Fetch(StepState* state, const Item& item, TensorValue* outputs,
                             bool frame_end) const {
  for (const auto& [output, fetch] : item.fetches) {
    const TensorValue& v = outputs[output];
    // An Exit is dead in every iteration but the last; a loop that is dead
    // as a whole reports its dead exits when its frame ends.
    if (v.dead && item.kind == Item::kExit && !frame_end) continue;
    if (v.dead) {
      return absl::InvalidArgumentError(absl::StrCat(
          "fetched tensor '", item.node->name(), ":", output,
          "' was not computed: it is on the untaken side of a Switch"));
    }
    // A second value for one fetch (an Exit live in two iterations of a
    // malformed loop, possibly on two threads at once) fails the step, as
    // TensorFlow's "Retval[i] has already been set" does.
    if (state->fetched[fetch].exchange(true, std::memory_order_relaxed)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "fetched tensor '", item.node->name(), ":", output,
          "' was produced more than once in one step (a while loop's Exit live in more than "
          "one iteration?)"));
    }
    if (v.ref != nullptr) {
      MG_ASSIGN_OR_RETURN((*state->fetches)[fetch], v.ref->Read());
    } else {
      (*state->fetches)[fetch] = v.tensor;
    }
  }
  return absl::OkStatus();
}

int Plan::Activate(const Item& item, bool dead, TensorValue* outputs, Iteration* iter,
                       bool may_move, ReadyList* ready) const {
  const size_t before = ready->size();
  // A Merge is made ready once, by whichever arrival completes "no control
  // input pending and the input decided" (sequentially consistent, so two
  // racing arrivals cannot both miss it).
  auto try_fire_merge = [&](int merge, int local) {
    if (iter->merge_control[local].load() == 0 && iter->merge_winner[local].load() != -1 &&
        !iter->merge_fired[local].exchange(true)) {
      ready->push_back({merge, iter});
    }
  };
  for (const Item::Out& o : item.outs) {
    const bool value_dead = outputs[o.output].dead;
    if (o.last && may_move) {
      iter->slots[o.slot] = std::move(outputs[o.output]);
    } else {
      iter->slots[o.slot] = outputs[o.output];
    }
    if (!o.to_merge) {
      if (iter->pending[o.local].fetch_sub(1, std::memory_order_acq_rel) == 1) {
        ready->push_back({o.item, iter});
      }
      continue;
    }
    const Item& dst = items_[o.item];
    // Merge: the first live input is taken; if every input arrives dead, it
    // is dead. A dead Enter makes it dead at once: its other input is the
    // loop's back edge, which never comes (a loop on the untaken side of a
    // cond).
    std::atomic<int>& winner = iter->merge_winner[dst.local];
    int none = -1;
    if (!value_dead) {
      winner.compare_exchange_strong(none, o.slot - dst.input_start);
    } else if (item.kind == Item::kEnter) {
      winner.compare_exchange_strong(none, -2);
    }
    if (iter->pending[dst.local].fetch_sub(1, std::memory_order_acq_rel) == 1) {
      int still_none = -1;
      winner.compare_exchange_strong(still_none, -2);
    }
    try_fire_merge(o.item, dst.local);
  }
  for (const Item::ControlOut& c : item.control_outs) {
    if (c.to_merge) {
      // A dead control input does not make a Merge dead (TensorFlow's rule).
      iter->merge_control[c.local].fetch_sub(1);
      try_fire_merge(c.item, c.local);
      continue;
    }
    if (dead) iter->dead_control[c.local].store(true, std::memory_order_relaxed);
    if (iter->pending[c.local].fetch_sub(1, std::memory_order_acq_rel) == 1) {
      ready->push_back({c.item, iter});
    }
  }
  return static_cast<int>(ready->size() - before);
}

void Plan::Propagate(StepState*, const Task& task, bool dead, TensorValue* outputs,
                         ReadyList* ready) const {
  Activate(items_[task.item], dead, outputs, task.iter, true, ready);
}

void Plan::PropagateLoop(StepState* state, const Task& task, bool dead, TensorValue* outputs,
                             ReadyList* ready) const {
  const Item& item = items_[task.item];
  Iteration* iter = task.iter;
  Frame* frame = iter->frame;
  absl::MutexLock l(&state->loop_mu);
  switch (item.kind) {
    case Item::kPlain:
      iter->outstanding_ops += Activate(item, dead, outputs, iter, true, ready);
      break;
    case Item::kEnter: {
      const int info = item.child_frame;
      std::unique_ptr<Frame>& child = state->frames[{frame, iter->num, info}];
      if (child == nullptr) {
        child = std::make_unique<Frame>();
        child->info = info;
        child->parent = frame;
        child->parent_iter = iter;
        child->num_pending_inputs = frames_[info].num_enters;
        child->max_parallel = frames_[info].parallel_iterations;
        child->iterations.push_back(NewIteration(child.get(), 0));
        ++iter->outstanding_frames;
      }
      Frame* f = child.get();
      if (item.constant_enter) {
        f->inv_values.push_back({task.item, outputs[0]});
        for (auto& it : f->iterations) {
          TensorValue copy = outputs[0];
          it->outstanding_ops += Activate(item, dead, &copy, it.get(), false, ready);
        }
      } else {
        Iteration* first = f->Get(0);
        // An Enter delivers once per frame instance, into iteration 0, which
        // lives until every Enter has delivered.
        first->outstanding_ops += Activate(item, dead, outputs, first, true, ready);
      }
      --f->num_pending_inputs;
      break;
    }
    case Item::kExit:
      if (dead) {
        if (iter->num == frame->iteration_count) frame->dead_exits.push_back(task.item);
      } else {
        Iteration* parent_iter = frame->parent_iter;
        parent_iter->outstanding_ops +=
            Activate(item, false, outputs, parent_iter, true, ready);
      }
      break;
    case Item::kNextIteration: {
      if (dead) break;  // the loop ends here
      Iteration* next = nullptr;
      if (iter->num < frame->iteration_count) {
        next = frame->Get(iter->num + 1);
      } else if (frame->num_outstanding_iterations < frame->max_parallel) {
        next = IncrementIteration(frame, ready);
      } else {
        frame->next_iter_roots.push_back({task.item, std::move(outputs[0])});
      }
      if (next != nullptr) {
        next->outstanding_ops += Activate(item, false, outputs, next, true, ready);
      }
      break;
    }
  }
  --iter->outstanding_ops;
  CleanupIterations(state, frame, iter, ready);
}

Iteration* Plan::IncrementIteration(Frame* frame, ReadyList* ready) const {
  ++frame->iteration_count;
  frame->iterations.push_back(NewIteration(frame, frame->iteration_count));
  Iteration* next = frame->iterations.back().get();
  ++frame->num_outstanding_iterations;
  frame->dead_exits.clear();
  for (auto& [item, value] : frame->next_iter_roots) {
    next->outstanding_ops += Activate(items_[item], false, &value, next, true, ready);
  }
  frame->next_iter_roots.clear();
  for (const auto& [item, value] : frame->inv_values) {
    TensorValue copy = value;
    next->outstanding_ops += Activate(items_[item], copy.dead, &copy, next, false, ready);
  }
  return next;
}

// Frees the iterations of `frame` that are done, oldest first (an iteration
// is done when nothing of it is ready or running, no loop it started is
// running, and the one before it is done; iteration 0 also waits for every
// Enter). A frame whose iterations are all done is finished: dead exits go
// on to the parent, and the parent's iteration is checked in turn.
void Plan::CleanupIterations(StepState* state, Frame* frame, Iteration* iter,
                                 ReadyList* ready) const {
  if (frame == &state->root) return;  // lives as long as the step
  while (iter != nullptr && iter->num == frame->first_iter && iter->outstanding_ops == 0 &&
         iter->outstanding_frames == 0 && (iter->num > 0 || frame->num_pending_inputs == 0)) {
    frame->iterations.erase(frame->iterations.begin());
    ++frame->first_iter;
    --frame->num_outstanding_iterations;
    if (!frame->next_iter_roots.empty()) IncrementIteration(frame, ready);
    iter = frame->Get(frame->first_iter);
  }
  if (frame->num_pending_inputs != 0 || frame->num_outstanding_iterations != 0) return;

  Frame* parent = frame->parent;
  Iteration* parent_iter = frame->parent_iter;
  for (int exit : frame->dead_exits) {
    const Item& item = items_[exit];
    TensorValue dead_value;
    dead_value.dead = true;
    if (absl::Status s = Fetch(state, item, &dead_value, /*frame_end=*/true); !s.ok()) {
      state->Fail(WithNodeName(s, item.node->name()));
    }
    parent_iter->outstanding_ops += Activate(item, true, &dead_value, parent_iter, true, ready);
  }
  --parent_iter->outstanding_frames;
  state->frames.erase({parent, parent_iter->num, frame->info});  // frees `frame`
  CleanupIterations(state, parent, parent_iter, ready);
}

void Plan::Schedule(StepState* state, const Task& task) const {
  state->outstanding.fetch_add(1);
  Eigen::ThreadPoolInterface* pool = items_[task.item].blocking ? BlockingPool() : state->pool;
  pool->Schedule([this, state, task] { Process(state, task); });
}

void Plan::NodeDone(StepState* state) const {
  if (state->outstanding.fetch_sub(1, std::memory_order_acq_rel) == 1) state->done.Notify();
}

}  // namespace executor_internal
}  // namespace minigraph
