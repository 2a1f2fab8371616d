#include "runtime/executor.h"

#include <algorithm>
#include <atomic>
#include <tuple>

#if defined(__x86_64__)
#include <x86intrin.h>
#else
#include <chrono>
#endif

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"

namespace minigraph {
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
// Every node starts as expensive until measured.
constexpr uint64_t kInitialCostCycles = 1'000'000;

}  // namespace

absl::Status WithNodeName(const absl::Status& s, absl::string_view node) {
  if (s.ok()) return s;
  return absl::Status(s.code(), absl::StrCat(s.message(), "\n\t [[{{node ", node, "}}]]"));
}

struct Executor::Item {
  const Node* node = nullptr;
  const OpKernel* kernel = nullptr;
  int local = 0;        // index among its frame's items (counts, winners)
  int input_start = 0;  // first slot of this node's inputs, in its frame
  int num_inputs = 0;
  int initial_pending = 0;
  struct Out {
    int output;     // this node's output index
    int item;       // consumer
    int local;      // consumer's index in its frame
    int slot;       // consumer's input slot (in the consumer's frame)
    bool last;      // the last edge of `output`: the value moves, not copies
    bool to_merge;  // the consumer is a Merge
  };
  std::vector<Out> outs;
  struct ControlOut {
    int item;
    int local;
    bool to_merge;
  };
  std::vector<ControlOut> control_outs;
  // (output index, fetch index) for outputs the step returns.
  std::vector<std::pair<int, int>> fetches;
  // Inputs (relative index) that arrive as variable references but are read
  // as values: dereferenced just before Compute.
  std::vector<int> deref_inputs;
  // Merge runs when its control inputs have all arrived and a live data
  // input has (the first one wins) or every data input arrived dead; the
  // executor computes it. Its pending count covers data inputs only.
  bool is_merge = false;
  int num_control = 0;
  enum Kind : uint8_t { kPlain, kEnter, kExit, kNextIteration } kind = kPlain;
  // Forwards or makes a small value (control flow, Identity, Const, NoOp):
  // always runs on the thread that made it ready, unmeasured.
  bool cheap = false;
  bool constant_enter = false;
  int child_frame = -1;  // Enter: the frame its consumers run in
};

struct Executor::FrameInfo {
  std::vector<int> items;  // in this frame, by local index
  int num_slots = 0;
  int num_enters = 0;  // Enter nodes feeding one instance of the frame
  int parallel_iterations = 1;
};

// One iteration of one frame instance: the inputs and counts of the frame's
// nodes. The root frame has one, for the whole step.
struct Executor::Iteration {
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
struct Executor::Frame {
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

struct Executor::Task {
  int item;
  Iteration* iter;
};

struct Executor::StepState {
  const Args* args;
  std::vector<Tensor>* fetches;
  absl::InlinedVector<char, 8> fetched;  // per fetch; written by different threads
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
  void FailTimedOut() {
    Fail(absl::DeadlineExceededError(
        absl::StrCat("step timed out after ", absl::FormatDuration(args->timeout))));
  }
};

Executor::~Executor() = default;

namespace {

// The frame of every node of a graph: TensorFlow's control-flow structure,
// found from the inputs (a node runs where its inputs come from; an Enter's
// consumers run in its child frame, an Exit's in its frame's parent). Errors
// are kept per node and reported only for nodes a step needs.
struct GraphFrames {
  static constexpr int kInvalid = -1;
  std::vector<int> frame;      // per node id: where it runs
  std::vector<int> out_frame;  // per node id: where its consumers run
  std::vector<std::string> error;
  std::vector<std::string> names{""};
  std::vector<int> parents{-1};

  std::string Describe(int f) const {
    return f == 0 ? "the root frame" : absl::StrCat("while loop frame '", names[f], "'");
  }
};

GraphFrames FindFrames(const Graph& graph) {
  GraphFrames gf;
  const int n = graph.num_nodes();
  gf.frame.assign(n, GraphFrames::kInvalid);
  gf.out_frame.assign(n, GraphFrames::kInvalid);
  gf.error.assign(n, "");
  absl::flat_hash_map<std::pair<int, std::string>, int> children;
  for (int id : graph.topological_order()) {
    const Node& node = graph.node(id);
    int f = GraphFrames::kInvalid;
    int first = -1;
    std::string err;
    auto consider = [&](int src) {
      if (!err.empty()) return;
      if (gf.out_frame[src] == GraphFrames::kInvalid) {
        err = gf.error[src];
      } else if (f == GraphFrames::kInvalid) {
        f = gf.out_frame[src];
        first = src;
      } else if (f != gf.out_frame[src]) {
        err = absl::StrCat("node '", node.name(), "' has inputs from different frames: '",
                           graph.node(first).name(), "' is in ", gf.Describe(f), ", '",
                           graph.node(src).name(), "' is in ", gf.Describe(gf.out_frame[src]));
      }
    };
    for (int k = 0; k < node.num_inputs(); ++k) {
      if (!node.IsBackEdge(k)) consider(node.inputs()[k].src);
    }
    for (int c : node.control_inputs()) consider(c);
    if (f == GraphFrames::kInvalid && err.empty()) f = 0;
    int out = f;
    if (err.empty() && IsEnter(node)) {
      std::string name;
      if (!GetNodeAttr(node.def(), "frame_name", &name).ok() || name.empty()) {
        err = absl::StrCat("Enter node '", node.name(), "' has no frame_name");
      } else {
        auto [it, added] = children.try_emplace({f, name}, static_cast<int>(gf.names.size()));
        if (added) {
          gf.names.push_back(name);
          gf.parents.push_back(f);
        }
        out = it->second;
      }
    } else if (err.empty() && IsExit(node)) {
      if (f == 0) {
        err = absl::StrCat("Exit node '", node.name(), "' is not inside a while loop");
      } else {
        out = gf.parents[f];
      }
    }
    if (!err.empty()) {
      gf.error[id] = std::move(err);
      continue;
    }
    gf.frame[id] = f;
    gf.out_frame[id] = out;
  }
  // A back edge must stay in its loop's frame.
  for (int id = 0; id < n; ++id) {
    const Node& node = graph.node(id);
    if (gf.frame[id] == GraphFrames::kInvalid) continue;
    for (int k = 0; k < node.num_inputs(); ++k) {
      const int src = node.inputs()[k].src;
      if (node.IsBackEdge(k) && gf.out_frame[src] != gf.frame[id]) {
        gf.error[id] = gf.out_frame[src] == GraphFrames::kInvalid
                           ? gf.error[src]
                           : absl::StrCat("Merge node '", node.name(), "' is in ",
                                          gf.Describe(gf.frame[id]), " but its NextIteration '",
                                          graph.node(src).name(), "' is in ",
                                          gf.Describe(gf.out_frame[src]));
        gf.frame[id] = gf.out_frame[id] = GraphFrames::kInvalid;
        break;
      }
    }
  }
  return gf;
}

}  // namespace

absl::StatusOr<std::unique_ptr<Executor>> Executor::Create(
    const Graph* graph, const std::vector<const OpKernel*>& kernels,
    const std::vector<TensorId>& feeds, const std::vector<TensorId>& fetches,
    const std::vector<std::string>& targets) {
  std::unique_ptr<Executor> ex(new Executor);
  ex->graph_ = graph;
  ex->feeds_ = feeds;
  const GraphFrames gf = FindFrames(*graph);

  auto find = [&](const TensorId& id, absl::string_view what) -> absl::StatusOr<const Node*> {
    const Node* n = graph->FindNode(id.node);
    if (n == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, " '", id.ToString(), "' names a node that is not in the graph"));
    }
    if (!id.control && id.index >= n->num_outputs()) {
      return absl::InvalidArgumentError(absl::StrCat(what, " '", id.ToString(), "': node '",
                                                     n->name(), "' has ", n->num_outputs(),
                                                     " output(s)"));
    }
    // Where the value lands (an Exit's in the parent frame) must be outside
    // loops, and a fed node must also run outside them.
    const int nid = n->id();
    const int f = gf.frame[nid] == GraphFrames::kInvalid ? GraphFrames::kInvalid
                  : what == "feed" ? std::max(gf.frame[nid], gf.out_frame[nid])
                                   : gf.out_frame[nid];
    if (f != GraphFrames::kInvalid && f != 0) {
      return absl::InvalidArgumentError(absl::StrCat(what, " '", id.ToString(), "': node '",
                                                     n->name(), "' is inside ", gf.Describe(f),
                                                     "; only tensors outside loops can be ",
                                                     what == "target" ? "run" : "used"));
    }
    return n;
  };

  // Fed outputs, as (node id, output) -> feed index.
  absl::flat_hash_map<std::pair<int, int>, int> fed;
  for (size_t i = 0; i < feeds.size(); ++i) {
    MG_ASSIGN_OR_RETURN(const Node* n, find(feeds[i], "feed"));
    if (!fed.emplace(std::make_pair(n->id(), feeds[i].index), static_cast<int>(i)).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("tensor '", feeds[i].ToString(), "' is fed more than once"));
    }
    ex->feed_shapes_.push_back(n->output_shape(feeds[i].index));
    ex->feed_types_.push_back(BaseType(n->output_type(feeds[i].index)));
  }

  // Reverse reachability from fetches and targets, stopping at feeds.
  const int n = graph->num_nodes();
  std::vector<bool> needed(n, false);
  std::vector<int> stack;
  auto need = [&](int id) {
    if (!needed[id]) {
      needed[id] = true;
      stack.push_back(id);
    }
  };
  for (const TensorId& f : fetches) {
    MG_ASSIGN_OR_RETURN(const Node* node, find(f, "fetch"));
    auto it = fed.find({node->id(), f.index});
    ex->fetch_from_feed_.push_back(it == fed.end() ? -1 : it->second);
    if (it == fed.end()) need(node->id());
  }
  for (const std::string& t : targets) {
    MG_ASSIGN_OR_RETURN(const Node* node, find(TensorId{t, 0, true}, "target"));
    need(node->id());
  }
  while (!stack.empty()) {
    const Node& node = graph->node(stack.back());
    stack.pop_back();
    for (const auto& in : node.inputs()) {
      if (!fed.contains({in.src, in.src_output})) need(in.src);
    }
    for (int c : node.control_inputs()) need(c);
  }

  ex->frames_.resize(gf.names.size());
  std::vector<int> item_of(n, -1);
  for (int id : graph->topological_order()) {
    if (!needed[id]) continue;
    const Node& node = graph->node(id);
    if (gf.frame[id] == GraphFrames::kInvalid) {
      return absl::InvalidArgumentError(gf.error[id]);
    }
    if (kernels[id] == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("node '", node.name(), "' (", node.type_string(), ") has no kernel"));
    }
    const int index = static_cast<int>(ex->items_.size());
    item_of[id] = index;
    Item item;
    item.node = &node;
    item.kernel = kernels[id];
    item.is_merge = IsMerge(node);
    static const absl::flat_hash_set<absl::string_view>* const kCheap =
        new absl::flat_hash_set<absl::string_view>{
            "Identity", "NoOp",  "Const",    "Switch",        "RefSwitch",        "Merge",
            "RefMerge", "Enter", "RefEnter", "Exit",          "RefExit",          "NextIteration",
            "LoopCond", "Rank",  "Shape",    "RefIdentity",   "RefNextIteration", "StopGradient"};
    item.cheap = kCheap->contains(node.type_string());
    if (item.is_merge || IsSwitch(node)) ex->has_control_flow_ = true;
    FrameInfo& frame = ex->frames_[gf.frame[id]];
    item.local = static_cast<int>(frame.items.size());
    frame.items.push_back(index);
    item.input_start = frame.num_slots;
    item.num_inputs = node.num_inputs();
    frame.num_slots += node.num_inputs();
    if (IsEnter(node)) {
      item.kind = Item::kEnter;
      ex->has_loops_ = true;
      item.child_frame = gf.out_frame[id];
      FrameInfo& child = ex->frames_[item.child_frame];
      ++child.num_enters;
      int64_t parallel = 10;
      MG_RETURN_IF_ERROR(GetNodeAttr(node.def(), "is_constant", &item.constant_enter));
      MG_RETURN_IF_ERROR(GetNodeAttr(node.def(), "parallel_iterations", &parallel));
      if (parallel < 1) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Enter node '", node.name(), "': parallel_iterations must be positive, got ",
            parallel));
      }
      // The frame runs as many iterations at once as its strictest Enter allows.
      child.parallel_iterations = child.num_enters == 1
                                      ? static_cast<int>(parallel)
                                      : std::min(child.parallel_iterations, static_cast<int>(parallel));
    } else if (IsExit(node)) {
      item.kind = Item::kExit;
    } else if (IsNextIteration(node)) {
      item.kind = Item::kNextIteration;
    }
    ex->items_.push_back(std::move(item));
  }
  for (Item& item : ex->items_) {
    const Node& node = *item.node;
    const int self = static_cast<int>(&item - ex->items_.data());
    int pending = item.is_merge ? 0 : static_cast<int>(node.control_inputs().size());
    item.num_control = static_cast<int>(node.control_inputs().size());
    for (int i = 0; i < node.num_inputs(); ++i) {
      const auto& in = node.inputs()[i];
      const int slot = item.input_start + i;
      auto f = fed.find({in.src, in.src_output});
      if (f != fed.end()) {
        if (item.is_merge) {
          return absl::UnimplementedError(absl::StrCat(
              "cannot feed '", node.name(), "' input ", i, ": it is an input of a Merge"));
        }
        ex->fed_slots_.push_back({slot, f->second});
      } else {
        ++pending;
        ex->items_[item_of[in.src]].outs.push_back(
            {in.src_output, self, item.local, slot, false, item.is_merge});
        if (IsRefType(graph->node(in.src).output_type(in.src_output)) &&
            !IsRefType(node.input_type(i))) {
          item.deref_inputs.push_back(i);
        }
      }
    }
    for (int c : node.control_inputs()) {
      ex->items_[item_of[c]].control_outs.push_back({self, item.local, item.is_merge});
    }
    item.initial_pending = pending;
  }
  for (size_t i = 0; i < ex->items_.size(); ++i) {
    Item& item = ex->items_[i];
    if (item.initial_pending == 0) ex->initial_ready_.push_back(static_cast<int>(i));
    std::vector<bool> seen(item.node->num_outputs(), false);
    for (auto it = item.outs.rbegin(); it != item.outs.rend(); ++it) {
      // A loop invariant goes to every iteration: it is never moved.
      it->last = !seen[it->output] && !item.constant_enter;
      seen[it->output] = true;
    }
  }
  ex->cost_cycles_.reset(new std::atomic<uint64_t>[ex->items_.size()]);
  for (size_t i = 0; i < ex->items_.size(); ++i) ex->cost_cycles_[i].store(kInitialCostCycles);
  for (size_t k = 0; k < fetches.size(); ++k) {
    if (ex->fetch_from_feed_[k] >= 0) continue;
    const Node* node = graph->FindNode(fetches[k].node);
    ex->items_[item_of[node->id()]].fetches.push_back({fetches[k].index, static_cast<int>(k)});
  }
  return ex;
}

std::vector<int> Executor::PlannedNodes() const {
  std::vector<int> ids;
  for (const Item& item : items_) ids.push_back(item.node->id());
  return ids;
}

std::unique_ptr<Executor::Iteration> Executor::NewIteration(Frame* frame, int64_t num) const {
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

absl::Status Executor::Run(const Args& args, std::vector<Tensor>* fetches) const {
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
    if (!feed_shapes_[i].IsCompatibleWith(t.shape())) {
      return absl::InvalidArgumentError(absl::StrCat(
          "cannot feed a value of shape ", t.shape().DebugString(), " to '",
          feeds_[i].ToString(), "', which has shape ", feed_shapes_[i].DebugString()));
    }
  }
  fetches->assign(fetch_from_feed_.size(), Tensor());
  for (size_t k = 0; k < fetch_from_feed_.size(); ++k) {
    if (fetch_from_feed_[k] >= 0) (*fetches)[k] = args.feeds[fetch_from_feed_[k]];
  }
  if (items_.empty()) return absl::OkStatus();

  StepState state;
  state.args = &args;
  state.fetches = fetches;
  state.fetched.assign(fetch_from_feed_.size(), false);
  state.step = args.step;
  state.step.cancelled = &state.cancelled;
  if (args.timeout > absl::ZeroDuration()) state.deadline = absl::Now() + args.timeout;
  state.root.iterations.push_back(NewIteration(&state.root, 0));
  Iteration* root_iter = state.root.iterations.front().get();
  root_iter->outstanding_ops = static_cast<int>(initial_ready_.size());
  for (const auto& [slot, feed] : fed_slots_) root_iter->slots[slot].tensor = args.feeds[feed];

  auto task = [&](int item) { return Task{item, root_iter}; };
  if (args.pool != nullptr) {
    state.outstanding.store(static_cast<int>(initial_ready_.size()));
    for (size_t i = 1; i < initial_ready_.size(); ++i) {
      const Task t = task(initial_ready_[i]);
      args.pool->Schedule([this, &state, t] { Process(&state, t); });
    }
  } else {
    state.outstanding.store(1);
    for (size_t i = 1; i < initial_ready_.size(); ++i) {
      state.inline_queue.push_back(task(initial_ready_[i]));
    }
  }
  Process(&state, task(initial_ready_[0]));

  if (args.timeout > absl::ZeroDuration()) {
    if (!state.done.WaitForNotificationWithDeadline(state.deadline)) {
      state.FailTimedOut();
      state.done.WaitForNotification();
    }
  } else {
    state.done.WaitForNotification();
  }
  absl::MutexLock l(&state.mu);
  if (state.status.ok()) {
    // Every node that could run has run. A fetch still missing sits behind
    // a loop that never delivered it: a malformed graph, not a hang.
    for (size_t k = 0; k < state.fetched.size(); ++k) {
      if (fetch_from_feed_[k] < 0 && !state.fetched[k]) {
        for (const Item& item : items_) {
          for (const auto& [output, fetch] : item.fetches) {
            if (fetch == static_cast<int>(k)) {
              state.status = absl::InvalidArgumentError(absl::StrCat(
                  "fetched tensor '", item.node->name(), ":", output,
                  "' was never computed: the step ended with its inputs incomplete (a while "
                  "loop that did not exit?)"));
            }
          }
        }
        break;
      }
    }
  }
  if (!state.status.ok()) fetches->clear();
  return state.status;
}

void Executor::Process(StepState* state, Task task) const {
  ReadyList ready;
  // Cheap nodes made ready here run here, after the current one: handing a
  // Switch or an Identity to another thread costs more than running it.
  ReadyList cheap;
  absl::InlinedVector<TensorValue, 4> outputs;
  const bool has_deadline = state->deadline != absl::InfiniteFuture();
  for (uint32_t count = 1;; ++count) {
    if (has_deadline && count % 64 == 0 && !state->cancelled.load(std::memory_order_relaxed) &&
        absl::Now() > state->deadline) {
      state->FailTimedOut();
    }
    const Item& item = items_[task.item];
    Iteration* iter = task.iter;
    ready.clear();
    if (!state->cancelled.load(std::memory_order_relaxed)) {
      TensorValue* inputs = &iter->slots[item.input_start];
      absl::Status s;
      outputs.assign(item.node->num_outputs(), TensorValue());
      bool dead = false;
      if (item.is_merge) {
        // Late arrivals may still write other input slots: read only the
        // winner's, and leave the slots for the iteration to free.
        const int w = iter->merge_winner[item.local].load(std::memory_order_acquire);
        if (w < 0) {
          dead = true;
        } else {
          outputs[0] = inputs[w];
          outputs[1].tensor = Tensor::Scalar<int32_t>(w);
        }
      } else {
        if (has_control_flow_) {
          dead = iter->dead_control[item.local].load(std::memory_order_relaxed);
          for (int i = 0; i < item.num_inputs && !dead; ++i) dead = inputs[i].dead;
        }
        if (!dead) {
          for (int i : item.deref_inputs) {
            absl::StatusOr<Tensor> value = inputs[i].ref->Read();
            if (!value.ok()) {
              s = value.status();
              break;
            }
            inputs[i].tensor = *std::move(value);
            inputs[i].ref = nullptr;
          }
          if (s.ok()) {
            OpKernelContext ctx(item.kernel, &state->step, inputs, outputs.data());
            if (state->args->pool != nullptr && !item.cheap) {
              const uint64_t start = Cycles();
              s = item.kernel->Compute(&ctx);
              const uint64_t end = Cycles();
              // Decaying average: 7/8 of the old estimate, 1/8 of this run
              // (skipped if the thread moved to a core whose counter lags).
              if (end >= start) {
                std::atomic<uint64_t>& cost = cost_cycles_[task.item];
                const uint64_t old = cost.load(std::memory_order_relaxed);
                cost.store(old - old / 8 + (end - start) / 8, std::memory_order_relaxed);
              }
            } else {
              s = item.kernel->Compute(&ctx);
            }
          }
        }
        for (int i = 0; i < item.num_inputs; ++i) inputs[i] = TensorValue();
      }
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
    if (state->args->pool == nullptr) {
      state->inline_queue.insert(state->inline_queue.end(), ready.begin(), ready.end());
      if (state->inline_queue.empty()) break;
      task = state->inline_queue.back();
      state->inline_queue.pop_back();
      continue;
    }
    // Of the expensive ones, one stays on this thread when nothing cheap
    // is waiting; the others go to the pool.
    bool keep_one = cheap.empty();
    for (const Task& t : ready) {
      if (items_[t.item].cheap ||
          cost_cycles_[t.item].load(std::memory_order_relaxed) < kExpensiveCycles) {
        cheap.push_back(t);
      } else if (keep_one) {
        cheap.push_back(t);
        keep_one = false;
      } else {
        state->outstanding.fetch_add(1);
        state->args->pool->Schedule([this, state, t] { Process(state, t); });
      }
    }
    if (cheap.empty()) break;
    task = cheap.back();
    cheap.pop_back();
  }
  NodeDone(state);
}

absl::Status Executor::Fetch(StepState* state, const Item& item, TensorValue* outputs,
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
    if (v.ref != nullptr) {
      MG_ASSIGN_OR_RETURN((*state->fetches)[fetch], v.ref->Read());
    } else {
      (*state->fetches)[fetch] = v.tensor;
    }
    state->fetched[fetch] = true;
  }
  return absl::OkStatus();
}

int Executor::Activate(const Item& item, bool dead, TensorValue* outputs, Iteration* iter,
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

void Executor::Propagate(StepState*, const Task& task, bool dead, TensorValue* outputs,
                         ReadyList* ready) const {
  Activate(items_[task.item], dead, outputs, task.iter, true, ready);
}

void Executor::PropagateLoop(StepState* state, const Task& task, bool dead, TensorValue* outputs,
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

Executor::Iteration* Executor::IncrementIteration(Frame* frame, ReadyList* ready) const {
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
void Executor::CleanupIterations(StepState* state, Frame* frame, Iteration* iter,
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

void Executor::NodeDone(StepState* state) const {
  if (state->outstanding.fetch_sub(1, std::memory_order_acq_rel) == 1) state->done.Notify();
}

}  // namespace minigraph
