// The registry of every op minigraph defines, and the functions that fill
// it, one per op family.
//
//   MG_ASSIGN_OR_RETURN(auto graph, Graph::Create(graph_def, StandardOps()));

#ifndef MINIGRAPH_RUNTIME_OPS_STANDARD_OPS_H_
#define MINIGRAPH_RUNTIME_OPS_STANDARD_OPS_H_

#include "runtime/op_registry.h"

namespace minigraph {

// Every op below, registered once. Never destroyed.
const OpRegistry* StandardOps();

void RegisterArrayOps(OpRegistry* r);
void RegisterMathOps(OpRegistry* r);
void RegisterNnOps(OpRegistry* r);
void RegisterStateOps(OpRegistry* r);
void RegisterRandomOps(OpRegistry* r);
void RegisterTrainingOps(OpRegistry* r);
void RegisterControlFlowOps(OpRegistry* r);
void RegisterIoOps(OpRegistry* r);

}  // namespace minigraph

#endif  // MINIGRAPH_RUNTIME_OPS_STANDARD_OPS_H_
