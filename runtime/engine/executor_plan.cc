// Planning: which nodes a step needs, in which while-loop frame each runs,
// and where every edge delivers its value.
#include <algorithm>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/container/flat_hash_set.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "runtime/engine/internal/executor_plan.h"

namespace minigraph {
namespace executor_internal {

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

// Whether a node may finish without computing when no one reads its
// outputs: TensorFlow's grappler rules (DependencyOptimizer's
// SafeToConvertToNoOp over IsFreeOfSideEffect): it has outputs, is not
// stateful, takes no reference input, does not modify an input in place,
// queue or send, is not control flow, and is not an op whose failure is its
// point (Assert, CheckNumerics). An Identity of a variable or a _Recv stays.
bool MayGoUnread(const Node& node, const Graph& graph) {
  const std::string& op = node.type_string();
  if (node.num_outputs() == 0 || node.is_stateful()) return false;
  if (IsSwitch(node) || IsMerge(node) || IsEnter(node) || IsExit(node) ||
      IsNextIteration(node)) {
    return false;
  }
  static const absl::flat_hash_set<absl::string_view>* const kKept =
      new absl::flat_hash_set<absl::string_view>{
          "Assert", "CheckNumerics",                                     // fail on purpose
          "_Arg", "_Retval", "_Send", "_HostSend",                       // cross boundaries
          "ControlTrigger", "LoopCond",                                  // control flow
          "Placeholder", "PlaceholderV2", "PlaceholderWithDefault",      // fed
          "_ParallelConcatUpdate"};                                      // writes its input
  if (kKept->contains(op) || absl::StrContains(op, "Queue") ||
      absl::StrContains(absl::AsciiStrToLower(op), "inplace")) {
    return false;
  }
  for (DataType t : node.input_types()) {
    if (IsRefType(t)) return false;
  }
  for (const char* attr : {"in_place", "inplace"}) {
    bool in_place = false;
    if (GetNodeAttr(node.def(), attr, &in_place).ok() && in_place) return false;
  }
  if (op == "Identity" || op == "IdentityN") {
    for (const Node::Input& in : node.inputs()) {
      const std::string& src = graph.node(in.src).type_string();
      if (src == "VariableV2" || src == "Variable" || src == "_Recv" || src == "_HostRecv") {
        return false;
      }
    }
  }
  return true;
}

}  // namespace

// Plan::Build's steps, filling `plan` (a friend of Plan).
class PlanBuilder {
 public:
  PlanBuilder(Plan* plan, const Graph* graph, const GraphFrames& gf)
      : ex_(plan), graph_(graph), gf_(gf), needed_(graph->num_nodes(), false),
        item_of_(graph->num_nodes(), -1) {}

  // Records the feeds: InvalidArgument for a tensor fed twice.
  absl::Status AddFeeds(const std::vector<TensorId>& feeds);
  // Marks what the fetches and targets (or, with every_node, all nodes)
  // need, through data and control inputs, stopping at fed tensors.
  absl::Status Prune(const std::vector<TensorId>& fetches, const std::vector<std::string>& targets,
                     bool every_node);
  bool needed(int id) const { return needed_[id]; }
  // Marks the needed nodes whose outputs no one reads (Item::skip): in
  // reverse topological order, a node is read when a fetch or target names
  // it or a consumer that is not skipped takes one of its outputs.
  void FindUnread(const std::vector<TensorId>& fetches, const std::vector<std::string>& targets);
  // Adds node `id`'s item to its frame.
  absl::Status AddItem(int id, const OpKernel* kernel);
  // Links each item's inputs to their producers' outputs, or to feeds.
  absl::Status Connect();
  // The initially ready items, which edges move their values, the cost
  // estimates and the fetches.
  void Finish(const std::vector<TensorId>& fetches);

 private:
  // The node `id` names, checked as a `what` ("feed", "fetch", "target").
  absl::StatusOr<const Node*> Find(const TensorId& id, absl::string_view what) const;
  void Need(int id) {
    if (!needed_[id]) {
      needed_[id] = true;
      stack_.push_back(id);
    }
  }
  // An Enter's frame: its child frame, constness and parallel iterations.
  absl::Status AddEnter(const Node& node, int id, Item* item);

  Plan* const ex_;
  const Graph* const graph_;
  const GraphFrames& gf_;
  // Fed outputs, as (node id, output) -> feed index.
  absl::flat_hash_map<std::pair<int, int>, int> fed_;
  std::vector<bool> needed_;
  std::vector<bool> unread_;
  std::vector<int> stack_;
  std::vector<int> item_of_;
};

absl::StatusOr<const Node*> PlanBuilder::Find(const TensorId& id, absl::string_view what) const {
  const Node* n = graph_->FindNode(id.node);
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
  const int f = gf_.frame[nid] == GraphFrames::kInvalid ? GraphFrames::kInvalid
                : what == "feed" ? std::max(gf_.frame[nid], gf_.out_frame[nid])
                                 : gf_.out_frame[nid];
  if (f != GraphFrames::kInvalid && f != 0) {
    return absl::InvalidArgumentError(absl::StrCat(what, " '", id.ToString(), "': node '",
                                                   n->name(), "' is inside ", gf_.Describe(f),
                                                   "; only tensors outside loops can be ",
                                                   what == "target" ? "run" : "used"));
  }
  return n;
}

absl::Status PlanBuilder::AddFeeds(const std::vector<TensorId>& feeds) {
  for (size_t i = 0; i < feeds.size(); ++i) {
    MG_ASSIGN_OR_RETURN(const Node* n, Find(feeds[i], "feed"));
    if (!fed_.emplace(std::make_pair(n->id(), feeds[i].index), static_cast<int>(i)).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("tensor '", feeds[i].ToString(), "' is fed more than once"));
    }
    ex_->feed_shapes_.push_back(n->output_shape(feeds[i].index));
    ex_->feed_types_.push_back(BaseType(n->output_type(feeds[i].index)));
  }
  return absl::OkStatus();
}

absl::Status PlanBuilder::Prune(const std::vector<TensorId>& fetches,
                                const std::vector<std::string>& targets, bool every_node) {
  for (const TensorId& f : fetches) {
    MG_ASSIGN_OR_RETURN(const Node* node, Find(f, "fetch"));
    auto it = fed_.find({node->id(), f.index});
    ex_->fetch_from_feed_.push_back(it == fed_.end() ? -1 : it->second);
    if (it == fed_.end()) Need(node->id());
  }
  for (const std::string& t : targets) {
    MG_ASSIGN_OR_RETURN(const Node* node, Find(TensorId{t, 0, true}, "target"));
    Need(node->id());
  }
  if (every_node) {
    for (int id = 0; id < graph_->num_nodes(); ++id) Need(id);
  }
  while (!stack_.empty()) {
    const Node& node = graph_->node(stack_.back());
    stack_.pop_back();
    for (const auto& in : node.inputs()) {
      if (!fed_.contains({in.src, in.src_output})) Need(in.src);
    }
    for (int c : node.control_inputs()) Need(c);
  }
  return absl::OkStatus();
}

void PlanBuilder::FindUnread(const std::vector<TensorId>& fetches,
                             const std::vector<std::string>& targets) {
  std::vector<bool> read(graph_->num_nodes(), false);
  for (const TensorId& f : fetches) read[graph_->FindNode(f.node)->id()] = true;
  for (const std::string& t : targets) read[graph_->FindNode(t)->id()] = true;
  unread_.assign(graph_->num_nodes(), false);
  const std::vector<int>& order = graph_->topological_order();
  for (auto it = order.rbegin(); it != order.rend(); ++it) {
    const int id = *it;
    if (!needed_[id]) continue;
    const Node& node = graph_->node(id);
    if (!read[id] && MayGoUnread(node, *graph_)) {
      unread_[id] = true;
      continue;
    }
    for (const Node::Input& in : node.inputs()) read[in.src] = true;
  }
}

absl::Status PlanBuilder::AddEnter(const Node& node, int id, Item* item) {
  item->kind = Item::kEnter;
  ex_->has_loops_ = true;
  item->child_frame = gf_.out_frame[id];
  FrameInfo& child = ex_->frames_[item->child_frame];
  ++child.num_enters;
  int64_t parallel = 10;
  MG_RETURN_IF_ERROR(GetNodeAttr(node.def(), "is_constant", &item->constant_enter));
  MG_RETURN_IF_ERROR(GetNodeAttr(node.def(), "parallel_iterations", &parallel));
  if (parallel < 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "Enter node '", node.name(), "': parallel_iterations must be positive, got ", parallel));
  }
  // The frame runs as many iterations at once as its strictest Enter allows.
  child.parallel_iterations = child.num_enters == 1
                                  ? static_cast<int>(parallel)
                                  : std::min(child.parallel_iterations, static_cast<int>(parallel));
  return absl::OkStatus();
}

absl::Status PlanBuilder::AddItem(int id, const OpKernel* kernel) {
  const Node& node = graph_->node(id);
  if (gf_.frame[id] == GraphFrames::kInvalid) {
    return absl::InvalidArgumentError(gf_.error[id]);
  }
  if (kernel == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("node '", node.name(), "' (", node.type_string(), ") has no kernel"));
  }
  const int index = static_cast<int>(ex_->items_.size());
  item_of_[id] = index;
  Item item;
  item.node = &node;
  item.kernel = kernel;
  item.is_merge = IsMerge(node);
  item.control_trigger = node.type_string() == "ControlTrigger";
  item.is_send = node.type_string() == "_Send" || node.type_string() == "_HostSend";
  static const absl::flat_hash_set<absl::string_view>* const kCheap =
      new absl::flat_hash_set<absl::string_view>{
          "Identity",         "NoOp",         "Const",         "Switch",
          "RefSwitch",        "Merge",        "RefMerge",      "Enter",
          "RefEnter",         "Exit",         "RefExit",       "NextIteration",
          "LoopCond",         "Rank",         "Shape",         "RefIdentity",
          "RefNextIteration", "StopGradient", "ControlTrigger"};
  item.skip = !unread_.empty() && unread_[id];
  item.cheap = item.skip || kCheap->contains(node.type_string());
  item.blocking = item.kernel->IsBlocking();
  if (item.blocking) ex_->has_blocking_ = true;
  if (item.is_merge || IsSwitch(node)) ex_->has_control_flow_ = true;
  FrameInfo& frame = ex_->frames_[gf_.frame[id]];
  item.local = static_cast<int>(frame.items.size());
  frame.items.push_back(index);
  item.input_start = frame.num_slots;
  item.num_inputs = node.num_inputs();
  frame.num_slots += node.num_inputs();
  if (IsEnter(node)) {
    MG_RETURN_IF_ERROR(AddEnter(node, id, &item));
  } else if (IsExit(node)) {
    item.kind = Item::kExit;
  } else if (IsNextIteration(node)) {
    item.kind = Item::kNextIteration;
  }
  ex_->items_.push_back(std::move(item));
  return absl::OkStatus();
}

absl::Status PlanBuilder::Connect() {
  for (Item& item : ex_->items_) {
    const Node& node = *item.node;
    const int self = static_cast<int>(&item - ex_->items_.data());
    int pending = item.is_merge ? 0 : static_cast<int>(node.control_inputs().size());
    item.num_control = static_cast<int>(node.control_inputs().size());
    for (int i = 0; i < node.num_inputs(); ++i) {
      const auto& in = node.inputs()[i];
      const int slot = item.input_start + i;
      auto f = fed_.find({in.src, in.src_output});
      if (f != fed_.end()) {
        if (item.is_merge) {
          return absl::UnimplementedError(absl::StrCat(
              "cannot feed '", node.name(), "' input ", i, ": it is an input of a Merge"));
        }
        ex_->fed_slots_.push_back({slot, f->second});
      } else {
        ++pending;
        ex_->items_[item_of_[in.src]].outs.push_back(
            {in.src_output, self, item.local, slot, false, item.is_merge});
        if (IsRefType(graph_->node(in.src).output_type(in.src_output)) &&
            !IsRefType(node.input_type(i))) {
          item.deref_inputs.push_back(i);
        }
      }
    }
    for (int c : node.control_inputs()) {
      ex_->items_[item_of_[c]].control_outs.push_back({self, item.local, item.is_merge});
    }
    item.initial_pending = pending;
  }
  return absl::OkStatus();
}

void PlanBuilder::Finish(const std::vector<TensorId>& fetches) {
  for (size_t i = 0; i < ex_->items_.size(); ++i) {
    Item& item = ex_->items_[i];
    if (item.initial_pending == 0) ex_->initial_ready_.push_back(static_cast<int>(i));
    std::vector<bool> seen(item.node->num_outputs(), false);
    for (auto it = item.outs.rbegin(); it != item.outs.rend(); ++it) {
      // A loop invariant goes to every iteration: it is never moved.
      it->last = !seen[it->output] && !item.constant_enter;
      seen[it->output] = true;
    }
  }
  ex_->cost_cycles_.reset(new std::atomic<uint64_t>[ex_->items_.size()]);
  for (size_t i = 0; i < ex_->items_.size(); ++i) ex_->cost_cycles_[i].store(kInitialCostCycles);
  for (size_t k = 0; k < fetches.size(); ++k) {
    if (ex_->fetch_from_feed_[k] >= 0) continue;
    const Node* node = graph_->FindNode(fetches[k].node);
    ex_->items_[item_of_[node->id()]].fetches.push_back({fetches[k].index, static_cast<int>(k)});
  }
}

absl::StatusOr<std::unique_ptr<Plan>> Plan::Build(
    const Graph* graph, const std::vector<const OpKernel*>& kernels,
    const std::vector<TensorId>& feeds, const std::vector<TensorId>& fetches,
    const std::vector<std::string>& targets, bool every_node,
    const std::vector<absl::Status>* why_no_kernel) {
  std::unique_ptr<Plan> ex(new Plan);
  ex->graph_ = graph;
  ex->feeds_ = feeds;
  const GraphFrames gf = FindFrames(*graph);
  PlanBuilder builder(ex.get(), graph, gf);
  MG_RETURN_IF_ERROR(builder.AddFeeds(feeds));
  MG_RETURN_IF_ERROR(builder.Prune(fetches, targets, every_node));
  // Every node of a partition runs: what the other tasks read is not known.
  if (!every_node) builder.FindUnread(fetches, targets);
  ex->frames_.resize(gf.names.size());
  for (int id : graph->topological_order()) {
    if (!builder.needed(id)) continue;
    if (kernels[id] == nullptr && why_no_kernel != nullptr && !(*why_no_kernel)[id].ok()) {
      return (*why_no_kernel)[id];
    }
    MG_RETURN_IF_ERROR(builder.AddItem(id, kernels[id]));
  }
  MG_RETURN_IF_ERROR(builder.Connect());
  builder.Finish(fetches);
  return ex;
}

std::vector<int> Plan::PlannedNodes() const {
  std::vector<int> ids;
  for (const Item& item : items_) ids.push_back(item.node->id());
  return ids;
}

}  // namespace executor_internal
}  // namespace minigraph
