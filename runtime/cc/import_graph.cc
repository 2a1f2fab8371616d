#include "runtime/cc/import_graph.h"

#include <algorithm>
#include <deque>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "runtime/graph/node_def_util.h"

namespace minigraph {
namespace {

std::string Canonical(const TensorId& id) { return absl::StrCat(id.node, ":", id.index); }

// One ImportGraphDef call: the nodes of `graph` added to `scope` in an order
// where each node's inputs come first, while loops' back edges joined last.
class Importer {
 public:
  Importer(const Scope& scope, const GraphDef& graph)
      : scope_(scope), graph_(graph), n_(graph.node_size()), pending_(n_), consumers_(n_),
        with_defaults_(n_), op_defs_(n_) {}

  absl::StatusOr<std::map<std::string, Operation>> Run(const ImportGraphDefOptions& options);

 private:
  // Each node's data inputs (parsed; mapped ones resolved) and the nodes it
  // waits for. A Merge's input from a NextIteration is a while loop's back
  // edge: it is joined after every node is in.
  struct Pending {
    std::vector<TensorId> data;
    std::vector<int> deps;
    std::vector<int> back_edges;  // data input positions
    int waiting = 0;
  };
  struct BackEdge {
    Operation merge;
    int node;   // the Merge's index in `graph`
    int input;  // its data input
  };

  absl::Status ParseInputMap(const ImportGraphDefOptions& options);
  // Indexes the nodes by name: InvalidArgument for a name used twice or
  // one the scope's graph has.
  absl::Status IndexNodes();
  // Fills pending_ (and the nodes' defaults, op defs and consumers).
  absl::Status ParseInputs(int i);
  // The nodes in an order where each comes after what it waits for
  // (Kahn's algorithm, in the GraphDef's order where it allows), or
  // InvalidArgument naming a node of a cycle.
  absl::StatusOr<std::vector<int>> Order();
  // The output that node `consumer`'s input `id` names.
  absl::StatusOr<Output> OutputOf(int consumer, const TensorId& id) const;
  // Node `i`'s data inputs, grouped by its op's input arguments.
  absl::StatusOr<std::vector<std::vector<Output>>> Arguments(int i) const;
  absl::Status AddNode(int i);

  const Scope& scope_;
  const GraphDef& graph_;
  const int n_;
  absl::flat_hash_map<std::string, Output> input_map_;
  absl::flat_hash_map<std::string, int> index_;
  std::vector<Pending> pending_;
  std::vector<std::vector<int>> consumers_;
  std::vector<NodeDef> with_defaults_;
  std::vector<const OpDef*> op_defs_;
  std::map<std::string, Operation> imported_;
  std::vector<BackEdge> joins_;
};

absl::Status Importer::ParseInputMap(const ImportGraphDefOptions& options) {
  for (const auto& [name, output] : options.input_map) {
    MG_ASSIGN_OR_RETURN(TensorId id, ParseTensorName(name));
    if (id.control || !output.op().valid()) {
      return absl::InvalidArgumentError(
          absl::StrCat("input_map: '", name, "' must map a tensor to a valid output"));
    }
    input_map_[Canonical(id)] = output;
  }
  return absl::OkStatus();
}

absl::Status Importer::IndexNodes() {
  for (int i = 0; i < n_; ++i) {
    const NodeDef& node = graph_.node(i);
    if (!index_.emplace(node.name(), i).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("the imported graph has two nodes named '", node.name(), "'"));
    }
    const std::string full =
        scope_.prefix().empty() ? node.name() : absl::StrCat(scope_.prefix(), "/", node.name());
    if (scope_.FindOp(full).ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "imported node '", node.name(), "': the graph already has a node '", full, "'"));
    }
  }
  return absl::OkStatus();
}

absl::Status Importer::ParseInputs(int i) {
  const NodeDef& node = graph_.node(i);
  absl::StatusOr<const OpRegistrationData*> reg = scope_.op_registry()->LookUp(node.op());
  if (!reg.ok()) {
    return absl::Status(reg.status().code(), absl::StrCat("imported node '", node.name(),
                                                          "': ", reg.status().message()));
  }
  op_defs_[i] = &(*reg)->op_def;
  with_defaults_[i] = node;
  AddDefaultsToNodeDef(*op_defs_[i], &with_defaults_[i]);
  Pending& p = pending_[i];
  for (const std::string& input : node.input()) {
    absl::StatusOr<TensorId> id = ParseTensorName(input);
    if (!id.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat("imported node '", node.name(), "': malformed input '", input, "'"));
    }
    const bool control = id->control;
    if (!control && input_map_.contains(Canonical(*id))) {
      p.data.push_back(*id);
      continue;
    }
    auto from = index_.find(id->node);
    if (from == index_.end()) {
      return absl::InvalidArgumentError(absl::StrCat("imported node '", node.name(), "': input '",
                                                     input, "' names no node of the graph"));
    }
    if (control) {
      p.deps.push_back(from->second);
      continue;
    }
    if (node.op() == "Merge" && graph_.node(from->second).op() == "NextIteration") {
      p.back_edges.push_back(static_cast<int>(p.data.size()));
    } else {
      p.deps.push_back(from->second);
    }
    p.data.push_back(*id);
  }
  for (int dep : p.deps) consumers_[dep].push_back(i);
  p.waiting = static_cast<int>(p.deps.size());
  if (p.back_edges.size() == p.data.size() && !p.data.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "imported node '", node.name(), "': a Merge whose every input is a back edge"));
  }
  return absl::OkStatus();
}

absl::StatusOr<std::vector<int>> Importer::Order() {
  std::vector<int> order;
  std::deque<int> ready;
  for (int i = 0; i < n_; ++i) {
    if (pending_[i].waiting == 0) ready.push_back(i);
  }
  while (!ready.empty()) {
    const int i = ready.front();
    ready.pop_front();
    order.push_back(i);
    for (int c : consumers_[i]) {
      if (--pending_[c].waiting == 0) ready.push_back(c);
    }
  }
  if (static_cast<int>(order.size()) != n_) {
    for (int i = 0; i < n_; ++i) {
      if (pending_[i].waiting > 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("the imported graph has a cycle through node '", graph_.node(i).name(),
                         "' that is not a while loop's NextIteration -> Merge back edge"));
      }
    }
  }
  return order;
}

absl::StatusOr<Output> Importer::OutputOf(int consumer, const TensorId& id) const {
  auto mapped = input_map_.find(Canonical(id));
  if (mapped != input_map_.end()) return mapped->second;
  const Operation& op = imported_.at(id.node);
  if (id.index < 0 || id.index >= op.num_outputs()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "imported node '", graph_.node(consumer).name(), "': input '", Canonical(id),
        "' names output ", id.index, " of '", id.node, "', which has ", op.num_outputs()));
  }
  return op.output(id.index);
}

absl::StatusOr<std::vector<std::vector<Output>>> Importer::Arguments(int i) const {
  const NodeDef& node = with_defaults_[i];
  const Pending& p = pending_[i];
  std::vector<Output> flat;
  for (size_t k = 0; k < p.data.size(); ++k) {
    bool back = false;
    for (int b : p.back_edges) back |= b == static_cast<int>(k);
    if (back) {
      flat.push_back(Output());  // filled in below
      continue;
    }
    MG_ASSIGN_OR_RETURN(Output o, OutputOf(i, p.data[k]));
    flat.push_back(o);
  }
  // A back edge stands in as the Merge's first other input until the
  // NextIteration exists (the same dtype, which UpdateInput checks).
  for (int b : p.back_edges) {
    for (const Output& o : flat) {
      if (o.op().valid()) {
        flat[b] = o;
        break;
      }
    }
  }
  std::vector<std::vector<Output>> args;
  size_t at = 0;
  std::vector<int64_t> input_sizes, output_sizes;
  MG_RETURN_IF_ERROR(ArgSizesForNode(node, *op_defs_[i], &input_sizes, &output_sizes));
  for (int64_t n : input_sizes) {
    const size_t size = static_cast<size_t>(std::max<int64_t>(n, 0));
    if (at + size > flat.size()) {
      return absl::InvalidArgumentError(absl::StrCat("imported node '", node.name(), "' (",
                                                     node.op(), ") has ", flat.size(),
                                                     " data inputs; its attrs call for more"));
    }
    args.emplace_back(flat.begin() + at, flat.begin() + at + size);
    at += size;
  }
  if (at != flat.size()) {
    return absl::InvalidArgumentError(absl::StrCat("imported node '", node.name(), "' (",
                                                   node.op(), ") has ", flat.size(),
                                                   " data inputs; its attrs call for ", at));
  }
  return args;
}

absl::Status Importer::AddNode(int i) {
  const NodeDef& node = with_defaults_[i];
  MG_ASSIGN_OR_RETURN(std::vector<std::vector<Output>> args, Arguments(i));
  std::vector<Operation> control;
  for (const std::string& input : node.input()) {
    if (!input.empty() && input[0] == '^') control.push_back(imported_.at(input.substr(1)));
  }
  Scope s = scope_.WithOpName(node.name() + "/").WithControlDependencies(control);
  if (!node.device().empty()) s = s.WithDevice(node.device());
  std::map<std::string, AttrValue> attrs(node.attr().begin(), node.attr().end());
  Operation op = s.AddOp(node.op(), args, attrs);
  MG_RETURN_IF_ERROR(scope_.status());
  imported_[graph_.node(i).name()] = op;
  for (int b : pending_[i].back_edges) joins_.push_back({op, i, b});
  return absl::OkStatus();
}

absl::StatusOr<std::map<std::string, Operation>> Importer::Run(
    const ImportGraphDefOptions& options) {
  MG_RETURN_IF_ERROR(scope_.status());
  MG_RETURN_IF_ERROR(ParseInputMap(options));
  MG_RETURN_IF_ERROR(IndexNodes());
  for (int i = 0; i < n_; ++i) MG_RETURN_IF_ERROR(ParseInputs(i));
  MG_ASSIGN_OR_RETURN(const std::vector<int> order, Order());
  for (int i : order) MG_RETURN_IF_ERROR(AddNode(i));
  for (const BackEdge& e : joins_) {
    MG_ASSIGN_OR_RETURN(Output from, OutputOf(e.node, pending_[e.node].data[e.input]));
    scope_.UpdateInput(e.merge, e.input, from);
  }
  scope_.AddFunctionLibrary(graph_.library());
  MG_RETURN_IF_ERROR(scope_.status());
  return std::move(imported_);
}

}  // namespace

absl::StatusOr<std::map<std::string, Operation>> ImportGraphDef(
    const Scope& scope, const GraphDef& graph, const ImportGraphDefOptions& options) {
  return Importer(scope, graph).Run(options);
}

absl::Status ImportMetaGraphDef(const Scope& scope, const MetaGraphDef& meta) {
  if (!scope.prefix().empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "a meta graph is imported at the root of a graph, not under '", scope.prefix(), "'"));
  }
  MG_RETURN_IF_ERROR(ImportGraphDef(scope, meta.graph_def()).status());
  for (const auto& [key, collection] : meta.collection_def()) {
    for (const std::string& node : collection.node_list().value()) {
      scope.AddToCollection(key, node);
    }
    for (const std::string& bytes : collection.bytes_list().value()) {
      scope.AddBytesToCollection(key, bytes);
    }
  }
  if (meta.has_saver_def()) scope.SetSaverDef(meta.saver_def());
  return scope.status();
}

}  // namespace minigraph
