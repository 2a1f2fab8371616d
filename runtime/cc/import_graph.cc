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

}  // namespace

absl::StatusOr<std::map<std::string, Operation>> ImportGraphDef(
    const Scope& scope, const GraphDef& graph, const ImportGraphDefOptions& options) {
  MG_RETURN_IF_ERROR(scope.status());
  absl::flat_hash_map<std::string, Output> input_map;
  for (const auto& [name, output] : options.input_map) {
    MG_ASSIGN_OR_RETURN(TensorId id, ParseTensorName(name));
    if (id.control || !output.op().valid()) {
      return absl::InvalidArgumentError(
          absl::StrCat("input_map: '", name, "' must map a tensor to a valid output"));
    }
    input_map[Canonical(id)] = output;
  }
  const int n = graph.node_size();
  absl::flat_hash_map<std::string, int> index;
  for (int i = 0; i < n; ++i) {
    const NodeDef& node = graph.node(i);
    if (!index.emplace(node.name(), i).second) {
      return absl::InvalidArgumentError(
          absl::StrCat("the imported graph has two nodes named '", node.name(), "'"));
    }
    const std::string full =
        scope.prefix().empty() ? node.name() : absl::StrCat(scope.prefix(), "/", node.name());
    if (scope.FindOp(full).ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "imported node '", node.name(), "': the graph already has a node '", full, "'"));
    }
  }
  // Each node's data inputs (parsed; mapped ones resolved) and the nodes it
  // waits for. A Merge's input from a NextIteration is a while loop's back
  // edge: it is joined after every node is in.
  struct Pending {
    std::vector<TensorId> data;
    std::vector<int> deps;
    std::vector<int> back_edges;  // data input positions
    int waiting = 0;
  };
  std::vector<Pending> pending(n);
  std::vector<std::vector<int>> consumers(n);
  std::vector<NodeDef> with_defaults(n);
  std::vector<const OpDef*> op_defs(n);
  for (int i = 0; i < n; ++i) {
    const NodeDef& node = graph.node(i);
    absl::StatusOr<const OpRegistrationData*> reg = scope.op_registry()->LookUp(node.op());
    if (!reg.ok()) {
      return absl::Status(reg.status().code(), absl::StrCat("imported node '", node.name(),
                                                            "': ", reg.status().message()));
    }
    op_defs[i] = &(*reg)->op_def;
    with_defaults[i] = node;
    AddDefaultsToNodeDef(*op_defs[i], &with_defaults[i]);
    for (const std::string& input : node.input()) {
      absl::StatusOr<TensorId> id = ParseTensorName(input);
      if (!id.ok()) {
        return absl::InvalidArgumentError(
            absl::StrCat("imported node '", node.name(), "': malformed input '", input, "'"));
      }
      const bool control = id->control;
      if (!control && input_map.contains(Canonical(*id))) {
        pending[i].data.push_back(*id);
        continue;
      }
      auto from = index.find(id->node);
      if (from == index.end()) {
        return absl::InvalidArgumentError(absl::StrCat("imported node '", node.name(), "': input '",
                                                       input, "' names no node of the graph"));
      }
      if (control) {
        pending[i].deps.push_back(from->second);
        continue;
      }
      if (node.op() == "Merge" && graph.node(from->second).op() == "NextIteration") {
        pending[i].back_edges.push_back(static_cast<int>(pending[i].data.size()));
      } else {
        pending[i].deps.push_back(from->second);
      }
      pending[i].data.push_back(*id);
    }
    for (int dep : pending[i].deps) consumers[dep].push_back(i);
    pending[i].waiting = static_cast<int>(pending[i].deps.size());
    if (pending[i].back_edges.size() == pending[i].data.size() && !pending[i].data.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "imported node '", node.name(), "': a Merge whose every input is a back edge"));
    }
  }
  // Kahn's algorithm, in the GraphDef's order where it allows.
  std::vector<int> order;
  std::deque<int> ready;
  for (int i = 0; i < n; ++i) {
    if (pending[i].waiting == 0) ready.push_back(i);
  }
  while (!ready.empty()) {
    const int i = ready.front();
    ready.pop_front();
    order.push_back(i);
    for (int c : consumers[i]) {
      if (--pending[c].waiting == 0) ready.push_back(c);
    }
  }
  if (static_cast<int>(order.size()) != n) {
    for (int i = 0; i < n; ++i) {
      if (pending[i].waiting > 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("the imported graph has a cycle through node '", graph.node(i).name(),
                         "' that is not a while loop's NextIteration -> Merge back edge"));
      }
    }
  }

  std::map<std::string, Operation> imported;
  auto output_of = [&](int consumer, const TensorId& id) -> absl::StatusOr<Output> {
    auto mapped = input_map.find(Canonical(id));
    if (mapped != input_map.end()) return mapped->second;
    const Operation& op = imported.at(id.node);
    if (id.index < 0 || id.index >= op.num_outputs()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "imported node '", graph.node(consumer).name(), "': input '", Canonical(id),
          "' names output ", id.index, " of '", id.node, "', which has ", op.num_outputs()));
    }
    return op.output(id.index);
  };
  struct BackEdge {
    Operation merge;
    int node;   // the Merge's index in `graph`
    int input;  // its data input
  };
  std::vector<BackEdge> joins;
  for (int i : order) {
    const NodeDef& node = with_defaults[i];
    const Pending& p = pending[i];
    std::vector<Output> flat;
    for (size_t k = 0; k < p.data.size(); ++k) {
      bool back = false;
      for (int b : p.back_edges) back |= b == static_cast<int>(k);
      if (back) {
        flat.push_back(Output());  // filled in below
        continue;
      }
      MG_ASSIGN_OR_RETURN(Output o, output_of(i, p.data[k]));
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
    MG_RETURN_IF_ERROR(ArgSizesForNode(node, *op_defs[i], &input_sizes, &output_sizes));
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
    std::vector<Operation> control;
    for (const std::string& input : node.input()) {
      if (!input.empty() && input[0] == '^') control.push_back(imported.at(input.substr(1)));
    }
    Scope s = scope.WithOpName(node.name() + "/").WithControlDependencies(control);
    if (!node.device().empty()) s = s.WithDevice(node.device());
    std::map<std::string, AttrValue> attrs(node.attr().begin(), node.attr().end());
    Operation op = s.AddOp(node.op(), args, attrs);
    MG_RETURN_IF_ERROR(scope.status());
    imported[graph.node(i).name()] = op;
    for (int b : p.back_edges) joins.push_back({op, i, b});
  }
  for (const BackEdge& e : joins) {
    MG_ASSIGN_OR_RETURN(Output from, output_of(e.node, pending[e.node].data[e.input]));
    scope.UpdateInput(e.merge, e.input, from);
  }
  scope.AddFunctionLibrary(graph.library());
  MG_RETURN_IF_ERROR(scope.status());
  return imported;
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
