// Ops that move elements between space, batch and depth (SpaceToBatchND,
// BatchToSpaceND, SpaceToDepth, DepthToSpace: the dilated convolutions of
// Keras, MobileNets and DeepLab) and the 3-D convolution, with TensorFlow's
// shape functions.
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "runtime/graph/conv_util.h"
#include "runtime/graph/op_def_builder.h"
#include "runtime/graph/ops/internal/op_families.h"
#include "runtime/graph/ops/internal/op_macros.h"
#include "runtime/graph/shape_inference.h"

namespace minigraph {
namespace ops_internal {
namespace {

// a * b, or InvalidArgument when a hostile graph's sizes overflow int64.
absl::StatusOr<int64_t> Times(InferenceContext* c, int64_t a, int64_t b) {
  int64_t out = 0;
  if (__builtin_mul_overflow(a, b, &out)) {
    return c->Error(absl::StrCat("shape too large: ", a, " * ", b, " overflows"));
  }
  return out;
}

// SpaceToBatchND (`to_batch`) and BatchToSpaceND: input [batch, spatial (M
// dimensions), rest], block_shape [M], paddings or crops [M, 2]. Exact when
// both are constants; otherwise the rank, and the rest's dimensions.
absl::Status SpaceBatchShape(InferenceContext* c, bool to_batch) {
  const PartialShape& in = c->input(0);
  const PartialShape& block_in = c->input(1);
  std::vector<int64_t> block, pads;
  const bool known = c->ConstantInts(1, &block) && c->ConstantInts(2, &pads);
  const int64_t m = known ? static_cast<int64_t>(block.size())
                          : (block_in.rank() == 1 ? block_in.dim(0) : -1);
  if (!in.rank_known()) {
    c->set_output(0, PartialShape());
    return absl::OkStatus();
  }
  if (m >= 0 && in.rank() < m + 1) {
    return c->Error(absl::StrCat("input rank should be >= ", m + 1, " instead of ", in.rank()));
  }
  std::vector<int64_t> dims(in.rank(), -1);
  if (m >= 0) {
    for (int i = static_cast<int>(m) + 1; i < in.rank(); ++i) dims[i] = in.dim(i);
  }
  if (!known) {
    c->set_output(0, PartialShape(dims));
    return absl::OkStatus();
  }
  if (pads.size() != 2 * block.size()) {
    return c->Error(absl::StrCat(to_batch ? "paddings" : "crops", " must have shape [", m,
                                 ", 2], got ", pads.size(), " values"));
  }
  int64_t product = 1;
  for (int i = 0; i < m; ++i) {
    if (block[i] < 1) return c->Error(absl::StrCat("block_shape must be positive, got ", block[i]));
    if (pads[2 * i] < 0 || pads[2 * i + 1] < 0) {
      return c->Error(absl::StrCat(to_batch ? "paddings" : "crops", " must be non-negative"));
    }
    MG_ASSIGN_OR_RETURN(product, Times(c, product, block[i]));
    const int64_t d = in.dim(i + 1);
    if (d < 0) continue;
    if (to_batch) {
      int64_t padded = 0;
      if (__builtin_add_overflow(d, pads[2 * i], &padded) ||
          __builtin_add_overflow(padded, pads[2 * i + 1], &padded)) {
        return c->Error("paddings too large: the padded size overflows");
      }
      if (padded % block[i] != 0) {
        return c->Error(absl::StrCat("Dimension size must be evenly divisible by ", block[i],
                                     " but is ", padded));
      }
      dims[i + 1] = padded / block[i];
    } else {
      MG_ASSIGN_OR_RETURN(int64_t whole, Times(c, d, block[i]));
      dims[i + 1] = whole - pads[2 * i] - pads[2 * i + 1];
      if (dims[i + 1] < 0) return c->Error("crops are larger than the cropped dimension");
    }
  }
  const int64_t batch = in.dim(0);
  if (batch >= 0) {
    if (!to_batch && batch % product != 0) {
      return c->Error(absl::StrCat("input batch ", batch,
                                   " must be divisible by the product of block_shape, ", product));
    }
    if (to_batch) {
      MG_ASSIGN_OR_RETURN(dims[0], Times(c, batch, product));
    } else {
      dims[0] = batch / product;
    }
  }
  c->set_output(0, PartialShape(dims));
  return absl::OkStatus();
}

// SpaceToDepth (`to_depth`) and DepthToSpace, NHWC or NCHW.
absl::Status SpaceDepthShape(InferenceContext* c, bool to_depth) {
  MG_ASSIGN_OR_RETURN(PartialShape in, c->WithRank(0, 4));
  MG_ASSIGN_OR_RETURN(int64_t b, c->GetAttr<int64_t>("block_size"));
  MG_ASSIGN_OR_RETURN(const int64_t bb, Times(c, b, b));
  MG_ASSIGN_OR_RETURN(std::string format, c->GetAttr<std::string>("data_format"));
  if (format != "NHWC" && format != "NCHW") {  // NCHW_VECT_C: a GPU's int8 layout
    c->set_output(0, PartialShape::UnknownOfRank(4));
    return absl::OkStatus();
  }
  const bool nchw = format == "NCHW";
  const int h = nchw ? 2 : 1, w = h + 1, depth = nchw ? 1 : 3;
  std::vector<int64_t> dims = in.dims();
  for (int d : {h, w}) {
    if (dims[d] < 0) continue;
    if (to_depth && dims[d] % b != 0) {
      return c->Error(absl::StrCat("Dimension size must be evenly divisible by ", b, " but is ",
                                   dims[d]));
    }
    if (to_depth) {
      dims[d] /= b;
    } else {
      MG_ASSIGN_OR_RETURN(dims[d], Times(c, dims[d], b));
    }
  }
  if (dims[depth] >= 0) {
    if (!to_depth && dims[depth] % bb != 0) {
      return c->Error(absl::StrCat("Dimension size must be evenly divisible by ", bb,
                                   " but is ", dims[depth]));
    }
    if (to_depth) {
      MG_ASSIGN_OR_RETURN(dims[depth], Times(c, dims[depth], bb));
    } else {
      dims[depth] /= bb;
    }
  }
  c->set_output(0, PartialShape(dims));
  return absl::OkStatus();
}

// Conv3D: input [batch, planes, rows, cols, depth] (NDHWC), filter
// [planes, rows, cols, in depth, out depth].
absl::Status Conv3DShape(InferenceContext* c) {
  MG_ASSIGN_OR_RETURN(PartialShape input, c->WithRank(0, 5));
  MG_ASSIGN_OR_RETURN(PartialShape filter, c->WithRank(1, 5));
  if (input.dim(4) >= 0 && filter.dim(3) > 0 && input.dim(4) % filter.dim(3) != 0) {
    return c->Error(absl::StrCat("Depth of input (", input.dim(4),
                                 ") is not a multiple of input depth of filter (", filter.dim(3),
                                 ")"));
  }
  absl::StatusOr<Window3D> w = Window3D::FromNode(c->node_def());
  if (!w.ok()) {  // NCDHW or dilations: the kernel says why, as TensorFlow's does
    c->set_output(0, PartialShape::UnknownOfRank(5));
    return absl::OkStatus();
  }
  std::vector<int64_t> dims = {input.dim(0), -1, -1, -1, filter.dim(4)};
  for (int d = 1; d <= 3; ++d) {
    if (input.dim(d) < 0 || filter.dim(d - 1) < 0) continue;
    MG_ASSIGN_OR_RETURN(WindowedSize size, w->Size(d, input.dim(d), filter.dim(d - 1)));
    dims[d] = size.out;
  }
  c->set_output(0, PartialShape(dims));
  return absl::OkStatus();
}

}  // namespace

void RegisterSpaceOps(OpRegistry* r) {
  MG_REGISTER_OP(r, OpDefBuilder("SpaceToBatchND")
                        .Input("input: T")
                        .Input("block_shape: Tblock_shape")
                        .Input("paddings: Tpaddings")
                        .Output("output: T")
                        .Attr("T: type")
                        .Attr("Tblock_shape: {int32, int64} = int32")
                        .Attr("Tpaddings: {int32, int64} = int32")
                        .SetShapeFn([](InferenceContext* c) { return SpaceBatchShape(c, true); }));
  MG_REGISTER_OP(r, OpDefBuilder("BatchToSpaceND")
                        .Input("input: T")
                        .Input("block_shape: Tblock_shape")
                        .Input("crops: Tcrops")
                        .Output("output: T")
                        .Attr("T: type")
                        .Attr("Tblock_shape: {int32, int64} = int32")
                        .Attr("Tcrops: {int32, int64} = int32")
                        .SetShapeFn([](InferenceContext* c) { return SpaceBatchShape(c, false); }));
  for (const char* name : {"SpaceToDepth", "DepthToSpace"}) {
    const bool to_depth = std::string(name) == "SpaceToDepth";
    MG_REGISTER_OP(r, OpDefBuilder(name)
                          .Input("input: T")
                          .Output("output: T")
                          .Attr("T: type")
                          .Attr("block_size: int >= 2")
                          .Attr("data_format: {\"NHWC\", \"NCHW\", \"NCHW_VECT_C\"} = \"NHWC\"")
                          .SetShapeFn([to_depth](InferenceContext* c) {
                            return SpaceDepthShape(c, to_depth);
                          }));
  }
  MG_REGISTER_OP(r, OpDefBuilder("Conv3D")
                        .Input("input: T")
                        .Input("filter: T")
                        .Output("output: T")
                        .Attr("T: {half, bfloat16, float, double}")
                        .Attr("strides: list(int) >= 5")
                        .Attr("padding: {\"SAME\", \"VALID\"}")
                        .Attr("data_format: {\"NDHWC\", \"NCDHW\"} = \"NDHWC\"")
                        .Attr("dilations: list(int) = [1, 1, 1, 1, 1]")
                        .SetShapeFn(Conv3DShape));
}

}  // namespace ops_internal
}  // namespace minigraph
