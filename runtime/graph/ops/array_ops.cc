// Array ops: constants, placeholders, shapes, reshaping, joining, gathering.
#include "absl/strings/str_cat.h"
#include "runtime/graph/op_def_builder.h"
#include "runtime/graph/ops/internal/op_macros.h"
#include "runtime/graph/ops/standard_ops.h"
#include "runtime/graph/shape_inference.h"

namespace minigraph {
namespace {

// The int values of a constant 1-D (or scalar) int32/int64 input.
bool ConstInts(const InferenceContext* c, int i, std::vector<int64_t>* out) {
  const Tensor* t = c->input_tensor(i);
  if (t == nullptr) return false;
  out->clear();
  if (t->dtype() == DT_INT32) {
    for (int64_t k = 0; k < t->NumElements(); ++k) out->push_back(t->data<int32_t>()[k]);
  } else if (t->dtype() == DT_INT64) {
    for (int64_t k = 0; k < t->NumElements(); ++k) out->push_back(t->data<int64_t>()[k]);
  } else {
    return false;
  }
  return true;
}

absl::Status ConstShape(InferenceContext* c) {
  MG_ASSIGN_OR_RETURN(Tensor value, c->GetAttr<Tensor>("value"));
  MG_ASSIGN_OR_RETURN(DataType dtype, c->GetAttr<DataType>("dtype"));
  if (value.dtype() != dtype) {
    return c->Error(absl::StrCat("value has dtype ", DataTypeString(value.dtype()),
                                 " but the dtype attr is ", DataTypeString(dtype)));
  }
  c->set_output(0, PartialShape::FromShape(value.shape()));
  return absl::OkStatus();
}

absl::Status PlaceholderShape(InferenceContext* c) {
  MG_ASSIGN_OR_RETURN(PartialShape s, c->GetAttr<PartialShape>("shape"));
  c->set_output(0, s);
  return absl::OkStatus();
}

absl::Status PlaceholderWithDefaultShape(InferenceContext* c) {
  MG_ASSIGN_OR_RETURN(PartialShape s, c->GetAttr<PartialShape>("shape"));
  if (!PartialShape::Merge(s, c->input(0)).ok()) {
    return c->Error(absl::StrCat("default of shape ", c->input(0).DebugString(),
                                 " does not match the shape attr ", s.DebugString()));
  }
  c->set_output(0, s);
  return absl::OkStatus();
}

absl::Status FillShape(InferenceContext* c) {
  std::vector<int64_t> dims;
  if (ConstInts(c, 0, &dims)) {
    for (int64_t d : dims) {
      if (d < 0) return c->Error(absl::StrCat("Fill dims must be >= 0, got ", d));
    }
    c->set_output(0, PartialShape(dims));
  } else if (c->input(0).rank_known() && c->input(0).rank() == 1 && c->input(0).dim(0) >= 0) {
    c->set_output(0, PartialShape::UnknownOfRank(static_cast<int>(c->input(0).dim(0))));
  } else {
    c->set_output(0, PartialShape());
  }
  return absl::OkStatus();
}

absl::Status ShapeShape(InferenceContext* c) {
  const PartialShape& in = c->input(0);
  c->set_output(0, PartialShape({in.rank_known() ? in.rank() : -1}));
  return absl::OkStatus();
}

absl::Status ReshapeShape(InferenceContext* c) {
  std::vector<int64_t> dims;
  if (!ConstInts(c, 1, &dims)) {
    const PartialShape& s = c->input(1);
    c->set_output(0, s.rank_known() && s.rank() == 1 && s.dim(0) >= 0
                         ? PartialShape::UnknownOfRank(static_cast<int>(s.dim(0)))
                         : PartialShape());
    return absl::OkStatus();
  }
  int unknown = -1;
  int64_t known_product = 1;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] == -1) {
      if (unknown >= 0) return c->Error("Reshape shape has more than one -1");
      unknown = static_cast<int>(i);
    } else if (dims[i] < 0) {
      return c->Error(absl::StrCat("Reshape shape has a negative dimension ", dims[i]));
    } else {
      known_product *= dims[i];
    }
  }
  const PartialShape& in = c->input(0);
  if (in.IsFullyDefined()) {
    int64_t n = 1;
    for (int64_t d : in.dims()) n *= d;
    if (unknown >= 0) {
      if (known_product == 0 || n % known_product != 0) {
        return c->Error(absl::StrCat("cannot reshape a tensor of ", n, " elements to ",
                                     PartialShape(dims).DebugString()));
      }
      dims[unknown] = n / known_product;
    } else if (n != known_product) {
      return c->Error(absl::StrCat("cannot reshape a tensor of ", n, " elements (shape ",
                                   in.DebugString(), ") to shape ",
                                   PartialShape(dims).DebugString()));
    }
  }
  c->set_output(0, PartialShape(dims));
  return absl::OkStatus();
}

absl::Status PackShape(InferenceContext* c) {
  PartialShape s;
  for (int i = 0; i < c->num_inputs(); ++i) {
    auto merged = PartialShape::Merge(s, c->input(i));
    if (!merged.ok()) return c->Error(absl::StrCat("Pack inputs differ: ", merged.status().message()));
    s = *merged;
  }
  MG_ASSIGN_OR_RETURN(int64_t axis, c->GetAttr<int64_t>("axis"));
  if (!s.rank_known()) {
    c->set_output(0, PartialShape());
    return absl::OkStatus();
  }
  const int rank = s.rank() + 1;
  if (axis < -rank || axis >= rank) {
    return c->Error(absl::StrCat("Pack axis ", axis, " is out of range for rank ", rank));
  }
  if (axis < 0) axis += rank;
  std::vector<int64_t> dims = s.dims();
  dims.insert(dims.begin() + axis, c->num_inputs());
  c->set_output(0, PartialShape(dims));
  return absl::OkStatus();
}

absl::Status ConcatShapeImpl(InferenceContext* c, int axis_input, int first, int n) {
  std::vector<int64_t> axis_v;
  PartialShape merged;
  for (int i = first; i < first + n; ++i) {
    if (c->input(i).rank_known()) {
      if (merged.rank_known() && merged.rank() != c->input(i).rank()) {
        return c->Error(absl::StrCat("Concat inputs have different ranks: ",
                                     merged.DebugString(), " and ", c->input(i).DebugString()));
      }
      merged = PartialShape::UnknownOfRank(c->input(i).rank());
    }
  }
  if (!ConstInts(c, axis_input, &axis_v) || axis_v.size() != 1 || !merged.rank_known()) {
    c->set_output(0, merged);
    return absl::OkStatus();
  }
  const int rank = merged.rank();
  int64_t axis = axis_v[0];
  if (axis < -rank || axis >= rank) {
    return c->Error(absl::StrCat("Concat axis ", axis, " is out of range for rank ", rank));
  }
  if (axis < 0) axis += rank;
  std::vector<int64_t> out(rank, -1);
  int64_t sum = 0;
  for (int i = first; i < first + n; ++i) {
    const PartialShape& s = c->input(i);
    if (!s.rank_known()) {
      sum = -1;
      continue;
    }
    for (int d = 0; d < rank; ++d) {
      if (d == axis) continue;
      if (s.dim(d) >= 0 && out[d] >= 0 && s.dim(d) != out[d]) {
        return c->Error(absl::StrCat("Concat inputs differ in dimension ", d, ": ",
                                     c->input(first).DebugString(), " vs ", s.DebugString()));
      }
      if (out[d] < 0) out[d] = s.dim(d);
    }
    if (sum >= 0) sum = s.dim(axis) >= 0 ? sum + s.dim(axis) : -1;
  }
  out[axis] = sum;
  c->set_output(0, PartialShape(out));
  return absl::OkStatus();
}

absl::Status GatherShapeImpl(InferenceContext* c, int64_t axis) {
  const PartialShape& params = c->input(0);
  const PartialShape& indices = c->input(1);
  if (!params.rank_known() || !indices.rank_known()) {
    c->set_output(0, PartialShape());
    return absl::OkStatus();
  }
  if (axis < 0) axis += params.rank();
  if (axis < 0 || axis >= params.rank()) {
    return c->Error(absl::StrCat("Gather axis is out of range for params of shape ",
                                 params.DebugString()));
  }
  std::vector<int64_t> dims(params.dims().begin(), params.dims().begin() + axis);
  dims.insert(dims.end(), indices.dims().begin(), indices.dims().end());
  dims.insert(dims.end(), params.dims().begin() + axis + 1, params.dims().end());
  c->set_output(0, PartialShape(dims));
  return absl::OkStatus();
}

absl::Status SelectShape(InferenceContext* c) {
  auto merged = PartialShape::Merge(c->input(1), c->input(2));
  if (!merged.ok()) {
    return c->Error(absl::StrCat("Select branches differ: ", merged.status().message()));
  }
  const PartialShape& cond = c->input(0);
  if (cond.rank_known() && merged->rank_known() && cond.rank() != merged->rank() &&
      !(cond.rank() == 1 && merged->rank() >= 1) && cond.rank() != 0) {
    return c->Error(absl::StrCat("Select condition of shape ", cond.DebugString(),
                                 " does not fit branches of shape ", merged->DebugString()));
  }
  c->set_output(0, *merged);
  return absl::OkStatus();
}

}  // namespace

void RegisterArrayOps(OpRegistry* r) {
  MG_REGISTER_OP(r, OpDefBuilder("Const")
                        .Output("output: dtype")
                        .Attr("value: tensor")
                        .Attr("dtype: type")
                        .SetShapeFn(ConstShape));
  MG_REGISTER_OP(r, OpDefBuilder("Placeholder")
                        .Output("output: dtype")
                        .Attr("dtype: type")
                        .Attr("shape: shape = unknown")
                        .SetShapeFn(PlaceholderShape));
  MG_REGISTER_OP(r, OpDefBuilder("PlaceholderWithDefault")
                        .Input("input: dtype")
                        .Output("output: dtype")
                        .Attr("dtype: type")
                        .Attr("shape: shape")
                        .SetShapeFn(PlaceholderWithDefaultShape));
  for (const char* op : {"Identity", "StopGradient", "Snapshot"}) {
    MG_REGISTER_OP(r, OpDefBuilder(op)
                          .Input("input: T")
                          .Output("output: T")
                          .Attr("T: type")
                          .SetShapeFn(shape_fn::Unchanged));
  }
  MG_REGISTER_OP(r, OpDefBuilder("NoOp").SetShapeFn(shape_fn::Unknown));
  MG_REGISTER_OP(r, OpDefBuilder("Fill")
                        .Input("dims: index_type")
                        .Input("value: T")
                        .Output("output: T")
                        .Attr("T: type")
                        .Attr("index_type: {int32, int64} = int32")
                        .SetShapeFn(FillShape));
  for (const char* op : {"ZerosLike", "OnesLike"}) {
    MG_REGISTER_OP(r, OpDefBuilder(op)
                          .Input("x: T")
                          .Output("y: T")
                          .Attr("T: {float, double, int32, int64, bool}")
                          .SetShapeFn(shape_fn::Unchanged));
  }
  MG_REGISTER_OP(r, OpDefBuilder("Shape")
                        .Input("input: T")
                        .Output("output: out_type")
                        .Attr("T: type")
                        .Attr("out_type: {int32, int64} = int32")
                        .SetShapeFn(ShapeShape));
  MG_REGISTER_OP(r, OpDefBuilder("Size")
                        .Input("input: T")
                        .Output("output: out_type")
                        .Attr("T: type")
                        .Attr("out_type: {int32, int64} = int32")
                        .SetShapeFn(shape_fn::Scalar));
  MG_REGISTER_OP(r, OpDefBuilder("Rank")
                        .Input("input: T")
                        .Output("output: int32")
                        .Attr("T: type")
                        .SetShapeFn(shape_fn::Scalar));
  MG_REGISTER_OP(r, OpDefBuilder("Reshape")
                        .Input("tensor: T")
                        .Input("shape: Tshape")
                        .Output("output: T")
                        .Attr("T: type")
                        .Attr("Tshape: {int32, int64} = int32")
                        .SetShapeFn(ReshapeShape));
  MG_REGISTER_OP(r, OpDefBuilder("Cast")
                        .Input("x: SrcT")
                        .Output("y: DstT")
                        .Attr("SrcT: type")
                        .Attr("DstT: type")
                        .Attr("Truncate: bool = false")
                        .SetShapeFn(shape_fn::Unchanged));
  MG_REGISTER_OP(r, OpDefBuilder("Pack")
                        .Input("values: N * T")
                        .Output("output: T")
                        .Attr("N: int >= 1")
                        .Attr("T: type")
                        .Attr("axis: int = 0")
                        .SetShapeFn(PackShape));
  MG_REGISTER_OP(r, OpDefBuilder("Concat")
                        .Input("concat_dim: int32")
                        .Input("values: N * T")
                        .Output("output: T")
                        .Attr("N: int >= 2")
                        .Attr("T: type")
                        .SetShapeFn([](InferenceContext* c) {
                          return ConcatShapeImpl(c, 0, 1, c->num_inputs() - 1);
                        }));
  MG_REGISTER_OP(r, OpDefBuilder("ConcatV2")
                        .Input("values: N * T")
                        .Input("axis: Tidx")
                        .Output("output: T")
                        .Attr("N: int >= 2")
                        .Attr("T: type")
                        .Attr("Tidx: {int32, int64} = int32")
                        .SetShapeFn([](InferenceContext* c) {
                          return ConcatShapeImpl(c, c->num_inputs() - 1, 0, c->num_inputs() - 1);
                        }));
  MG_REGISTER_OP(r, OpDefBuilder("Gather")
                        .Input("params: Tparams")
                        .Input("indices: Tindices")
                        .Output("output: Tparams")
                        .Attr("validate_indices: bool = true")
                        .Attr("Tparams: type")
                        .Attr("Tindices: {int32, int64}")
                        .SetShapeFn([](InferenceContext* c) { return GatherShapeImpl(c, 0); }));
  MG_REGISTER_OP(r, OpDefBuilder("GatherV2")
                        .Input("params: Tparams")
                        .Input("indices: Tindices")
                        .Input("axis: Taxis")
                        .Output("output: Tparams")
                        .Attr("batch_dims: int = 0")
                        .Attr("Tparams: type")
                        .Attr("Tindices: {int32, int64}")
                        .Attr("Taxis: {int32, int64}")
                        .SetShapeFn([](InferenceContext* c) {
                          std::vector<int64_t> axis;
                          if (!ConstInts(c, 2, &axis) || axis.size() != 1) {
                            c->set_output(0, PartialShape());
                            return absl::OkStatus();
                          }
                          return GatherShapeImpl(c, axis[0]);
                        }));
  MG_REGISTER_OP(r, OpDefBuilder("Select")
                        .Input("condition: bool")
                        .Input("t: T")
                        .Input("e: T")
                        .Output("output: T")
                        .Attr("T: type")
                        .SetShapeFn(SelectShape));
  MG_REGISTER_OP(r, OpDefBuilder("Where")
                        .Input("input: T")
                        .Output("index: int64")
                        .Attr("T: {bool, float, double, int32, int64} = bool")
                        .SetShapeFn([](InferenceContext* c) {
                          c->set_output(0, PartialShape({-1, c->input(0).rank()}));
                          return absl::OkStatus();
                        }));
  MG_REGISTER_OP(r, OpDefBuilder("BroadcastGradientArgs")
                        .Input("s0: T")
                        .Input("s1: T")
                        .Output("r0: T")
                        .Output("r1: T")
                        .Attr("T: {int32, int64} = int32")
                        .SetShapeFn([](InferenceContext* c) {
                          c->set_output(0, PartialShape({-1}));
                          c->set_output(1, PartialShape({-1}));
                          return absl::OkStatus();
                        }));
}

}  // namespace minigraph
