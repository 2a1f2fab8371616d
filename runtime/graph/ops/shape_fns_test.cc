// Ops' shape functions on shapes known, partly known and unknown, in the
// manner of TensorFlow's shape_inference_testutil (shape_test_util.h). Every
// expected shape is what TensorFlow 2.21's shape function gives for the same
// op, attrs and inputs (checked with tf.raw_ops in graph mode, 2026-12-07);
// every error case is one TensorFlow refuses too.
#include <string>
#include <utility>
#include <vector>

#include "core/status_macros.h"

#include "gtest/gtest.h"
#include "runtime/graph/ops/shape_test_util.h"

namespace minigraph {
namespace {

// An int32 constant of `values`, of `shape` (a vector when empty).
Tensor Ints(std::vector<int32_t> values, std::vector<int64_t> shape = {}) {
  if (shape.empty()) shape = {static_cast<int64_t>(values.size())};
  Tensor t(DT_INT32, TensorShape(shape));
  for (size_t i = 0; i < values.size(); ++i) t.data<int32_t>()[i] = values[i];
  return t;
}

ShapeTestOp Float(absl::string_view op) {
  ShapeTestOp o(op);
  o.Attr("T", DT_FLOAT);
  return o;
}

TEST(ShapeTestUtil, ParsesTensorFlowsNotation) {
  auto parsed = [](absl::string_view text) -> absl::StatusOr<std::pair<int, std::string>> {
    MG_ASSIGN_OR_RETURN(PartialShape s, ParseShape(text));
    return std::pair<int, std::string>(s.rank(), s.DebugString());
  };
  EXPECT_THAT(parsed("?"), IsOkAndHolds(std::pair<int, std::string>(-1, "?")));
  EXPECT_THAT(parsed("[]"), IsOkAndHolds(std::pair<int, std::string>(0, "[]")));
  EXPECT_THAT(parsed("[2,?,3]"), IsOkAndHolds(std::pair<int, std::string>(3, "[2,?,3]")));
  EXPECT_THAT(ParseShape("[2,x]").status(),
              StatusIs(absl::StatusCode::kInvalidArgument, ::testing::HasSubstr("\"x\"")));
  EXPECT_THAT(ParseShape("2,3").status(), StatusIs(absl::StatusCode::kInvalidArgument));
  // The number of shapes must be the op's number of inputs.
  EXPECT_THAT(Float("MatMul").Infer("[2,3]").status(),
              StatusIs(absl::StatusCode::kInvalidArgument, ::testing::HasSubstr("takes 2 inputs")));
}

TEST(MathShapes, MatMul) {
  ShapeTestOp op = Float("MatMul");
  INFER_OK(op, "[2,3];[3,4]", "[2,4]");
  INFER_ERROR("inner dimensions differ", op, "[2,3];[4,5]");
  INFER_ERROR("rank 2", op, "[2];[4,5]");
  op.Attr("transpose_b", true);
  INFER_OK(op, "[2,3];[4,3]", "[2,4]");
  INFER_OK(op, "?;[4,?]", "[?,4]");
}

TEST(MathShapes, BatchMatMulBroadcastsBatchDimensions) {
  ShapeTestOp op = Float("BatchMatMulV2");
  INFER_OK(op, "[5,1,2,3];[4,3,6]", "[5,4,2,6]");
  op.Attr("adj_x", true);
  INFER_OK(op, "[7,3,2];[?,3]", "[7,2,3]");
}

TEST(MathShapes, BinaryOpsBroadcast) {
  ShapeTestOp op = Float("AddV2");
  INFER_OK(op, "[2,1,3];[4,1]", "[2,4,3]");
  INFER_OK(op, "[?,3];?", "?");
  INFER_ERROR("incompatible shapes for broadcasting", op, "[2];[3]");
  INFER_OK(Float("SelectV2"), "[2,1];[3];[]", "[2,3]");
}

TEST(MathShapes, ReductionsWithConstantAndUnknownAxes) {
  ShapeTestOp sum = Float("Sum");
  sum.Input(1, Ints({1}));
  INFER_OK(sum, "[2,3,4];?", "[2,4]");
  sum.Input(1, Ints({1, -1})).Attr("keep_dims", true);
  INFER_OK(sum, "[2,3,4];?", "[2,1,1]");
  ShapeTestOp unknown_axes = Float("Sum");
  INFER_OK(unknown_axes, "[2,3,4];[1]", "?");
  ShapeTestOp argmax = Float("ArgMax");
  argmax.Input(1, Tensor::Scalar<int32_t>(1));
  INFER_OK(argmax, "[2,3,4];?", "[2,4]");
  ShapeTestOp cumsum = Float("Cumsum");
  cumsum.Input(1, Tensor::Scalar<int32_t>(1));
  INFER_OK(cumsum, "[2,3];?", "[2,3]");
  ShapeTestOp topk = Float("TopKV2");
  topk.Input(1, Tensor::Scalar<int32_t>(3));
  INFER_OK(topk, "[2,10];?", "[2,3];[2,3]");
}

TEST(MathShapes, CastEinsum) {
  ShapeTestOp cast("Cast");
  cast.Attr("SrcT", DT_FLOAT).Attr("DstT", DT_INT32);
  INFER_OK(cast, "[2,?]", "[2,?]");
  ShapeTestOp einsum = Float("Einsum");
  einsum.Attr("N", 2).Attr("equation", "bij,jk->bik");
  INFER_OK(einsum, "[2,3,4];[4,5]", "[2,3,5]");
}

TEST(ArrayShapes, Reshape) {
  ShapeTestOp op = Float("Reshape");
  op.Input(1, Ints({-1, 6}));
  INFER_OK(op, "[2,3,4];?", "[4,6]");
  INFER_OK(op, "[?,3];?", "[?,6]");
  op.Input(1, Ints({5, -1}));
  INFER_ERROR("5", op, "[2,3,4];?");
}

TEST(ArrayShapes, ConcatPackUnpack) {
  ShapeTestOp concat = Float("ConcatV2");
  concat.Attr("N", 2).Input(2, Tensor::Scalar<int32_t>(1));
  INFER_OK(concat, "[2,3];[2,5];?", "[2,8]");
  INFER_OK(concat, "[2,?];?;?", "[2,?]");
  INFER_ERROR("differ in dimension 0", concat, "[2,3];[4,5];?");
  ShapeTestOp pack = Float("Pack");
  pack.Attr("N", 3).Attr("axis", 1);
  INFER_OK(pack, "[2,3];[2,3];[2,?]", "[2,3,3]");
  ShapeTestOp unpack = Float("Unpack");
  unpack.Attr("num", 3).Attr("axis", 1);
  INFER_OK(unpack, "[2,3,4]", "[2,4];[2,4];[2,4]");
}

TEST(ArrayShapes, Splits) {
  ShapeTestOp split = Float("Split");
  split.Attr("num_split", 3).Input(0, Tensor::Scalar<int32_t>(1));
  INFER_OK(split, "?;[2,6]", "[2,2];[2,2];[2,2]");
  ShapeTestOp splitv = Float("SplitV");
  splitv.Attr("num_split", 3).Attr("Tlen", DT_INT32);
  splitv.Input(1, Ints({1, -1, 2})).Input(2, Tensor::Scalar<int32_t>(1));
  INFER_OK(splitv, "[2,6];?;?", "[2,1];[2,3];[2,2]");
}

TEST(ArrayShapes, TransposeExpandSqueeze) {
  ShapeTestOp transpose = Float("Transpose");
  transpose.Input(1, Ints({2, 0, 1}));
  INFER_OK(transpose, "[2,3,4];?", "[4,2,3]");
  ShapeTestOp expand = Float("ExpandDims");
  expand.Input(1, Tensor::Scalar<int32_t>(-1));
  INFER_OK(expand, "[2,3];?", "[2,3,1]");
  ShapeTestOp squeeze = Float("Squeeze");
  INFER_OK(squeeze, "[1,2,1,3]", "[2,3]");
  squeeze.Attr("squeeze_dims", std::vector<int64_t>{0});
  INFER_OK(squeeze, "[1,2,1,3]", "[2,1,3]");
}

TEST(ArrayShapes, Slices) {
  ShapeTestOp slice = Float("Slice");
  slice.Attr("Index", DT_INT32).Input(1, Ints({1, 2})).Input(2, Ints({2, -1}));
  INFER_OK(slice, "[5,6];?;?", "[2,4]");
  ShapeTestOp strided = Float("StridedSlice");
  strided.Attr("Index", DT_INT32)
      .Input(1, Ints({1, 0}))
      .Input(2, Ints({4, 6}))
      .Input(3, Ints({1, 2}));
  INFER_OK(strided, "[5,6,7];?;?;?", "[3,3,7]");
  ShapeTestOp shrink = Float("StridedSlice");
  shrink.Attr("Index", DT_INT32)
      .Attr("shrink_axis_mask", 1)
      .Input(1, Ints({1}))
      .Input(2, Ints({2}))
      .Input(3, Ints({1}));
  INFER_OK(shrink, "[5,6,7];?;?;?", "[6,7]");
}

TEST(ArrayShapes, TilePadGatherFill) {
  ShapeTestOp tile = Float("Tile");
  tile.Input(1, Ints({3, 1}));
  INFER_OK(tile, "[2,3];?", "[6,3]");
  ShapeTestOp pad = Float("Pad");
  pad.Input(1, Ints({1, 1, 0, 2}, {2, 2}));
  INFER_OK(pad, "[2,3];?", "[4,5]");
  ShapeTestOp gather("GatherV2");
  gather.Attr("Tparams", DT_FLOAT).Attr("Tindices", DT_INT32).Attr("Taxis", DT_INT32);
  gather.Input(2, Tensor::Scalar<int32_t>(1));
  INFER_OK(gather, "[5,6,7];[2,3];?", "[5,2,3,7]");
  ShapeTestOp fill = Float("Fill");
  fill.Input(0, Ints({2, 3}));
  INFER_OK(fill, "?;[]", "[2,3]");
  ShapeTestOp broadcast = Float("BroadcastTo");
  broadcast.Input(1, Ints({2, 3}));
  INFER_OK(broadcast, "[3];?", "[2,3]");
  INFER_OK(Float("Shape"), "[2,?,4]", "[3]");
  ShapeTestOp one_hot = Float("OneHot");
  one_hot.Attr("TI", DT_INT32).Input(1, Tensor::Scalar<int32_t>(5));
  INFER_OK(one_hot, "[2,3];?;[];[]", "[2,3,5]");
}

TEST(NnShapes, Convolutions) {
  ShapeTestOp conv = Float("Conv2D");
  conv.Attr("strides", std::vector<int64_t>{1, 2, 2, 1}).Attr("padding", "SAME");
  INFER_OK(conv, "[8,32,32,3];[3,3,3,16]", "[8,16,16,16]");
  conv.Attr("strides", std::vector<int64_t>{1, 1, 1, 1}).Attr("padding", "VALID");
  INFER_OK(conv, "[8,32,32,3];[5,5,3,16]", "[8,28,28,16]");
  conv.Attr("dilations", std::vector<int64_t>{1, 2, 2, 1});
  INFER_OK(conv, "[8,32,32,3];[3,3,3,16]", "[8,28,28,16]");
  INFER_ERROR("4", conv, "[8,32,32,3];[3,3,4,16]");
  ShapeTestOp depthwise = Float("DepthwiseConv2dNative");
  depthwise.Attr("strides", std::vector<int64_t>{1, 2, 2, 1}).Attr("padding", "SAME");
  INFER_OK(depthwise, "[8,32,32,3];[3,3,3,2]", "[8,16,16,6]");
  ShapeTestOp backprop = Float("Conv2DBackpropInput");
  backprop.Attr("strides", std::vector<int64_t>{1, 2, 2, 1}).Attr("padding", "SAME");
  backprop.Input(0, Ints({8, 32, 32, 3}));
  INFER_OK(backprop, "?;[3,3,3,16];[8,16,16,16]", "[8,32,32,3]");
}

TEST(NnShapes, Pools) {
  ShapeTestOp max_pool = Float("MaxPool");
  max_pool.Attr("ksize", std::vector<int64_t>{1, 3, 3, 1})
      .Attr("strides", std::vector<int64_t>{1, 2, 2, 1})
      .Attr("padding", "VALID");
  INFER_OK(max_pool, "[8,32,32,3]", "[8,15,15,3]");
  ShapeTestOp avg_pool = Float("AvgPool");
  avg_pool.Attr("ksize", std::vector<int64_t>{1, 2, 2, 1})
      .Attr("strides", std::vector<int64_t>{1, 2, 2, 1})
      .Attr("padding", "SAME");
  INFER_OK(avg_pool, "[?,32,32,3]", "[?,16,16,3]");
}

TEST(NnShapes, SpaceBatchAndDepth) {
  ShapeTestOp s2b = Float("SpaceToBatchND");
  s2b.Input(1, Ints({2, 2})).Input(2, Ints({0, 0, 0, 0}, {2, 2}));
  INFER_OK(s2b, "[2,6,8,3];?;?", "[8,3,4,3]");
  INFER_OK(s2b, "[?,6,8,3];?;?", "[?,3,4,3]");
  INFER_ERROR("evenly divisible by 2 but is 5", s2b, "[2,5,8,3];?;?");
  s2b.Input(1, Ints({2, 4})).Input(2, Ints({1, 0, 0, 0}, {2, 2}));
  INFER_OK(s2b, "[2,5,8,3];?;?", "[16,3,2,3]");
  INFER_OK(Float("SpaceToBatchND"), "[2,6,8,3];[2];[2,2]", "[?,?,?,3]");
  ShapeTestOp b2s = Float("BatchToSpaceND");
  b2s.Input(1, Ints({2, 2})).Input(2, Ints({0, 1, 0, 0}, {2, 2}));
  INFER_OK(b2s, "[8,3,4,3];?;?", "[2,5,8,3]");
  INFER_ERROR("divisible", b2s, "[6,3,4,3];?;?");
  ShapeTestOp d2s = Float("DepthToSpace");
  d2s.Attr("block_size", 2);
  INFER_OK(d2s, "[2,3,4,8]", "[2,6,8,2]");
  INFER_ERROR("evenly divisible by 4 but is 6", d2s, "[2,3,4,6]");
  ShapeTestOp s2d = Float("SpaceToDepth");
  s2d.Attr("block_size", 2);
  INFER_OK(s2d, "[2,4,6,3]", "[2,2,3,12]");
  INFER_ERROR("evenly divisible by 2 but is 5", s2d, "[2,5,6,3]");
  s2d.Attr("data_format", "NCHW");
  INFER_OK(s2d, "[2,3,4,6]", "[2,12,2,3]");
  // A hostile graph's sizes overflow: an error, not undefined arithmetic.
  ShapeTestOp huge = Float("SpaceToBatchND");
  huge.Input(1, Ints({1 << 30, 1 << 30})).Input(2, Ints({0, 0, 0, 0}, {2, 2}));
  INFER_ERROR("overflows", huge, "[1099511627776,1073741824,1073741824,3];?;?");
}

TEST(NnShapes, Conv3D) {
  ShapeTestOp conv3d = Float("Conv3D");
  conv3d.Attr("strides", std::vector<int64_t>{1, 1, 2, 2, 1}).Attr("padding", "SAME");
  INFER_OK(conv3d, "[2,8,16,16,3];[3,3,3,3,4]", "[2,8,8,8,4]");
  INFER_ERROR("not a multiple of input depth of filter (2)", conv3d,
              "[2,8,16,16,3];[3,3,3,2,4]");
  conv3d.Attr("strides", std::vector<int64_t>{1, 1, 1, 1, 1}).Attr("padding", "VALID");
  INFER_OK(conv3d, "[2,8,16,?,3];[3,3,3,3,4]", "[2,6,14,?,4]");
}

TEST(NnShapes, BiasBatchNormSoftmax) {
  ShapeTestOp bias = Float("BiasAdd");
  INFER_OK(bias, "[8,10];[10]", "[8,10]");
  INFER_ERROR("does not match the channels", bias, "[8,10];[9]");
  ShapeTestOp batch_norm = Float("FusedBatchNormV3");
  batch_norm.Attr("U", DT_FLOAT).Attr("is_training", true);
  INFER_OK(batch_norm, "[8,4,4,3];[3];[3];[0];[0]", "[8,4,4,3];[3];[3];[3];[3];?");
  INFER_OK(Float("Softmax"), "[8,10]", "[8,10]");
  ShapeTestOp xent = Float("SparseSoftmaxCrossEntropyWithLogits");
  xent.Attr("Tlabels", DT_INT32);
  INFER_OK(xent, "[8,10];[8]", "[8];[8,10]");
}

TEST(LinalgShapes, SquareMatricesAndDeterminants) {
  INFER_OK(Float("MatrixInverse"), "[5,3,3]", "[5,3,3]");
  INFER_OK(Float("MatrixInverse"), "[?,3,?]", "[?,3,3]");
  INFER_ERROR("3 and 4", Float("Cholesky"), "[3,4]");
  INFER_ERROR("at least rank 2", Float("Cholesky"), "[3]");
  INFER_OK(Float("MatrixSquareRoot"), "[3,3]", "[3,3]");
  ShapeTestOp logm("MatrixLogarithm");
  logm.Attr("T", DT_COMPLEX64);
  INFER_OK(logm, "[2,3,3]", "[2,3,3]");
  INFER_OK(Float("MatrixDeterminant"), "[2,3,3]", "[2]");
  INFER_OK(Float("MatrixDeterminant"), "?", "?");
  INFER_OK(Float("LogMatrixDeterminant"), "[4,2,2]", "[4];[4]");
  INFER_OK(Float("Lu"), "[2,3,3]", "[2,3,3];[2,3]");
}

TEST(LinalgShapes, Decompositions) {
  ShapeTestOp qr = Float("Qr");
  INFER_OK(qr, "[5,4,3]", "[5,4,3];[5,3,3]");
  INFER_OK(qr, "[?,4,?]", "[?,4,?];[?,?,?]");
  qr.Attr("full_matrices", true);
  INFER_OK(qr, "[5,4,3]", "[5,4,4];[5,4,3]");
  ShapeTestOp svd = Float("Svd");
  INFER_OK(svd, "[4,3]", "[3];[4,3];[3,3]");
  svd.Attr("full_matrices", true);
  INFER_OK(svd, "[2,4,3]", "[2,3];[2,4,4];[2,3,3]");
  svd.Attr("compute_uv", false);
  INFER_OK(svd, "[2,4,3]", "[2,3];[0];[0]");
  ShapeTestOp eig = Float("SelfAdjointEigV2");
  INFER_OK(eig, "[2,3,3]", "[2,3];[2,3,3]");
  eig.Attr("compute_v", false);
  INFER_OK(eig, "[2,3,3]", "[2,3];[0]");
}

TEST(LinalgShapes, Solves) {
  ShapeTestOp triangular = Float("MatrixTriangularSolve");
  INFER_OK(triangular, "[2,3,3];[2,3,5]", "[2,3,5]");
  INFER_OK(triangular, "[3,3];[2,3,5]", "[2,3,5]");  // the batch broadcasts
  INFER_ERROR("3 and 4", triangular, "[3,3];[4,5]");
  ShapeTestOp solve = Float("MatrixSolve");
  INFER_OK(solve, "[2,3,3];[2,3,5]", "[2,3,5]");
  INFER_ERROR("incompatible", solve, "[2,3,3];[4,3,5]");  // the batches must agree
}

TEST(SignalShapes, Fourier) {
  ShapeTestOp rfft("RFFT");
  rfft.Input(1, Ints({16}));
  INFER_OK(rfft, "[4,16];?", "[4,9]");
  ShapeTestOp fft("FFT");
  fft.Attr("Tcomplex", DT_COMPLEX64);
  INFER_OK(fft, "[4,16]", "[4,16]");
}

}  // namespace
}  // namespace minigraph
