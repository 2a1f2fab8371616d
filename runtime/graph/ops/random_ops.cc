// Random tensors, deterministic for a given (seed, seed2).
#include "runtime/graph/op_def_builder.h"
#include "runtime/graph/ops/internal/op_macros.h"
#include "runtime/graph/ops/standard_ops.h"
#include "runtime/graph/shape_inference.h"

namespace minigraph {
namespace {

absl::Status ShapeFromInput(InferenceContext* c) {
  const Tensor* t = c->input_tensor(0);
  if (t != nullptr && t->dims() == 1) {
    std::vector<int64_t> dims;
    for (int64_t i = 0; i < t->NumElements(); ++i) {
      dims.push_back(t->dtype() == DT_INT32 ? t->data<int32_t>()[i] : t->data<int64_t>()[i]);
    }
    c->set_output(0, PartialShape(dims));
  } else {
    c->set_output(0, PartialShape());
  }
  return absl::OkStatus();
}

}  // namespace

void RegisterRandomOps(OpRegistry* r) {
  for (const char* op : {"RandomUniform", "RandomStandardNormal", "TruncatedNormal"}) {
    MG_REGISTER_OP(r, OpDefBuilder(op)
                          .Input("shape: T")
                          .Output("output: dtype")
                          .Attr("seed: int = 0")
                          .Attr("seed2: int = 0")
                          .Attr("dtype: {float, double}")
                          .Attr("T: {int32, int64}")
                          .SetIsStateful()
                          .SetShapeFn(ShapeFromInput));
  }
}

}  // namespace minigraph
