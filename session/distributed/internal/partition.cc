#include "session/distributed/internal/partition.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <set>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "core/types.h"
#include "runtime/engine/rendezvous.h"
#include "runtime/graph/node_def_util.h"
#include "session/distributed/cluster.h"

namespace minigraph {
namespace distributed_internal {
namespace {

bool IsVariableOp(const Node& n) {
  const std::string& t = n.type_string();
  return t == "VariableV2" || t == "Variable" || t == "VarHandleOp";
}

bool IsControlFlowOp(const Node& n) {
  static const auto* const kOps = new absl::flat_hash_set<std::string>{
      "Switch", "RefSwitch", "Merge",         "RefMerge",         "Enter",   "RefEnter",
      "Exit",   "RefExit",   "NextIteration", "RefNextIteration", "LoopCond"};
  return kOps->contains(n.type_string());
}

// Union-find over node ids, for colocation groups.
class Groups {
 public:
  explicit Groups(int n) : parent_(n) { std::iota(parent_.begin(), parent_.end(), 0); }
  int Find(int x) {
    while (parent_[x] != x) x = parent_[x] = parent_[parent_[x]];
    return x;
  }
  void Union(int a, int b) { parent_[Find(a)] = Find(b); }

 private:
  std::vector<int> parent_;
};

absl::StatusOr<std::string> Normalize(const Node& node, const tensorflow::ClusterDef& cluster,
                                      const std::string& default_job, int default_task) {
  absl::StatusOr<DeviceSpec> spec = ParseDeviceSpec(node.def().device());
  if (!spec.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("node '", node.name(), "': ", spec.status().message()));
  }
  if (!spec->type.empty() && spec->type != "CPU") {
    return absl::InvalidArgumentError(absl::StrCat("node '", node.name(), "' is placed on '",
                                                   node.def().device(),
                                                   "', but tasks have only /device:CPU:0"));
  }
  std::string job = spec->job.empty() ? default_job : spec->job;
  int task = spec->task >= 0 ? spec->task : spec->job.empty() ? default_task : 0;
  if (spec->replica > 0) {
    return absl::InvalidArgumentError(absl::StrCat("node '", node.name(), "' is placed on '",
                                                   node.def().device(),
                                                   "': only replica 0 exists"));
  }
  absl::StatusOr<std::string> address = TaskAddress(cluster, job, task);
  if (!address.ok()) {
    return absl::InvalidArgumentError(absl::StrCat("node '", node.name(), "' is placed on '",
                                                   node.def().device(),
                                                   "': ", address.status().message()));
  }
  return TaskDeviceName(job, task);
}

}  // namespace

absl::StatusOr<std::vector<std::string>> PlaceGraph(const Graph& graph,
                                                    const tensorflow::ClusterDef& cluster,
                                                    const std::string& default_job,
                                                    int default_task) {
  const int n = graph.num_nodes();
  Groups groups(n);
  for (const Node& node : graph.nodes()) {
    for (int i = 0; i < node.num_inputs(); ++i) {
      const Node::Input& in = node.inputs()[i];
      // A ref input, or an Identity of a ref (a variable's "read", which
      // TensorFlow colocates through "_class"), or a resource handle: the
      // variable it names lives in its VarHandleOp's task.
      const bool reads_ref = node.type_string() == "Identity" &&
                             IsRefType(graph.node(in.src).output_type(in.src_output));
      if (IsRefType(node.input_type(i)) || reads_ref || node.input_type(i) == DT_RESOURCE) {
        groups.Union(node.id(), in.src);
      }
    }
    auto cls = node.def().attr().find("_class");
    if (cls != node.def().attr().end()) {
      for (const std::string& c : cls->second.list().s()) {
        if (!absl::StartsWith(c, "loc:@")) continue;
        const Node* other = graph.FindNode(c.substr(5));
        if (other != nullptr) groups.Union(node.id(), other->id());
      }
    }
  }
  // A group's device: its variable's own, else the first explicit one.
  std::vector<std::string> explicit_device(n), group_device(n);
  std::vector<bool> group_has_variable(n, false);
  for (int id : graph.topological_order()) {
    const Node& node = graph.node(id);
    const int g = groups.Find(id);
    if (node.def().device().empty()) continue;
    MG_ASSIGN_OR_RETURN(explicit_device[id], Normalize(node, cluster, default_job, default_task));
    if (IsVariableOp(node) && !group_has_variable[g]) {
      group_device[g] = explicit_device[id];
      group_has_variable[g] = true;
    } else if (group_device[g].empty()) {
      group_device[g] = explicit_device[id];
    }
  }
  const std::string fallback = TaskDeviceName(default_job, default_task);
  std::vector<std::string> placement(n);
  for (int id = 0; id < n; ++id) {
    const std::string& d = group_device[groups.Find(id)];
    placement[id] = d.empty() ? fallback : d;
  }
  return placement;
}

absl::StatusOr<std::vector<Partition>> PartitionGraph(
    const Graph& graph, const std::vector<std::string>& placement,
    const absl::flat_hash_map<std::string, uint64_t>& incarnations,
    const std::vector<std::string>& feeds, const std::vector<std::string>& fetches,
    const std::vector<std::string>& targets) {
  auto find = [&](const std::string& name, absl::string_view what) -> absl::StatusOr<TensorId> {
    MG_ASSIGN_OR_RETURN(TensorId id, ParseTensorName(name));
    const Node* node = graph.FindNode(id.node);
    if (node == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat(what, " '", name, "' names a node that is not in the graph"));
    }
    if (what != "target" && !id.control && id.index >= node->num_outputs()) {
      return absl::InvalidArgumentError(absl::StrCat(what, " '", name, "': node '", id.node,
                                                     "' has ", node->num_outputs(), " outputs"));
    }
    return id;
  };
  // Fed tensors, as (node id, output).
  std::set<std::pair<int, int>> fed;
  std::map<std::pair<int, int>, std::string> fed_name;
  for (const std::string& f : feeds) {
    MG_ASSIGN_OR_RETURN(TensorId id, find(f, "feed"));
    const int node = graph.FindNode(id.node)->id();
    fed.insert({node, id.index});
    fed_name[{node, id.index}] = f;
  }
  // Prune: what fetches and targets need, through data and control inputs,
  // stopping at fed tensors.
  std::vector<bool> needed(graph.num_nodes(), false);
  std::vector<int> stack;
  auto need = [&](int id) {
    if (!needed[id]) {
      needed[id] = true;
      stack.push_back(id);
    }
  };
  std::vector<std::pair<int, int>> fetch_ids;
  for (const std::string& f : fetches) {
    MG_ASSIGN_OR_RETURN(TensorId id, find(f, "fetch"));
    const int node = graph.FindNode(id.node)->id();
    fetch_ids.push_back({node, id.index});
    if (!fed.count({node, id.index})) need(node);
  }
  std::vector<int> target_ids;
  for (const std::string& t : targets) {
    MG_ASSIGN_OR_RETURN(TensorId id, find(t, "target"));
    target_ids.push_back(graph.FindNode(id.node)->id());
    need(target_ids.back());
  }
  while (!stack.empty()) {
    const Node& node = graph.node(stack.back());
    stack.pop_back();
    for (const Node::Input& in : node.inputs()) {
      if (!fed.count({in.src, in.src_output})) need(in.src);
    }
    for (int c : node.control_inputs()) need(c);
  }

  // One partition per device that has a needed node.
  std::map<std::string, Partition> parts;
  auto part = [&](const std::string& device) -> Partition& {
    Partition& p = parts[device];
    if (p.device.empty()) {
      p.device = device;
      // Function calls in the partition find their functions here.
      *p.graph.mutable_library() = graph.library();
    }
    return p;
  };
  auto incarnation = [&](const std::string& device) {
    auto it = incarnations.find(device);
    return it == incarnations.end() ? uint64_t{0} : it->second;
  };
  auto add_send = [&](Partition& p, const std::string& name, const std::string& input,
                      DataType dtype, const std::string& tensor_name,
                      const std::string& recv_device, bool client) {
    NodeDef* s = p.graph.add_node();
    s->set_name(name);
    s->set_op("_Send");
    s->set_device(p.device);
    s->add_input(input);
    SetAttr("T", BaseType(dtype), s);
    SetAttr("tensor_name", tensor_name, s);
    SetAttr("send_device", p.device, s);
    SetAttr("send_device_incarnation", static_cast<int64_t>(incarnation(p.device)), s);
    SetAttr("recv_device", recv_device, s);
    SetAttr("client_terminated", client, s);
  };
  auto add_recv = [&](Partition& p, const std::string& name, DataType dtype,
                      const std::string& tensor_name, const std::string& send_device,
                      uint64_t send_incarnation, bool client) {
    NodeDef* r = p.graph.add_node();
    r->set_name(name);
    r->set_op("_Recv");
    r->set_device(p.device);
    SetAttr("tensor_type", BaseType(dtype), r);
    SetAttr("tensor_name", tensor_name, r);
    SetAttr("send_device", send_device, r);
    SetAttr("send_device_incarnation", static_cast<int64_t>(send_incarnation), r);
    SetAttr("recv_device", p.device, r);
    SetAttr("client_terminated", client, r);
  };
  auto tensor = [&](int id, int k) {
    return k == 0 ? graph.node(id).name() : absl::StrCat(graph.node(id).name(), ":", k);
  };
  // The name, in the consumer's partition, of each tensor or control
  // signal that crossed (so each crosses once per receiving task).
  std::map<std::tuple<int, int, std::string>, std::string> received;
  // The same for control signals, by sending device, receiving device and
  // the nodes waited for.
  std::map<std::string, std::string> control_received;
  auto cross_error = [&](const Node& src, const Node& dst) {
    return absl::UnimplementedError(
        absl::StrCat("edge '", src.name(), "' -> '", dst.name(), "' crosses from ",
                     placement[src.id()], " to ", placement[dst.id()],
                     " and enters or leaves control flow; loops and conds must "
                     "run within one task"));
  };

  for (int id : graph.topological_order()) {
    if (!needed[id]) continue;
    const Node& node = graph.node(id);
    const std::string& device = placement[id];
    Partition& p = part(device);
    NodeDef* def = p.graph.add_node();
    *def = node.def();
    def->set_device(device);
    def->clear_input();
    for (int i = 0; i < node.num_inputs(); ++i) {
      const Node::Input& in = node.inputs()[i];
      const Node& src = graph.node(in.src);
      const DataType dtype = src.output_type(in.src_output);
      if (fed.count({in.src, in.src_output})) {
        auto key = std::make_tuple(in.src, in.src_output, "feed@" + device);
        std::string& name = received[key];
        if (name.empty()) {
          name = absl::StrCat(src.name(), "/_recv_feed_", in.src_output);
          const std::string fed_tensor = fed_name[{in.src, in.src_output}];
          add_recv(p, name, dtype, fed_tensor, device, incarnation(device), true);
          p.feeds.push_back(
              {fed_tensor, RendezvousKey(device, incarnation(device), device, fed_tensor)});
        }
        def->add_input(name);
      } else if (placement[in.src] == device) {
        def->add_input(tensor(in.src, in.src_output));
      } else if (src.type_string() == "Const" && src.control_inputs().empty()) {
        // A constant is copied to the consumer's task instead of sent there
        // every step (a learning rate, a shape).
        auto key = std::make_tuple(in.src, -2, device);
        std::string& name = received[key];
        if (name.empty()) {
          name = absl::StrCat(src.name(), "/_copy_", received.size());
          NodeDef* copy = p.graph.add_node();
          *copy = src.def();
          copy->set_name(name);
          copy->set_device(device);
        }
        def->add_input(name);
      } else {
        if (IsControlFlowOp(src) || IsControlFlowOp(node)) return cross_error(src, node);
        auto key = std::make_tuple(in.src, in.src_output, device);
        std::string& name = received[key];
        if (name.empty()) {
          const std::string& from = placement[in.src];
          const std::string edge = absl::StrCat("edge_", in.src_output, "_", src.name());
          name = absl::StrCat(src.name(), "/_recv_", in.src_output, "_", parts.size(), "_",
                              received.size());
          add_send(part(from), absl::StrCat(name, "_send"), tensor(in.src, in.src_output), dtype,
                   edge, device, false);
          add_recv(p, name, dtype, edge, from, incarnation(from), false);
        }
        def->add_input(name);
      }
    }
    // Control inputs from another task: one signal per sending task, however
    // many of its nodes this one waits for (a train op grouping the updates
    // of every variable on a ps waits for one _Recv, not one per variable).
    std::map<std::string, std::vector<int>> remote_controls;  // by sending device
    for (int c : node.control_inputs()) {
      const Node& src = graph.node(c);
      if (placement[c] == device) {
        def->add_input(absl::StrCat("^", src.name()));
        continue;
      }
      if (IsControlFlowOp(src) || IsControlFlowOp(node)) return cross_error(src, node);
      remote_controls[placement[c]].push_back(c);
    }
    for (const auto& [from, sources] : remote_controls) {
      std::string key = absl::StrCat(from, "|", device);
      for (int c : sources) absl::StrAppend(&key, "|", graph.node(c).name());
      std::string& name = control_received[key];
      if (name.empty()) {
        Partition& sp = part(from);
        name = absl::StrCat(graph.node(sources[0]).name(), "/_recv_ctrl_", control_received.size());
        const std::string edge = absl::StrCat("edge_ctrl_", name);
        NodeDef* dummy = sp.graph.add_node();
        dummy->set_name(absl::StrCat(name, "_const"));
        dummy->set_op("Const");
        dummy->set_device(from);
        for (int c : sources) dummy->add_input(absl::StrCat("^", graph.node(c).name()));
        SetAttr("dtype", DT_FLOAT, dummy);
        SetAttr("value", Tensor::Scalar<float>(0), dummy);
        add_send(sp, absl::StrCat(name, "_send"), dummy->name(), DT_FLOAT, edge, device, false);
        add_recv(p, name, DT_FLOAT, edge, from, incarnation(from), false);
      }
      def->add_input(absl::StrCat("^", name));
    }
  }
  // Fetches leave from where they are computed, once per tensor.
  std::map<std::pair<int, int>, std::string> fetch_key;
  for (size_t k = 0; k < fetch_ids.size(); ++k) {
    const auto [id, index] = fetch_ids[k];
    if (fed.count({id, index})) continue;
    const std::string& device = placement[id];
    Partition& p = part(device);
    std::string& key = fetch_key[{id, index}];
    if (key.empty()) {
      const std::string name = tensor(id, index);
      key = RendezvousKey(device, incarnation(device), device, name);
      add_send(p, absl::StrCat(graph.node(id).name(), "/_send_fetch_", index), name,
               graph.node(id).output_type(index), name, device, true);
    }
    p.fetches.push_back({fetches[k], key});
  }
  std::vector<Partition> out;
  for (auto& [device, p] : parts) {
    *p.graph.mutable_versions() = graph.graph_def().versions();
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace distributed_internal
}  // namespace minigraph
