// A GraphDef or MetaGraphDef brought into a Scope, so that the client API
// can extend a graph it did not build: add gradients and an optimizer to a
// graph TensorFlow exported, or splice a function's body into another graph.
// TensorFlow's ImportGraphDef (graph_constructor.h) and, for a meta graph,
// tf.train.import_meta_graph.
//
//   Scope root = Scope::NewRootScope();
//   MG_RETURN_IF_ERROR(ImportMetaGraphDef(root, meta));
//   MG_ASSIGN_OR_RETURN(Operation loss, root.FindOp("loss"));
//   std::vector<Output> grads;
//   MG_RETURN_IF_ERROR(AddSymbolicGradients(root, {loss.output(0)}, {w, b}, &grads));
//
// Nodes keep their names (under the scope's prefix, if it has one), attrs
// and devices; they are added in a topological order (a TensorFlow 1 while
// loop's back edges, NextIteration into Merge, are joined at the end), so
// AllOps stays topological, as gradients need. The function library comes
// along.
//
// Like Scope's, not thread-safe: import into a graph on one thread.

#ifndef MINIGRAPH_RUNTIME_CC_IMPORT_GRAPH_H_
#define MINIGRAPH_RUNTIME_CC_IMPORT_GRAPH_H_

#include <map>
#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/proto/graph.pb.h"
#include "core/proto/meta_graph.pb.h"
#include "runtime/cc/scope.h"

namespace minigraph {

struct ImportGraphDefOptions {
  // Tensors of the imported graph ("node:k", or "node" for output 0) that
  // stand for outputs of the scope's graph: inputs naming them are wired to
  // those outputs instead. A node all of whose uses are mapped is still
  // imported; leave it out of the GraphDef to drop it.
  absl::flat_hash_map<std::string, Output> input_map;
};

// Adds the nodes of `graph` (and its library) to `scope`'s graph. Returns
// each imported node's Operation by its name in `graph`.
//
// InvalidArgument, naming the node, for a duplicate name, a name the scope
// already has, an input that names no node or an output it lacks, and a
// cycle that is not a while loop's; the op registry's NotFound for an unknown
// op. These are found before anything is added. An error that only adding a
// node reveals (its attrs, its inputs' dtypes, its shape function) is the
// scope's status, as for any AddOp.
absl::StatusOr<std::map<std::string, Operation>> ImportGraphDef(
    const Scope& scope, const GraphDef& graph, const ImportGraphDefOptions& options = {});

// ImportGraphDef of the meta graph's graph into the root of `scope`'s graph,
// plus its collections (node and bytes lists) and its SaverDef.
// InvalidArgument when `scope` has a name prefix (collection entries and the
// SaverDef name nodes by their full names).
absl::Status ImportMetaGraphDef(const Scope& scope, const MetaGraphDef& meta);

}  // namespace minigraph

#endif  // MINIGRAPH_RUNTIME_CC_IMPORT_GRAPH_H_
