// Parsing serialized inputs: TensorFlow's ParseExampleV2 (what
// tf.io.parse_example and parse_single_example build), with its shape
// function; raw bytes as numbers (DecodeRaw, DecodePaddedRaw), tensors as
// TensorProtos (SerializeTensor, ParseTensor), base64 and zlib/gzip.
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "runtime/graph/op_def_builder.h"
#include "runtime/graph/ops/internal/op_families.h"
#include "runtime/graph/ops/internal/op_macros.h"
#include "runtime/graph/shape_inference.h"

namespace minigraph {
namespace ops_internal {
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

// The three SequenceExample parsers' outputs in order: the context's sparse
// (indices, values, shapes), dense and ragged (values, splits), then the
// feature lists' sparse, dense (values, and lengths but for
// ParseSingleSequenceExample) and ragged (values, outer and inner splits).
absl::Status ParseSequenceExampleShape(InferenceContext* c) {
  const std::string& op = c->node_def().op();
  const bool single = op == "ParseSingleSequenceExample";
  MG_ASSIGN_OR_RETURN(int64_t cs, c->GetAttr<int64_t>("Ncontext_sparse"));
  MG_ASSIGN_OR_RETURN(std::vector<DataType> cd,
                      c->GetAttr<std::vector<DataType>>("Tcontext_dense"));
  MG_ASSIGN_OR_RETURN(int64_t ls, c->GetAttr<int64_t>("Nfeature_list_sparse"));
  MG_ASSIGN_OR_RETURN(std::vector<DataType> ld,
                      c->GetAttr<std::vector<DataType>>("feature_list_dense_types"));
  const auto shapes = [&](const char* attr) {
    std::vector<PartialShape> out;
    auto it = c->node_def().attr().find(attr);
    if (it == c->node_def().attr().end()) return out;
    for (const TensorShapeProto& s : it->second.list().shape()) {
      out.push_back(PartialShape::FromProto(s));
    }
    return out;
  };
  const std::vector<PartialShape> cd_shapes = shapes("context_dense_shapes");
  const std::vector<PartialShape> ld_shapes = shapes("feature_list_dense_shapes");
  std::vector<DataType> cr, lr;
  if (op == "ParseSequenceExampleV2") {
    MG_ASSIGN_OR_RETURN(cr, c->GetAttr<std::vector<DataType>>("context_ragged_value_types"));
    MG_ASSIGN_OR_RETURN(lr,
                        c->GetAttr<std::vector<DataType>>("feature_list_ragged_value_types"));
  }
  if (cd_shapes.size() != cd.size() || ld_shapes.size() != ld.size()) {
    return c->Error(absl::StrCat(op, ": each dense type needs a shape"));
  }
  if (op == "ParseSequenceExample") {
    // TensorFlow 1's counts must match its key lists.
    for (const auto& [count, keys] :
         {std::pair<const char*, const char*>{"Ncontext_sparse", "context_sparse_keys"},
          {"Ncontext_dense", "context_dense_keys"},
          {"Nfeature_list_sparse", "feature_list_sparse_keys"},
          {"Nfeature_list_dense", "feature_list_dense_keys"}}) {
      MG_ASSIGN_OR_RETURN(int64_t n, c->GetAttr<int64_t>(count));
      MG_ASSIGN_OR_RETURN(std::vector<std::string> k, c->GetAttr<std::vector<std::string>>(keys));
      if (n != static_cast<int64_t>(k.size())) {
        return c->Error(absl::StrCat(count, " (", n, ") must match the size of ", keys, " (",
                                     k.size(), ")"));
      }
    }
  }
  // [] for one example, [batch] for a vector of them.
  PartialShape batch = single ? PartialShape::Scalar() : c->input(0);
  if (batch.rank_known() && batch.rank() > 1) {
    return c->Error(absl::StrCat("serialized must be a scalar or a vector, got ",
                                 batch.DebugString()));
  }
  const int rank = batch.rank_known() ? batch.rank() : -1;
  const int64_t examples = rank == 1 ? batch.dim(0) : rank == 0 ? 1 : -1;
  auto prefixed = [&](const std::vector<int64_t>& dims) {
    if (!batch.rank_known()) return PartialShape();
    std::vector<int64_t> all = batch.dims();
    all.insert(all.end(), dims.begin(), dims.end());
    return PartialShape(all);
  };
  int out = 0;
  auto sparse = [&](int64_t n, int64_t extra) {
    const int64_t r = rank < 0 ? -1 : rank + extra;
    for (int64_t j = 0; j < n; ++j) c->set_output(out + j, PartialShape({-1, r}));
    for (int64_t j = 0; j < n; ++j) c->set_output(out + n + j, PartialShape({-1}));
    for (int64_t j = 0; j < n; ++j) c->set_output(out + 2 * n + j, PartialShape({r}));
    out += 3 * n;
  };
  auto splits = [&]() {
    return PartialShape({rank == 0 ? 0 : examples < 0 ? -1 : examples + 1});
  };
  sparse(cs, 1);
  for (const PartialShape& s : cd_shapes) c->set_output(out++, prefixed(s.dims()));
  for (size_t j = 0; j < cr.size(); ++j) c->set_output(out + j, PartialShape({-1}));
  for (size_t j = 0; j < cr.size(); ++j) c->set_output(out + cr.size() + j, splits());
  out += 2 * cr.size();
  sparse(ls, 2);
  for (const PartialShape& s : ld_shapes) {
    std::vector<int64_t> dims = {-1};
    dims.insert(dims.end(), s.dims().begin(), s.dims().end());
    c->set_output(out++, prefixed(dims));
  }
  if (!single) {
    for (size_t j = 0; j < ld.size(); ++j) c->set_output(out++, batch);
  }
  for (size_t j = 0; j < lr.size(); ++j) c->set_output(out + j, PartialShape({-1}));
  for (size_t j = 0; j < lr.size(); ++j) c->set_output(out + lr.size() + j, splits());
  for (size_t j = 0; j < lr.size(); ++j) {
    c->set_output(out + 2 * lr.size() + j, PartialShape({-1}));
  }
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

// Raw bytes, serialized tensors, base64, JSON and compressed strings.
void RegisterDecodingOps(OpRegistry* r) {
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
}

// tf.Example parsing.
void RegisterExampleParsingOps(OpRegistry* r) {
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

// tf.SequenceExample parsing.
void RegisterSequenceExampleParsingOps(OpRegistry* r) {
  constexpr char kFeatureTypes[] = "list({float, int64, string}) >= 0";
  auto types = [&](const char* name) { return absl::StrCat(name, ": ", kFeatureTypes); };
  MG_REGISTER_OP(r, OpDefBuilder("ParseSequenceExampleV2")
                        .Input("serialized: string")
                        .Input("debug_name: string")
                        .Input("context_sparse_keys: string")
                        .Input("context_dense_keys: string")
                        .Input("context_ragged_keys: string")
                        .Input("feature_list_sparse_keys: string")
                        .Input("feature_list_dense_keys: string")
                        .Input("feature_list_ragged_keys: string")
                        .Input("feature_list_dense_missing_assumed_empty: bool")
                        .Input("context_dense_defaults: Tcontext_dense")
                        .Output("context_sparse_indices: Ncontext_sparse * int64")
                        .Output("context_sparse_values: context_sparse_types")
                        .Output("context_sparse_shapes: Ncontext_sparse * int64")
                        .Output("context_dense_values: Tcontext_dense")
                        .Output("context_ragged_values: context_ragged_value_types")
                        .Output("context_ragged_row_splits: context_ragged_split_types")
                        .Output("feature_list_sparse_indices: Nfeature_list_sparse * int64")
                        .Output("feature_list_sparse_values: feature_list_sparse_types")
                        .Output("feature_list_sparse_shapes: Nfeature_list_sparse * int64")
                        .Output("feature_list_dense_values: feature_list_dense_types")
                        .Output("feature_list_dense_lengths: Nfeature_list_dense * int64")
                        .Output("feature_list_ragged_values: feature_list_ragged_value_types")
                        .Output("feature_list_ragged_outer_splits: feature_list_ragged_split_types")
                        .Output("feature_list_ragged_inner_splits: feature_list_ragged_split_types")
                        .Attr("Ncontext_sparse: int >= 0 = 0")
                        .Attr(types("Tcontext_dense") + " = []")
                        .Attr(types("context_sparse_types") + " = []")
                        .Attr(types("context_ragged_value_types") + " = []")
                        .Attr("context_ragged_split_types: list({int32, int64}) >= 0 = []")
                        .Attr("context_dense_shapes: list(shape) >= 0 = []")
                        .Attr("Nfeature_list_sparse: int >= 0 = 0")
                        .Attr("Nfeature_list_dense: int >= 0 = 0")
                        .Attr(types("feature_list_dense_types") + " = []")
                        .Attr(types("feature_list_sparse_types") + " = []")
                        .Attr(types("feature_list_ragged_value_types") + " = []")
                        .Attr("feature_list_ragged_split_types: list({int32, int64}) >= 0 = []")
                        .Attr("feature_list_dense_shapes: list(shape) >= 0 = []")
                        .SetShapeFn(ParseSequenceExampleShape));
  // TensorFlow 1's two: no ragged features. Their outputs (the lengths
  // but for one example) and the attrs of their types and counts.
  auto v1_sequence = [&](OpDefBuilder b, bool lengths) {
    b.Output("context_sparse_indices: Ncontext_sparse * int64")
        .Output("context_sparse_values: context_sparse_types")
        .Output("context_sparse_shapes: Ncontext_sparse * int64")
        .Output("context_dense_values: Tcontext_dense")
        .Output("feature_list_sparse_indices: Nfeature_list_sparse * int64")
        .Output("feature_list_sparse_values: feature_list_sparse_types")
        .Output("feature_list_sparse_shapes: Nfeature_list_sparse * int64")
        .Output("feature_list_dense_values: feature_list_dense_types");
    if (lengths) b.Output("feature_list_dense_lengths: Nfeature_list_dense * int64");
    return b.Attr("Ncontext_sparse: int >= 0 = 0")
        .Attr("Ncontext_dense: int >= 0 = 0")
        .Attr("Nfeature_list_sparse: int >= 0 = 0")
        .Attr("Nfeature_list_dense: int >= 0 = 0")
        .Attr(types("context_sparse_types") + " = []")
        .Attr(types("Tcontext_dense") + " = []")
        .Attr(types("feature_list_dense_types") + " = []")
        .Attr("context_dense_shapes: list(shape) >= 0 = []")
        .Attr(types("feature_list_sparse_types") + " = []")
        .Attr("feature_list_dense_shapes: list(shape) >= 0 = []")
        .SetShapeFn(ParseSequenceExampleShape);
  };
  // The keys in attrs, a vector of examples.
  MG_REGISTER_OP(r, v1_sequence(OpDefBuilder("ParseSequenceExample")
                                    .Input("serialized: string")
                                    .Input("debug_name: string")
                                    .Input("context_dense_defaults: Tcontext_dense")
                                    .Attr("feature_list_dense_missing_assumed_empty: "
                                          "list(string) >= 0")
                                    .Attr("context_sparse_keys: list(string) >= 0")
                                    .Attr("context_dense_keys: list(string) >= 0")
                                    .Attr("feature_list_sparse_keys: list(string) >= 0")
                                    .Attr("feature_list_dense_keys: list(string) >= 0"),
                                /*lengths=*/true));
  // One SequenceExample, the keys scalar inputs.
  MG_REGISTER_OP(
      r, v1_sequence(OpDefBuilder("ParseSingleSequenceExample")
                         .Input("serialized: string")
                         .Input("feature_list_dense_missing_assumed_empty: string")
                         .Input("context_sparse_keys: Ncontext_sparse * string")
                         .Input("context_dense_keys: Ncontext_dense * string")
                         .Input("feature_list_sparse_keys: Nfeature_list_sparse * string")
                         .Input("feature_list_dense_keys: Nfeature_list_dense * string")
                         .Input("context_dense_defaults: Tcontext_dense")
                         .Input("debug_name: string"),
                     /*lengths=*/false));
}

}  // namespace

void RegisterParsingOps(OpRegistry* r) {
  RegisterDecodingOps(r);
  RegisterExampleParsingOps(r);
  RegisterSequenceExampleParsingOps(r);
}

}  // namespace ops_internal
}  // namespace minigraph
