#include "runtime/graph/ops/standard_ops.h"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "core/logging.h"
#include "runtime/graph/ops/internal/op_families.h"
#include "runtime/graph/ops/tensorflow_op_defs.h"

namespace minigraph {

namespace ops_internal {

void RegisterMinigraphOps(OpRegistry* r) {
  RegisterArrayOps(r);
  RegisterMathOps(r);
  RegisterLinalgOps(r);
  RegisterSpaceOps(r);
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
}

OpRegistrationData WithTensorFlowInterface(const OpRegistrationData& ours,
                                           const OpDef& tensorflow) {
  OpRegistrationData merged;
  merged.op_def = tensorflow;
  merged.shape_fn = ours.shape_fn;
  for (const OpDef::AttrDef& attr : ours.op_def.attr()) {
    if (attr.type() != "type" && attr.type() != "list(type)") continue;
    if (!attr.has_allowed_values()) continue;
    const auto& mine = attr.allowed_values().list().type();
    auto theirs = std::find_if(tensorflow.attr().begin(), tensorflow.attr().end(),
                               [&](const OpDef::AttrDef& a) { return a.name() == attr.name(); });
    if (theirs != tensorflow.attr().end() && theirs->has_allowed_values() &&
        std::all_of(theirs->allowed_values().list().type().begin(),
                    theirs->allowed_values().list().type().end(), [&](int t) {
                      return std::find(mine.begin(), mine.end(), t) != mine.end();
                    })) {
      continue;  // Every dtype TensorFlow allows: op_def says it already.
    }
    std::vector<DataType>& types = merged.kernel_types[attr.name()];
    for (int t : mine) types.push_back(static_cast<DataType>(t));
  }
  return merged;
}

}  // namespace ops_internal

namespace {

OpRegistry* MutableGlobalOpRegistry() {
  static OpRegistry* const registry = [] {
    // minigraph's ops, each with TensorFlow's interface where TensorFlow has
    // the op (op_defs_test holds the two to the same signature, but for the
    // dtypes minigraph's kernels take); then TensorFlow's other ops, by
    // their definitions alone.
    OpRegistry ours;
    ops_internal::RegisterMinigraphOps(&ours);
    auto* r = new OpRegistry;
    for (const std::string& name : ours.OpNames()) {
      const OpRegistrationData& op = **ours.LookUp(name);
      const OpDef* tensorflow = FindTensorFlowOpDef(name);
      const absl::Status s = r->Register(
          tensorflow == nullptr ? op : ops_internal::WithTensorFlowInterface(op, *tensorflow));
      MG_CHECK(s.ok()) << s.message();
    }
    for (const OpDef& def : TensorFlowOpDefs().op()) {
      if (r->LookUp(def.name()).ok()) continue;
      OpRegistrationData data;
      data.op_def = def;
      const absl::Status s = r->Register(std::move(data));
      MG_CHECK(s.ok()) << s.message();
    }
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
