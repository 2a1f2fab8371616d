// A validated dataflow graph built from a GraphDef.
//
//   MG_ASSIGN_OR_RETURN(std::unique_ptr<Graph> g, Graph::Create(graph_def, GlobalOpRegistry()));
//   const Node* n = g->FindNode("layer1/weight");
//   for (const Node& node : g->nodes()) { ... }     // in GraphDef order
//
// Create() checks everything a step would otherwise trip over: unknown ops
// (all listed at once), empty or duplicate names, inputs naming missing
// nodes or out-of-range outputs, wrong input counts, dtype mismatches, attrs
// missing or of the wrong type, cycles, and static shapes (through each op's
// shape function). Errors are InvalidArgument and name the node. Device
// fields are accepted and ignored. The one cycle allowed is a while loop's
// back edge, from a NextIteration to a Merge (IsBackEdge); topological order
// and shape inference leave those edges out, as TensorFlow does. Immutable after Create; safe for
// concurrent use.

#ifndef MINIGRAPH_RUNTIME_GRAPH_GRAPH_H_
#define MINIGRAPH_RUNTIME_GRAPH_GRAPH_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "core/proto/graph.pb.h"
#include "runtime/graph/op_registry.h"
#include "runtime/graph/shape_inference.h"
#include "runtime/graph/versions.h"

namespace minigraph {

class Node {
 public:
  struct Input {
    int src;         // node id
    int src_output;  // output index of `src`
  };
  struct Output {
    int dst;        // node id
    int dst_input;  // input index of `dst`
  };

  int id() const { return id_; }
  const std::string& name() const { return def_.name(); }
  const std::string& type_string() const { return def_.op(); }
  // The NodeDef with the op's default attrs filled in.
  const NodeDef& def() const { return def_; }
  const OpRegistrationData& op() const { return *op_; }
  bool is_stateful() const { return op_->op_def.is_stateful(); }

  int num_inputs() const { return static_cast<int>(inputs_.size()); }
  int num_outputs() const { return static_cast<int>(output_types_.size()); }
  const std::vector<Input>& inputs() const { return inputs_; }
  const std::vector<int>& control_inputs() const { return control_inputs_; }
  const std::vector<Output>& out_edges() const { return out_edges_; }
  const std::vector<int>& control_outputs() const { return control_outputs_; }
  DataType input_type(int i) const { return input_types_[i]; }
  DataType output_type(int i) const { return output_types_[i]; }
  const std::vector<DataType>& input_types() const { return input_types_; }
  const std::vector<DataType>& output_types() const { return output_types_; }
  const PartialShape& output_shape(int i) const { return output_shapes_[i]; }
  // Input `i` comes from a NextIteration into this Merge: a loop's back edge.
  bool IsBackEdge(int i) const;
  // The graph the node belongs to (its function library, for kernels that
  // call functions).
  const class Graph& graph() const { return *graph_; }

 private:
  friend class Graph;
  const class Graph* graph_ = nullptr;
  int id_ = -1;
  NodeDef def_;
  const OpRegistrationData* op_ = nullptr;
  std::vector<DataType> input_types_, output_types_;
  std::vector<Input> inputs_;
  std::vector<int> control_inputs_;
  std::vector<Output> out_edges_;
  std::vector<int> control_outputs_;
  std::vector<PartialShape> output_shapes_;
  std::vector<bool> back_edge_;  // per input
};

// TensorFlow's control-flow op families (the Ref variants included).
bool IsMerge(const Node& n);
bool IsSwitch(const Node& n);
bool IsEnter(const Node& n);
bool IsExit(const Node& n);
bool IsNextIteration(const Node& n);

class Graph {
 public:
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;

  // `ops` (not owned) must outlive the graph. Returns InvalidArgument when
  // `def`'s versions refuse this consumer (CheckGraphDefVersions); a `def`
  // without versions is version 0, as in TensorFlow.
  static absl::StatusOr<std::unique_ptr<Graph>> Create(const GraphDef& def,
                                                      const OpRegistry* ops);
  // A graph whose function library is `library`, shared rather than copied
  // (a function body's graph: its calls resolve in the caller's library);
  // `def`'s own library is ignored. A `def` without versions has the
  // current version (a function body has its caller's, and functions came
  // after the versions whose semantics differ).
  static absl::StatusOr<std::unique_ptr<Graph>> Create(
      const GraphDef& def, std::shared_ptr<const FunctionDefLibrary> library,
      const OpRegistry* ops);

  int num_nodes() const { return static_cast<int>(nodes_.size()); }
  const Node& node(int id) const { return nodes_[id]; }
  const std::vector<Node>& nodes() const { return nodes_; }
  // nullptr when absent.
  const Node* FindNode(absl::string_view name) const;
  // Node ids in an order where every node follows its inputs.
  const std::vector<int>& topological_order() const { return topo_; }
  // The GraphDef this graph was built from, with default attrs added and
  // without its library.
  const GraphDef& graph_def() const { return def_; }
  const FunctionDefLibrary& library() const { return *library_; }
  // The producer version its semantics follow (runtime/graph/versions.h).
  int graph_def_version() const { return version_; }
  const std::shared_ptr<const FunctionDefLibrary>& shared_library() const { return library_; }

 private:
  Graph() = default;
  static absl::StatusOr<std::unique_ptr<Graph>> Create(
      const GraphDef& def, std::shared_ptr<const FunctionDefLibrary> library,
      const OpRegistry* ops, int version);
  absl::Status Build(const OpRegistry* ops);
  // Build's steps: each node's op (every unknown op named at once), its
  // attrs' defaults and types, its inputs (checked against them), the
  // topological order (a cycle other than a loop's is an error), shapes.
  absl::Status LookUpOps(const OpRegistry* ops);
  absl::Status ResolveTypes();
  absl::Status ConnectInputs(int i);
  absl::Status TopologicalOrder();
  absl::Status InferShapes();

  GraphDef def_;
  std::shared_ptr<const FunctionDefLibrary> library_;
  int version_ = kGraphDefVersion;
  std::vector<Node> nodes_;
  absl::flat_hash_map<std::string, int> by_name_;
  std::vector<int> topo_;
};

}  // namespace minigraph

#endif  // MINIGRAPH_RUNTIME_GRAPH_GRAPH_H_
