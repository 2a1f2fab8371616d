// Ops over SparseTensors given as (indices, values, dense_shape).
#include "runtime/graph/op_def_builder.h"
#include "runtime/graph/ops/internal/op_families.h"
#include "runtime/graph/ops/internal/op_macros.h"
#include "runtime/graph/shape_inference.h"

namespace minigraph {
namespace ops_internal {
namespace {

// Dim `i` of `s`, or -1 (unknown) when `s` has no such dim.
int64_t DimOr(const PartialShape& s, int i) {
  return s.rank_known() && s.rank() > i ? s.dim(i) : -1;
}

}  // namespace

void RegisterSparseOps(OpRegistry* r) {
  MG_REGISTER_OP(r, OpDefBuilder("SparseToDense")
                        .Input("sparse_indices: Tindices")
                        .Input("output_shape: Tindices")
                        .Input("sparse_values: T")
                        .Input("default_value: T")
                        .Output("dense: T")
                        .Attr("validate_indices: bool = true")
                        .Attr("T: type")
                        .Attr("Tindices: {int32, int64}")
                        .SetShapeFn([](InferenceContext* c) {
                          const Tensor* shape = c->input_tensor(1);
                          if (shape == nullptr || shape->dims() > 1) {
                            c->set_output(0, PartialShape());
                            return absl::OkStatus();
                          }
                          std::vector<int64_t> dims(shape->NumElements());
                          for (size_t i = 0; i < dims.size(); ++i) {
                            dims[i] = shape->dtype() == DT_INT32 ? shape->data<int32_t>()[i]
                                                                 : shape->data<int64_t>()[i];
                          }
                          c->set_output(0, PartialShape(dims));
                          return absl::OkStatus();
                        }));
  MG_REGISTER_OP(r, OpDefBuilder("SparseCross")
                        .Input("indices: N * int64")
                        .Input("values: sparse_types")
                        .Input("shapes: N * int64")
                        .Input("dense_inputs: dense_types")
                        .Output("output_indices: int64")
                        .Output("output_values: out_type")
                        .Output("output_shape: int64")
                        .Attr("N: int >= 0")
                        .Attr("hashed_output: bool")
                        .Attr("num_buckets: int >= 0")
                        .Attr("hash_key: int")
                        .Attr("sparse_types: list({int64, string}) >= 0")
                        .Attr("dense_types: list({int64, string}) >= 0")
                        .Attr("out_type: {int64, string}")
                        .Attr("internal_type: {int64, string}")
                        .SetShapeFn([](InferenceContext* c) {
                          c->set_output(0, PartialShape({-1, 2}));
                          c->set_output(1, PartialShape({-1}));
                          c->set_output(2, PartialShape({2}));
                          return absl::OkStatus();
                        }));
  MG_REGISTER_OP(r, OpDefBuilder("SparseReshape")
                        .Input("input_indices: int64")
                        .Input("input_shape: int64")
                        .Input("new_shape: int64")
                        .Output("output_indices: int64")
                        .Output("output_shape: int64")
                        .SetShapeFn([](InferenceContext* c) {
                          const PartialShape& in = c->input(0);
                          const PartialShape& shape = c->input(2);
                          c->set_output(0, PartialShape({DimOr(in, 0), DimOr(shape, 0)}));
                          c->set_output(1, c->input(2));
                          return absl::OkStatus();
                        }));
  MG_REGISTER_OP(r, OpDefBuilder("SparseFillEmptyRows")
                        .Input("indices: int64")
                        .Input("values: T")
                        .Input("dense_shape: int64")
                        .Input("default_value: T")
                        .Output("output_indices: int64")
                        .Output("output_values: T")
                        .Output("empty_row_indicator: bool")
                        .Output("reverse_index_map: int64")
                        .Attr("T: type")
                        .SetShapeFn([](InferenceContext* c) {
                          const PartialShape& in = c->input(0);
                          c->set_output(0, PartialShape({-1, DimOr(in, 1)}));
                          c->set_output(1, PartialShape({-1}));
                          c->set_output(2, PartialShape({-1}));
                          c->set_output(3, PartialShape({DimOr(in, 0)}));
                          return absl::OkStatus();
                        }));
  MG_REGISTER_OP(r, OpDefBuilder("SparseSegmentSum")
                        .Input("data: T")
                        .Input("indices: Tidx")
                        .Input("segment_ids: Tsegmentids")
                        .Output("output: T")
                        .Attr("T: {float, double, int32, int64}")
                        .Attr("Tidx: {int32, int64} = int32")
                        .Attr("Tsegmentids: {int32, int64} = int32")
                        .Attr("sparse_gradient: bool = false")
                        .SetShapeFn([](InferenceContext* c) {
                          const PartialShape& data = c->input(0);
                          if (!data.rank_known() || data.rank() == 0) {
                            c->set_output(0, PartialShape());
                            return absl::OkStatus();
                          }
                          std::vector<int64_t> dims = data.dims();
                          dims[0] = -1;
                          c->set_output(0, PartialShape(dims));
                          return absl::OkStatus();
                        }));
}

}  // namespace ops_internal
}  // namespace minigraph
