// Summary ops: serialized Summary protos (core/proto/summary.proto) as
// string scalars, TensorFlow's signatures.
#include "runtime/graph/op_def_builder.h"
#include "runtime/graph/ops/internal/op_families.h"
#include "runtime/graph/ops/internal/op_macros.h"
#include "runtime/graph/shape_inference.h"

namespace minigraph {
namespace ops_internal {
namespace {

absl::Status ScalarOutput(InferenceContext* c) {
  c->set_output(0, PartialShape::Scalar());
  return absl::OkStatus();
}

constexpr char kRealNumbers[] =
    "T: {float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, uint32, "
    "uint64}";

}  // namespace

void RegisterSummaryOps(OpRegistry* r) {
  MG_REGISTER_OP(r, OpDefBuilder("ScalarSummary")
                        .Input("tags: string")
                        .Input("values: T")
                        .Output("summary: string")
                        .Attr(kRealNumbers)
                        .SetShapeFn(ScalarOutput));
  MG_REGISTER_OP(r, OpDefBuilder("HistogramSummary")
                        .Input("tag: string")
                        .Input("values: T")
                        .Output("summary: string")
                        .Attr(std::string(kRealNumbers) + " = float")
                        .SetShapeFn(ScalarOutput));
  MG_REGISTER_OP(r, OpDefBuilder("MergeSummary")
                        .Input("inputs: N * string")
                        .Output("summary: string")
                        .Attr("N: int >= 1")
                        .SetShapeFn(ScalarOutput));
}

}  // namespace ops_internal
}  // namespace minigraph
