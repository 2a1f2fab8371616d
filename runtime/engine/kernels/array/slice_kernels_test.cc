// The slicing and reshaping kernels against values worked out by hand from
// TensorFlow's documentation (x[...] indexing for StridedSlice).
#include <string>
#include <vector>

#include "core/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/engine/kernels/kernel_test_util.h"
#include "tests/testing/tensors.h"

namespace minigraph {
namespace {

using ::testing::ElementsAre;
using ::testing::ElementsAreArray;
using ::testing::HasSubstr;

Tensor Ints(std::vector<int32_t> v) {
  Tensor t(DT_INT32, TensorShape({static_cast<int64_t>(v.size())}));
  std::copy(v.begin(), v.end(), t.data<int32_t>());
  return t;
}
std::vector<int32_t> Values(const Tensor& t) {
  return std::vector<int32_t>(t.data<int32_t>(), t.data<int32_t>() + t.NumElements());
}
std::vector<int64_t> Dims(const Tensor& t) {
  return std::vector<int64_t>(t.shape().dim_sizes().begin(), t.shape().dim_sizes().end());
}

struct Masks {
  int64_t begin = 0, end = 0, ellipsis = 0, new_axis = 0, shrink = 0;
};
std::map<std::string, AttrValue> SliceAttrs(const Masks& m) {
  return {{"begin_mask", MakeAttrValue(m.begin)},
          {"end_mask", MakeAttrValue(m.end)},
          {"ellipsis_mask", MakeAttrValue(m.ellipsis)},
          {"new_axis_mask", MakeAttrValue(m.new_axis)},
          {"shrink_axis_mask", MakeAttrValue(m.shrink)}};
}
absl::StatusOr<Tensor> StridedSlice(const Tensor& x, std::vector<int32_t> b, std::vector<int32_t> e,
                                    std::vector<int32_t> s, const Masks& m) {
  MG_ASSIGN_OR_RETURN(
      auto out, RunKernel("StridedSlice", {{x}, {Ints(b)}, {Ints(e)}, {Ints(s)}}, SliceAttrs(m)));
  return out[0];
}

TEST(SliceKernelsTest, StridedSliceFollowsPythonIndexing) {
  const Tensor x = Iota<int32_t>({2, 3, 4});
  // x[1]
  ASSERT_OK_AND_ASSIGN(Tensor y, StridedSlice(x, {1}, {2}, {1}, {.shrink = 1}));
  EXPECT_THAT(Dims(y), ElementsAre(3, 4));
  EXPECT_EQ(Values(y)[0], 12);
  // x[:, ::-1, 1:3]
  ASSERT_OK_AND_ASSIGN(y,
                       StridedSlice(x, {0, 0, 1}, {0, 0, 3}, {1, -1, 1}, {.begin = 3, .end = 3}));
  EXPECT_THAT(Dims(y), ElementsAre(2, 3, 2));
  EXPECT_THAT(Values(y), ElementsAreArray({9, 10, 5, 6, 1, 2, 21, 22, 17, 18, 13, 14}));
  // x[..., 2]
  ASSERT_OK_AND_ASSIGN(y, StridedSlice(x, {0, 2}, {0, 3}, {1, 1}, {.ellipsis = 1, .shrink = 2}));
  EXPECT_THAT(Dims(y), ElementsAre(2, 3));
  EXPECT_THAT(Values(y), ElementsAre(2, 6, 10, 14, 18, 22));
  // x[tf.newaxis, 0, :, -1]
  ASSERT_OK_AND_ASSIGN(y, StridedSlice(x, {0, 0, 0, -1}, {0, 1, 0, 0}, {1, 1, 1, 1},
                                       {.begin = 4, .end = 4, .new_axis = 1, .shrink = 10}));
  EXPECT_THAT(Dims(y), ElementsAre(1, 3));
  EXPECT_THAT(Values(y), ElementsAre(3, 7, 11));
  // x[:, 1:100:2] (the end clamps), x[:, 2:0] (empty), x[-1:, -2]
  ASSERT_OK_AND_ASSIGN(y, StridedSlice(x, {0, 1}, {0, 100}, {1, 2}, {.begin = 1, .end = 1}));
  EXPECT_THAT(Dims(y), ElementsAre(2, 1, 4));
  ASSERT_OK_AND_ASSIGN(y, StridedSlice(x, {0, 2}, {0, 0}, {1, 1}, {.begin = 1, .end = 1}));
  EXPECT_THAT(Dims(y), ElementsAre(2, 0, 4));
  ASSERT_OK_AND_ASSIGN(y, StridedSlice(x, {-1, -2}, {0, 0}, {1, 1}, {.end = 1, .shrink = 2}));
  EXPECT_THAT(Dims(y), ElementsAre(1, 4));
  EXPECT_THAT(Values(y), ElementsAre(16, 17, 18, 19));
  // Errors, with TensorFlow's texts.
  EXPECT_THAT(StridedSlice(x, {5}, {6}, {1}, {.shrink = 1}).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("slice index 5 of dimension 0 out of bounds.")));
  EXPECT_THAT(
      StridedSlice(x, {0}, {1}, {0}, {}).status(),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("strides[0] must be non-zero")));
  EXPECT_THAT(StridedSlice(x, {0, 0, 0, 0}, {1, 1, 1, 1}, {1, 1, 1, 1}, {}).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("Index out of range")));
}

TEST(SliceKernelsTest, StridedSliceGradScattersIntoZeros) {
  Tensor dy = Iota<int32_t>({2, 3, 2});
  ASSERT_OK_AND_ASSIGN(
      auto out,
      RunKernel("StridedSliceGrad",
                {{Ints({2, 3, 4})}, {Ints({0, 0, 1})}, {Ints({0, 0, 3})}, {Ints({1, -1, 1})}, {dy}},
                SliceAttrs({.begin = 3, .end = 3})));
  EXPECT_THAT(Dims(out[0]), ElementsAre(2, 3, 4));
  // x[0, 2, 1:3] got dy[0, 0, :]; x[0, 0, 1:3] got dy[0, 2, :].
  const std::vector<int32_t> v = Values(out[0]);
  EXPECT_THAT(std::vector<int32_t>(v.begin(), v.begin() + 12),
              ElementsAreArray({0, 4, 5, 0, 0, 2, 3, 0, 0, 0, 1, 0}));
}

TEST(SliceKernelsTest, TransposeSliceTilePadReverse) {
  const Tensor x = Iota<int32_t>({2, 3, 4});
  ASSERT_OK_AND_ASSIGN(auto out, RunKernel("Transpose", {{x}, {Ints({2, 0, 1})}}));
  EXPECT_THAT(Dims(out[0]), ElementsAre(4, 2, 3));
  for (int k = 0; k < 4; ++k)
    for (int i = 0; i < 2; ++i)
      for (int j = 0; j < 3; ++j)
        EXPECT_EQ(Values(out[0])[(k * 2 + i) * 3 + j], (i * 3 + j) * 4 + k);
  EXPECT_THAT(RunKernel("Transpose", {{x}, {Ints({0, 0, 1})}}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not a valid permutation")));

  ASSERT_OK_AND_ASSIGN(out, RunKernel("Slice", {{x}, {Ints({1, 1, 2})}, {Ints({1, -1, 2})}}));
  EXPECT_THAT(Dims(out[0]), ElementsAre(1, 2, 2));
  EXPECT_THAT(Values(out[0]), ElementsAre(18, 19, 22, 23));
  EXPECT_THAT(
      RunKernel("Slice", {{x}, {Ints({0, 2, 0})}, {Ints({1, 2, 1})}}),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("Expected size[1] in [0, 1]")));

  const Tensor m = Iota<int32_t>({2, 2});
  ASSERT_OK_AND_ASSIGN(out, RunKernel("Tile", {{m}, {Ints({2, 3})}}));
  EXPECT_THAT(Dims(out[0]), ElementsAre(4, 6));
  const std::vector<int32_t> tiled = Values(out[0]);
  EXPECT_THAT(std::vector<int32_t>(tiled.begin(), tiled.begin() + 6),
              ElementsAre(0, 1, 0, 1, 0, 1));
  EXPECT_EQ(Values(out[0])[18], 2);

  Tensor pads(DT_INT32, TensorShape({2, 2}));
  std::vector<int32_t> p = {1, 0, 0, 2};
  std::copy(p.begin(), p.end(), pads.data<int32_t>());
  ASSERT_OK_AND_ASSIGN(out, RunKernel("PadV2", {{m}, {pads}, {Tensor::Scalar<int32_t>(-1)}}));
  EXPECT_THAT(Dims(out[0]), ElementsAre(3, 4));
  EXPECT_THAT(Values(out[0]), ElementsAre(-1, -1, -1, -1, 0, 1, -1, -1, 2, 3, -1, -1));
  ASSERT_OK_AND_ASSIGN(out, RunKernel("Pad", {{m}, {pads}}));
  EXPECT_THAT(Values(out[0]), ElementsAre(0, 0, 0, 0, 0, 1, 0, 0, 2, 3, 0, 0));

  ASSERT_OK_AND_ASSIGN(out, RunKernel("ReverseV2", {{Iota<int32_t>({2, 3})}, {Ints({1, -2})}}));
  EXPECT_THAT(Values(out[0]), ElementsAre(5, 4, 3, 2, 1, 0));
}

TEST(SliceKernelsTest, SplitUnpackExpandSqueeze) {
  const Tensor x = Iota<int32_t>({2, 6});
  ASSERT_OK_AND_ASSIGN(auto out, RunKernel("Split", {{Tensor::Scalar<int32_t>(1)}, {x}},
                                           {{"num_split", MakeAttrValue(int64_t{3})}}));
  ASSERT_EQ(out.size(), 3u);
  EXPECT_THAT(Values(out[1]), ElementsAre(2, 3, 8, 9));
  EXPECT_THAT(RunKernel("Split", {{Tensor::Scalar<int32_t>(1)}, {x}},
                        {{"num_split", MakeAttrValue(int64_t{4})}}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("evenly divide")));
  ASSERT_OK_AND_ASSIGN(out,
                       RunKernel("SplitV", {{x}, {Ints({1, -1, 2})}, {Tensor::Scalar<int32_t>(-1)}},
                                 {{"num_split", MakeAttrValue(int64_t{3})}}));
  EXPECT_THAT(Dims(out[1]), ElementsAre(2, 3));
  EXPECT_THAT(Values(out[2]), ElementsAre(4, 5, 10, 11));
  ASSERT_OK_AND_ASSIGN(
      out, RunKernel("Unpack", {{x}},
                     {{"num", MakeAttrValue(int64_t{6})}, {"axis", MakeAttrValue(int64_t{-1})}}));
  ASSERT_EQ(out.size(), 6u);
  EXPECT_THAT(Dims(out[4]), ElementsAre(2));
  EXPECT_THAT(Values(out[4]), ElementsAre(4, 10));
  ASSERT_OK_AND_ASSIGN(out, RunKernel("ExpandDims", {{x}, {Tensor::Scalar<int32_t>(-1)}}));
  EXPECT_THAT(Dims(out[0]), ElementsAre(2, 6, 1));
  ASSERT_OK_AND_ASSIGN(out, RunKernel("Squeeze", {{Iota<int32_t>({1, 2, 1, 3})}}));
  EXPECT_THAT(Dims(out[0]), ElementsAre(2, 3));
  ASSERT_OK_AND_ASSIGN(out, RunKernel("Squeeze", {{Iota<int32_t>({1, 2, 1, 3})}},
                                      {{"squeeze_dims", MakeAttrValue(std::vector<int64_t>{2})}}));
  EXPECT_THAT(Dims(out[0]), ElementsAre(1, 2, 3));
  EXPECT_THAT(RunKernel("Squeeze", {{Iota<int32_t>({1, 2})}},
                        {{"squeeze_dims", MakeAttrValue(std::vector<int64_t>{1})}}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Can not squeeze dim[1], expected a dimension of 1, got 2")));
}

TEST(SliceKernelsTest, RangeOneHotInvertPermutationShapeNAndStrings) {
  ASSERT_OK_AND_ASSIGN(auto out, RunKernel("Range", {{Tensor::Scalar<int32_t>(3)},
                                                     {Tensor::Scalar<int32_t>(18)},
                                                     {Tensor::Scalar<int32_t>(5)}}));
  EXPECT_THAT(Values(out[0]), ElementsAre(3, 8, 13));
  ASSERT_OK_AND_ASSIGN(out, RunKernel("Range", {{Tensor::Scalar<float>(1)},
                                                {Tensor::Scalar<float>(0)},
                                                {Tensor::Scalar<float>(-0.3f)}}));
  EXPECT_EQ(out[0].NumElements(), 4);
  EXPECT_THAT(RunKernel("Range", {{Tensor::Scalar<int32_t>(3)},
                                  {Tensor::Scalar<int32_t>(1)},
                                  {Tensor::Scalar<int32_t>(1)}}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Requires start <= limit when delta > 0: 3/1")));

  Tensor idx(DT_INT64, TensorShape({3}));
  idx.data<int64_t>()[0] = 2;
  idx.data<int64_t>()[1] = -1;
  idx.data<int64_t>()[2] = 0;
  ASSERT_OK_AND_ASSIGN(out, RunKernel("OneHot", {{idx},
                                                 {Tensor::Scalar<int32_t>(3)},
                                                 {Tensor::Scalar<int32_t>(5)},
                                                 {Tensor::Scalar<int32_t>(0)}}));
  EXPECT_THAT(Dims(out[0]), ElementsAre(3, 3));
  EXPECT_THAT(Values(out[0]), ElementsAre(0, 0, 5, 0, 0, 0, 5, 0, 0));
  ASSERT_OK_AND_ASSIGN(out, RunKernel("OneHot",
                                      {{idx},
                                       {Tensor::Scalar<int32_t>(3)},
                                       {Tensor::Scalar<int32_t>(1)},
                                       {Tensor::Scalar<int32_t>(0)}},
                                      {{"axis", MakeAttrValue(int64_t{0})}}));
  EXPECT_THAT(Values(out[0]), ElementsAre(0, 0, 1, 0, 0, 0, 1, 0, 0));

  ASSERT_OK_AND_ASSIGN(out, RunKernel("InvertPermutation", {{Ints({2, 0, 1})}}));
  EXPECT_THAT(Values(out[0]), ElementsAre(1, 2, 0));
  ASSERT_OK_AND_ASSIGN(out, RunKernel("ShapeN", {{Iota<int32_t>({2, 3}), Iota<int32_t>({4})}}));
  EXPECT_THAT(Values(out[0]), ElementsAre(2, 3));
  EXPECT_THAT(Values(out[1]), ElementsAre(4));

  Tensor s(DT_STRING, TensorShape({2, 2}));
  for (int i = 0; i < 4; ++i) s.data<std::string>()[i] = std::string(30, 'a' + i);
  ASSERT_OK_AND_ASSIGN(out, RunKernel("Transpose", {{s}, {Ints({1, 0})}}));
  EXPECT_EQ(out[0].data<std::string>()[1], std::string(30, 'c'));
}

}  // namespace
}  // namespace minigraph
