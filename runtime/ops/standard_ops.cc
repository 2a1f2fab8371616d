#include "runtime/ops/standard_ops.h"

namespace minigraph {

const OpRegistry* StandardOps() {
  static const OpRegistry* const registry = [] {
    auto* r = new OpRegistry;
    RegisterArrayOps(r);
    RegisterMathOps(r);
    RegisterNnOps(r);
    RegisterStateOps(r);
    RegisterRandomOps(r);
    RegisterTrainingOps(r);
    RegisterControlFlowOps(r);
    RegisterIoOps(r);
    return r;
  }();
  return registry;
}

}  // namespace minigraph
