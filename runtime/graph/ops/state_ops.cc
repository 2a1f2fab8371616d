// Variables and their updates.
#include "absl/strings/str_cat.h"
#include "runtime/graph/op_def_builder.h"
#include "runtime/graph/ops/internal/op_macros.h"
#include "runtime/graph/ops/standard_ops.h"
#include "runtime/graph/shape_inference.h"

namespace minigraph {
namespace {

absl::Status AssignShape(InferenceContext* c) {
  MG_ASSIGN_OR_RETURN(bool validate, c->GetAttr<bool>("validate_shape"));
  if (validate) {
    auto merged = PartialShape::Merge(c->input(0), c->input(1));
    if (!merged.ok()) {
      return c->Error(absl::StrCat("Assign requires shapes of both tensors to match: ",
                                   merged.status().message()));
    }
    c->set_output(0, *merged);
  } else {
    c->set_output(0, c->input(1));
  }
  return absl::OkStatus();
}

absl::Status UpdateShape(InferenceContext* c) {
  auto merged = PartialShape::Merge(c->input(0), c->input(1));
  if (!merged.ok()) {
    return c->Error(
        absl::StrCat("update shape does not match the variable: ", merged.status().message()));
  }
  c->set_output(0, *merged);
  return absl::OkStatus();
}

}  // namespace

void RegisterStateOps(OpRegistry* r) {
  // Variable is VariableV2's name before TensorFlow 1.0's graphs.
  for (const char* op : {"VariableV2", "Variable"}) {
    MG_REGISTER_OP(r, OpDefBuilder(op)
                          .Output("ref: Ref(dtype)")
                          .Attr("shape: shape")
                          .Attr("dtype: type")
                          .Attr("container: string = \"\"")
                          .Attr("shared_name: string = \"\"")
                          .SetIsStateful()
                          .SetShapeFn([](InferenceContext* c) {
                            MG_ASSIGN_OR_RETURN(PartialShape s, c->GetAttr<PartialShape>("shape"));
                            c->set_output(0, s);
                            return absl::OkStatus();
                          }));
  }
  MG_REGISTER_OP(r, OpDefBuilder("Assign")
                        .Input("ref: Ref(T)")
                        .Input("value: T")
                        .Output("output_ref: Ref(T)")
                        .Attr("T: type")
                        .Attr("validate_shape: bool = true")
                        .Attr("use_locking: bool = true")
                        .SetAllowsUninitializedInput()
                        .SetShapeFn(AssignShape));
  for (const char* op : {"AssignAdd", "AssignSub"}) {
    MG_REGISTER_OP(r, OpDefBuilder(op)
                          .Input("ref: Ref(T)")
                          .Input("value: T")
                          .Output("output_ref: Ref(T)")
                          .Attr("T: {float, double, int32, int64}")
                          .Attr("use_locking: bool = false")
                          .SetShapeFn(UpdateShape));
  }
  MG_REGISTER_OP(r, OpDefBuilder("IsVariableInitialized")
                        .Input("ref: Ref(dtype)")
                        .Output("is_initialized: bool")
                        .Attr("dtype: type")
                        .SetAllowsUninitializedInput()
                        .SetShapeFn(shape_fn::Scalar));
}

}  // namespace minigraph
