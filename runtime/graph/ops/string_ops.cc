// String ops: formatting numbers, splitting, and matching and rewriting with
// regular expressions in RE2's syntax (TensorFlow's).
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

// Case, lengths, joins, splits and CSV.
void RegisterStringTransformOps(OpRegistry* r) {
  for (const char* op : {"StringLower", "StringUpper"}) {
    MG_REGISTER_OP(r, OpDefBuilder(op)
                          .Input("input: string")
                          .Output("output: string")
                          .Attr("encoding: string = \"\"")
                          .SetShapeFn(shape_fn::Unchanged));
  }
  MG_REGISTER_OP(r, OpDefBuilder("StringLength")
                        .Input("input: string")
                        .Output("output: int32")
                        .Attr("unit: {\"BYTE\", \"UTF8_CHAR\"} = \"BYTE\"")
                        .SetShapeFn(shape_fn::Unchanged));
  MG_REGISTER_OP(r, OpDefBuilder("ReduceJoin")
                        .Input("inputs: string")
                        .Input("reduction_indices: int32")
                        .Output("output: string")
                        .Attr("keep_dims: bool = false")
                        .Attr("separator: string = \"\"")
                        .SetShapeFn([](InferenceContext* c) {
                          // The reduced axes are known only with their values.
                          const PartialShape& in = c->input(0);
                          const Tensor* axes_t = c->input_tensor(1);
                          if (!in.rank_known() || axes_t == nullptr) {
                            c->set_output(0, PartialShape());
                            return absl::OkStatus();
                          }
                          MG_ASSIGN_OR_RETURN(bool keep_dims, c->GetAttr<bool>("keep_dims"));
                          const std::vector<int32_t> axes(
                              axes_t->data<int32_t>(),
                              axes_t->data<int32_t>() + axes_t->NumElements());
                          if (axes.empty()) {
                            c->set_output(0, in);
                            return absl::OkStatus();
                          }
                          std::vector<bool> reduced(in.rank(), false);
                          for (int64_t a : axes) {
                            if (a < -in.rank() || a >= in.rank()) {
                              return c->Error(absl::StrCat("Invalid reduction dimension ", a,
                                                           " for input with ", in.rank(),
                                                           " dimension(s)"));
                            }
                            reduced[a < 0 ? a + in.rank() : a] = true;
                          }
                          std::vector<int64_t> dims;
                          for (int d = 0; d < in.rank(); ++d) {
                            if (!reduced[d]) {
                              dims.push_back(in.dim(d));
                            } else if (keep_dims) {
                              dims.push_back(1);
                            }
                          }
                          c->set_output(0, PartialShape(dims));
                          return absl::OkStatus();
                        }));
  MG_REGISTER_OP(r, OpDefBuilder("StringSplitV2")
                        .Input("input: string")
                        .Input("sep: string")
                        .Output("indices: int64")
                        .Output("values: string")
                        .Output("shape: int64")
                        .Attr("maxsplit: int = -1")
                        .SetShapeFn([](InferenceContext* c) {
                          MG_RETURN_IF_ERROR(c->WithRank(0, 1).status());
                          MG_RETURN_IF_ERROR(c->WithRank(1, 0).status());
                          c->set_output(0, PartialShape({-1, 2}));
                          c->set_output(1, PartialShape({-1}));
                          c->set_output(2, PartialShape({2}));
                          return absl::OkStatus();
                        }));
  MG_REGISTER_OP(r, OpDefBuilder("DecodeCSV")
                        .Input("records: string")
                        .Input("record_defaults: OUT_TYPE")
                        .Output("output: OUT_TYPE")
                        .Attr("OUT_TYPE: list({float, double, int32, int64, string}) >= 1")
                        .Attr("field_delim: string = \",\"")
                        .Attr("use_quote_delim: bool = true")
                        .Attr("na_value: string = \"\"")
                        .Attr("select_cols: list(int) = []")
                        .SetShapeFn([](InferenceContext* c) {
                          for (int i = 0; i < c->num_outputs(); ++i) {
                            c->set_output(i, c->input(0));
                          }
                          return absl::OkStatus();
                        }));
}

// Hash buckets, conversions and regular expressions.
void RegisterStringConversionOps(OpRegistry* r) {
  MG_REGISTER_OP(r, OpDefBuilder("StringToHashBucketFast")
                        .Input("input: string")
                        .Output("output: int64")
                        .Attr("num_buckets: int >= 1")
                        .SetShapeFn(shape_fn::Unchanged));
  MG_REGISTER_OP(r, OpDefBuilder("AsString")
                        .Input("input: T")
                        .Output("output: string")
                        .Attr("T: {float, double, int32, int64, bool, string}")
                        .Attr("precision: int = -1")
                        .Attr("scientific: bool = false")
                        .Attr("shortest: bool = false")
                        .Attr("width: int = -1")
                        .Attr("fill: string = \"\"")
                        .SetShapeFn(shape_fn::Unchanged));
  MG_REGISTER_OP(r, OpDefBuilder("RegexFullMatch")
                        .Input("input: string")
                        .Input("pattern: string")
                        .Output("output: bool")
                        .SetShapeFn(shape_fn::Unchanged));
  MG_REGISTER_OP(r, OpDefBuilder("StaticRegexFullMatch")
                        .Input("input: string")
                        .Output("output: bool")
                        .Attr("pattern: string")
                        .SetShapeFn(shape_fn::Unchanged));
  MG_REGISTER_OP(r, OpDefBuilder("RegexReplace")
                        .Input("input: string")
                        .Input("pattern: string")
                        .Input("rewrite: string")
                        .Output("output: string")
                        .Attr("replace_global: bool = true")
                        .SetShapeFn(shape_fn::Unchanged));
  MG_REGISTER_OP(r, OpDefBuilder("StaticRegexReplace")
                        .Input("input: string")
                        .Output("output: string")
                        .Attr("pattern: string")
                        .Attr("rewrite: string")
                        .Attr("replace_global: bool = true")
                        .SetShapeFn(shape_fn::Unchanged));
}

}  // namespace

void RegisterStringOps(OpRegistry* r) {
  RegisterStringTransformOps(r);
  RegisterStringConversionOps(r);
}

}  // namespace ops_internal
}  // namespace minigraph
