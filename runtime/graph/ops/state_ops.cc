// Variables and their updates.
#include "absl/strings/str_cat.h"
#include "runtime/graph/op_def_builder.h"
#include "runtime/graph/ops/internal/op_families.h"
#include "runtime/graph/ops/internal/op_macros.h"
#include "runtime/graph/shape_inference.h"

namespace minigraph {
namespace ops_internal {
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

// TensorFlow 1's ref variables.
void RegisterRefVariableOps(OpRegistry* r) {
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

// Resource variables.
void RegisterResourceVariableOps(OpRegistry* r) {
  // Resource variables (TensorFlow 2's, and TensorFlow 1's with
  // use_resource=True): a VarHandleOp's output names the variable (a scalar
  // DT_RESOURCE); the ops below find it by that name. A read is a snapshot.
  // Shape inference carries the variable's shape on the handle
  // (InferenceContext::input).
  MG_REGISTER_OP(r, OpDefBuilder("VarHandleOp")
                        .Output("resource: resource")
                        .Attr("container: string = \"\"")
                        .Attr("shared_name: string = \"\"")
                        .Attr("debug_name: string = \"\"")
                        .Attr("dtype: type")
                        .Attr("shape: shape")
                        .Attr("allowed_devices: list(string) = []")
                        .SetIsStateful()
                        .SetShapeFn([](InferenceContext* c) {
                          MG_ASSIGN_OR_RETURN(PartialShape s, c->GetAttr<PartialShape>("shape"));
                          c->set_output(0, s);
                          return absl::OkStatus();
                        }));
  MG_REGISTER_OP(r, OpDefBuilder("ReadVariableOp")
                        .Input("resource: resource")
                        .Output("value: dtype")
                        .Attr("dtype: type")
                        .SetIsStateful()
                        .SetShapeFn(shape_fn::Unchanged));
  MG_REGISTER_OP(r, OpDefBuilder("AssignVariableOp")
                        .Input("resource: resource")
                        .Input("value: dtype")
                        .Attr("dtype: type")
                        .Attr("validate_shape: bool = false")
                        .SetIsStateful()
                        .SetShapeFn(shape_fn::Unknown));
  for (const char* op : {"AssignAddVariableOp", "AssignSubVariableOp"}) {
    MG_REGISTER_OP(r, OpDefBuilder(op)
                          .Input("resource: resource")
                          .Input("value: dtype")
                          .Attr("dtype: type")
                          .SetIsStateful()
                          .SetShapeFn(shape_fn::Unknown));
  }
  MG_REGISTER_OP(r, OpDefBuilder("VarIsInitializedOp")
                        .Input("resource: resource")
                        .Output("is_initialized: bool")
                        .SetIsStateful()
                        .SetShapeFn(shape_fn::Scalar));
  MG_REGISTER_OP(r, OpDefBuilder("VariableShape")
                        .Input("input: resource")
                        .Output("output: out_type")
                        .Attr("out_type: {int32, int64} = DT_INT32")
                        .SetIsStateful()
                        .SetShapeFn([](InferenceContext* c) {
                          c->set_output(0, PartialShape({c->input(0).rank()}));
                          return absl::OkStatus();
                        }));
  MG_REGISTER_OP(r, OpDefBuilder("ResourceGather")
                        .Input("resource: resource")
                        .Input("indices: Tindices")
                        .Output("output: dtype")
                        .Attr("batch_dims: int = 0")
                        .Attr("validate_indices: bool = true")
                        .Attr("dtype: type")
                        .Attr("Tindices: {int32, int64}")
                        .SetIsStateful()
                        .SetShapeFn([](InferenceContext* c) {
                          const PartialShape& params = c->input(0);
                          const PartialShape& indices = c->input(1);
                          if (!params.rank_known() || !indices.rank_known()) {
                            c->set_output(0, PartialShape());
                            return absl::OkStatus();
                          }
                          if (params.rank() == 0) {
                            return c->Error("ResourceGather needs a variable of rank >= 1");
                          }
                          std::vector<int64_t> dims = indices.dims();
                          dims.insert(dims.end(), params.dims().begin() + 1, params.dims().end());
                          c->set_output(0, PartialShape(dims));
                          return absl::OkStatus();
                        }));
  // Turns off a copy-on-read mode TensorFlow's variables have and ours do
  // not need (a read here is a snapshot); fails for a missing variable.
  MG_REGISTER_OP(r, OpDefBuilder("DisableCopyOnRead")
                        .Input("resource: resource")
                        .SetIsStateful()
                        .SetShapeFn(shape_fn::Unknown));
  MG_REGISTER_OP(r, OpDefBuilder("DestroyResourceOp")
                        .Input("resource: resource")
                        .Attr("ignore_lookup_error: bool = true")
                        .SetIsStateful()
                        .SetShapeFn(shape_fn::Unknown));
}

}  // namespace

void RegisterStateOps(OpRegistry* r) {
  RegisterRefVariableOps(r);
  RegisterResourceVariableOps(r);
}

}  // namespace ops_internal
}  // namespace minigraph
