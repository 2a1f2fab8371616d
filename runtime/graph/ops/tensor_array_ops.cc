// TensorArrays and stacks: TensorFlow 1's per-step containers of tensors,
// with TensorFlow's signatures. TensorArrays are tf.TensorArray in graph
// mode (what dynamic_rnn accumulates into); a TensorArray handle's inferred
// shape is its element shape (as a variable handle's is the variable's),
// and the float "flow" orders the ops that use one array. Stacks are where
// the gradient of a TensorFlow 1 while loop keeps each iteration's values
// (pushed going forward, popped going back).
#include <vector>

#include "runtime/graph/op_def_builder.h"
#include "runtime/graph/ops/internal/op_families.h"
#include "runtime/graph/ops/internal/op_macros.h"
#include "runtime/graph/shape_inference.h"

namespace minigraph {
namespace ops_internal {

namespace {

// Requires input `i` (a scalar argument: index, size, flow) to be a scalar.
absl::Status ScalarInput(InferenceContext* c, int i) { return c->WithRank(i, 0).status(); }

absl::Status ArrayShape(InferenceContext* c) {
  MG_RETURN_IF_ERROR(ScalarInput(c, 0));
  MG_ASSIGN_OR_RETURN(PartialShape element, c->GetAttr<PartialShape>("element_shape"));
  c->set_output(0, element);
  c->set_output(1, PartialShape::Scalar());
  return absl::OkStatus();
}

absl::Status GradShape(InferenceContext* c) {
  c->set_output(0, c->input(0));
  c->set_output(1, PartialShape::Scalar());
  return absl::OkStatus();
}

// Write, Scatter and Split: the flow out; `scalars` are the inputs that
// must be scalars.
absl::Status FlowOut(InferenceContext* c, std::vector<int> scalars) {
  for (int i : scalars) MG_RETURN_IF_ERROR(ScalarInput(c, i));
  c->set_output(0, PartialShape::Scalar());
  return absl::OkStatus();
}

absl::Status ReadShape(InferenceContext* c) {
  MG_RETURN_IF_ERROR(ScalarInput(c, 1));
  MG_RETURN_IF_ERROR(ScalarInput(c, 2));
  c->set_output(0, c->input(0));
  return absl::OkStatus();
}

// [number of indices] + the element shape (the attr's merged with the
// handle's).
absl::Status GatherShape(InferenceContext* c) {
  MG_ASSIGN_OR_RETURN(PartialShape indices, c->WithRank(1, 1));
  MG_RETURN_IF_ERROR(ScalarInput(c, 2));
  MG_ASSIGN_OR_RETURN(PartialShape attr, c->GetAttr<PartialShape>("element_shape"));
  absl::StatusOr<PartialShape> element = PartialShape::Merge(attr, c->input(0));
  if (!element.ok()) element = attr;
  if (!element->rank_known()) return shape_fn::Unknown(c);
  std::vector<int64_t> dims = {indices.rank_known() ? indices.dim(0) : -1};
  dims.insert(dims.end(), element->dims().begin(), element->dims().end());
  c->set_output(0, PartialShape(std::move(dims)));
  return absl::OkStatus();
}

// [?] + element_shape_except0 when its rank is known; lengths is a vector.
absl::Status ConcatShape(InferenceContext* c) {
  MG_RETURN_IF_ERROR(ScalarInput(c, 1));
  MG_ASSIGN_OR_RETURN(PartialShape except0, c->GetAttr<PartialShape>("element_shape_except0"));
  if (except0.rank_known()) {
    std::vector<int64_t> dims = {-1};
    dims.insert(dims.end(), except0.dims().begin(), except0.dims().end());
    c->set_output(0, PartialShape(std::move(dims)));
  }
  c->set_output(1, PartialShape({-1}));
  return absl::OkStatus();
}

// TensorFlow 1's TensorArray ops (V3).
void RegisterTensorArrayV3Ops(OpRegistry* r) {
  MG_REGISTER_OP(r, OpDefBuilder("TensorArrayV3")
                        .Input("size: int32")
                        .Output("handle: resource")
                        .Output("flow: float")
                        .Attr("dtype: type")
                        .Attr("element_shape: shape = unknown")
                        .Attr("dynamic_size: bool = false")
                        .Attr("clear_after_read: bool = true")
                        .Attr("identical_element_shapes: bool = false")
                        .Attr("tensor_array_name: string = \"\"")
                        .SetIsStateful()
                        .SetShapeFn(ArrayShape));
  MG_REGISTER_OP(r, OpDefBuilder("TensorArrayGradV3")
                        .Input("handle: resource")
                        .Input("flow_in: float")
                        .Output("grad_handle: resource")
                        .Output("flow_out: float")
                        .Attr("source: string")
                        .SetIsStateful()
                        .SetShapeFn(GradShape));
  MG_REGISTER_OP(r, OpDefBuilder("TensorArrayWriteV3")
                        .Input("handle: resource")
                        .Input("index: int32")
                        .Input("value: T")
                        .Input("flow_in: float")
                        .Output("flow_out: float")
                        .Attr("T: type")
                        .SetIsStateful()
                        .SetShapeFn([](InferenceContext* c) {
                          return FlowOut(c, {1, 3});
                        }));
  MG_REGISTER_OP(r, OpDefBuilder("TensorArrayReadV3")
                        .Input("handle: resource")
                        .Input("index: int32")
                        .Input("flow_in: float")
                        .Output("value: dtype")
                        .Attr("dtype: type")
                        .SetIsStateful()
                        .SetShapeFn(ReadShape));
  MG_REGISTER_OP(r, OpDefBuilder("TensorArrayGatherV3")
                        .Input("handle: resource")
                        .Input("indices: int32")
                        .Input("flow_in: float")
                        .Output("value: dtype")
                        .Attr("dtype: type")
                        .Attr("element_shape: shape = unknown")
                        .SetIsStateful()
                        .SetShapeFn(GatherShape));
  MG_REGISTER_OP(r, OpDefBuilder("TensorArrayScatterV3")
                        .Input("handle: resource")
                        .Input("indices: int32")
                        .Input("value: T")
                        .Input("flow_in: float")
                        .Output("flow_out: float")
                        .Attr("T: type")
                        .SetIsStateful()
                        .SetShapeFn([](InferenceContext* c) {
                          MG_RETURN_IF_ERROR(c->WithRank(1, 1).status());
                          return FlowOut(c, {3});
                        }));
  MG_REGISTER_OP(r, OpDefBuilder("TensorArrayConcatV3")
                        .Input("handle: resource")
                        .Input("flow_in: float")
                        .Output("value: dtype")
                        .Output("lengths: int64")
                        .Attr("dtype: type")
                        .Attr("element_shape_except0: shape = unknown")
                        .SetIsStateful()
                        .SetShapeFn(ConcatShape));
  MG_REGISTER_OP(r, OpDefBuilder("TensorArraySplitV3")
                        .Input("handle: resource")
                        .Input("value: T")
                        .Input("lengths: int64")
                        .Input("flow_in: float")
                        .Output("flow_out: float")
                        .Attr("T: type")
                        .SetIsStateful()
                        .SetShapeFn([](InferenceContext* c) {
                          MG_RETURN_IF_ERROR(c->WithRank(2, 1).status());
                          return FlowOut(c, {3});
                        }));
  MG_REGISTER_OP(r, OpDefBuilder("TensorArraySizeV3")
                        .Input("handle: resource")
                        .Input("flow_in: float")
                        .Output("size: int32")
                        .SetIsStateful()
                        .SetShapeFn([](InferenceContext* c) {
                          MG_RETURN_IF_ERROR(ScalarInput(c, 1));
                          return shape_fn::Scalar(c);
                        }));
  MG_REGISTER_OP(r, OpDefBuilder("TensorArrayCloseV3")
                        .Input("handle: resource")
                        .SetIsStateful()
                        .SetShapeFn(shape_fn::Unknown));

  MG_REGISTER_OP(r, OpDefBuilder("TensorArrayGradWithShape")
                        .Input("handle: resource")
                        .Input("flow_in: float")
                        .Input("shape_to_prepend: int32")
                        .Output("grad_handle: resource")
                        .Output("flow_out: float")
                        .Attr("source: string")
                        .SetIsStateful()
                        .SetShapeFn(GradShape));
}

// The TensorArray ops of TensorFlow before 1.0.
void RegisterTensorArrayV2Ops(OpRegistry* r) {
  // The ops of TensorFlow before 1.0 (GraphDef versions up to 25): the
  // handle is a string vector (container, name) and the array has no flow
  // output of its own. The V3 kernels run them.
  const auto handle_v2 = [](InferenceContext* c) {
    c->set_output(0, PartialShape({2}));
    return absl::OkStatus();
  };
  const char* kUseV3 = "Use TensorArrayV3";
  MG_REGISTER_OP(r, OpDefBuilder("TensorArrayV2")
                        .Input("size: int32")
                        .Output("handle: string")
                        .Attr("dtype: type")
                        .Attr("element_shape: shape = unknown")
                        .Attr("dynamic_size: bool = false")
                        .Attr("clear_after_read: bool = true")
                        .Attr("tensor_array_name: string = \"\"")
                        .SetIsStateful()
                        .Deprecated(26, kUseV3)
                        .SetShapeFn(handle_v2));
  MG_REGISTER_OP(r, OpDefBuilder("TensorArrayGradV2")
                        .Input("handle: string")
                        .Input("flow_in: float")
                        .Output("grad_handle: string")
                        .Attr("source: string")
                        .SetIsStateful()
                        .Deprecated(26, "Use TensorArrayGradV3")
                        .SetShapeFn(handle_v2));
  MG_REGISTER_OP(r, OpDefBuilder("TensorArrayWriteV2")
                        .Input("handle: string")
                        .Input("index: int32")
                        .Input("value: T")
                        .Input("flow_in: float")
                        .Output("flow_out: float")
                        .Attr("T: type")
                        .Deprecated(26, "Use TensorArrayWriteV3")
                        .SetShapeFn([](InferenceContext* c) { return FlowOut(c, {1, 3}); }));
  MG_REGISTER_OP(r, OpDefBuilder("TensorArrayReadV2")
                        .Input("handle: string")
                        .Input("index: int32")
                        .Input("flow_in: float")
                        .Output("value: dtype")
                        .Attr("dtype: type")
                        .Deprecated(26, "Use TensorArrayReadV3")
                        .SetShapeFn(shape_fn::Unknown));
  MG_REGISTER_OP(r, OpDefBuilder("TensorArrayGatherV2")
                        .Input("handle: string")
                        .Input("indices: int32")
                        .Input("flow_in: float")
                        .Output("value: dtype")
                        .Attr("dtype: type")
                        .Attr("element_shape: shape = unknown")
                        .Deprecated(26, "Use TensorArrayGatherV3")
                        .SetShapeFn(shape_fn::Unknown));
  MG_REGISTER_OP(r, OpDefBuilder("TensorArrayScatterV2")
                        .Input("handle: string")
                        .Input("indices: int32")
                        .Input("value: T")
                        .Input("flow_in: float")
                        .Output("flow_out: float")
                        .Attr("T: type")
                        .Deprecated(26, "Use TensorArrayScatterV3")
                        .SetShapeFn([](InferenceContext* c) { return FlowOut(c, {3}); }));
  MG_REGISTER_OP(r, OpDefBuilder("TensorArrayConcatV2")
                        .Input("handle: string")
                        .Input("flow_in: float")
                        .Output("value: dtype")
                        .Output("lengths: int64")
                        .Attr("dtype: type")
                        .Attr("element_shape_except0: shape = unknown")
                        .SetShapeFn(ConcatShape));
  MG_REGISTER_OP(r, OpDefBuilder("TensorArraySplitV2")
                        .Input("handle: string")
                        .Input("value: T")
                        .Input("lengths: int64")
                        .Input("flow_in: float")
                        .Output("flow_out: float")
                        .Attr("T: type")
                        .Deprecated(26, "Use TensorArraySplitV3")
                        .SetShapeFn([](InferenceContext* c) { return FlowOut(c, {3}); }));
  MG_REGISTER_OP(r, OpDefBuilder("TensorArraySizeV2")
                        .Input("handle: string")
                        .Input("flow_in: float")
                        .Output("size: int32")
                        .Deprecated(26, "Use TensorArraySizeV3")
                        .SetShapeFn([](InferenceContext* c) {
                          MG_RETURN_IF_ERROR(ScalarInput(c, 1));
                          return shape_fn::Scalar(c);
                        }));
  MG_REGISTER_OP(r, OpDefBuilder("TensorArrayCloseV2")
                        .Input("handle: string")
                        .Deprecated(26, "Use TensorArrayCloseV3")
                        .SetShapeFn(shape_fn::Unknown));
}

// TensorFlow 1's stacks.
void RegisterStackOps(OpRegistry* r) {
  // TensorFlow 1's first stacks: the handle is a reference to a string
  // vector (container, name), as the V2 TensorArray's.
  MG_REGISTER_OP(r, OpDefBuilder("Stack")
                        .Output("handle: Ref(string)")
                        .Attr("elem_type: type")
                        .Attr("stack_name: string = \"\"")
                        .SetIsStateful()
                        .SetShapeFn(shape_fn::Unknown));
  MG_REGISTER_OP(r, OpDefBuilder("StackPush")
                        .Input("handle: Ref(string)")
                        .Input("elem: T")
                        .Output("output: T")
                        .Attr("T: type")
                        .Attr("swap_memory: bool = false")
                        .SetShapeFn([](InferenceContext* c) {
                          c->set_output(0, c->input(1));
                          return absl::OkStatus();
                        }));
  MG_REGISTER_OP(r, OpDefBuilder("StackPop")
                        .Input("handle: Ref(string)")
                        .Output("elem: elem_type")
                        .Attr("elem_type: type")
                        .SetShapeFn(shape_fn::Unknown));
  MG_REGISTER_OP(r, OpDefBuilder("StackClose")
                        .Input("handle: Ref(string)")
                        .SetShapeFn(shape_fn::Unknown));

  MG_REGISTER_OP(r, OpDefBuilder("StackV2")
                        .Input("max_size: int32")
                        .Output("handle: resource")
                        .Attr("elem_type: type")
                        .Attr("stack_name: string = \"\"")
                        .SetIsStateful()
                        .SetShapeFn([](InferenceContext* c) {
                          MG_RETURN_IF_ERROR(ScalarInput(c, 0));
                          return shape_fn::Unknown(c);
                        }));
  MG_REGISTER_OP(r, OpDefBuilder("StackPushV2")
                        .Input("handle: resource")
                        .Input("elem: T")
                        .Output("output: T")
                        .Attr("T: type")
                        .Attr("swap_memory: bool = false")
                        .SetIsStateful()
                        .SetShapeFn([](InferenceContext* c) {
                          c->set_output(0, c->input(1));
                          return absl::OkStatus();
                        }));
  MG_REGISTER_OP(r, OpDefBuilder("StackPopV2")
                        .Input("handle: resource")
                        .Output("elem: elem_type")
                        .Attr("elem_type: type")
                        .SetIsStateful()
                        .SetShapeFn(shape_fn::Unknown));
  MG_REGISTER_OP(r, OpDefBuilder("StackCloseV2")
                        .Input("handle: resource")
                        .SetIsStateful()
                        .SetShapeFn(shape_fn::Unknown));
}

}  // namespace

void RegisterTensorArrayOps(OpRegistry* r) {
  RegisterTensorArrayV3Ops(r);
  RegisterTensorArrayV2Ops(r);
  RegisterStackOps(r);
}

}  // namespace ops_internal
}  // namespace minigraph
