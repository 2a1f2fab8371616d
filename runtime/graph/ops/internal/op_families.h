// The registration function of each op family, one per source file;
// GlobalOpRegistry() (standard_ops.h) calls them all once. Internal to this
// package.

#ifndef MINIGRAPH_RUNTIME_GRAPH_OPS_INTERNAL_OP_FAMILIES_H_
#define MINIGRAPH_RUNTIME_GRAPH_OPS_INTERNAL_OP_FAMILIES_H_

#include "runtime/graph/op_registry.h"

namespace minigraph {
namespace ops_internal {

void RegisterArrayOps(OpRegistry* r);
void RegisterMathOps(OpRegistry* r);
void RegisterLinalgOps(OpRegistry* r);
void RegisterSpaceOps(OpRegistry* r);
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

// Every family above.
void RegisterMinigraphOps(OpRegistry* r);

// `ours` (an op minigraph defines) with `tensorflow`'s interface, keeping
// its shape function; where its type attrs allow fewer dtypes than
// TensorFlow's, those become kernel_types.
OpRegistrationData WithTensorFlowInterface(const OpRegistrationData& ours,
                                           const OpDef& tensorflow);

}  // namespace ops_internal
}  // namespace minigraph

#endif  // MINIGRAPH_RUNTIME_GRAPH_OPS_INTERNAL_OP_FAMILIES_H_
