// PartitionedCall, StatefulPartitionedCall, If, StatelessIf, While and
// StatelessWhile: each function they call is instantiated once, when the
// kernel is made (internal/function_runner.h), and runs inside the caller's
// step on the calling thread.
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "runtime/engine/kernels/internal/function_runner.h"
#include "runtime/engine/kernels/internal/kernel_families.h"

namespace minigraph {
namespace kernels_internal {
namespace {

std::vector<Tensor> Inputs(const OpKernelContext* ctx, int from) {
  std::vector<Tensor> v;
  for (int i = from; i < ctx->num_inputs(); ++i) v.push_back(ctx->input(i));
  return v;
}

absl::Status SetOutputs(OpKernelContext* ctx, const FunctionRunner& f, std::vector<Tensor> rets) {
  if (static_cast<int>(rets.size()) != ctx->num_outputs()) {
    return absl::InvalidArgumentError(absl::StrCat("function '", f.function().name, "' returned ",
                                                   rets.size(), " values for ", ctx->num_outputs(),
                                                   " outputs"));
  }
  for (int i = 0; i < ctx->num_outputs(); ++i) {
    if (rets[i].dtype() != ctx->expected_output_dtype(i)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "function '", f.function().name, "' returned ", DataTypeString(rets[i].dtype()),
          " for output ", i, ", which is ", DataTypeString(ctx->expected_output_dtype(i))));
    }
    ctx->set_output(i, std::move(rets[i]));
  }
  return absl::OkStatus();
}

// TensorFlow's truth of a condition: a scalar's value (a string: not
// empty); any other tensor: whether it has elements.
absl::StatusOr<bool> ToBool(const Tensor& t) {
  if (t.dims() > 0) return t.NumElements() > 0;
  switch (t.dtype()) {
    case DT_BOOL:
      return *t.data<bool>();
    case DT_FLOAT:
      return *t.data<float>() != 0;
    case DT_DOUBLE:
      return *t.data<double>() != 0;
    case DT_INT32:
      return *t.data<int32_t>() != 0;
    case DT_INT64:
      return *t.data<int64_t>() != 0;
    case DT_STRING:
      return !t.data<std::string>()->empty();
    default:
      return absl::InvalidArgumentError(
          absl::StrCat("cannot take the truth of a ", DataTypeString(t.dtype()), " scalar"));
  }
}

class PartitionedCallOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    MG_ASSIGN_OR_RETURN(f_, RunnerFor(c, "f"));
    return absl::OkStatus();
  }
  absl::Status Compute(OpKernelContext* ctx) const override {
    std::vector<Tensor> rets;
    MG_RETURN_IF_ERROR(f_->Run(ctx, Inputs(ctx, 0), &rets));
    return SetOutputs(ctx, *f_, std::move(rets));
  }

 private:
  std::unique_ptr<FunctionRunner> f_;
};

class IfOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    MG_ASSIGN_OR_RETURN(then_, RunnerFor(c, "then_branch"));
    MG_ASSIGN_OR_RETURN(else_, RunnerFor(c, "else_branch"));
    return absl::OkStatus();
  }
  absl::Status Compute(OpKernelContext* ctx) const override {
    MG_ASSIGN_OR_RETURN(bool cond, ToBool(ctx->input(0)));
    const FunctionRunner& branch = cond ? *then_ : *else_;
    std::vector<Tensor> rets;
    MG_RETURN_IF_ERROR(branch.Run(ctx, Inputs(ctx, 1), &rets));
    return SetOutputs(ctx, branch, std::move(rets));
  }

 private:
  std::unique_ptr<FunctionRunner> then_, else_;
};

// cond(values) decides whether body(values) replaces the values again.
class WhileOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    MG_ASSIGN_OR_RETURN(cond_, RunnerFor(c, "cond"));
    MG_ASSIGN_OR_RETURN(body_, RunnerFor(c, "body"));
    return absl::OkStatus();
  }
  absl::Status Compute(OpKernelContext* ctx) const override {
    std::vector<Tensor> values = Inputs(ctx, 0);
    for (;;) {
      if (ctx->cancelled()) return absl::CancelledError("the step was cancelled");
      if (absl::Now() > ctx->step_context().deadline) {
        return absl::DeadlineExceededError(
            absl::StrCat("step timed out in While (condition '", cond_->function().name, "')"));
      }
      std::vector<Tensor> c;
      MG_RETURN_IF_ERROR(cond_->Run(ctx, values, &c));
      if (c.size() != 1) {
        return absl::InvalidArgumentError(absl::StrCat("While condition '", cond_->function().name,
                                                       "' must return one value, returned ",
                                                       c.size()));
      }
      MG_ASSIGN_OR_RETURN(bool go_on, ToBool(c[0]));
      if (!go_on) break;
      std::vector<Tensor> next;
      MG_RETURN_IF_ERROR(body_->Run(ctx, values, &next));
      if (next.size() != values.size()) {
        return absl::InvalidArgumentError(absl::StrCat("While body '", body_->function().name,
                                                       "' returned ", next.size(), " values for ",
                                                       values.size(), " loop variables"));
      }
      values = std::move(next);
    }
    return SetOutputs(ctx, *body_, std::move(values));
  }

 private:
  std::unique_ptr<FunctionRunner> cond_, body_;
};

// PyFunc, PyFuncStateless and EagerPyFunc: a Python function, which only
// the Python process that built the graph can call. A step that reaches one
// fails naming it; the rest of the graph runs.
class PythonFunctionOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    MG_RETURN_IF_ERROR(c->GetAttr("token", &token_));
    return absl::OkStatus();
  }
  absl::Status Compute(OpKernelContext*) const override {
    return absl::UnimplementedError(absl::StrCat(
        "node '", name(), "' (", type_string(), ") calls a Python function (token '", token_,
        "'), which needs Python: only the Python process that built the graph can run it, as "
        "in TensorFlow's C++ runtime"));
  }

 private:
  std::string token_;
};

}  // namespace

void RegisterFunctionalKernels(KernelRegistry* r) {
  r->Register("PyFunc", MakeFactory<PythonFunctionOp>());
  r->Register("PyFuncStateless", MakeFactory<PythonFunctionOp>());
  r->Register("EagerPyFunc", MakeFactory<PythonFunctionOp>());
  r->Register("PartitionedCall", MakeFactory<PartitionedCallOp>());
  r->Register("StatefulPartitionedCall", MakeFactory<PartitionedCallOp>());
  r->Register("If", MakeFactory<IfOp>());
  r->Register("StatelessIf", MakeFactory<IfOp>());
  r->Register("While", MakeFactory<WhileOp>());
  r->Register("StatelessWhile", MakeFactory<WhileOp>());
}

}  // namespace kernels_internal
}  // namespace minigraph
