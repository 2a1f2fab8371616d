// The registry of every op minigraph defines (each family's registration
// function is internal: internal/op_families.h).
//
//   MG_ASSIGN_OR_RETURN(auto graph, Graph::Create(graph_def, GlobalOpRegistry()));

#ifndef MINIGRAPH_RUNTIME_GRAPH_OPS_STANDARD_OPS_H_
#define MINIGRAPH_RUNTIME_GRAPH_OPS_STANDARD_OPS_H_

#include "runtime/graph/op_registry.h"

namespace minigraph {

// Every op minigraph defines, registered once, plus those added with RegisterOp. Never
// destroyed.
const OpRegistry* GlobalOpRegistry();

// Adds an op of your own to GlobalOpRegistry(), which sessions and the graph
// builder use (TensorFlow's REGISTER_OP); give it a kernel with
// RegisterKernel (runtime/engine/kernel_registry.h). Register before
// building graphs that use it. Returns AlreadyExists for a name taken, or
// the builder's error. Thread-safe.
//
//   MG_RETURN_IF_ERROR(RegisterOp(OpDefBuilder("TimesTwo").Input("x: float")
//                                     .Output("y: float").SetShapeFn(...)));
absl::Status RegisterOp(const OpDefBuilder& builder);

// An int attr of SaveV2 beyond TensorFlow's op: each tensor's bytes start at
// a multiple of it in the data file (BundleWriterOptions::alignment).
// Internal (its name starts with "_"), so TensorFlow runs such a graph and
// ignores it.
inline constexpr char kTensorAlignmentAttr[] = "_tensor_alignment";

}  // namespace minigraph

#endif  // MINIGRAPH_RUNTIME_GRAPH_OPS_STANDARD_OPS_H_
