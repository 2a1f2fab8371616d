// Parsing serialized inputs: TensorFlow's ParseExampleV2 (what
// tf.io.parse_example and parse_single_example build), with its shape
// function; raw bytes as numbers (DecodeRaw, DecodePaddedRaw), tensors as
// TensorProtos (SerializeTensor, ParseTensor), base64 and zlib/gzip.
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "runtime/graph/op_def_builder.h"
#include "runtime/graph/ops/internal/op_macros.h"
#include "runtime/graph/ops/standard_ops.h"
#include "runtime/graph/shape_inference.h"

namespace minigraph {
namespace {

// Outputs in order: num_sparse indices, values and shapes, the dense values,
// the ragged values and row splits. Serialized is a scalar (one Example) or
// a vector (a batch).
// ParseExampleV2 (serialized a scalar or a vector), ParseExample (a vector;
// `Nsparse`, no ragged features) and ParseSingleExample (a scalar).
absl::Status ParseExampleShape(InferenceContext* c) {
  const std::string& op = c->node_def().op();
  MG_ASSIGN_OR_RETURN(int64_t num_sparse,
                      c->GetAttr<int64_t>(op == "ParseExample" ? "Nsparse" : "num_sparse"));
  MG_ASSIGN_OR_RETURN(std::vector<DataType> dense_types,
                      c->GetAttr<std::vector<DataType>>("Tdense"));
  std::vector<DataType> ragged_types;
  if (op == "ParseExampleV2") {
    MG_ASSIGN_OR_RETURN(ragged_types, c->GetAttr<std::vector<DataType>>("ragged_value_types"));
  }
  std::vector<PartialShape> dense_shapes;
  for (const TensorShapeProto& s : c->node_def().attr().at("dense_shapes").list().shape()) {
    dense_shapes.push_back(PartialShape::FromProto(s));
  }
  if (dense_shapes.size() != dense_types.size()) {
    return c->Error(absl::StrCat(op, " has ", dense_types.size(), " dense types but ",
                                 dense_shapes.size(), " dense_shapes"));
  }
  const PartialShape& serialized = c->input(0);
  const int want = op == "ParseExample" ? 1 : op == "ParseSingleExample" ? 0 : -1;
  if (serialized.rank_known() &&
      (want >= 0 ? serialized.rank() != want : serialized.rank() > 1)) {
    return c->Error(absl::StrCat("serialized must be ",
                                 want == 1   ? "a vector"
                                 : want == 0 ? "a scalar"
                                             : "a scalar or a vector",
                                 ", got ", serialized.DebugString()));
  }
  const bool known = serialized.rank_known();
  const bool scalar = known && serialized.rank() == 0;
  const int64_t batch = known && !scalar ? serialized.dim(0) : -1;
  const int64_t rank = known ? serialized.rank() + 1 : -1;  // of each sparse output
  int out = 0;
  for (int64_t i = 0; i < num_sparse; ++i) c->set_output(out++, PartialShape({-1, rank}));
  for (int64_t i = 0; i < num_sparse; ++i) c->set_output(out++, PartialShape({-1}));
  for (int64_t i = 0; i < num_sparse; ++i) c->set_output(out++, PartialShape({rank}));
  for (const PartialShape& s : dense_shapes) {
    if (!known || !s.rank_known()) {
      c->set_output(out++, PartialShape());
      continue;
    }
    std::vector<int64_t> dims = s.dims();
    if (!scalar) dims.insert(dims.begin(), batch);
    c->set_output(out++, PartialShape(dims));
  }
  for (size_t i = 0; i < ragged_types.size(); ++i) c->set_output(out++, PartialShape({-1}));
  for (size_t i = 0; i < ragged_types.size(); ++i) {
    c->set_output(out++, PartialShape({scalar ? 0 : batch < 0 ? -1 : batch + 1}));
  }
  return absl::OkStatus();
}

// Input 0's shape with one more dimension, `last` (-1: unknown).
absl::Status AppendDim(InferenceContext* c, int64_t last) {
  if (!c->input(0).rank_known()) {
    c->set_output(0, PartialShape());
    return absl::OkStatus();
  }
  std::vector<int64_t> dims = c->input(0).dims();
  dims.push_back(last);
  c->set_output(0, PartialShape(dims));
  return absl::OkStatus();
}

absl::Status DecodeRawShape(InferenceContext* c) { return AppendDim(c, -1); }

absl::Status DecodePaddedRawShape(InferenceContext* c) {
  const Tensor* length = c->input_tensor(1);
  if (length == nullptr || length->NumElements() != 1 || length->dtype() != DT_INT32) {
    return AppendDim(c, -1);
  }
  MG_ASSIGN_OR_RETURN(DataType out_type, c->GetAttr<DataType>("out_type"));
  const int64_t size = static_cast<int64_t>(DataTypeSize(out_type));
  const int32_t bytes = *length->data<int32_t>();
  return AppendDim(c, bytes >= 0 && bytes % size == 0 ? bytes / size : -1);
}

}  // namespace

void RegisterParsingOps(OpRegistry* r) {
  MG_REGISTER_OP(r, OpDefBuilder("DecodeRaw")
                        .Input("bytes: string")
                        .Output("output: out_type")
                        .Attr("out_type: {half, float, double, int32, uint16, uint8, int16, int8, "
                              "int64, complex64, complex128, bool, bfloat16}")
                        .Attr("little_endian: bool = true")
                        .SetShapeFn(DecodeRawShape));
  MG_REGISTER_OP(r, OpDefBuilder("DecodePaddedRaw")
                        .Input("input_bytes: string")
                        .Input("fixed_length: int32")
                        .Output("output: out_type")
                        .Attr("out_type: {half, float, double, int32, uint16, uint8, int16, int8, "
                              "int64, bfloat16}")
                        .Attr("little_endian: bool = true")
                        .SetShapeFn(DecodePaddedRawShape));
  MG_REGISTER_OP(r, OpDefBuilder("SerializeTensor")
                        .Input("tensor: T")
                        .Output("serialized: string")
                        .Attr("T: type")
                        .SetShapeFn(shape_fn::Scalar));
  MG_REGISTER_OP(r, OpDefBuilder("ParseTensor")
                        .Input("serialized: string")
                        .Output("output: out_type")
                        .Attr("out_type: type")
                        .SetShapeFn(shape_fn::Unknown));
  MG_REGISTER_OP(r, OpDefBuilder("EncodeBase64")
                        .Input("input: string")
                        .Output("output: string")
                        .Attr("pad: bool = false")
                        .SetShapeFn(shape_fn::Unchanged));
  MG_REGISTER_OP(r, OpDefBuilder("DecodeBase64")
                        .Input("input: string")
                        .Output("output: string")
                        .SetShapeFn(shape_fn::Unchanged));
  MG_REGISTER_OP(r, OpDefBuilder("DecodeJSONExample")
                        .Input("json_examples: string")
                        .Output("binary_examples: string")
                        .SetShapeFn(shape_fn::Unchanged));
  MG_REGISTER_OP(r, OpDefBuilder("DecodeCompressed")
                        .Input("bytes: string")
                        .Output("output: string")
                        .Attr("compression_type: string = \"\"")
                        .SetShapeFn(shape_fn::Unchanged));
  MG_REGISTER_OP(r, OpDefBuilder("ParseExampleV2")
                        .Input("serialized: string")
                        .Input("names: string")
                        .Input("sparse_keys: string")
                        .Input("dense_keys: string")
                        .Input("ragged_keys: string")
                        .Input("dense_defaults: Tdense")
                        .Output("sparse_indices: num_sparse * int64")
                        .Output("sparse_values: sparse_types")
                        .Output("sparse_shapes: num_sparse * int64")
                        .Output("dense_values: Tdense")
                        .Output("ragged_values: ragged_value_types")
                        .Output("ragged_row_splits: ragged_split_types")
                        .Attr("Tdense: list({float, int64, string}) >= 0")
                        .Attr("num_sparse: int >= 0")
                        .Attr("sparse_types: list({float, int64, string}) >= 0")
                        .Attr("ragged_value_types: list({float, int64, string}) >= 0")
                        .Attr("ragged_split_types: list({int32, int64}) >= 0")
                        .Attr("dense_shapes: list(shape) >= 0")
                        .SetShapeFn(ParseExampleShape));
  // TensorFlow 1's ParseExample: the keys one scalar input each.
  MG_REGISTER_OP(r, OpDefBuilder("ParseExample")
                        .Input("serialized: string")
                        .Input("names: string")
                        .Input("sparse_keys: Nsparse * string")
                        .Input("dense_keys: Ndense * string")
                        .Input("dense_defaults: Tdense")
                        .Output("sparse_indices: Nsparse * int64")
                        .Output("sparse_values: sparse_types")
                        .Output("sparse_shapes: Nsparse * int64")
                        .Output("dense_values: Tdense")
                        .Attr("Nsparse: int >= 0")
                        .Attr("Ndense: int >= 0")
                        .Attr("sparse_types: list({float, int64, string}) >= 0")
                        .Attr("Tdense: list({float, int64, string}) >= 0")
                        .Attr("dense_shapes: list(shape) >= 0")
                        .SetShapeFn(ParseExampleShape));
  // One Example, the keys in attrs.
  MG_REGISTER_OP(r, OpDefBuilder("ParseSingleExample")
                        .Input("serialized: string")
                        .Input("dense_defaults: Tdense")
                        .Output("sparse_indices: num_sparse * int64")
                        .Output("sparse_values: sparse_types")
                        .Output("sparse_shapes: num_sparse * int64")
                        .Output("dense_values: Tdense")
                        .Attr("num_sparse: int >= 0")
                        .Attr("sparse_keys: list(string) >= 0")
                        .Attr("dense_keys: list(string) >= 0")
                        .Attr("sparse_types: list({float, int64, string}) >= 0")
                        .Attr("Tdense: list({float, int64, string}) >= 0")
                        .Attr("dense_shapes: list(shape) >= 0")
                        .SetShapeFn(ParseExampleShape));
}

}  // namespace minigraph
