// Switch forwards its input to one output and marks the other dead. Merge
// has no kernel body: the executor forwards its first live input. Enter,
// Exit, NextIteration and LoopCond forward their input (a variable
// reference stays a reference); the executor moves the value between frames
// and iterations.
#include "absl/strings/str_cat.h"
#include "runtime/engine/kernels/standard_kernels.h"

namespace minigraph {
namespace {

class SwitchOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& pred = ctx->input(1);
    if (pred.dims() != 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Switch predicate must be a scalar, got shape ", pred.shape().DebugString()));
    }
    const int taken = *pred.data<bool>() ? 1 : 0;
    if (ctx->input_ref(0) != nullptr) {
      ctx->set_output_ref(taken, ctx->input_ref(0));
    } else {
      ctx->set_output(taken, ctx->input(0));
    }
    ctx->set_output_dead(1 - taken);
    return absl::OkStatus();
  }
};

class MergeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext*) const override {
    return absl::InternalError("Merge is computed by the executor, not by a kernel");
  }
};

class ForwardOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    if (ctx->input_ref(0) != nullptr) {
      ctx->set_output_ref(0, ctx->input_ref(0));
    } else {
      ctx->set_output(0, ctx->input(0));
    }
    return absl::OkStatus();
  }
};

}  // namespace

void RegisterControlFlowKernels(KernelRegistry* r) {
  r->Register("Switch", MakeFactory<SwitchOp>());
  r->Register("RefSwitch", MakeFactory<SwitchOp>());
  r->Register("Merge", MakeFactory<MergeOp>());
  r->Register("RefMerge", MakeFactory<MergeOp>());
  for (const char* op : {"Enter", "RefEnter", "Exit", "RefExit", "NextIteration",
                         "RefNextIteration", "LoopCond"}) {
    r->Register(op, MakeFactory<ForwardOp>());
  }
}

}  // namespace minigraph
