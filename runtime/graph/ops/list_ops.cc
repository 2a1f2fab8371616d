// TensorLists: the DT_VARIANT lists of tensors TensorFlow 2 builds
// TensorArrays from (tf.TensorArray, Keras' recurrent layers, while loops
// that gather a result per iteration), with TensorFlow's signatures.
#include <algorithm>
#include <vector>

#include "runtime/graph/op_def_builder.h"
#include "runtime/graph/ops/internal/op_families.h"
#include "runtime/graph/ops/internal/op_macros.h"
#include "runtime/graph/shape_inference.h"

namespace minigraph {
namespace ops_internal {

namespace {

// [num_elements, element_shape...] when element_shape is a constant vector
// (-1 for a size it leaves open); unknown otherwise, as for a -1 scalar.
absl::Status StackShape(InferenceContext* c) {
  const Tensor* shape = c->input_tensor(1);
  if (shape == nullptr || shape->dtype() != DT_INT32 || shape->dims() != 1) {
    return shape_fn::Unknown(c);
  }
  int64_t n = -1;
  auto it = c->node_def().attr().find("num_elements");
  if (it != c->node_def().attr().end()) n = it->second.i();
  std::vector<int64_t> dims = {n < 0 ? -1 : n};
  for (int64_t i = 0; i < shape->NumElements(); ++i) {
    dims.push_back(std::max<int64_t>(shape->data<int32_t>()[i], -1));
  }
  c->set_output(0, PartialShape(std::move(dims)));
  return absl::OkStatus();
}

}  // namespace

void RegisterListOps(OpRegistry* r) {
  MG_REGISTER_OP(r, OpDefBuilder("EmptyTensorList")
                        .Input("element_shape: shape_type")
                        .Input("max_num_elements: int32")
                        .Output("handle: variant")
                        .Attr("element_dtype: type")
                        .Attr("shape_type: {int32, int64}")
                        .SetShapeFn(shape_fn::Scalar));
  MG_REGISTER_OP(r, OpDefBuilder("TensorListReserve")
                        .Input("element_shape: shape_type")
                        .Input("num_elements: int32")
                        .Output("handle: variant")
                        .Attr("element_dtype: type")
                        .Attr("shape_type: {int32, int64}")
                        .SetShapeFn(shape_fn::Scalar));
  MG_REGISTER_OP(r, OpDefBuilder("TensorListFromTensor")
                        .Input("tensor: element_dtype")
                        .Input("element_shape: shape_type")
                        .Output("output_handle: variant")
                        .Attr("element_dtype: type")
                        .Attr("shape_type: {int32, int64}")
                        .SetShapeFn(shape_fn::Scalar));
  MG_REGISTER_OP(r, OpDefBuilder("TensorListElementShape")
                        .Input("input_handle: variant")
                        .Output("element_shape: shape_type")
                        .Attr("shape_type: {int32, int64}")
                        .SetShapeFn(shape_fn::Unknown));
  MG_REGISTER_OP(r, OpDefBuilder("TensorListLength")
                        .Input("input_handle: variant")
                        .Output("length: int32")
                        .SetShapeFn(shape_fn::Scalar));
  MG_REGISTER_OP(r, OpDefBuilder("TensorListGetItem")
                        .Input("input_handle: variant")
                        .Input("index: int32")
                        .Input("element_shape: Tshape")
                        .Output("item: element_dtype")
                        .Attr("element_dtype: type")
                        .Attr("Tshape: {int32, int64} = DT_INT32")
                        .SetShapeFn(shape_fn::Unknown));
  MG_REGISTER_OP(r, OpDefBuilder("TensorListSetItem")
                        .Input("input_handle: variant")
                        .Input("index: int32")
                        .Input("item: element_dtype")
                        .Output("output_handle: variant")
                        .Attr("element_dtype: type")
                        .Attr("resize_if_index_out_of_bounds: bool = false")
                        .SetShapeFn(shape_fn::Scalar));
  MG_REGISTER_OP(r, OpDefBuilder("TensorListPushBack")
                        .Input("input_handle: variant")
                        .Input("tensor: element_dtype")
                        .Output("output_handle: variant")
                        .Attr("element_dtype: type")
                        .SetShapeFn(shape_fn::Scalar));
  MG_REGISTER_OP(r, OpDefBuilder("TensorListPopBack")
                        .Input("input_handle: variant")
                        .Input("element_shape: int32")
                        .Output("output_handle: variant")
                        .Output("tensor: element_dtype")
                        .Attr("element_dtype: type")
                        .SetShapeFn([](InferenceContext* c) {
                          // The element: element_shape, when a constant
                          // vector (-1 for a size it leaves open).
                          c->set_output(0, PartialShape::Scalar());
                          const Tensor* shape = c->input_tensor(1);
                          if (shape == nullptr || shape->dims() != 1) {
                            c->set_output(1, PartialShape());
                            return absl::OkStatus();
                          }
                          std::vector<int64_t> dims;
                          for (int64_t i = 0; i < shape->NumElements(); ++i) {
                            dims.push_back(std::max<int64_t>(shape->data<int32_t>()[i], -1));
                          }
                          c->set_output(1, PartialShape(std::move(dims)));
                          return absl::OkStatus();
                        }));
  MG_REGISTER_OP(r, OpDefBuilder("TensorListStack")
                        .Input("input_handle: variant")
                        .Input("element_shape: int32")
                        .Output("tensor: element_dtype")
                        .Attr("element_dtype: type")
                        .Attr("num_elements: int = -1")
                        .SetShapeFn(StackShape));
}

}  // namespace ops_internal
}  // namespace minigraph
