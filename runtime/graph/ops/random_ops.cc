// Random tensors, deterministic for a given (seed, seed2).
#include "runtime/graph/op_def_builder.h"
#include "runtime/graph/ops/internal/op_families.h"
#include "runtime/graph/ops/internal/op_macros.h"
#include "runtime/graph/shape_inference.h"

namespace minigraph {
namespace ops_internal {
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
  // Stateless (TensorFlow's Philox stream): the same seed, or key and
  // counter, gives the same values in every run.
  MG_REGISTER_OP(r, OpDefBuilder("StatelessRandomGetKeyCounter")
                        .Input("seed: Tseed")
                        .Output("key: uint64")
                        .Output("counter: uint64")
                        .Attr("Tseed: {int32, int64} = DT_INT64")
                        .SetShapeFn([](InferenceContext* c) {
                          c->set_output(0, PartialShape(std::vector<int64_t>{1}));
                          c->set_output(1, PartialShape(std::vector<int64_t>{2}));
                          return absl::OkStatus();
                        }));
  MG_REGISTER_OP(r, OpDefBuilder("StatelessRandomGetAlg")
                        .Output("alg: int32")
                        .SetIsStateful()
                        .SetShapeFn([](InferenceContext* c) {
                          c->set_output(0, PartialShape(std::vector<int64_t>{}));
                          return absl::OkStatus();
                        }));
  for (const char* op :
       {"StatelessRandomUniformV2", "StatelessRandomNormalV2", "StatelessTruncatedNormalV2"}) {
    MG_REGISTER_OP(r, OpDefBuilder(op)
                          .Input("shape: Tshape")
                          .Input("key: uint64")
                          .Input("counter: uint64")
                          .Input("alg: int32")
                          .Output("output: dtype")
                          .Attr("dtype: {half, bfloat16, float, double} = DT_FLOAT")
                          .Attr("Tshape: {int32, int64} = DT_INT32")
                          .SetShapeFn(ShapeFromInput));
  }
  for (const char* op :
       {"StatelessRandomUniform", "StatelessRandomNormal", "StatelessTruncatedNormal"}) {
    MG_REGISTER_OP(r, OpDefBuilder(op)
                          .Input("shape: T")
                          .Input("seed: Tseed")
                          .Output("output: dtype")
                          .Attr("dtype: {half, bfloat16, float, double} = DT_FLOAT")
                          .Attr("T: {int32, int64} = DT_INT32")
                          .Attr("Tseed: {int32, int64} = DT_INT64")
                          .SetShapeFn(ShapeFromInput));
  }
}

}  // namespace ops_internal
}  // namespace minigraph
