// TensorFlow's control-flow primitives: Switch and Merge (cond), and
// Enter, Exit, NextIteration and LoopCond (while loops). The executor gives
// them their meaning (see runtime/executor.h); their kernels only forward.
#include "absl/strings/str_cat.h"
#include "runtime/graph/op_def_builder.h"
#include "runtime/graph/ops/internal/op_families.h"
#include "runtime/graph/ops/internal/op_macros.h"
#include "runtime/graph/shape_inference.h"

namespace minigraph {
namespace ops_internal {
namespace {

absl::Status SwitchShape(InferenceContext* c) {
  c->set_output(0, c->input(0));
  c->set_output(1, c->input(0));
  return absl::OkStatus();
}

// The most general shape of the inputs, as TensorFlow's: any input may be
// the one that arrives (a loop's back edge has an unknown shape).
absl::Status MergeShape(InferenceContext* c) {
  PartialShape s = c->input(0);
  for (int i = 1; i < c->num_inputs() && s.rank_known(); ++i) {
    const PartialShape& in = c->input(i);
    if (in.rank() != s.rank()) {
      s = PartialShape();
      break;
    }
    std::vector<int64_t> dims = s.dims();
    for (int d = 0; d < in.rank(); ++d) {
      if (dims[d] != in.dim(d)) dims[d] = -1;
    }
    s = PartialShape(std::move(dims));
  }
  c->set_output(0, s);
  c->set_output(1, PartialShape::Scalar());
  return absl::OkStatus();
}

absl::Status ForwardShape(InferenceContext* c) {
  c->set_output(0, c->input(0));
  return absl::OkStatus();
}

absl::Status LoopCondShape(InferenceContext* c) {
  if (c->input(0).rank_known() && c->input(0).rank() != 0) {
    return absl::InvalidArgumentError(absl::StrCat("LoopCond input must be a scalar, got shape ",
                                                   c->input(0).DebugString()));
  }
  c->set_output(0, PartialShape::Scalar());
  return absl::OkStatus();
}

}  // namespace

void RegisterControlFlowOps(OpRegistry* r) {
  MG_REGISTER_OP(r, OpDefBuilder("Switch")
                        .Input("data: T")
                        .Input("pred: bool")
                        .Output("output_false: T")
                        .Output("output_true: T")
                        .Attr("T: type")
                        .SetShapeFn(SwitchShape));
  MG_REGISTER_OP(r, OpDefBuilder("RefSwitch")
                        .Input("data: Ref(T)")
                        .Input("pred: bool")
                        .Output("output_false: Ref(T)")
                        .Output("output_true: Ref(T)")
                        .Attr("T: type")
                        .SetAllowsUninitializedInput()
                        .SetShapeFn(SwitchShape));
  MG_REGISTER_OP(r, OpDefBuilder("Merge")
                        .Input("inputs: N * T")
                        .Output("output: T")
                        .Output("value_index: int32")
                        .Attr("T: type")
                        .Attr("N: int >= 1")
                        .SetShapeFn(MergeShape));
  MG_REGISTER_OP(r, OpDefBuilder("RefMerge")
                        .Input("inputs: Ref(N * T)")
                        .Output("output: Ref(T)")
                        .Output("value_index: int32")
                        .Attr("T: type")
                        .Attr("N: int >= 1")
                        .SetShapeFn(MergeShape));
  // Enter makes its input available in the child frame `frame_name` (every
  // iteration of it when is_constant); Exit returns a value to the parent
  // frame; NextIteration passes one to the next iteration; LoopCond marks a
  // loop's predicate.
  for (const bool ref : {false, true}) {
    const std::string in = ref ? "data: Ref(T)" : "data: T";
    const std::string out = ref ? "output: Ref(T)" : "output: T";
    const std::string prefix = ref ? "Ref" : "";
    MG_REGISTER_OP(r, OpDefBuilder(prefix + "Enter")
                          .Input(in)
                          .Output(out)
                          .Attr("T: type")
                          .Attr("frame_name: string")
                          .Attr("is_constant: bool = false")
                          .Attr("parallel_iterations: int = 10")
                          .SetShapeFn(ForwardShape));
    MG_REGISTER_OP(r, OpDefBuilder(prefix + "Exit")
                          .Input(in)
                          .Output(out)
                          .Attr("T: type")
                          .SetShapeFn(ForwardShape));
    MG_REGISTER_OP(r, OpDefBuilder(prefix + "NextIteration")
                          .Input(in)
                          .Output(out)
                          .Attr("T: type")
                          .SetShapeFn(ForwardShape));
  }
  // Does nothing, and runs even when its (control) inputs are dead: a
  // point to order other ops after, inside while loops.
  MG_REGISTER_OP(r, OpDefBuilder("ControlTrigger").SetShapeFn(shape_fn::Unknown));
  MG_REGISTER_OP(r, OpDefBuilder("LoopCond")
                        .Input("input: bool")
                        .Output("output: bool")
                        .SetShapeFn(LoopCondShape));
  // Fails the step with "assertion failed: [data...]" when `condition` is
  // false (TensorFlow's logging op).
  MG_REGISTER_OP(r, OpDefBuilder("Assert")
                        .Input("condition: bool")
                        .Input("data: T")
                        .Attr("T: list(type) >= 1")
                        .Attr("summarize: int = 3")
                        .SetIsStateful()
                        .SetShapeFn(shape_fn::Unknown));
}

}  // namespace ops_internal
}  // namespace minigraph
