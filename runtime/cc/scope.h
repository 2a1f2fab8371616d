// The C++ graph-building API: a Scope names and places new nodes, op
// functions (runtime/cc/ops.h) add them and return typed outputs.
//
//   Scope root = Scope::NewRootScope();
//   Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT, PartialShape({-1, 3}));
//   Scope layer = root.NewSubScope("layer1");
//   Output y = ops::MatMul(layer, x, w);            // node "layer1/MatMul"
//   MG_ASSIGN_OR_RETURN(GraphDef g, root.ToGraphDef());
//
// Every node is checked as it is added (its op's signature, input dtypes and
// shape function), so mistakes surface where they are made. The first error
// sticks to the scope's graph: later ops become no-ops, and status() and
// ToGraphDef() report it. A Scope is a cheap handle; all scopes derived from
// one root share one graph. Not thread-safe: build a graph on one thread.

#ifndef MINIGRAPH_RUNTIME_CC_SCOPE_H_
#define MINIGRAPH_RUNTIME_CC_SCOPE_H_

#include <functional>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/proto/graph.pb.h"
#include "core/proto/meta_graph.pb.h"
#include "core/tensor.h"
#include "runtime/graph/op_registry.h"
#include "runtime/graph/partial_shape.h"

namespace minigraph {

class Scope;

// A node in a graph under construction: a handle, cheap to copy (every
// Output holds one), to what the Scope recorded when it added the node.
class Operation {
 public:
  Operation() = default;
  const std::string& name() const;
  bool valid() const { return node_ != nullptr; }
  int num_outputs() const { return node_ == nullptr ? 0 : static_cast<int>(node_->types.size()); }
  class Output output(int i) const;

 private:
  friend class Scope;
  friend class Output;
  struct Node {
    std::string name;
    std::vector<DataType> types;
    std::vector<PartialShape> shapes;
  };
  std::shared_ptr<const Node> node_;
};

// One output of an Operation.
class Output {
 public:
  Output() = default;
  Output(Operation op, int index) : op_(std::move(op)), index_(index) {}
  const Operation& op() const { return op_; }
  int index() const { return index_; }
  // "node:k" ("node" for output 0), the name to fetch or feed.
  std::string name() const;
  // Always "node:k": where a bare node name would mean the op itself (the
  // SessionManager's op arguments).
  std::string tensor_name() const;
  DataType dtype() const;
  const PartialShape& shape() const;

 private:
  friend class Scope;
  Operation op_;
  int index_ = 0;
};

inline Output Operation::output(int i) const { return Output(*this, i); }

// Well-known collection names (TensorFlow's GraphKeys).
inline constexpr char kGlobalVariables[] = "variables";
inline constexpr char kLocalVariables[] = "local_variables";
inline constexpr char kTrainableVariables[] = "trainable_variables";

// Picks the device of a node being added, from its NodeDef (op, name, and
// the device the scope asked for, if any). See ReplicaDeviceSetter.
using DeviceFunction = std::function<std::string(const NodeDef& node)>;

class Scope {
 public:
  // A new, empty graph whose ops come from `ops` (not owned).
  static Scope NewRootScope(const OpRegistry* ops = nullptr);

  // Nodes created through the result are named "<prefix>/<name>/...".
  Scope NewSubScope(absl::string_view name) const;
  // Nodes created through the result are named "<op name>/<name>", as
  // TensorFlow places "v/Assign" under the variable "v".
  Scope InsideOp(const Operation& op) const;
  // The next node gets this name (made unique like TensorFlow's: name_1, ...).
  // A name ending in '/' is used exactly, without the slash, even where a name
  // scope of that name exists (an error if a node already has it).
  Scope WithOpName(absl::string_view name) const;
  // Nodes created through the result wait for `deps` (control inputs).
  Scope WithControlDependencies(const std::vector<Operation>& deps) const;
  // Nodes created through the result wait for nothing.
  Scope WithNoControlDependencies() const;
  // Nodes created through the result are placed on `device`, a TensorFlow
  // device string ("/job:ps/task:0", "/job:worker/replica:0/task:1/device:CPU:0");
  // "" clears it. As tf.device(string), it replaces an enclosing device
  // function.
  Scope WithDevice(std::string device) const;
  // Nodes created through the result are placed where `fn` says (after
  // WithDevice's device is set on the node), as tf.device(function).
  Scope WithDeviceFunction(DeviceFunction fn) const;
  // The while loop (its frame name) that nodes built through this scope run
  // in; set by ops::WhileLoop for cond and body, kept by derived scopes.
  Scope WithLoopFrame(std::string frame) const;
  const std::string& loop_frame() const { return loop_frame_; }
  // Nodes created through the result take `map(input)` for each input (an
  // Output of any node) instead: how the gradient of a while loop turns the
  // forward loop's values its gradient functions ask for into the backward
  // loop's (TensorFlow's GradLoopState::GetRealValue). `map` must build
  // through scopes without a mapper.
  using InputMapper = std::function<Output(const Output&)>;
  Scope WithInputMapper(InputMapper map) const;

  bool ok() const;
  absl::Status status() const;
  absl::StatusOr<GraphDef> ToGraphDef() const;
  // The graph plus its collections (and any SaverDef set on it).
  absl::StatusOr<MetaGraphDef> ToMetaGraphDef() const;

  // Adds a node of `op_type`: one entry of `inputs` per input argument of
  // the op (several for a list argument). Type attrs that inputs determine
  // (T, N, list types) are filled in. On error the scope's status is set
  // and an invalid Operation comes back.
  Operation AddOp(absl::string_view op_type, const std::vector<std::vector<Output>>& inputs,
                  const std::map<std::string, AttrValue>& attrs = {}) const;

  // Replaces data input `index` of `op` with `input`, of the same dtype: how
  // a while loop's Merge gets its back edge from a NextIteration built later.
  void UpdateInput(const Operation& op, int index, const Output& input) const;

  // Appends data inputs to `op` (after its others) and sets `attrs` on it;
  // its outputs become what its op gives for the new attrs, the Outputs
  // taken before keeping their indices, the new ones of unknown shape. The
  // new inputs' nodes, created after `op`, move before it in AllOps().
  // How a While's gradient makes the forward loop keep what the backward
  // loop needs, as TensorFlow's while_v2 rewrites the op it differentiates.
  void ExtendOp(const Operation& op, const std::vector<Output>& inputs,
                const std::map<std::string, AttrValue>& attrs) const;

  // Records the first error on the shared graph.
  void UpdateStatus(const absl::Status& s) const;

  // Collections, exported in the MetaGraphDef.
  void AddToCollection(const std::string& key, const std::string& node_name) const;
  void AddBytesToCollection(const std::string& key, const std::string& bytes) const;
  std::vector<std::string> GetCollection(const std::string& key) const;
  // Calls `edit` on every entry of the bytes collection `key`, in place.
  void EditCollection(const std::string& key, const std::function<void(std::string*)>& edit) const;
  void SetSaverDef(const SaverDef& saver_def) const;

  // The graph's function library (exported with it in ToGraphDef): the
  // bodies its PartitionedCall, If and While nodes name. Adding a function
  // whose name is taken by a different definition sets the scope's status
  // (InvalidArgument naming it); the same definition again is a no-op.
  void AddFunctionLibrary(const FunctionDefLibrary& library) const;
  const FunctionDefLibrary& library() const;
  // The op registry the graph's nodes are checked against.
  const OpRegistry* op_registry() const;

  // The operation named `name`, or NotFound.
  absl::StatusOr<Operation> FindOp(absl::string_view name) const;
  // The NodeDef of `op` (with defaults) and its data inputs, for gradient
  // functions. REQUIRES: `op` belongs to this scope's graph.
  const NodeDef& GetNodeDef(const Operation& op) const;
  std::vector<Output> GetInputs(const Operation& op) const;
  // The ops of the graph in creation order (a topological order).
  std::vector<Operation> AllOps() const;

  // The name the next node of `op_type` would get (for helpers that name
  // a group of nodes, such as "save/...").
  std::string UniqueName(absl::string_view base) const;
  const std::string& prefix() const { return prefix_; }

 private:
  struct Graph;
  explicit Scope(std::shared_ptr<Graph> g) : graph_(std::move(g)) {}

  std::shared_ptr<Graph> graph_;
  std::string prefix_;
  std::string op_name_;
  std::vector<Operation> control_deps_;
  std::string loop_frame_;
  std::string device_;
  DeviceFunction device_fn_;
  InputMapper input_mapper_;
};

// TensorFlow's tf.train.replica_device_setter for between-graph replication:
// variables (VariableV2, Variable, VarHandleOp) go to "/job:<ps_job>/task:i"
// round robin over `ps_tasks` tasks, in the order they are created; every
// other op to `worker_device` ("/job:worker/task:0"). With ps_tasks == 0
// everything stays on worker_device.
//
//   Scope s = root.WithDeviceFunction(ReplicaDeviceSetter(2, "/job:worker/task:1"));
//   Variable w = Variable::Create(s, "w", ...);      // /job:ps/task:0
//   Variable b = Variable::Create(s, "b", ...);      // /job:ps/task:1
DeviceFunction ReplicaDeviceSetter(int ps_tasks, std::string worker_device,
                                   std::string ps_job = "ps");

}  // namespace minigraph

#endif  // MINIGRAPH_RUNTIME_CC_SCOPE_H_
