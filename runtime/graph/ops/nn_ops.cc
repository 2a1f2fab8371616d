// Neural-network ops: activations, bias, softmax and cross entropy.
#include "absl/strings/str_cat.h"
#include "runtime/graph/op_def_builder.h"
#include "runtime/graph/ops/internal/op_macros.h"
#include "runtime/graph/ops/standard_ops.h"
#include "runtime/graph/shape_inference.h"

namespace minigraph {
namespace {

constexpr char kFloat[] = "T: {float, double}";

absl::Status BiasAddShape(InferenceContext* c) {
  MG_ASSIGN_OR_RETURN(std::string format, c->GetAttr<std::string>("data_format"));
  if (format != "NHWC") {
    return c->Error(absl::StrCat("BiasAdd supports data_format NHWC only, got ", format));
  }
  MG_ASSIGN_OR_RETURN(PartialShape bias, c->WithRank(1, 1));
  const PartialShape& x = c->input(0);
  if (x.rank_known()) {
    if (x.rank() < 2) return c->Error(absl::StrCat("BiasAdd input must have rank >= 2, got ", x.DebugString()));
    const int64_t last = x.dim(x.rank() - 1);
    if (last >= 0 && bias.dim(0) >= 0 && last != bias.dim(0)) {
      return c->Error(absl::StrCat("BiasAdd bias of shape ", bias.DebugString(),
                                   " does not match the last dimension of ", x.DebugString()));
    }
  }
  c->set_output(0, x);
  return absl::OkStatus();
}

absl::Status XentShape(InferenceContext* c, bool sparse) {
  MG_ASSIGN_OR_RETURN(PartialShape logits, c->WithRank(0, 2));
  if (sparse) {
    MG_ASSIGN_OR_RETURN(PartialShape labels, c->WithRank(1, 1));
    if (logits.dim(0) >= 0 && labels.dim(0) >= 0 && logits.dim(0) != labels.dim(0)) {
      return c->Error(absl::StrCat("logits ", logits.DebugString(), " and labels ",
                                   labels.DebugString(), " differ in batch size"));
    }
  } else {
    MG_ASSIGN_OR_RETURN(PartialShape labels, c->WithRank(1, 2));
    auto merged = PartialShape::Merge(logits, labels);
    if (!merged.ok()) {
      return c->Error(absl::StrCat("logits and labels must have the same shape: ",
                                   merged.status().message()));
    }
    logits = *merged;
  }
  c->set_output(0, PartialShape({logits.dim(0)}));
  c->set_output(1, logits);
  return absl::OkStatus();
}

}  // namespace

void RegisterNnOps(OpRegistry* r) {
  for (const char* op : {"Relu", "Softmax", "LogSoftmax"}) {
    MG_REGISTER_OP(r, OpDefBuilder(op)
                          .Input(op == std::string("Relu") ? "features: T" : "logits: T")
                          .Output(op == std::string("Relu") ? "activations: T" : "softmax: T")
                          .Attr(op == std::string("Relu") ? "T: {float, double, int32, int64}" : kFloat)
                          .SetShapeFn(shape_fn::Unchanged));
  }
  MG_REGISTER_OP(r, OpDefBuilder("ReluGrad")
                        .Input("gradients: T")
                        .Input("features: T")
                        .Output("backprops: T")
                        .Attr("T: {float, double, int32, int64}")
                        .SetShapeFn(shape_fn::MergeAllInputs));
  MG_REGISTER_OP(r, OpDefBuilder("BiasAdd")
                        .Input("value: T")
                        .Input("bias: T")
                        .Output("output: T")
                        .Attr("T: {float, double, int32, int64}")
                        .Attr("data_format: string = \"NHWC\"")
                        .SetShapeFn(BiasAddShape));
  MG_REGISTER_OP(r, OpDefBuilder("BiasAddGrad")
                        .Input("out_backprop: T")
                        .Output("output: T")
                        .Attr("T: {float, double, int32, int64}")
                        .Attr("data_format: string = \"NHWC\"")
                        .SetShapeFn([](InferenceContext* c) {
                          const PartialShape& x = c->input(0);
                          c->set_output(0, x.rank_known() ? PartialShape({x.dim(x.rank() - 1)})
                                                          : PartialShape({-1}));
                          return absl::OkStatus();
                        }));
  MG_REGISTER_OP(r, OpDefBuilder("SoftmaxCrossEntropyWithLogits")
                        .Input("features: T")
                        .Input("labels: T")
                        .Output("loss: T")
                        .Output("backprop: T")
                        .Attr(kFloat)
                        .SetShapeFn([](InferenceContext* c) { return XentShape(c, false); }));
  MG_REGISTER_OP(r, OpDefBuilder("SparseSoftmaxCrossEntropyWithLogits")
                        .Input("features: T")
                        .Input("labels: Tlabels")
                        .Output("loss: T")
                        .Output("backprop: T")
                        .Attr(kFloat)
                        .Attr("Tlabels: {int32, int64} = int64")
                        .SetShapeFn([](InferenceContext* c) { return XentShape(c, true); }));
}

}  // namespace minigraph
