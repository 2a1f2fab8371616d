// The registry of every op minigraph defines, and the functions that fill
// it, one per op family.
//
//   MG_ASSIGN_OR_RETURN(auto graph, Graph::Create(graph_def, StandardOps()));

#ifndef MINIGRAPH_RUNTIME_GRAPH_OPS_STANDARD_OPS_H_
#define MINIGRAPH_RUNTIME_GRAPH_OPS_STANDARD_OPS_H_

#include "runtime/graph/op_registry.h"

namespace minigraph {

// Every op below, registered once, plus those added with RegisterOp. Never
// destroyed.
const OpRegistry* StandardOps();

// Adds an op of your own to StandardOps(), which sessions and the graph
// builder use (TensorFlow's REGISTER_OP); give it a kernel with
// RegisterKernel (runtime/engine/kernels/standard_kernels.h). Register before
// building graphs that use it. Returns AlreadyExists for a name taken, or
// the builder's error. Thread-safe.
//
//   MG_RETURN_IF_ERROR(RegisterOp(OpDefBuilder("TimesTwo").Input("x: float")
//                                     .Output("y: float").SetShapeFn(...)));
absl::Status RegisterOp(const OpDefBuilder& builder);

void RegisterArrayOps(OpRegistry* r);
void RegisterMathOps(OpRegistry* r);
void RegisterNnOps(OpRegistry* r);
void RegisterStateOps(OpRegistry* r);
void RegisterRandomOps(OpRegistry* r);
void RegisterTrainingOps(OpRegistry* r);
void RegisterControlFlowOps(OpRegistry* r);
void RegisterIoOps(OpRegistry* r);
void RegisterSummaryOps(OpRegistry* r);
void RegisterSendRecvOps(OpRegistry* r);
void RegisterStringOps(OpRegistry* r);
void RegisterSparseOps(OpRegistry* r);
void RegisterLookupOps(OpRegistry* r);
void RegisterFunctionalOps(OpRegistry* r);
void RegisterDatasetOps(OpRegistry* r);
void RegisterListOps(OpRegistry* r);
void RegisterImageOps(OpRegistry* r);
void RegisterTensorArrayOps(OpRegistry* r);
void RegisterParsingOps(OpRegistry* r);

}  // namespace minigraph

#endif  // MINIGRAPH_RUNTIME_GRAPH_OPS_STANDARD_OPS_H_
