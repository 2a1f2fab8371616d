#include "runtime/graph/ops/standard_ops.h"

namespace minigraph {

namespace {

OpRegistry* MutableStandardOps() {
  static OpRegistry* const registry = [] {
    auto* r = new OpRegistry;
    RegisterArrayOps(r);
    RegisterMathOps(r);
    RegisterNnOps(r);
    RegisterStateOps(r);
    RegisterRandomOps(r);
    RegisterTrainingOps(r);
    RegisterControlFlowOps(r);
    RegisterIoOps(r);
    RegisterSummaryOps(r);
    RegisterSendRecvOps(r);
    RegisterStringOps(r);
    RegisterSparseOps(r);
    RegisterLookupOps(r);
    RegisterFunctionalOps(r);
    RegisterDatasetOps(r);
    RegisterListOps(r);
    RegisterTensorArrayOps(r);
    RegisterParsingOps(r);
    RegisterImageOps(r);
    return r;
  }();
  return registry;
}

}  // namespace

const OpRegistry* StandardOps() { return MutableStandardOps(); }

absl::Status RegisterOp(const OpDefBuilder& builder) {
  return MutableStandardOps()->Register(builder);
}

}  // namespace minigraph
