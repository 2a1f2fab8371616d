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

namespace {

// One PartitionGraph call: the pruned graph's nodes, each in its device's
// partition, with a _Send/_Recv pair for every tensor or control signal
// that crosses between two.
class Partitioner {
 public:
  Partitioner(const Graph& graph, const std::vector<std::string>& placement,
              const absl::flat_hash_map<std::string, uint64_t>& incarnations)
      : graph_(graph), placement_(placement), incarnations_(incarnations),
        needed_(graph.num_nodes(), false) {}

  absl::StatusOr<std::vector<Partition>> Run(const std::vector<std::string>& feeds,
                                             const std::vector<std::string>& fetches,
                                             const std::vector<std::string>& targets);

 private:
  // The tensor (or target node) `name`, which a request names as `what`.
  absl::StatusOr<TensorId> Find(const std::string& name, absl::string_view what) const;
  // Parses the feeds, fetches and targets and marks what the fetches and
  // targets need, through data and control inputs, stopping at fed tensors.
  absl::Status Prune(const std::vector<std::string>& feeds, const std::vector<std::string>& fetches,
                     const std::vector<std::string>& targets);
  void Need(int id) {
    if (!needed_[id]) {
      needed_[id] = true;
      stack_.push_back(id);
    }
  }
  bool Fed(int id, int index) const { return fed_.count({id, index}) > 0; }
  Partition& Part(const std::string& device);
  uint64_t Incarnation(const std::string& device) const {
    auto it = incarnations_.find(device);
    return it == incarnations_.end() ? uint64_t{0} : it->second;
  }
  void AddSend(Partition& p, const std::string& name, const std::string& input, DataType dtype,
               const std::string& tensor_name, const std::string& recv_device, bool client);
  void AddRecv(Partition& p, const std::string& name, DataType dtype,
               const std::string& tensor_name, const std::string& send_device,
               uint64_t send_incarnation, bool client);
  std::string TensorName(int id, int k) const {
    return k == 0 ? graph_.node(id).name() : absl::StrCat(graph_.node(id).name(), ":", k);
  }
  absl::Status CrossError(const Node& src, const Node& dst) const;
  // Copies node `id` into its partition, its inputs from other partitions
  // received.
  absl::Status AddNode(int id);
  // The name `node`'s input `in` has in `device`'s partition `p`.
  absl::StatusOr<std::string> DataInput(const Node& node, const Node::Input& in,
                                        const std::string& device, Partition& p);
  // Control inputs from another task: one signal per sending task, however
  // many of its nodes this one waits for (a train op grouping the updates
  // of every variable on a ps waits for one _Recv, not one per variable).
  absl::Status AddControlInputs(const Node& node, const std::string& device, Partition& p,
                                NodeDef* def);
  // Fetches leave from where they are computed, once per tensor.
  void AddFetches(const std::vector<std::string>& fetches);

  const Graph& graph_;
  const std::vector<std::string>& placement_;
  const absl::flat_hash_map<std::string, uint64_t>& incarnations_;
  // Fed tensors, as (node id, output), and the names they were fed as.
  std::set<std::pair<int, int>> fed_;
  std::map<std::pair<int, int>, std::string> fed_name_;
  std::vector<std::pair<int, int>> fetch_ids_;
  std::vector<bool> needed_;
  std::vector<int> stack_;
  // One partition per device that has a needed node.
  std::map<std::string, Partition> parts_;
  // The name, in the consumer's partition, of each tensor or control
  // signal that crossed (so each crosses once per receiving task).
  std::map<std::tuple<int, int, std::string>, std::string> received_;
  // The same for control signals, by sending device, receiving device and
  // the nodes waited for.
  std::map<std::string, std::string> control_received_;
};

absl::StatusOr<TensorId> Partitioner::Find(const std::string& name,
                                           absl::string_view what) const {
  MG_ASSIGN_OR_RETURN(TensorId id, ParseTensorName(name));
  const Node* node = graph_.FindNode(id.node);
  if (node == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, " '", name, "' names a node that is not in the graph"));
  }
  if (what != "target" && !id.control && id.index >= node->num_outputs()) {
    return absl::InvalidArgumentError(absl::StrCat(what, " '", name, "': node '", id.node,
                                                   "' has ", node->num_outputs(), " outputs"));
  }
  return id;
}

absl::Status Partitioner::Prune(const std::vector<std::string>& feeds,
                                const std::vector<std::string>& fetches,
                                const std::vector<std::string>& targets) {
  for (const std::string& f : feeds) {
    MG_ASSIGN_OR_RETURN(TensorId id, Find(f, "feed"));
    const int node = graph_.FindNode(id.node)->id();
    fed_.insert({node, id.index});
    fed_name_[{node, id.index}] = f;
  }
  for (const std::string& f : fetches) {
    MG_ASSIGN_OR_RETURN(TensorId id, Find(f, "fetch"));
    const int node = graph_.FindNode(id.node)->id();
    fetch_ids_.push_back({node, id.index});
    if (!Fed(node, id.index)) Need(node);
  }
  for (const std::string& t : targets) {
    MG_ASSIGN_OR_RETURN(TensorId id, Find(t, "target"));
    Need(graph_.FindNode(id.node)->id());
  }
  while (!stack_.empty()) {
    const Node& node = graph_.node(stack_.back());
    stack_.pop_back();
    for (const Node::Input& in : node.inputs()) {
      if (!Fed(in.src, in.src_output)) Need(in.src);
    }
    for (int c : node.control_inputs()) Need(c);
  }
  return absl::OkStatus();
}

Partition& Partitioner::Part(const std::string& device) {
  Partition& p = parts_[device];
  if (p.device.empty()) {
    p.device = device;
    // Function calls in the partition find their functions here.
    *p.graph.mutable_library() = graph_.library();
  }
  return p;
}

void Partitioner::AddSend(Partition& p, const std::string& name, const std::string& input,
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
  SetAttr("send_device_incarnation", static_cast<int64_t>(Incarnation(p.device)), s);
  SetAttr("recv_device", recv_device, s);
  SetAttr("client_terminated", client, s);
}

void Partitioner::AddRecv(Partition& p, const std::string& name, DataType dtype,
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
}

absl::Status Partitioner::CrossError(const Node& src, const Node& dst) const {
  return absl::UnimplementedError(
      absl::StrCat("edge '", src.name(), "' -> '", dst.name(), "' crosses from ",
                   placement_[src.id()], " to ", placement_[dst.id()],
                   " and enters or leaves control flow; loops and conds must "
                   "run within one task"));
}

absl::StatusOr<std::string> Partitioner::DataInput(const Node& node, const Node::Input& in,
                                                   const std::string& device, Partition& p) {
  const Node& src = graph_.node(in.src);
  const DataType dtype = src.output_type(in.src_output);
  if (Fed(in.src, in.src_output)) {
    auto key = std::make_tuple(in.src, in.src_output, "feed@" + device);
    std::string& name = received_[key];
    if (name.empty()) {
      name = absl::StrCat(src.name(), "/_recv_feed_", in.src_output);
      const std::string fed_tensor = fed_name_[{in.src, in.src_output}];
      AddRecv(p, name, dtype, fed_tensor, device, Incarnation(device), true);
      p.feeds.push_back(
          {fed_tensor, RendezvousKey(device, Incarnation(device), device, fed_tensor)});
    }
    return name;
  }
  if (placement_[in.src] == device) return TensorName(in.src, in.src_output);
  if (src.type_string() == "Const" && src.control_inputs().empty()) {
    // A constant is copied to the consumer's task instead of sent there
    // every step (a learning rate, a shape).
    auto key = std::make_tuple(in.src, -2, device);
    std::string& name = received_[key];
    if (name.empty()) {
      name = absl::StrCat(src.name(), "/_copy_", received_.size());
      NodeDef* copy = p.graph.add_node();
      *copy = src.def();
      copy->set_name(name);
      copy->set_device(device);
    }
    return name;
  }
  if (IsControlFlowOp(src) || IsControlFlowOp(node)) return CrossError(src, node);
  auto key = std::make_tuple(in.src, in.src_output, device);
  std::string& name = received_[key];
  if (name.empty()) {
    const std::string& from = placement_[in.src];
    const std::string edge = absl::StrCat("edge_", in.src_output, "_", src.name());
    name = absl::StrCat(src.name(), "/_recv_", in.src_output, "_", parts_.size(), "_",
                        received_.size());
    AddSend(Part(from), absl::StrCat(name, "_send"), TensorName(in.src, in.src_output), dtype,
            edge, device, false);
    AddRecv(p, name, dtype, edge, from, Incarnation(from), false);
  }
  return name;
}

absl::Status Partitioner::AddControlInputs(const Node& node, const std::string& device,
                                           Partition& p, NodeDef* def) {
  std::map<std::string, std::vector<int>> remote_controls;  // by sending device
  for (int c : node.control_inputs()) {
    const Node& src = graph_.node(c);
    if (placement_[c] == device) {
      def->add_input(absl::StrCat("^", src.name()));
      continue;
    }
    if (IsControlFlowOp(src) || IsControlFlowOp(node)) return CrossError(src, node);
    remote_controls[placement_[c]].push_back(c);
  }
  for (const auto& [from, sources] : remote_controls) {
    std::string key = absl::StrCat(from, "|", device);
    for (int c : sources) absl::StrAppend(&key, "|", graph_.node(c).name());
    std::string& name = control_received_[key];
    if (name.empty()) {
      Partition& sp = Part(from);
      name = absl::StrCat(graph_.node(sources[0]).name(), "/_recv_ctrl_",
                          control_received_.size());
      const std::string edge = absl::StrCat("edge_ctrl_", name);
      NodeDef* dummy = sp.graph.add_node();
      dummy->set_name(absl::StrCat(name, "_const"));
      dummy->set_op("Const");
      dummy->set_device(from);
      for (int c : sources) dummy->add_input(absl::StrCat("^", graph_.node(c).name()));
      SetAttr("dtype", DT_FLOAT, dummy);
      SetAttr("value", Tensor::Scalar<float>(0), dummy);
      AddSend(sp, absl::StrCat(name, "_send"), dummy->name(), DT_FLOAT, edge, device, false);
      AddRecv(p, name, DT_FLOAT, edge, from, Incarnation(from), false);
    }
    def->add_input(absl::StrCat("^", name));
  }
  return absl::OkStatus();
}

absl::Status Partitioner::AddNode(int id) {
  const Node& node = graph_.node(id);
  const std::string& device = placement_[id];
  Partition& p = Part(device);
  NodeDef* def = p.graph.add_node();
  *def = node.def();
  def->set_device(device);
  def->clear_input();
  for (int i = 0; i < node.num_inputs(); ++i) {
    MG_ASSIGN_OR_RETURN(std::string input, DataInput(node, node.inputs()[i], device, p));
    def->add_input(std::move(input));
  }
  return AddControlInputs(node, device, p, def);
}

void Partitioner::AddFetches(const std::vector<std::string>& fetches) {
  std::map<std::pair<int, int>, std::string> fetch_key;
  for (size_t k = 0; k < fetch_ids_.size(); ++k) {
    const auto [id, index] = fetch_ids_[k];
    if (Fed(id, index)) continue;
    const std::string& device = placement_[id];
    Partition& p = Part(device);
    std::string& key = fetch_key[{id, index}];
    if (key.empty()) {
      const std::string name = TensorName(id, index);
      key = RendezvousKey(device, Incarnation(device), device, name);
      AddSend(p, absl::StrCat(graph_.node(id).name(), "/_send_fetch_", index), name,
              graph_.node(id).output_type(index), name, device, true);
    }
    p.fetches.push_back({fetches[k], key});
  }
}

absl::StatusOr<std::vector<Partition>> Partitioner::Run(const std::vector<std::string>& feeds,
                                                        const std::vector<std::string>& fetches,
                                                        const std::vector<std::string>& targets) {
  MG_RETURN_IF_ERROR(Prune(feeds, fetches, targets));
  for (int id : graph_.topological_order()) {
    if (needed_[id]) MG_RETURN_IF_ERROR(AddNode(id));
  }
  AddFetches(fetches);
  std::vector<Partition> out;
  for (auto& [device, p] : parts_) {
    *p.graph.mutable_versions() = graph_.graph_def().versions();
    out.push_back(std::move(p));
  }
  return out;
}

}  // namespace

absl::StatusOr<std::vector<Partition>> PartitionGraph(
    const Graph& graph, const std::vector<std::string>& placement,
    const absl::flat_hash_map<std::string, uint64_t>& incarnations,
    const std::vector<std::string>& feeds, const std::vector<std::string>& fetches,
    const std::vector<std::string>& targets) {
  return Partitioner(graph, placement, incarnations).Run(feeds, fetches, targets);
}

}  // namespace distributed_internal
}  // namespace minigraph
