#include "runtime/graph/ops/standard_ops.h"

#include "runtime/graph/ops/internal/op_families.h"

namespace minigraph {

namespace {

OpRegistry* MutableGlobalOpRegistry() {
  static OpRegistry* const registry = [] {
    auto* r = new OpRegistry;
    ops_internal::RegisterArrayOps(r);
    ops_internal::RegisterMathOps(r);
    ops_internal::RegisterNnOps(r);
    ops_internal::RegisterStateOps(r);
    ops_internal::RegisterRandomOps(r);
    ops_internal::RegisterTrainingOps(r);
    ops_internal::RegisterControlFlowOps(r);
    ops_internal::RegisterIoOps(r);
    ops_internal::RegisterSummaryOps(r);
    ops_internal::RegisterSendRecvOps(r);
    ops_internal::RegisterStringOps(r);
    ops_internal::RegisterSparseOps(r);
    ops_internal::RegisterLookupOps(r);
    ops_internal::RegisterFunctionalOps(r);
    ops_internal::RegisterDatasetOps(r);
    ops_internal::RegisterListOps(r);
    ops_internal::RegisterTensorArrayOps(r);
    ops_internal::RegisterParsingOps(r);
    ops_internal::RegisterImageOps(r);
    return r;
  }();
  return registry;
}

}  // namespace

const OpRegistry* GlobalOpRegistry() { return MutableGlobalOpRegistry(); }

absl::Status RegisterOp(const OpDefBuilder& builder) {
  return MutableGlobalOpRegistry()->Register(builder);
}

}  // namespace minigraph
