// The functions of a GraphDef's library (TensorFlow 2's tf.function bodies,
// If branches, While conditions and bodies), turned into graphs a session's
// executor runs: one Placeholder per argument, named after it, the body's
// nodes with their inputs rewritten from the FunctionDef's
// "node:output_arg:index" form to tensor names, the results as tensors to
// fetch and the control results as nodes to run.
//
//   MG_ASSIGN_OR_RETURN(FunctionGraph f, InstantiateFunction(graph.library(), call,
//   GlobalOpRegistry()));
//   // feed f.args, fetch f.rets, run f.targets
//
// Thread-compatible.

#ifndef MINIGRAPH_RUNTIME_GRAPH_FUNCTION_H_
#define MINIGRAPH_RUNTIME_GRAPH_FUNCTION_H_

#include <set>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "core/proto/attr_value.pb.h"
#include "core/proto/function.pb.h"
#include "core/proto/graph.pb.h"
#include "runtime/graph/op_registry.h"

namespace minigraph {

struct FunctionGraph {
  std::string name;
  // The body, without a library: its nested calls resolve in the caller's
  // (Graph::Create with the caller's shared library).
  GraphDef graph;
  // Argument tensors to feed ("x:0"), in the signature's order, and their
  // dtypes.
  std::vector<std::string> args;
  std::vector<DataType> arg_types;
  // Result tensors to fetch, in the signature's order, and their dtypes.
  std::vector<std::string> rets;
  std::vector<DataType> ret_types;
  // Nodes that must run (the control results).
  std::vector<std::string> targets;
};

// Instantiates `call.name` with `call.attr` (which resolve type, length and
// type-list attrs, and "$placeholder" attrs). A list argument (N * T or
// list(type)) becomes one placeholder per tensor, "xs_0", "xs_1", ... (just
// "xs" for a list of one), as TensorFlow names them; args and rets are
// flat. NotFound naming the function; InvalidArgument naming the function
// and node for an input or result that does not resolve or a list of the
// wrong length; Unimplemented for a node whose op is itself a function of
// the library (call it through PartitionedCall).
absl::StatusOr<FunctionGraph> InstantiateFunction(const FunctionDefLibrary& library,
                                                  const NameAttrList& call, const OpRegistry* ops);

// TensorFlow's implementation selector (a Grappler pass run before a graph
// executes): a function that declares "api_implements" is swapped for the
// library function with the same "api_implements" whose
// "api_preferred_device" is the device the call runs on. Keras traces its
// LSTM and GRU layers both ways, the cuDNN version for a GPU and a standard
// one (a While over TensorLists) for the CPU, and a model saved on a GPU
// machine calls the cuDNN version. Returns the function to run on the CPU
// for `name`: its CPU twin, or `name` itself.
std::string CpuImplementation(const FunctionDefLibrary& library, const std::string& name);

// The library functions a run of `graph` may call: those its nodes name (in
// func attrs, or as their op), and those their bodies name in turn, each
// after CpuImplementation. Functions only another device would run, and
// gradient functions nothing calls, are not among them.
std::set<std::string> ReachableFunctions(const GraphDef& graph);
// The same for a run of only `nodes` (of a graph whose library is `library`).
std::set<std::string> ReachableFunctions(const FunctionDefLibrary& library,
                                         const std::vector<const NodeDef*>& nodes);

// The nodes of `graph` that a step computing `outputs` (tensor names,
// "x:0", or node names, "train_op" or "^train_op") needs: those, and their
// data and control inputs in turn, stopping at the nodes named in `fed`,
// in the graph's order. InvalidArgument naming an output that is not a node
// of the graph.
absl::StatusOr<std::vector<const NodeDef*>> NodesNeeded(const GraphDef& graph,
                                                        const std::vector<std::string>& outputs,
                                                        const std::set<std::string>& fed);

}  // namespace minigraph

#endif  // MINIGRAPH_RUNTIME_GRAPH_FUNCTION_H_
