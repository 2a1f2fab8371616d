// Neural-network ops: activations, bias, softmax and cross entropy.
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "runtime/graph/conv_util.h"
#include "runtime/graph/op_def_builder.h"
#include "runtime/graph/ops/internal/op_families.h"
#include "runtime/graph/ops/internal/op_macros.h"
#include "runtime/graph/shape_inference.h"

namespace minigraph {
namespace ops_internal {
namespace {

constexpr char kFloat[] = "T: {float, double}";
constexpr char kRealNumberTypes[] =
    "T: {float, double, int32, uint8, int16, int8, int64, bfloat16, uint16, half, uint32, "
    "uint64}";

// TopK and TopKV2: [..., k] values and indices of [..., n].
absl::Status TopKShape(InferenceContext* c) {
  const PartialShape& in = c->input(0);
  if (in.rank_known() && in.rank() < 1) {
    return c->Error(absl::StrCat("Shape must be at least rank 1 but is rank ", in.rank()));
  }
  int64_t k = -1;
  if (c->node_def().op() == "TopK") {
    MG_ASSIGN_OR_RETURN(k, c->GetAttr<int64_t>("k"));
  } else if (const Tensor* t = c->input_tensor(1); t != nullptr && t->NumElements() == 1) {
    k = t->dtype() == DT_INT64   ? *t->data<int64_t>()
        : t->dtype() == DT_INT16 ? *t->data<int16_t>()
                                 : *t->data<int32_t>();
    if (k < 0) return c->Error(absl::StrCat("Need k >= 0, got ", k));
  }
  if (!in.rank_known()) {
    c->set_output(0, PartialShape());
    c->set_output(1, PartialShape());
    return absl::OkStatus();
  }
  std::vector<int64_t> dims = in.dims();
  if (k >= 0 && dims.back() >= 0 && dims.back() < k) {
    return c->Error(absl::StrCat("input must have last dimension >= k = ", k, " but is ",
                                 dims.back()));
  }
  dims.back() = k;
  c->set_output(0, PartialShape(dims));
  c->set_output(1, PartialShape(dims));
  return absl::OkStatus();
}

// BatchNormWithGlobalNormalization: t [b, r, c, depth], the others [depth].
absl::Status BatchNormGlobalShape(InferenceContext* c) {
  MG_ASSIGN_OR_RETURN(PartialShape t, c->WithRank(0, 4));
  int64_t depth = t.dim(3);
  for (int i = 1; i < 5; ++i) {
    MG_ASSIGN_OR_RETURN(PartialShape v, c->WithRank(i, 1));
    if (depth >= 0 && v.dim(0) >= 0 && v.dim(0) != depth) {
      return c->Error(absl::StrCat("Dimensions must be equal, but are ", depth, " and ",
                                   v.dim(0)));
    }
    if (depth < 0) depth = v.dim(0);
  }
  c->set_output(0, PartialShape({t.dim(0), t.dim(1), t.dim(2), depth}));
  return absl::OkStatus();
}

// NHWC output of a convolution or pool: [batch, out_rows, out_cols, depth].
absl::Status WindowedShape(InferenceContext* c, const PartialShape& input, int64_t k_rows,
                           int64_t k_cols, int64_t depth, bool pool) {
  MG_ASSIGN_OR_RETURN(Window2D w, Window2D::FromNode(c->node_def(), pool));
  if (pool) {
    k_rows = w.ksize[0];
    k_cols = w.ksize[1];
  }
  int64_t dims[2] = {-1, -1};
  for (int d : {1, 2}) {
    const int64_t in = input.rank_known() ? input.dim(d) : -1;
    const int64_t k = d == 1 ? k_rows : k_cols;
    if (in < 0 || k < 0) continue;
    MG_ASSIGN_OR_RETURN(WindowedSize size, w.Size(d, in, k));
    dims[d - 1] = size.out;
  }
  c->set_output(0, PartialShape({input.rank_known() ? input.dim(0) : -1, dims[0], dims[1], depth}));
  return absl::OkStatus();
}

absl::Status Conv2DShape(InferenceContext* c) {
  MG_ASSIGN_OR_RETURN(PartialShape input, c->WithRank(0, 4));
  MG_ASSIGN_OR_RETURN(PartialShape filter, c->WithRank(1, 4));
  if (input.dim(3) >= 0 && filter.dim(2) > 0 && input.dim(3) % filter.dim(2) != 0) {
    return c->Error(absl::StrCat("Depth of input (", input.dim(3),
                                 ") is not a multiple of input depth of filter (", filter.dim(2),
                                 ")"));
  }
  return WindowedShape(c, input, filter.dim(0), filter.dim(1), filter.dim(3), /*pool=*/false);
}

// DepthwiseConv2dNative: filter [rows, cols, depth, multiplier], output
// depth depth * multiplier.
absl::Status DepthwiseConv2dShape(InferenceContext* c) {
  MG_ASSIGN_OR_RETURN(PartialShape input, c->WithRank(0, 4));
  MG_ASSIGN_OR_RETURN(PartialShape filter, c->WithRank(1, 4));
  if (input.dim(3) >= 0 && filter.dim(2) >= 0 && input.dim(3) != filter.dim(2)) {
    return c->Error(absl::StrCat("input and filter must have the same depth: ", input.dim(3),
                                 " vs ", filter.dim(2)));
  }
  const int64_t depth = input.dim(3) >= 0 ? input.dim(3) : filter.dim(2);
  const int64_t out_depth = depth >= 0 && filter.dim(3) >= 0 ? depth * filter.dim(3) : -1;
  return WindowedShape(c, input, filter.dim(0), filter.dim(1), out_depth, /*pool=*/false);
}

absl::Status PoolShape(InferenceContext* c) {
  MG_ASSIGN_OR_RETURN(PartialShape input, c->WithRank(0, 4));
  return WindowedShape(c, input, -1, -1, input.dim(3), /*pool=*/true);
}

// A backprop's output is shaped by a shape input (input_sizes, filter_sizes,
// orig_input_shape) when it is constant.
absl::Status ShapeFromInput(InferenceContext* c, int i) {
  const Tensor* t = c->input_tensor(i);
  if (t == nullptr || t->dims() != 1 || t->dtype() != DT_INT32) {
    c->set_output(0, PartialShape({-1, -1, -1, -1}));
    return absl::OkStatus();
  }
  if (t->NumElements() != 4) {
    return c->Error(absl::StrCat("the shape input must have 4 elements, got ", t->NumElements()));
  }
  std::vector<int64_t> dims(t->data<int32_t>(), t->data<int32_t>() + 4);
  c->set_output(0, PartialShape(dims));
  return absl::OkStatus();
}

constexpr char kConvPadding[] = "padding: {\"SAME\", \"VALID\", \"EXPLICIT\"}";
constexpr char kNhwcNchw[] = "data_format: {\"NHWC\", \"NCHW\"} = \"NHWC\"";

// Conv2D's and its backprops' definition: `inputs`, one output, and the
// window attrs they share.
OpDefBuilder ConvDef(const char* name, std::initializer_list<const char*> inputs,
                     const char* types) {
  OpDefBuilder b(name);
  for (const char* in : inputs) b.Input(in);
  b.Output("output: T")
      .Attr(types)
      .Attr("strides: list(int)")
      .Attr("use_cudnn_on_gpu: bool = true")
      .Attr(kConvPadding)
      .Attr("explicit_paddings: list(int) = []")
      .Attr(kNhwcNchw)
      .Attr("dilations: list(int) = [1, 1, 1, 1]");
  return b;
}

// BiasAdd's channel axis: 1 for NCHW data of rank 3 or more (TensorFlow's
// GetBiasValueDims), else the last; -1 when the rank is unknown.
absl::StatusOr<int> BiasChannelAxis(InferenceContext* c, const PartialShape& x) {
  MG_ASSIGN_OR_RETURN(std::string format, c->GetAttr<std::string>("data_format"));
  if (format != "NHWC" && format != "NCHW") {
    return c->Error(absl::StrCat("BiasAdd's data_format must be NHWC or NCHW, got ", format));
  }
  if (!x.rank_known()) return -1;
  if (x.rank() < 2) {
    return c->Error(absl::StrCat("BiasAdd input must have rank >= 2, got ", x.DebugString()));
  }
  return format == "NCHW" && x.rank() >= 3 ? 1 : x.rank() - 1;
}

absl::Status BiasAddShape(InferenceContext* c) {
  const PartialShape& x = c->input(0);
  MG_ASSIGN_OR_RETURN(int axis, BiasChannelAxis(c, x));
  MG_ASSIGN_OR_RETURN(PartialShape bias, c->WithRank(1, 1));
  if (axis >= 0) {
    const int64_t channels = x.dim(axis);
    if (channels >= 0 && bias.dim(0) >= 0 && channels != bias.dim(0)) {
      return c->Error(absl::StrCat("BiasAdd bias of shape ", bias.DebugString(),
                                   " does not match the channels of ", x.DebugString()));
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
    // The two broadcast against each other, as TensorFlow's.
    std::vector<int64_t> dims(2);
    for (int d = 0; d < 2; ++d) {
      const int64_t a = logits.dim(d), b = labels.dim(d);
      if (a >= 0 && b >= 0 && a != b && a != 1 && b != 1) {
        return c->Error(absl::StrCat("logits ", logits.DebugString(), " and labels ",
                                     labels.DebugString(), " do not broadcast"));
      }
      dims[d] = a == b ? a : a == 1 ? b : b == 1 ? a : -1;
    }
    logits = PartialShape(dims);
  }
  c->set_output(0, PartialShape({logits.dim(0)}));
  c->set_output(1, logits);
  return absl::OkStatus();
}

// The channel axis of a batch-norm data_format (-1 when unknown).
int ChannelAxis(const InferenceContext* c, int rank) {
  absl::StatusOr<std::string> f = c->GetAttr<std::string>("data_format");
  if (!f.ok()) return -1;
  return absl::StartsWith(*f, "NC") ? 1 : rank - 1;
}

// y like x; every other output [C], C being x's channels (or the scale's).
absl::Status BatchNormOutputs(InferenceContext* c, int x_input, int first_vector_output) {
  const PartialShape& x = c->input(x_input);
  if (x.rank_known() && x.rank() != 4 && x.rank() != 5) {
    return c->Error(absl::StrCat("x must be 4- or 5-dimensional, got ", x.DebugString()));
  }
  int64_t channels = -1;
  if (x.rank_known()) channels = x.dim(ChannelAxis(c, x.rank()));
  const PartialShape& scale = c->input(2);
  if (scale.rank_known()) {
    if (scale.rank() != 1) {
      return c->Error(absl::StrCat("scale must be 1-dimensional, got ", scale.DebugString()));
    }
    auto merged = PartialShape::Merge(PartialShape({channels}), scale);
    if (!merged.ok()) {
      return c->Error(absl::StrCat("scale ", scale.DebugString(), " does not match the ", channels,
                                   " channels of x ", x.DebugString()));
    }
    channels = merged->dim(0);
  }
  c->set_output(0, x);
  for (int i = first_vector_output; i < c->num_outputs(); ++i)
    c->set_output(i, PartialShape({channels}));
  return absl::OkStatus();
}

absl::Status FusedBatchNormShape(InferenceContext* c) {
  MG_RETURN_IF_ERROR(BatchNormOutputs(c, 0, 1));
  if (c->num_outputs() == 6) c->set_output(5, PartialShape());  // unused on the CPU
  return absl::OkStatus();
}

absl::Status FusedBatchNormGradShape(InferenceContext* c) {
  MG_RETURN_IF_ERROR(BatchNormOutputs(c, 1, 1));
  c->set_output(3, PartialShape({0}));
  c->set_output(4, PartialShape({0}));
  return absl::OkStatus();
}

// Relu, softmaxes, biases and cross-entropies.
void RegisterActivationOps(OpRegistry* r) {
  for (const char* op : {"Relu", "Softmax", "LogSoftmax"}) {
    MG_REGISTER_OP(
        r, OpDefBuilder(op)
               .Input(op == std::string("Relu") ? "features: T" : "logits: T")
               .Output(op == std::string("Relu")      ? "activations: T"
                       : op == std::string("Softmax") ? "softmax: T"
                                                      : "logsoftmax: T")
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
                        .Attr("data_format: {\"NHWC\", \"NCHW\"} = \"NHWC\"")
                        .SetShapeFn(BiasAddShape));
  MG_REGISTER_OP(r, OpDefBuilder("BiasAddGrad")
                        .Input("out_backprop: T")
                        .Output("output: T")
                        .Attr("T: {float, double, int32, int64}")
                        .Attr("data_format: {\"NHWC\", \"NCHW\"} = \"NHWC\"")
                        .SetShapeFn([](InferenceContext* c) {
                          const PartialShape& x = c->input(0);
                          MG_ASSIGN_OR_RETURN(int axis, BiasChannelAxis(c, x));
                          c->set_output(0, PartialShape({axis >= 0 ? x.dim(axis) : -1}));
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

// Convolutions and pools, NHWC.
void RegisterConvolutionOps(OpRegistry* r) {
  // Convolutions and pools, NHWC (TensorFlow's CPU kernels' only layout);
  // the dtype lists are TensorFlow's, the kernels float and double.
  MG_REGISTER_OP(
      r, ConvDef("Conv2D", {"input: T", "filter: T"}, "T: {half, bfloat16, float, double, int32}")
             .SetShapeFn(Conv2DShape));
  MG_REGISTER_OP(
      r, ConvDef("Conv2DBackpropInput", {"input_sizes: int32", "filter: T", "out_backprop: T"},
                 "T: {half, bfloat16, float, double, int32}")
             .SetShapeFn([](InferenceContext* c) { return ShapeFromInput(c, 0); }));
  MG_REGISTER_OP(
      r, ConvDef("Conv2DBackpropFilter", {"input: T", "filter_sizes: int32", "out_backprop: T"},
                 "T: {half, bfloat16, float, double}")
             .SetShapeFn([](InferenceContext* c) { return ShapeFromInput(c, 1); }));
  // The depthwise convolution and its gradients: ConvDef's attrs but
  // use_cudnn_on_gpu.
  const auto depthwise = [](const char* name, std::initializer_list<const char*> inputs) {
    OpDefBuilder b(name);
    for (const char* in : inputs) b.Input(in);
    b.Output("output: T")
        .Attr("T: {half, bfloat16, float, double}")
        .Attr("strides: list(int)")
        .Attr(kConvPadding)
        .Attr("explicit_paddings: list(int) = []")
        .Attr("data_format: {\"NHWC\", \"NCHW\"} = \"NHWC\"")
        .Attr("dilations: list(int) = [1, 1, 1, 1]");
    return b;
  };
  MG_REGISTER_OP(r, depthwise("DepthwiseConv2dNative", {"input: T", "filter: T"})
                        .SetShapeFn(DepthwiseConv2dShape));
  MG_REGISTER_OP(r, depthwise("DepthwiseConv2dNativeBackpropInput",
                              {"input_sizes: int32", "filter: T", "out_backprop: T"})
                        .SetShapeFn([](InferenceContext* c) { return ShapeFromInput(c, 0); }));
  MG_REGISTER_OP(r, depthwise("DepthwiseConv2dNativeBackpropFilter",
                              {"input: T", "filter_sizes: int32", "out_backprop: T"})
                        .SetShapeFn([](InferenceContext* c) { return ShapeFromInput(c, 1); }));
  MG_REGISTER_OP(r, OpDefBuilder("MaxPool")
                        .Input("input: T")
                        .Output("output: T")
                        .Attr("T: {half, bfloat16, float, double, int32, int64, uint8, int16, "
                              "int8, uint16, qint8} = float")
                        .Attr("ksize: list(int) >= 4")
                        .Attr("strides: list(int) >= 4")
                        .Attr(kConvPadding)
                        .Attr("explicit_paddings: list(int) = []")
                        .Attr("data_format: {\"NHWC\", \"NCHW\", \"NCHW_VECT_C\"} = \"NHWC\"")
                        .SetShapeFn(PoolShape));
  MG_REGISTER_OP(r, OpDefBuilder("MaxPoolGrad")
                        .Input("orig_input: T")
                        .Input("orig_output: T")
                        .Input("grad: T")
                        .Output("output: T")
                        .Attr("ksize: list(int) >= 4")
                        .Attr("strides: list(int) >= 4")
                        .Attr(kConvPadding)
                        .Attr("explicit_paddings: list(int) = []")
                        .Attr(kNhwcNchw)
                        .Attr("T: {half, bfloat16, float, double, int32, int64, uint8, int16, "
                              "int8, uint16, uint32, uint64} = float")
                        .SetShapeFn([](InferenceContext* c) {
                          MG_ASSIGN_OR_RETURN(PartialShape in, c->WithRank(0, 4));
                          c->set_output(0, in);
                          return absl::OkStatus();
                        }));
  MG_REGISTER_OP(r, OpDefBuilder("AvgPool")
                        .Input("value: T")
                        .Output("output: T")
                        .Attr("ksize: list(int) >= 4")
                        .Attr("strides: list(int) >= 4")
                        .Attr("padding: {\"SAME\", \"VALID\"}")
                        .Attr(kNhwcNchw)
                        .Attr("T: {half, bfloat16, float, double}")
                        .SetShapeFn(PoolShape));
  MG_REGISTER_OP(r, OpDefBuilder("AvgPoolGrad")
                        .Input("orig_input_shape: int32")
                        .Input("grad: T")
                        .Output("output: T")
                        .Attr("ksize: list(int) >= 4")
                        .Attr("strides: list(int) >= 4")
                        .Attr("padding: {\"SAME\", \"VALID\"}")
                        .Attr(kNhwcNchw)
                        .Attr("T: {half, bfloat16, float, double}")
                        .SetShapeFn([](InferenceContext* c) { return ShapeFromInput(c, 0); }));
}

// Softplus, Elu, Relu6, LeakyRelu and their gradients.
void RegisterMoreActivationOps(OpRegistry* r) {
  // Activations (features in, activations out) and their gradients
  // ((gradients, features) or, for Elu, (gradients, outputs)).
  for (const char* op : {"Softplus", "Elu", "Relu6"}) {
    MG_REGISTER_OP(r, OpDefBuilder(op)
                          .Input("features: T")
                          .Output("activations: T")
                          .Attr(kFloat)
                          .SetShapeFn(shape_fn::Unchanged));
  }
  for (const char* op : {"SoftplusGrad", "EluGrad", "Relu6Grad"}) {
    MG_REGISTER_OP(r, OpDefBuilder(op)
                          .Input("gradients: T")
                          .Input(absl::StrCat(
                              absl::string_view(op) == "EluGrad" ? "outputs" : "features", ": T"))
                          .Output("backprops: T")
                          .Attr(kFloat)
                          .SetShapeFn(shape_fn::MergeAllInputs));
  }
  MG_REGISTER_OP(r, OpDefBuilder("LeakyRelu")
                        .Input("features: T")
                        .Output("activations: T")
                        .Attr("alpha: float = 0.2")
                        .Attr("T: {half, bfloat16, float, double} = float")
                        .SetShapeFn(shape_fn::Unchanged));
  MG_REGISTER_OP(r, OpDefBuilder("LeakyReluGrad")
                        .Input("gradients: T")
                        .Input("features: T")
                        .Output("backprops: T")
                        .Attr("alpha: float = 0.2")
                        .Attr("T: {half, bfloat16, float, double} = float")
                        .SetShapeFn(shape_fn::MergeAllInputs));
  for (const char* op : {"Selu", "Softsign"}) {
    MG_REGISTER_OP(r, OpDefBuilder(op)
                          .Input("features: T")
                          .Output("activations: T")
                          .Attr("T: {float, double}")
                          .SetShapeFn(shape_fn::Unchanged));
  }
  MG_REGISTER_OP(r, OpDefBuilder("SeluGrad")
                        .Input("gradients: T")
                        .Input("outputs: T")
                        .Output("backprops: T")
                        .Attr("T: {float, double}")
                        .SetShapeFn(shape_fn::MergeAllInputs));
  MG_REGISTER_OP(r, OpDefBuilder("SoftsignGrad")
                        .Input("gradients: T")
                        .Input("features: T")
                        .Output("backprops: T")
                        .Attr("T: {float, double}")
                        .SetShapeFn(shape_fn::MergeAllInputs));
  MG_REGISTER_OP(r, OpDefBuilder("L2Loss")
                        .Input("t: T")
                        .Output("output: T")
                        .Attr("T: {float, double}")
                        .SetShapeFn(shape_fn::Scalar));
}

// The k largest and whether targets are among them; TensorFlow 0.x's batch normalization.
void RegisterTopKOps(OpRegistry* r) {
  // The k largest of each row, and where they are (ties: the lower index
  // first); TopK takes k as an attr (deprecated at version 7).
  MG_REGISTER_OP(r, OpDefBuilder("TopKV2")
                        .Input("input: T")
                        .Input("k: Tk")
                        .Output("values: T")
                        .Output("indices: index_type")
                        .Attr("sorted: bool = true")
                        .Attr(kRealNumberTypes)
                        .Attr("Tk: {int16, int32, int64} = int32")
                        .Attr("index_type: {int16, int32, int64} = int32")
                        .SetShapeFn(TopKShape));
  MG_REGISTER_OP(r, OpDefBuilder("TopK")
                        .Input("input: T")
                        .Output("values: T")
                        .Output("indices: int32")
                        .Attr("k: int >= 0")
                        .Attr("sorted: bool = true")
                        .Attr(kRealNumberTypes)
                        .Deprecated(7, "Use TopKV2 instead")
                        .SetShapeFn(TopKShape));
  // TensorFlow 0.x's batch normalization of NHWC `t` with the moments given
  // (deprecated at version 9; Inception's 2015 graph holds it).
  MG_REGISTER_OP(r, OpDefBuilder("BatchNormWithGlobalNormalization")
                        .Input("t: T")
                        .Input("m: T")
                        .Input("v: T")
                        .Input("beta: T")
                        .Input("gamma: T")
                        .Output("result: T")
                        .Attr("T: {float, double, int32, uint8, int16, int8, complex64, int64, "
                              "bfloat16, uint16, complex128, half, uint32, uint64}")
                        .Attr("variance_epsilon: float")
                        .Attr("scale_after_normalization: bool")
                        .Deprecated(9, "Use tf.nn.batch_normalization()")
                        .SetShapeFn(BatchNormGlobalShape));
  // Whether each target is among the k largest predictions of its row
  // (ties counted as TensorFlow does: a target tied with the k-th is in).
  MG_REGISTER_OP(
      r, OpDefBuilder("InTopKV2")
             .Input("predictions: float")
             .Input("targets: T")
             .Input("k: T")
             .Output("precision: bool")
             .Attr("T: {int32, int64} = int32")
             .SetShapeFn([](InferenceContext* c) {
               MG_ASSIGN_OR_RETURN(PartialShape p, c->WithRank(0, 2));
               MG_ASSIGN_OR_RETURN(PartialShape t, c->WithRank(1, 1));
               auto rows = PartialShape::Merge(PartialShape({p.dim(0)}), t);
               if (!rows.ok()) {
                 return c->Error(absl::StrCat("predictions ", p.DebugString(), " and targets ",
                                              t.DebugString(), " disagree on the batch"));
               }
               c->set_output(0, *rows);
               return absl::OkStatus();
             }));
}

// Fused batch normalization and local response normalization.
void RegisterNormalizationOps(OpRegistry* r) {
  // Batch normalization (TensorFlow's fused kernels, on the CPU): V1 has
  // every input in T; V2 and V3 keep scale, offset and the statistics in U.
  // V3 adds a reserve space the CPU leaves empty.
  for (int version : {1, 2, 3}) {
    const std::string suffix = version == 1 ? "" : absl::StrCat("V", version);
    const std::string u = version == 1 ? "T" : "U";
    OpDefBuilder fwd("FusedBatchNorm" + suffix);
    fwd.Input("x: T")
        .Input("scale: " + u)
        .Input("offset: " + u)
        .Input("mean: " + u)
        .Input("variance: " + u)
        .Output("y: T")
        .Output("batch_mean: " + u)
        .Output("batch_variance: " + u)
        .Output("reserve_space_1: " + u)
        .Output("reserve_space_2: " + u);
    if (version == 3) fwd.Output("reserve_space_3: " + u);
    fwd.Attr("T: {float}");
    if (version > 1) fwd.Attr("U: {float}");
    fwd.Attr("epsilon: float = 0.0001")
        .Attr("exponential_avg_factor: float = 1.0")
        .Attr(version == 3 ? "data_format: {\"NHWC\", \"NCHW\", \"NDHWC\", \"NCDHW\"} = \"NHWC\""
                           : kNhwcNchw)
        .Attr("is_training: bool = true")
        .SetShapeFn(FusedBatchNormShape);
    MG_REGISTER_OP(r, fwd);
    OpDefBuilder grad("FusedBatchNormGrad" + suffix);
    grad.Input("y_backprop: T")
        .Input("x: T")
        .Input("scale: " + std::string(version == 1 ? "T" : "float"))
        .Input("reserve_space_1: " + u)
        .Input("reserve_space_2: " + u);
    if (version == 3) grad.Input("reserve_space_3: " + u);
    grad.Output("x_backprop: T")
        .Output("scale_backprop: " + u)
        .Output("offset_backprop: " + u)
        .Output(absl::StrCat("reserve_space_", version == 3 ? 4 : 3, ": ", u))
        .Output(absl::StrCat("reserve_space_", version == 3 ? 5 : 4, ": ", u))
        .Attr("T: {float}");
    if (version > 1) grad.Attr("U: {float}");
    grad.Attr("epsilon: float = 0.0001")
        .Attr(version == 3 ? "data_format: {\"NHWC\", \"NCHW\", \"NDHWC\", \"NCDHW\"} = \"NHWC\""
                           : kNhwcNchw)
        .Attr("is_training: bool = true")
        .SetShapeFn(FusedBatchNormGradShape);
    MG_REGISTER_OP(r, grad);
  }
  // Local response normalization over the depth (last) dimension of 4-D
  // data: out = x / (bias + alpha * sum of x^2 within depth_radius)^beta.
  auto lrn_attrs = [](OpDefBuilder b) {
    b.Attr("depth_radius: int = 5")
        .Attr("bias: float = 1.0")
        .Attr("alpha: float = 1.0")
        .Attr("beta: float = 0.5")
        .Attr("T: {float} = DT_FLOAT");
    return b;
  };
  MG_REGISTER_OP(r, lrn_attrs(OpDefBuilder("LRN").Input("input: T").Output("output: T"))
                        .SetShapeFn([](InferenceContext* c) {
                          MG_ASSIGN_OR_RETURN(PartialShape x, c->WithRank(0, 4));
                          c->set_output(0, x);
                          return absl::OkStatus();
                        }));
  MG_REGISTER_OP(r, lrn_attrs(OpDefBuilder("LRNGrad")
                                  .Input("input_grads: T")
                                  .Input("input_image: T")
                                  .Input("output_image: T")
                                  .Output("output: T"))
                        .SetShapeFn([](InferenceContext* c) {
                          MG_ASSIGN_OR_RETURN(PartialShape x, c->WithRank(1, 4));
                          auto merged = PartialShape::Merge(x, c->input(0));
                          if (merged.ok()) merged = PartialShape::Merge(*merged, c->input(2));
                          if (!merged.ok()) return c->Error(merged.status().message());
                          c->set_output(0, *merged);
                          return absl::OkStatus();
                        }));
}

}  // namespace

void RegisterNnOps(OpRegistry* r) {
  RegisterActivationOps(r);
  RegisterConvolutionOps(r);
  RegisterMoreActivationOps(r);
  RegisterTopKOps(r);
  RegisterNormalizationOps(r);
}

}  // namespace ops_internal
}  // namespace minigraph
