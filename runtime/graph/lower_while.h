// TensorFlow's lowering of functional loops (its LowerFunctionalOpsPass,
// which runs before a graph executes): a While or StatelessWhile whose
// `_lower_using_switch_merge` attr is true (what while_v2 sets on the loops
// of TensorFlow 2's graphs) becomes TensorFlow 1's frame, its condition and
// body inlined between Enter, Merge, Switch, NextIteration and Exit nodes:
// iterations then overlap as far as their data allow, up to the loop's
// `parallel_iterations`, instead of running one call of the body after
// another. An IdentityN of its outputs takes the loop's name, so what
// fetches them or waits for the loop still does; the nodes that read an
// output read an Identity of its Exit instead, so that a step runs only the
// part of the frame it needs.
//
//   GraphDef lowered = def;
//   MG_RETURN_IF_ERROR(LowerWhileLoops(&lowered, GlobalOpRegistry()));
//
// A loop whose functions do not instantiate, whose condition does not
// return a bool, or that has no loop variables is left as it is (its kernel
// then reports what is wrong).
//
// Thread safety: the functions change only the GraphDef they are given.

#ifndef MINIGRAPH_RUNTIME_GRAPH_LOWER_WHILE_H_
#define MINIGRAPH_RUNTIME_GRAPH_LOWER_WHILE_H_

#include <string>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "core/proto/graph.pb.h"
#include "runtime/graph/op_registry.h"

namespace minigraph {

// Whether `graph` has a loop marked for lowering.
bool HasLoopsToLower(const GraphDef& graph);

// Lowers the loops of `graph` (not those inside its library's functions:
// a function's graph is lowered when it is instantiated). `library`: where
// the loops' functions are (the graph's own library when null).
// `exits` (if not null) gets each lowered loop's output ("loop:1") and the
// tensor its readers now read: a step that feeds the output must feed that
// one too.
absl::Status LowerWhileLoops(GraphDef* graph, const OpRegistry* ops,
                             const FunctionDefLibrary* library = nullptr,
                             absl::flat_hash_map<std::string, std::string>* exits = nullptr);

}  // namespace minigraph

#endif  // MINIGRAPH_RUNTIME_GRAPH_LOWER_WHILE_H_
