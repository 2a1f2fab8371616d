// Switch and Merge: TensorFlow's primitives for cond (deadness-based
// control flow; see runtime/executor.h).
#include "runtime/op_def_builder.h"
#include "runtime/ops/op_macros.h"
#include "runtime/ops/standard_ops.h"
#include "runtime/shape_inference.h"

namespace minigraph {
namespace {

absl::Status SwitchShape(InferenceContext* c) {
  c->set_output(0, c->input(0));
  c->set_output(1, c->input(0));
  return absl::OkStatus();
}

absl::Status MergeShape(InferenceContext* c) {
  PartialShape s = c->input(0);
  for (int i = 1; i < c->num_inputs(); ++i) {
    auto merged = PartialShape::Merge(s, c->input(i));
    s = merged.ok() ? *merged : PartialShape();
  }
  c->set_output(0, s);
  c->set_output(1, PartialShape::Scalar());
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
}

}  // namespace minigraph
