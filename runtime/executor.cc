#include "runtime/executor.h"

#include <algorithm>
#include <atomic>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/container/inlined_vector.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"

namespace minigraph {

absl::Status WithNodeName(const absl::Status& s, absl::string_view node) {
  if (s.ok()) return s;
  return absl::Status(s.code(), absl::StrCat(s.message(), "\n\t [[{{node ", node, "}}]]"));
}

struct Executor::Item {
  const Node* node = nullptr;
  const OpKernel* kernel = nullptr;
  int input_start = 0;  // first slot of this node's inputs
  int num_inputs = 0;
  int initial_pending = 0;
  struct Out {
    int output;  // this node's output index
    int item;    // consumer
    int slot;    // consumer's input slot
    bool last;   // the last edge of `output`: the value moves, not copies
  };
  std::vector<Out> outs;
  std::vector<int> control_outs;
  // (output index, fetch index) for outputs the step returns.
  std::vector<std::pair<int, int>> fetches;
  // Inputs (relative index) that arrive as variable references but are read
  // as values: dereferenced just before Compute.
  std::vector<int> deref_inputs;
  // Merge runs when its first live input arrives (or all arrive dead); the
  // executor computes it.
  bool is_merge = false;
};

struct Executor::StepState {
  const Args* args;
  std::vector<Tensor>* fetches;
  std::unique_ptr<TensorValue[]> slots;
  std::unique_ptr<std::atomic<int>[]> pending;
  std::atomic<int> outstanding{0};
  std::atomic<bool> cancelled{false};
  absl::Mutex mu;
  absl::Status status ABSL_GUARDED_BY(mu);
  absl::Notification done;
  StepContext step;
  // Without a pool every node runs on the calling thread, from this queue.
  std::vector<int> inline_queue;
  // Only for plans with Switch/Merge: dead control inputs per item, and the
  // input slot each Merge took (-1 none yet, -2 all inputs dead).
  std::unique_ptr<std::atomic<bool>[]> dead_control;
  std::unique_ptr<std::atomic<int>[]> merge_winner;

  void Fail(const absl::Status& s) {
    absl::MutexLock l(&mu);
    if (status.ok()) status = s;
    cancelled.store(true);
  }
};

Executor::~Executor() = default;

absl::StatusOr<std::unique_ptr<Executor>> Executor::Create(
    const Graph* graph, const std::vector<const OpKernel*>& kernels,
    const std::vector<TensorId>& feeds, const std::vector<TensorId>& fetches,
    const std::vector<std::string>& targets) {
  std::unique_ptr<Executor> ex(new Executor);
  ex->graph_ = graph;
  ex->feeds_ = feeds;

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

  std::vector<int> item_of(n, -1);
  for (int id : graph->topological_order()) {
    if (!needed[id]) continue;
    const Node& node = graph->node(id);
    if (kernels[id] == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("node '", node.name(), "' (", node.type_string(), ") has no kernel"));
    }
    item_of[id] = static_cast<int>(ex->items_.size());
    Item item;
    item.node = &node;
    item.kernel = kernels[id];
    item.is_merge = node.type_string() == "Merge" || node.type_string() == "RefMerge";
    if (item.is_merge || node.type_string() == "Switch" || node.type_string() == "RefSwitch") {
      ex->has_control_flow_ = true;
    }
    if (item.is_merge && !node.control_inputs().empty()) {
      return absl::UnimplementedError(
          absl::StrCat("Merge node '", node.name(), "' has control inputs; not supported"));
    }
    item.input_start = ex->num_slots_;
    item.num_inputs = node.num_inputs();
    ex->num_slots_ += node.num_inputs();
    ex->items_.push_back(std::move(item));
  }
  for (Item& item : ex->items_) {
    const Node& node = *item.node;
    int pending = static_cast<int>(node.control_inputs().size());
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
            {in.src_output, static_cast<int>(&item - ex->items_.data()), slot, false});
        if (IsRefType(graph->node(in.src).output_type(in.src_output)) &&
            !IsRefType(node.input_type(i))) {
          item.deref_inputs.push_back(i);
        }
      }
    }
    for (int c : node.control_inputs()) {
      ex->items_[item_of[c]].control_outs.push_back(static_cast<int>(&item - ex->items_.data()));
    }
    item.initial_pending = pending;
  }
  for (size_t i = 0; i < ex->items_.size(); ++i) {
    Item& item = ex->items_[i];
    if (item.initial_pending == 0) ex->initial_ready_.push_back(static_cast<int>(i));
    std::vector<bool> seen(item.node->num_outputs(), false);
    for (auto it = item.outs.rbegin(); it != item.outs.rend(); ++it) {
      it->last = !seen[it->output];
      seen[it->output] = true;
    }
  }
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
  state.step = args.step;
  state.step.cancelled = &state.cancelled;
  state.slots.reset(new TensorValue[std::max(num_slots_, 1)]);
  state.pending.reset(new std::atomic<int>[items_.size()]);
  for (size_t i = 0; i < items_.size(); ++i) {
    state.pending[i].store(items_[i].initial_pending, std::memory_order_relaxed);
  }
  if (has_control_flow_) {
    state.dead_control.reset(new std::atomic<bool>[items_.size()]);
    state.merge_winner.reset(new std::atomic<int>[items_.size()]);
    for (size_t i = 0; i < items_.size(); ++i) {
      state.dead_control[i].store(false, std::memory_order_relaxed);
      state.merge_winner[i].store(-1, std::memory_order_relaxed);
    }
  }
  for (const auto& [slot, feed] : fed_slots_) state.slots[slot].tensor = args.feeds[feed];

  if (args.pool != nullptr) {
    state.outstanding.store(static_cast<int>(initial_ready_.size()));
    for (size_t i = 1; i < initial_ready_.size(); ++i) {
      const int item = initial_ready_[i];
      args.pool->Schedule([this, &state, item] { Process(&state, item); });
    }
  } else {
    state.outstanding.store(1);
    state.inline_queue.assign(initial_ready_.begin() + 1, initial_ready_.end());
  }
  Process(&state, initial_ready_[0]);

  if (args.timeout > absl::ZeroDuration()) {
    if (!state.done.WaitForNotificationWithTimeout(args.timeout)) {
      state.Fail(absl::DeadlineExceededError(absl::StrCat(
          "step timed out after ", absl::FormatDuration(args.timeout))));
      state.done.WaitForNotification();
    }
  } else {
    state.done.WaitForNotification();
  }
  absl::MutexLock l(&state.mu);
  if (!state.status.ok()) fetches->clear();
  return state.status;
}

void Executor::Process(StepState* state, int item_index) const {
  absl::InlinedVector<int, 8> ready;
  absl::InlinedVector<TensorValue, 4> outputs;
  while (true) {
    const Item& item = items_[item_index];
    ready.clear();
    if (!state->cancelled.load(std::memory_order_relaxed)) {
      TensorValue* inputs = &state->slots[item.input_start];
      absl::Status s;
      outputs.assign(item.node->num_outputs(), TensorValue());
      bool dead = false;
      if (item.is_merge) {
        // Late arrivals may still write other input slots: read only the
        // winner's, and leave the slots for the step to free.
        const int w = state->merge_winner[item_index].load(std::memory_order_acquire);
        if (w < 0) {
          dead = true;
        } else {
          outputs[0] = inputs[w];
          outputs[1].tensor = Tensor::Scalar<int32_t>(w);
        }
      } else {
        if (has_control_flow_) {
          dead = state->dead_control[item_index].load(std::memory_order_relaxed);
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
            s = item.kernel->Compute(&ctx);
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
      } else {
        Propagate(state, item, dead, outputs.data(), &ready);
      }
      outputs.clear();
    }
    if (state->args->pool == nullptr) {
      state->inline_queue.insert(state->inline_queue.end(), ready.begin(), ready.end());
      if (state->inline_queue.empty()) break;
      item_index = state->inline_queue.back();
      state->inline_queue.pop_back();
      continue;
    }
    if (ready.empty()) break;
    if (ready.size() > 1) {
      state->outstanding.fetch_add(static_cast<int>(ready.size()) - 1);
      for (size_t i = 1; i < ready.size(); ++i) {
        const int next = ready[i];
        state->args->pool->Schedule([this, state, next] { Process(state, next); });
      }
    }
    item_index = ready[0];
  }
  NodeDone(state);
}

absl::Status Executor::Fetch(StepState* state, const Item& item, TensorValue* outputs) const {
  for (const auto& [output, fetch] : item.fetches) {
    const TensorValue& v = outputs[output];
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
  }
  return absl::OkStatus();
}

void Executor::Propagate(StepState* state, const Item& item, bool dead, TensorValue* outputs,
                         absl::InlinedVector<int, 8>* ready) const {
  for (const Item::Out& o : item.outs) {
    const bool value_dead = outputs[o.output].dead;
    if (o.last) {
      state->slots[o.slot] = std::move(outputs[o.output]);
    } else {
      state->slots[o.slot] = outputs[o.output];
    }
    if (!items_[o.item].is_merge) {
      if (state->pending[o.item].fetch_sub(1, std::memory_order_acq_rel) == 1) {
        ready->push_back(o.item);
      }
      continue;
    }
    // Merge: the first live input fires it; if every input arrives dead, the
    // last arrival fires it dead.
    std::atomic<int>& winner = state->merge_winner[o.item];
    int none = -1;
    if (!value_dead &&
        winner.compare_exchange_strong(none, o.slot - items_[o.item].input_start,
                                       std::memory_order_acq_rel)) {
      ready->push_back(o.item);
    }
    if (state->pending[o.item].fetch_sub(1, std::memory_order_acq_rel) == 1) {
      int still_none = -1;
      if (winner.compare_exchange_strong(still_none, -2, std::memory_order_acq_rel)) {
        ready->push_back(o.item);
      }
    }
  }
  for (int c : item.control_outs) {
    if (dead) state->dead_control[c].store(true, std::memory_order_relaxed);
    if (state->pending[c].fetch_sub(1, std::memory_order_acq_rel) == 1) ready->push_back(c);
  }
}

void Executor::NodeDone(StepState* state) const {
  if (state->outstanding.fetch_sub(1, std::memory_order_acq_rel) == 1) state->done.Notify();
}

}  // namespace minigraph
