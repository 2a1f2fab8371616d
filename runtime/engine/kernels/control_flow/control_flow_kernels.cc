// Switch forwards its input to one output and marks the other dead. Merge
// has no kernel body: the executor forwards its first live input. Enter,
// Exit, NextIteration and LoopCond forward their input (a variable
// reference stays a reference); the executor moves the value between frames
// and iterations. Assert (TensorFlow files it with logging) fails a step.
#include <algorithm>
#include <string>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "runtime/engine/kernels/internal/kernel_families.h"

namespace minigraph {
namespace kernels_internal {
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

// TensorFlow's Assert: fails the step with InvalidArgument "assertion
// failed: [d0] [d1] ..." (each data tensor summarized) when the condition
// is false.
class AssertOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) { return c->GetAttr("summarize", &summarize_); }
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& cond = ctx->input(0);
    if (cond.dims() != 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("In[0] should be a scalar: ", cond.shape().DebugString()));
    }
    if (*cond.data<bool>()) return absl::OkStatus();
    std::string msg = "assertion failed: ";
    for (int i = 1; i < ctx->num_inputs(); ++i) {
      absl::StrAppend(&msg, i > 1 ? " " : "", "[", Summarize(ctx->input(i)), "]");
    }
    return absl::InvalidArgumentError(msg);
  }

 private:
  // As TensorFlow prints data in an assertion: strings unquoted (C-escaped).
  std::string Summarize(const Tensor& t) const {
    if (t.dtype() != DT_STRING) return t.SummarizeValue(summarize_);
    std::string out;
    const int64_t n = std::min<int64_t>(t.NumElements(), summarize_);
    for (int64_t i = 0; i < n; ++i) {
      absl::StrAppend(&out, i > 0 ? " " : "", absl::CEscape(t.data<std::string>()[i]));
    }
    if (n < t.NumElements()) out += "...";
    return out;
  }

  int64_t summarize_ = 3;
};

class ControlTriggerOp final : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override { return absl::OkStatus(); }
};

}  // namespace

void RegisterControlFlowKernels(KernelRegistry* r) {
  r->Register("ControlTrigger", MakeFactory<ControlTriggerOp>());
  r->Register("Assert", MakeFactory<AssertOp>());
  r->Register("Switch", MakeFactory<SwitchOp>());
  r->Register("RefSwitch", MakeFactory<SwitchOp>());
  r->Register("Merge", MakeFactory<MergeOp>());
  r->Register("RefMerge", MakeFactory<MergeOp>());
  for (const char* op : {"Enter", "RefEnter", "Exit", "RefExit", "NextIteration",
                         "RefNextIteration", "LoopCond", "RefIdentity"}) {
    r->Register(op, MakeFactory<ForwardOp>());
  }
}

}  // namespace kernels_internal
}  // namespace minigraph
