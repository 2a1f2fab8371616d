// Array kernels: shapes, reshaping, joining, gathering, selection.
#include "core/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/engine/kernels/kernel_test_util.h"
#include "tests/testing/tensors.h"

namespace minigraph {
namespace {

using ::testing::HasSubstr;

std::string Run1(const std::string& op, const std::vector<std::vector<Tensor>>& in,
                 const std::map<std::string, AttrValue>& attrs = {}) {
  auto out = RunKernel(op, in, attrs);
  if (!out.ok()) return std::string(out.status().message());
  return (*out)[0].shape().DebugString() + " " + (*out)[0].SummarizeValue(100);
}

TEST(ArrayKernelsTest, FillShapeSizeRank) {
  EXPECT_EQ(Run1("Fill", {{Tensor::Vector<int32_t>({2, 2})}, {Tensor::Scalar<float>(1.5f)}}),
            "[2,2] 1.5 1.5 1.5 1.5");
  EXPECT_EQ(Run1("Fill", {{Tensor::Vector<int64_t>({0, 3})}, {Tensor::Scalar<int32_t>(1)}}),
            "[0,3] ");
  Tensor x = Iota(DT_FLOAT, TensorShape({2, 3}));
  EXPECT_EQ(Run1("ZerosLike", {{x}}), "[2,3] 0 0 0 0 0 0");
  EXPECT_EQ(Run1("OnesLike", {{x}}), "[2,3] 1 1 1 1 1 1");
  EXPECT_EQ(Run1("Shape", {{x}}), "[2] 2 3");
  EXPECT_EQ(Run1("Shape", {{x}}, {{"out_type", MakeAttrValue(DT_INT64)}}), "[2] 2 3");
  EXPECT_EQ(Run1("Size", {{x}}), "[] 6");
  EXPECT_EQ(Run1("Rank", {{x}}), "[] 2");
  EXPECT_THAT(Run1("Fill", {{Tensor::Vector<int32_t>({-1})}, {Tensor::Scalar<float>(1)}}),
              HasSubstr(">= 0"));
}

TEST(ArrayKernelsTest, ReshapeInfersOneDimensionAndChecksCounts) {
  Tensor x = Iota(DT_FLOAT, TensorShape({2, 3}));
  EXPECT_EQ(Run1("Reshape", {{x}, {Tensor::Vector<int32_t>({3, -1})}}), "[3,2] 0 1 2 3 4 5");
  EXPECT_EQ(Run1("Reshape", {{x}, {Tensor::Vector<int64_t>({6})}}), "[6] 0 1 2 3 4 5");
  EXPECT_THAT(Run1("Reshape", {{x}, {Tensor::Vector<int32_t>({4, -1})}}), HasSubstr("6"));
  EXPECT_THAT(Run1("Reshape", {{x}, {Tensor::Vector<int32_t>({5})}}), HasSubstr("cannot reshape"));
  Tensor empty(DT_FLOAT, TensorShape({0, 4}));
  EXPECT_EQ(Run1("Reshape", {{empty}, {Tensor::Vector<int32_t>({2, 0, 2})}}), "[2,0,2] ");
}

TEST(ArrayKernelsTest, Cast) {
  Tensor x = Tensor::Vector<float>({-1.7f, 0.0f, 2.5f});
  EXPECT_EQ(Run1("Cast", {{x}}, {{"DstT", MakeAttrValue(DT_INT32)}}), "[3] -1 0 2");
  EXPECT_EQ(Run1("Cast", {{x}}, {{"DstT", MakeAttrValue(DT_BOOL)}}), "[3] 1 0 1");
  EXPECT_EQ(Run1("Cast", {{x}}, {{"DstT", MakeAttrValue(DT_DOUBLE)}}), "[3] -1.7 0 2.5");
  EXPECT_EQ(
      Run1("Cast", {{Tensor::Vector<bool>({true, false})}}, {{"DstT", MakeAttrValue(DT_FLOAT)}}),
      "[2] 1 0");
  EXPECT_THAT(Run1("Cast", {{x}}, {{"DstT", MakeAttrValue(DT_STRING)}}),
              HasSubstr("no CPU kernel"));
  // A bfloat16 denormal is true, as TensorFlow tests its bits.
  Tensor tiny(DT_BFLOAT16, TensorShape({2}));
  tiny.data<bfloat16>()[0] = Eigen::numext::bit_cast<bfloat16>(uint16_t{0x0001});
  tiny.data<bfloat16>()[1] = Eigen::numext::bit_cast<bfloat16>(uint16_t{0x8000});  // -0
  EXPECT_EQ(Run1("Cast", {{tiny}}, {{"DstT", MakeAttrValue(DT_BOOL)}}), "[2] 1 0");
  // NaN and values out of range convert as TensorFlow's x86 conversion
  // does: the lowest integer, and for uint8 the int32 conversion wrapped.
  const float nan = std::numeric_limits<float>::quiet_NaN();
  Tensor odd = Tensor::Vector<float>({nan, 3e9f, -3e9f, 300.0f, -1.0f});
  EXPECT_EQ(Run1("Cast", {{odd}}, {{"DstT", MakeAttrValue(DT_INT32)}}),
            "[5] -2147483648 -2147483648 -2147483648 300 -1");
  EXPECT_EQ(Run1("Cast", {{odd}}, {{"DstT", MakeAttrValue(DT_INT64)}}),
            "[5] -9223372036854775808 3000000000 -3000000000 300 -1");
  EXPECT_EQ(Run1("Cast", {{odd}}, {{"DstT", MakeAttrValue(DT_UINT8)}}), "[5] 0 0 0 44 255");
}

TEST(ArrayKernelsTest, PackAlongEveryAxisIncludingStrings) {
  Tensor a = Iota(DT_INT32, TensorShape({2, 2}));
  Tensor b = Tensor::Vector<int32_t>({10, 11, 12, 13});
  ASSERT_OK_AND_ASSIGN(b, b.Reshaped(TensorShape({2, 2})));
  EXPECT_EQ(Run1("Pack", {{a, b}}), "[2,2,2] 0 1 2 3 10 11 12 13");
  EXPECT_EQ(Run1("Pack", {{a, b}}, {{"axis", MakeAttrValue(1)}}), "[2,2,2] 0 1 10 11 2 3 12 13");
  EXPECT_EQ(Run1("Pack", {{a, b}}, {{"axis", MakeAttrValue(-1)}}), "[2,2,2] 0 10 1 11 2 12 3 13");
  EXPECT_EQ(Run1("Pack", {{Tensor::Scalar<std::string>("x"), Tensor::Scalar<std::string>("yz")}}),
            "[2] \"x\" \"yz\"");
  EXPECT_EQ(Run1("Pack", {{Tensor::Scalar<bool>(true), Tensor::Scalar<bool>(false)}}), "[2] 1 0");
  EXPECT_THAT(Run1("Pack", {{a, Tensor::Vector<int32_t>({1})}}), HasSubstr("Pack inputs"));
}

TEST(ArrayKernelsTest, Concat) {
  Tensor a = Iota(DT_FLOAT, TensorShape({2, 2}));
  Tensor b = Iota(DT_FLOAT, TensorShape({2, 1}));
  EXPECT_EQ(Run1("ConcatV2", {{a, b}, {Tensor::Scalar<int32_t>(1)}}), "[2,3] 0 1 0 2 3 1");
  EXPECT_EQ(Run1("ConcatV2", {{a, a}, {Tensor::Scalar<int32_t>(0)}}), "[4,2] 0 1 2 3 0 1 2 3");
  EXPECT_EQ(
      Run1("ConcatV2", {{a, Tensor(DT_FLOAT, TensorShape({0, 2}))}, {Tensor::Scalar<int64_t>(-2)}}),
      "[2,2] 0 1 2 3");
  EXPECT_EQ(
      Run1("Concat", {{Tensor::Scalar<int32_t>(0)},
                      {Iota(DT_STRING, TensorShape({2})), Iota(DT_STRING, TensorShape({1}))}}),
      "[3] \"a\" \"b\" \"a\"");
  EXPECT_THAT(Run1("ConcatV2", {{a, b}, {Tensor::Scalar<int32_t>(0)}}), HasSubstr("Concat"));
}

Tensor Ints(DataType dt, const TensorShape& shape, std::initializer_list<int64_t> v) {
  Tensor t(dt, shape);
  int64_t i = 0;
  for (int64_t x : v) {
    if (dt == DT_INT32)
      t.data<int32_t>()[i++] = static_cast<int32_t>(x);
    else
      t.data<int64_t>()[i++] = x;
  }
  return t;
}

TEST(ArrayKernelsTest, GatherNdPicksElementsAndSlicesByIndexTuples) {
  Tensor params = Iota(DT_FLOAT, TensorShape({2, 3}));
  EXPECT_EQ(Run1("GatherNd", {{params}, {Ints(DT_INT32, TensorShape({2, 2}), {1, 2, 0, 0})}}),
            "[2] 5 0");
  EXPECT_EQ(Run1("GatherNd", {{params}, {Ints(DT_INT64, TensorShape({1, 1}), {1})}}),
            "[1,3] 3 4 5");
  EXPECT_EQ(Run1("GatherNd", {{params}, {Ints(DT_INT32, TensorShape({2, 1, 2}), {0, 1, 1, 0})}}),
            "[2,1] 1 3");
  EXPECT_EQ(Run1("GatherNd", {{Iota(DT_STRING, TensorShape({3}))},
                              {Ints(DT_INT32, TensorShape({2, 1}), {2, 0})}}),
            "[2] \"c\" \"a\"");
  EXPECT_EQ(Run1("GatherNd", {{params}, {Tensor(DT_INT32, TensorShape({0, 2}))}}), "[0] ");
  // An index tuple of length 0 takes the whole of params.
  EXPECT_EQ(Run1("GatherNd", {{params}, {Tensor(DT_INT32, TensorShape({1, 0}))}}),
            "[1,2,3] 0 1 2 3 4 5");
  EXPECT_THAT(Run1("GatherNd", {{params}, {Ints(DT_INT32, TensorShape({2, 2}), {0, 0, 2, 0})}}),
              HasSubstr("indices[1] = [2, 0] does not index into param shape [2,3]"));
  EXPECT_THAT(Run1("GatherNd", {{params}, {Ints(DT_INT32, TensorShape({1, 3}), {0, 0, 0})}}),
              HasSubstr("must be <= params rank; saw: 3 vs. 2"));
}

TEST(ArrayKernelsTest, UniqueKeepsFirstAppearanceOrder) {
  // TensorFlow's documented example.
  Tensor x = Ints(DT_INT32, TensorShape({9}), {1, 1, 2, 4, 4, 4, 7, 8, 8});
  ASSERT_OK_AND_ASSIGN(auto out, RunKernel("Unique", {{x}}));
  EXPECT_EQ(out[0].SummarizeValue(10), "1 2 4 7 8");
  EXPECT_EQ(out[1].dtype(), DT_INT32);
  EXPECT_EQ(out[1].SummarizeValue(10), "0 0 1 2 2 2 3 4 4");
  Tensor words(DT_STRING, TensorShape({4}));
  for (int i = 0; i < 4; ++i) words.data<std::string>()[i] = i % 2 ? "b" : "a";
  ASSERT_OK_AND_ASSIGN(out, RunKernel("Unique", {{words}}, {{"out_idx", MakeAttrValue(DT_INT64)}}));
  EXPECT_EQ(out[0].SummarizeValue(10), "\"a\" \"b\"");
  EXPECT_EQ(out[1].dtype(), DT_INT64);
  EXPECT_EQ(out[1].SummarizeValue(10), "0 1 0 1");
  EXPECT_EQ(Run1("Unique", {{Tensor(DT_FLOAT, TensorShape({0}))}}), "[0] ");
  EXPECT_THAT(Run1("Unique", {{Iota(DT_FLOAT, TensorShape({2, 2}))}}), HasSubstr("1-D"));
}

TEST(ArrayKernelsTest, UnsortedSegmentSumAddsRowsBySegmentAndDropsNegativeIds) {
  // TensorFlow's documented example.
  Tensor data = Ints(DT_INT32, TensorShape({3, 4}), {1, 2, 3, 4, 5, 6, 7, 8, 4, 3, 2, 1});
  EXPECT_EQ(Run1("UnsortedSegmentSum",
                 {{data}, {Tensor::Vector<int32_t>({0, 1, 0})}, {Tensor::Scalar<int32_t>(2)}}),
            "[2,4] 5 5 5 5 5 6 7 8");
  EXPECT_EQ(Run1("UnsortedSegmentSum", {{Iota(DT_FLOAT, TensorShape({4}))},
                                        {Tensor::Vector<int64_t>({2, -1, 2, 0})},
                                        {Tensor::Scalar<int64_t>(4)}}),
            "[4] 3 0 2 0");
  EXPECT_EQ(Run1("UnsortedSegmentSum", {{Iota(DT_FLOAT, TensorShape({2, 2, 2}))},
                                        {Ints(DT_INT32, TensorShape({2, 2}), {1, 1, 0, -1})},
                                        {Tensor::Scalar<int32_t>(2)}}),
            "[2,2] 4 5 2 4");
  EXPECT_THAT(Run1("UnsortedSegmentSum",
                   {{data}, {Tensor::Vector<int32_t>({0, 2, 0})}, {Tensor::Scalar<int32_t>(2)}}),
              HasSubstr("segment_ids[1] = 2 is out of range [0, 2)"));
  EXPECT_THAT(Run1("UnsortedSegmentSum",
                   {{data}, {Tensor::Vector<int32_t>({0, 1})}, {Tensor::Scalar<int32_t>(2)}}),
              HasSubstr("does not start with segment_ids.shape"));
}

TEST(ArrayKernelsTest, UniqueWithCountsCountsEachValue) {
  Tensor x = Ints(DT_INT64, TensorShape({6}), {4, 1, 4, 4, 2, 1});
  ASSERT_OK_AND_ASSIGN(auto out, RunKernel("UniqueWithCounts", {{x}}));
  EXPECT_EQ(out[0].SummarizeValue(10), "4 1 2");
  EXPECT_EQ(out[1].SummarizeValue(10), "0 1 0 0 2 1");
  EXPECT_EQ(out[2].dtype(), DT_INT32);
  EXPECT_EQ(out[2].SummarizeValue(10), "3 2 1");
}

TEST(ArrayKernelsTest, SelectV2BroadcastsAllThree) {
  Tensor c(DT_BOOL, TensorShape({2, 1}));
  c.data<bool>()[0] = true;
  c.data<bool>()[1] = false;
  Tensor t = Iota(DT_FLOAT, TensorShape({1, 3}));
  EXPECT_EQ(Run1("SelectV2", {{c}, {t}, {Tensor::Scalar<float>(-1)}}), "[2,3] 0 1 2 -1 -1 -1");
  EXPECT_EQ(Run1("SelectV2", {{Tensor::Scalar<bool>(false)}, {t}, {Tensor::Scalar<float>(7)}}),
            "[1,3] 7 7 7");
  EXPECT_THAT(Run1("SelectV2", {{Tensor::Vector<bool>({true, false})}, {t}, {t}}),
              HasSubstr("incompatible shapes for broadcasting: [2] and [1,3]"));
}

TEST(ArrayKernelsTest, ConcatOffsetGivesEachInputsStart) {
  auto out =
      RunKernel("ConcatOffset", {{Tensor::Scalar<int32_t>(1)},
                                 {Tensor::Vector<int32_t>({2, 3}), Tensor::Vector<int32_t>({2, 5}),
                                  Tensor::Vector<int32_t>({2, 1})}});
  ASSERT_OK(out.status());
  EXPECT_EQ((*out)[0].SummarizeValue(10), "0 0");
  EXPECT_EQ((*out)[1].SummarizeValue(10), "0 3");
  EXPECT_EQ((*out)[2].SummarizeValue(10), "0 8");
  EXPECT_THAT(
      Run1("ConcatOffset", {{Tensor::Scalar<int32_t>(1)},
                            {Tensor::Vector<int32_t>({2, 3}), Tensor::Vector<int32_t>({4, 5})}}),
      HasSubstr("input[1,0] mismatch: 2 vs. 4"));
  EXPECT_THAT(
      Run1("ConcatOffset", {{Tensor::Scalar<int32_t>(0)},
                            {Tensor::Vector<int32_t>({2, 3}), Tensor::Vector<int32_t>({2, 3, 1})}}),
      HasSubstr("input 1 should contain 2 elements, but got 3"));
  EXPECT_THAT(
      Run1("ConcatOffset", {{Tensor::Scalar<int32_t>(0)},
                            {Tensor::Vector<int32_t>({2, 3}), Tensor::Vector<int32_t>({-2, 3})}}),
      HasSubstr("input 1 has a negative size -2"));
  const int64_t big = int64_t{1} << 62;
  EXPECT_THAT(Run1("ConcatOffset", {{Tensor::Scalar<int32_t>(0)},
                                    {Tensor::Vector<int64_t>({big}), Tensor::Vector<int64_t>({big}),
                                     Tensor::Vector<int64_t>({big})}}),
              HasSubstr("add up past 2^63"));
}

TEST(ArrayKernelsTest, GatherAndGatherV2) {
  Tensor params = Iota(DT_FLOAT, TensorShape({3, 2}));
  EXPECT_EQ(Run1("Gather", {{params}, {Tensor::Vector<int32_t>({2, 0, 2})}}), "[3,2] 4 5 0 1 4 5");
  EXPECT_EQ(
      Run1("GatherV2", {{params}, {Tensor::Vector<int64_t>({1})}, {Tensor::Scalar<int32_t>(1)}}),
      "[3,1] 1 3 5");
  EXPECT_EQ(Run1("GatherV2", {{Iota(DT_STRING, TensorShape({3}))},
                              {Tensor::Vector<int32_t>({2, 1})},
                              {Tensor::Scalar<int32_t>(0)}}),
            "[2] \"c\" \"b\"");
  EXPECT_EQ(Run1("Gather", {{params}, {Tensor(DT_INT32, TensorShape({0}))}}), "[0,2] ");
  EXPECT_THAT(Run1("Gather", {{params}, {Tensor::Vector<int32_t>({3})}}),
              HasSubstr("indices[0] = 3 is not in [0, 3)"));
}

TEST(ArrayKernelsTest, GatherV2WithBatchDimsGathersWithinEachBatch) {
  // params [2, 4]: batch 0 is 0..3, batch 1 is 4..7; each batch picks its own.
  Tensor params = Iota(DT_FLOAT, TensorShape({2, 4}));
  Tensor indices(DT_INT32, TensorShape({2, 2}));
  indices.flat<int32_t>().setValues({1, 3, 0, 0});
  const std::map<std::string, AttrValue> bd1 = {{"batch_dims", MakeAttrValue(int64_t{1})}};
  EXPECT_EQ(Run1("GatherV2", {{params}, {indices}, {Tensor::Scalar<int32_t>(1)}}, bd1),
            "[2,2] 1 3 4 4");
  // batch_dims -1 counts from the indices' rank: 1 here as well.
  EXPECT_EQ(Run1("GatherV2", {{params}, {indices}, {Tensor::Scalar<int32_t>(1)}},
                 {{"batch_dims", MakeAttrValue(int64_t{-1})}}),
            "[2,2] 1 3 4 4");
  EXPECT_THAT(Run1("GatherV2", {{params}, {Tensor::Vector<int32_t>({0, 1, 2})},
                                {Tensor::Scalar<int32_t>(1)}},
                   bd1),
              HasSubstr("should equal indices.shape[0] = 3"));
  EXPECT_THAT(Run1("GatherV2", {{params}, {indices}, {Tensor::Scalar<int32_t>(0)}}, bd1),
              HasSubstr("batch_dims 1 must be in [0, min(axis 0"));
}

TEST(ArrayKernelsTest, SelectThreeForms) {
  Tensor t = Iota(DT_FLOAT, TensorShape({2, 2}));
  Tensor e(DT_FLOAT, TensorShape({2, 2}));
  e.flat<float>().setConstant(-1);
  Tensor cond(DT_BOOL, TensorShape({2, 2}));
  cond.flat<bool>()(0) = true;
  cond.flat<bool>()(1) = false;
  cond.flat<bool>()(2) = false;
  cond.flat<bool>()(3) = true;
  EXPECT_EQ(Run1("Select", {{cond}, {t}, {e}}), "[2,2] 0 -1 -1 3");
  EXPECT_EQ(Run1("Select", {{Tensor::Vector<bool>({false, true})}, {t}, {e}}), "[2,2] -1 -1 2 3");
  EXPECT_EQ(Run1("Select", {{Tensor::Scalar<bool>(true)}, {t}, {e}}), "[2,2] 0 1 2 3");
  // Strings (a Keras model's save function picks file names this way).
  EXPECT_EQ(Run1("Select", {{Tensor::Vector<bool>({true, false})},
                            {Tensor::Vector<std::string>({"a", "b"})},
                            {Tensor::Vector<std::string>({"x", "y"})}}),
            "[2] \"a\" \"y\"");
  EXPECT_EQ(Run1("SelectV2", {{Tensor::Vector<bool>({true, false})},
                              {Tensor::Scalar<std::string>("a")},
                              {Tensor::Vector<std::string>({"x", "y"})}}),
            "[2] \"a\" \"y\"");
}

TEST(ArrayKernelsTest, WhereAndBroadcastGradientArgs) {
  Tensor m(DT_BOOL, TensorShape({2, 3}));
  m.flat<bool>().setConstant(false);
  m.flat<bool>()(1) = true;
  m.flat<bool>()(5) = true;
  EXPECT_EQ(Run1("Where", {{m}}), "[2,2] 0 1 1 2");
  EXPECT_EQ(Run1("Where", {{Tensor(DT_BOOL, TensorShape({0}))}}), "[0,1] ");
  // TensorFlow's Where refuses a scalar.
  EXPECT_THAT(Run1("Where", {{Tensor::Scalar<bool>(true)}}), HasSubstr("rank 1 or more"));
  ASSERT_OK_AND_ASSIGN(auto r, RunKernel("BroadcastGradientArgs",
                                         {{Tensor::Vector<int32_t>({2, 3, 5})},
                                          {Tensor::Vector<int32_t>({3, 1})}}));
  EXPECT_EQ(r[0].SummarizeValue(10), "");
  EXPECT_EQ(r[1].SummarizeValue(10), "0 2");
  ASSERT_OK_AND_ASSIGN(r, RunKernel("BroadcastGradientArgs", {{Tensor::Vector<int32_t>({1, 4})},
                                                              {Tensor::Vector<int32_t>({3, 1})}}));
  EXPECT_EQ(r[0].SummarizeValue(10), "0");
  EXPECT_EQ(r[1].SummarizeValue(10), "1");
}

TEST(ArrayKernelsTest, PlaceholderWithDefaultAndIdentityForward) {
  Tensor x = Iota(DT_FLOAT, TensorShape({2}));
  EXPECT_EQ(Run1("Identity", {{x}}), "[2] 0 1");
  EXPECT_EQ(Run1("StopGradient", {{Iota(DT_STRING, TensorShape({1}))}}), "[1] \"a\"");
  AttrValue shape;
  shape.mutable_shape()->add_dim()->set_size(2);
  EXPECT_EQ(Run1("PlaceholderWithDefault", {{x}}, {{"shape", shape}}), "[2] 0 1");
}

TEST(ArrayKernelsTest, BroadcastTo) {
  const Tensor x = Iota(DT_FLOAT, TensorShape({3}));
  EXPECT_EQ(Run1("BroadcastTo", {{x}, {Tensor::Vector<int32_t>({2, 3})}}), "[2,3] 0 1 2 0 1 2");
  EXPECT_EQ(Run1("BroadcastTo",
                 {{Iota(DT_FLOAT, TensorShape({2, 1}))}, {Tensor::Vector<int64_t>({2, 2, 3})}}),
            "[2,2,3] 0 0 0 1 1 1 0 0 0 1 1 1");
  EXPECT_EQ(Run1("BroadcastTo",
                 {{Iota(DT_STRING, TensorShape({1, 2}))}, {Tensor::Vector<int32_t>({2, 2})}}),
            "[2,2] \"a\" \"b\" \"a\" \"b\"");
  EXPECT_THAT(Run1("BroadcastTo", {{x}, {Tensor::Vector<int32_t>({2})}}),
              HasSubstr("cannot broadcast [3] to [2]"));
}

TEST(ArrayKernelsTest, DynamicStitchLaterEntriesWin) {
  // indices [0, 2], [[1], [2]]; data [[1,2],[3,4]], [[[5,6]],[[7,8]]].
  Tensor d0(DT_FLOAT, TensorShape({2, 2})), d1(DT_FLOAT, TensorShape({2, 1, 2}));
  for (int i = 0; i < 4; ++i) {
    d0.data<float>()[i] = static_cast<float>(1 + i);
    d1.data<float>()[i] = static_cast<float>(5 + i);
  }
  Tensor i1(DT_INT32, TensorShape({2, 1}));
  i1.data<int32_t>()[0] = 1;
  i1.data<int32_t>()[1] = 2;
  EXPECT_EQ(Run1("DynamicStitch", {{Tensor::Vector<int32_t>({0, 2}), i1}, {d0, d1}}),
            "[3,2] 1 2 5 6 7 8");
  EXPECT_THAT(Run1("DynamicStitch", {{Tensor::Vector<int32_t>({0, -1})}, {d0}}),
              HasSubstr("indices[0][1] = -1 is negative"));
  EXPECT_THAT(Run1("DynamicStitch", {{Tensor::Vector<int32_t>({0, 1, 2})}, {d0}}),
              HasSubstr("does not start with indices[0].shape"));
}

TEST(ArrayKernelsTest, DynamicPartitionKeepsTheRowsOrder) {
  // data [[0,1],[2,3],[4,5],[6,7]], partitions [1, 0, 1, 2].
  const Tensor data = Iota(DT_FLOAT, TensorShape({4, 2}));
  ASSERT_OK_AND_ASSIGN(
      std::vector<Tensor> out,
      RunKernel("DynamicPartition", {{data}, {Tensor::Vector<int32_t>({1, 0, 1, 2})}},
                {{"num_partitions", MakeAttrValue(int64_t{4})}}));
  ASSERT_EQ(out.size(), 4u);
  EXPECT_EQ(out[0].shape().DebugString() + " " + out[0].SummarizeValue(10), "[1,2] 2 3");
  EXPECT_EQ(out[1].shape().DebugString() + " " + out[1].SummarizeValue(10), "[2,2] 0 1 4 5");
  EXPECT_EQ(out[2].shape().DebugString() + " " + out[2].SummarizeValue(10), "[1,2] 6 7");
  EXPECT_EQ(out[3].shape().DebugString(), "[0,2]");
  // Partitions over a two-dimensional prefix, of strings.
  Tensor p(DT_INT32, TensorShape({2, 2}));
  for (int i = 0; i < 4; ++i) p.data<int32_t>()[i] = i % 2;
  ASSERT_OK_AND_ASSIGN(out,
                       RunKernel("DynamicPartition", {{Iota(DT_STRING, TensorShape({2, 2}))}, {p}},
                                 {{"num_partitions", MakeAttrValue(int64_t{2})}}));
  EXPECT_EQ(out[0].SummarizeValue(10), "\"a\" \"c\"");
  EXPECT_EQ(out[1].SummarizeValue(10), "\"b\" \"d\"");

  EXPECT_THAT(Run1("DynamicPartition", {{data}, {Tensor::Vector<int32_t>({0, 3, 0, 0})}},
                   {{"num_partitions", MakeAttrValue(int64_t{3})}}),
              HasSubstr("partitions[1] = 3 is not in [0, 3)"));
  EXPECT_THAT(Run1("DynamicPartition", {{data}, {Tensor::Vector<int32_t>({0, 1})}},
                   {{"num_partitions", MakeAttrValue(int64_t{2})}}),
              HasSubstr("does not start with partitions' shape"));
}

// AsString's formats, and RE2 matching and rewriting as TensorFlow's
// string ops do it.
TEST(StringKernelsTest, AsStringAndRegularExpressions) {
  auto strings = [](const Tensor& t) {
    std::vector<std::string> v;
    for (int64_t i = 0; i < t.NumElements(); ++i) v.push_back(t.data<std::string>()[i]);
    return v;
  };
  ASSERT_OK_AND_ASSIGN(auto out, RunKernel("AsString", {{Tensor::Vector<float>({1.5f, -2})}}));
  EXPECT_THAT(strings(out[0]), ::testing::ElementsAre("1.500000", "-2.000000"));
  ASSERT_OK_AND_ASSIGN(out, RunKernel("AsString", {{Tensor::Vector<double>({1234.5})}},
                                      {{"scientific", MakeAttrValue(true)},
                                       {"precision", MakeAttrValue(int64_t{2})}}));
  EXPECT_THAT(strings(out[0]), ::testing::ElementsAre("1.23e+03"));
  ASSERT_OK_AND_ASSIGN(out, RunKernel("AsString", {{Tensor::Vector<int64_t>({7, -42})}},
                                      {{"width", MakeAttrValue(int64_t{4})},
                                       {"fill", MakeAttrValue(std::string("0"))}}));
  EXPECT_THAT(strings(out[0]), ::testing::ElementsAre("0007", "-042"));
  Tensor b(DT_BOOL, TensorShape({2}));
  b.data<bool>()[0] = true;
  b.data<bool>()[1] = false;
  ASSERT_OK_AND_ASSIGN(out, RunKernel("AsString", {{b}}));
  EXPECT_THAT(strings(out[0]), ::testing::ElementsAre("true", "false"));
  // As TensorFlow's: a bool ignores the width; a string keeps every byte
  // (NULs too) and is padded with spaces.
  ASSERT_OK_AND_ASSIGN(out, RunKernel("AsString", {{b}}, {{"width", MakeAttrValue(int64_t{8})}}));
  EXPECT_THAT(strings(out[0]), ::testing::ElementsAre("true", "false"));
  ASSERT_OK_AND_ASSIGN(
      out, RunKernel("AsString", {{Tensor::Vector<std::string>({std::string("a\0b", 3), "long"})}},
                     {{"width", MakeAttrValue(int64_t{4})}}));
  EXPECT_THAT(strings(out[0]), ::testing::ElementsAre(std::string(" a\0b", 4), "long"));
  // StringJoin joins element-wise, scalars repeated.
  ASSERT_OK_AND_ASSIGN(out, RunKernel("StringJoin",
                                      {{Tensor::Vector<std::string>({"x", "y"}),
                                        Tensor::Scalar<std::string>("!")}},
                                      {{"separator", MakeAttrValue(std::string("-"))}}));
  EXPECT_THAT(strings(out[0]), ::testing::ElementsAre("x-!", "y-!"));
  EXPECT_THAT(RunKernel("StringJoin", {{Tensor::Vector<std::string>({"x", "y"}),
                                        Tensor::Vector<std::string>({"z"})}}),
              StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(RunKernel("AsString", {{Tensor::Vector<int32_t>({1})}},
                        {{"precision", MakeAttrValue(int64_t{2})}})
                  .status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("only for floats")));

  Tensor words(DT_STRING, TensorShape({3}));
  words.data<std::string>()[0] = "Hello, World";
  words.data<std::string>()[1] = "abc123";
  words.data<std::string>()[2] = "";
  ASSERT_OK_AND_ASSIGN(out, RunKernel("StaticRegexFullMatch", {{words}},
                                      {{"pattern", MakeAttrValue(std::string("[a-z]+\\d*"))}}));
  EXPECT_EQ(out[0].SummarizeValue(3), "0 1 0");
  ASSERT_OK_AND_ASSIGN(
      out, RunKernel("RegexFullMatch", {{words}, {Tensor::Scalar<std::string>(".*o.*")}}));
  EXPECT_EQ(out[0].SummarizeValue(3), "1 0 0");
  ASSERT_OK_AND_ASSIGN(out, RunKernel("StaticRegexReplace", {{words}},
                                      {{"pattern", MakeAttrValue(std::string("[[:punct:]]"))},
                                       {"rewrite", MakeAttrValue(std::string(""))}}));
  EXPECT_THAT(strings(out[0]), ::testing::ElementsAre("Hello World", "abc123", ""));
  ASSERT_OK_AND_ASSIGN(out, RunKernel("RegexReplace",
                                      {{words},
                                       {Tensor::Scalar<std::string>("(l+)")},
                                       {Tensor::Scalar<std::string>("<\\1>")}},
                                      {{"replace_global", MakeAttrValue(false)}}));
  EXPECT_THAT(strings(out[0]), ::testing::ElementsAre("He<ll>o, World", "abc123", ""));
  EXPECT_THAT(
      RunKernel("StaticRegexFullMatch", {{words}},
                {{"pattern", MakeAttrValue(std::string("(unclosed"))}})
          .status(),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("Invalid pattern: (unclosed")));
}

// DecodeCSV: RFC 4180 quoting, defaults for empty and na_value fields,
// select_cols, and TensorFlow's messages for the records it refuses.
TEST(StringKernelsTest, DecodeCsvParsesQuotesDefaultsAndSelectedColumns) {
  auto records = [](std::vector<std::string> lines) {
    Tensor t(DT_STRING, TensorShape({static_cast<int64_t>(lines.size())}));
    for (size_t i = 0; i < lines.size(); ++i) t.data<std::string>()[i] = lines[i];
    return t;
  };
  const Tensor d_int = Tensor::Vector<int32_t>({9});
  const Tensor d_str = Tensor::Vector<std::string>({"dflt"});
  const Tensor d_float = Tensor::Vector<float>({1.5f});
  ASSERT_OK_AND_ASSIGN(auto out,
                       RunKernel("DecodeCSV",
                                 {{records({"1,\"a,\"\"b\"\"\",2.5", ",,", "7,x,", "NA,NA,-3e2"})},
                                  {d_int, d_str, d_float}},
                                 {{"na_value", MakeAttrValue(std::string("NA"))}}));
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].SummarizeValue(4), "1 9 7 9");
  EXPECT_EQ(out[1].SummarizeValue(4), "\"a,\\\"b\\\"\" \"dflt\" \"x\" \"dflt\"");
  EXPECT_EQ(out[2].SummarizeValue(4), "2.5 1.5 1.5 -300");

  // Columns 1 and 3 of four, separated by '|', quotes as plain characters.
  ASSERT_OK_AND_ASSIGN(
      out,
      RunKernel("DecodeCSV", {{records({"a|\"q\"|b|42"})}, {d_str, Tensor::Vector<int64_t>({0})}},
                {{"field_delim", MakeAttrValue(std::string("|"))},
                 {"use_quote_delim", MakeAttrValue(false)},
                 {"select_cols", MakeAttrValue(std::vector<int64_t>{1, 3})}}));
  EXPECT_EQ(*out[0].data<std::string>(), "\"q\"");
  EXPECT_EQ(*out[1].data<int64_t>(), 42);

  auto error = [&](const std::string& line, std::vector<Tensor> defaults) {
    absl::StatusOr<std::vector<Tensor>> r =
        RunKernel("DecodeCSV", {{records({"1,a,2", line})}, std::move(defaults)});
    EXPECT_FALSE(r.ok()) << line;
    const absl::string_view m = r.status().message();
    return std::string(m.substr(0, m.find("\n")));  // without the node the session appends
  };
  EXPECT_EQ(error("1,a", {d_int, d_str, d_float}), "Expect 3 fields but have 2 in record 1");
  EXPECT_EQ(error(",a,1", {Tensor(DT_INT32, TensorShape({0})), d_str, d_float}),
            "Field 0 is required but missing in record 1!");
  EXPECT_EQ(error("z,a,1", {d_int, d_str, d_float}), "Field 0 in record 1 is not a valid int32: z");
  EXPECT_EQ(error("1,a,x1", {d_int, d_str, d_float}),
            "Field 2 in record 1 is not a valid float: x1");
  EXPECT_THAT(error("1,\"a\"b,2", {d_int, d_str, d_float}),
              HasSubstr("Quoted field has to end with quote followed by delim or end"));
  EXPECT_THAT(error("1,a\"b,2", {d_int, d_str, d_float}),
              HasSubstr("Unquoted fields cannot have quotes/CRLFs inside"));
  EXPECT_THAT(error("1,a,2", {d_int, d_str, Tensor::Vector<float>({1, 2})}),
              HasSubstr("There should only be 1 default per field but field 2 has 2"));
}

// ReduceJoin's order is TensorFlow's: the first axis listed varies fastest.
TEST(StringKernelsTest, ReduceJoinAndStringUpper) {
  Tensor x(DT_STRING, TensorShape({2, 2}));
  x.flat<std::string>().setValues({"a", "b", "c", "d"});
  auto join = [&](std::vector<int32_t> axes, bool keep = false) {
    Tensor a(DT_INT32, TensorShape({static_cast<int64_t>(axes.size())}));
    std::copy(axes.begin(), axes.end(), a.data<int32_t>());
    return Run1("ReduceJoin", {{x}, {a}},
                {{"keep_dims", MakeAttrValue(keep)},
                 {"separator", MakeAttrValue(std::string("-"))}});
  };
  EXPECT_EQ(join({0, 1}), "[] \"a-c-b-d\"");
  EXPECT_EQ(join({1, 0}), "[] \"a-b-c-d\"");
  EXPECT_EQ(join({-1}, true), "[2,1] \"a-b\" \"c-d\"");
  EXPECT_EQ(join({}), "[2,2] \"a\" \"b\" \"c\" \"d\"");
  EXPECT_THAT(join({2}), HasSubstr("Invalid reduction dimension 2"));
  EXPECT_THAT(join({0, 0}), HasSubstr("Duplicate reduction dimension 0"));
  EXPECT_EQ(Run1("StringUpper", {{Tensor::Vector<std::string>({"abC1"})}}), "[1] \"ABC1\"");
}

TEST(ArrayKernelsTest, StringLowerLowersAsciiAndRefusesWhatItCannotLower) {
  Tensor words(DT_STRING, TensorShape({2}));
  words.data<std::string>()[0] = "Hello, WORLD 42";
  words.data<std::string>()[1] = "";
  ASSERT_OK_AND_ASSIGN(auto out, RunKernel("StringLower", {{words}}));
  EXPECT_EQ(out[0].SummarizeValue(2), "\"hello, world 42\" \"\"");
  ASSERT_OK_AND_ASSIGN(out, RunKernel("StringLower", {{words}},
                                      {{"encoding", MakeAttrValue(std::string("utf-8"))}}));
  EXPECT_EQ(out[0].SummarizeValue(1), "\"hello, world 42\"...");
  words.data<std::string>()[1] = "\xc3\x84pfel";  // "Äpfel"
  EXPECT_THAT(
      RunKernel("StringLower", {{words}}, {{"encoding", MakeAttrValue(std::string("utf-8"))}})
          .status(),
      StatusIs(absl::StatusCode::kUnimplemented, HasSubstr("element 1 has non-ASCII")));
}

}  // namespace
}  // namespace minigraph

namespace minigraph {
namespace {

// TensorLists as Keras' recurrent layers use them: reserved, unstacked
// from a tensor, read and written by index, stacked; items never set read
// as zeros; TensorFlow's errors for what does not fit.
TEST(ListKernelsTest, ReserveFromTensorGetSetPushPopAndStack) {
  const std::map<std::string, AttrValue> f32 = {{"element_dtype", MakeAttrValue(DT_FLOAT)}};
  auto with = [&](std::map<std::string, AttrValue> extra) {
    extra.insert(f32.begin(), f32.end());
    return extra;
  };
  const Tensor shape2 = Tensor::Vector<int32_t>({2});
  ASSERT_OK_AND_ASSIGN(auto reserved,
                       RunKernel("TensorListReserve", {{shape2}, {Tensor::Scalar<int32_t>(3)}},
                                 with({{"shape_type", MakeAttrValue(DT_INT32)}})));
  const Tensor list = reserved[0];
  ASSERT_OK_AND_ASSIGN(auto len, RunKernel("TensorListLength", {{list}}));
  EXPECT_EQ(*len[0].data<int32_t>(), 3);
  ASSERT_OK_AND_ASSIGN(
      auto set,
      RunKernel("TensorListSetItem",
                {{list}, {Tensor::Scalar<int32_t>(1)}, {Tensor::Vector<float>({5, 6})}}, f32));
  const Tensor unset_shape = Tensor::Scalar<int32_t>(-1);
  ASSERT_OK_AND_ASSIGN(
      auto item,
      RunKernel("TensorListGetItem", {{set[0]}, {Tensor::Scalar<int32_t>(1)}, {unset_shape}}, f32));
  EXPECT_EQ(item[0].SummarizeValue(4), "5 6");
  ASSERT_OK_AND_ASSIGN(
      item,
      RunKernel("TensorListGetItem", {{set[0]}, {Tensor::Scalar<int32_t>(0)}, {unset_shape}}, f32));
  EXPECT_EQ(item[0].SummarizeValue(4), "0 0") << "never set: zeros of the element shape";
  ASSERT_OK_AND_ASSIGN(item, RunKernel("TensorListGetItem",
                                       {{list}, {Tensor::Scalar<int32_t>(1)}, {unset_shape}}, f32));
  EXPECT_EQ(item[0].SummarizeValue(4), "0 0") << "the input list is unchanged";
  ASSERT_OK_AND_ASSIGN(auto stacked,
                       RunKernel("TensorListStack", {{set[0]}, {unset_shape}},
                                 with({{"num_elements", MakeAttrValue(int64_t{3})}})));
  EXPECT_EQ(stacked[0].shape(), TensorShape({3, 2}));
  EXPECT_EQ(stacked[0].SummarizeValue(6), "0 0 5 6 0 0");

  Tensor m(DT_FLOAT, TensorShape({2, 3}));
  for (int i = 0; i < 6; ++i) m.data<float>()[i] = static_cast<float>(i);
  ASSERT_OK_AND_ASSIGN(auto from,
                       RunKernel("TensorListFromTensor", {{m}, {Tensor::Vector<int32_t>({-1})}},
                                 with({{"shape_type", MakeAttrValue(DT_INT32)}})));
  ASSERT_OK_AND_ASSIGN(
      auto pushed,
      RunKernel("TensorListPushBack", {{from[0]}, {Tensor::Vector<float>({9, 9, 9})}}, f32));
  ASSERT_OK_AND_ASSIGN(stacked, RunKernel("TensorListStack", {{pushed[0]}, {unset_shape}}, f32));
  EXPECT_EQ(stacked[0].SummarizeValue(9), "0 1 2 3 4 5 9 9 9");
  ASSERT_OK_AND_ASSIGN(auto popped,
                       RunKernel("TensorListPopBack", {{pushed[0]}, {unset_shape}}, f32));
  EXPECT_EQ(popped[1].SummarizeValue(3), "9 9 9");
  ASSERT_OK_AND_ASSIGN(len, RunKernel("TensorListLength", {{popped[0]}}));
  EXPECT_EQ(*len[0].data<int32_t>(), 2);

  auto error = [](const absl::StatusOr<std::vector<Tensor>>& r) {
    EXPECT_FALSE(r.ok());
    const absl::string_view m = r.status().message();
    return std::string(m.substr(0, m.find("\n")));
  };
  EXPECT_EQ(error(RunKernel("TensorListGetItem",
                            {{list}, {Tensor::Scalar<int32_t>(3)}, {unset_shape}}, f32)),
            "Trying to access element 3 in a list with 3 elements.");
  EXPECT_EQ(
      error(RunKernel("TensorListSetItem",
                      {{list}, {Tensor::Scalar<int32_t>(0)}, {Tensor::Vector<float>({1})}}, f32)),
      "Tried to set a tensor with incompatible shape at a list index. Item element shape: "
      "[1] list shape: [2]");
  EXPECT_EQ(
      error(RunKernel("TensorListGetItem", {{list}, {Tensor::Scalar<int32_t>(0)}, {unset_shape}},
                      {{"element_dtype", MakeAttrValue(DT_INT32)}})),
      "Invalid data types; op elements int32 but list elements float");
  ASSERT_OK_AND_ASSIGN(auto unknown,
                       RunKernel("TensorListReserve", {{unset_shape}, {Tensor::Scalar<int32_t>(2)}},
                                 with({{"shape_type", MakeAttrValue(DT_INT32)}})));
  EXPECT_EQ(error(RunKernel("TensorListStack", {{unknown[0]}, {unset_shape}}, f32)),
            "Tried to stack list which only contains uninitialized tensors and has a "
            "non-fully-defined element_shape: ?");
  EXPECT_EQ(error(RunKernel("TensorListReserve", {{shape2}, {Tensor::Scalar<int32_t>(-1)}},
                            with({{"shape_type", MakeAttrValue(DT_INT32)}}))),
            "The num_elements to reserve must be a non negative number, but got -1");
  EXPECT_EQ(error(RunKernel("TensorListPopBack", {{unknown[0]}, {unset_shape}}, f32)),
            "Trying to read an uninitialized tensor but element_shape is not fully defined: "
            "?");
}

TEST(ArrayKernelsTest, SpaceToBatchAndBackWithPaddingAndCrops) {
  Tensor x = Iota(DT_FLOAT, TensorShape({1, 4, 4, 1}));
  Tensor block = Tensor::Vector<int32_t>({2, 2});
  Tensor none(DT_INT32, TensorShape({2, 2}));
  for (int i = 0; i < 4; ++i) none.data<int32_t>()[i] = 0;
  // Batch i holds the pixels at block offset (i / 2, i % 2).
  EXPECT_EQ(Run1("SpaceToBatchND", {{x}, {block}, {none}}),
            "[4,2,2,1] 0 2 8 10 1 3 9 11 4 6 12 14 5 7 13 15");
  // Padded by one row above and below: 6 rows, 3 per batch, zeros where
  // the padding falls; cropping the same rows gives x back.
  Tensor pads(DT_INT32, TensorShape({2, 2}));
  for (int i = 0; i < 4; ++i) pads.data<int32_t>()[i] = i < 2 ? 1 : 0;
  ASSERT_OK_AND_ASSIGN(auto batched, RunKernel("SpaceToBatchND", {{x}, {block}, {pads}}));
  EXPECT_EQ(batched[0].shape(), TensorShape({4, 3, 2, 1}));
  EXPECT_EQ(batched[0].SummarizeValue(6), "0 0 4 6 12 14...");
  ASSERT_OK_AND_ASSIGN(auto back, RunKernel("BatchToSpaceND", {{batched[0]}, {block}, {pads}}));
  ExpectTensorEqual<float>(back[0], x);
  // Constant inputs: the shape function refuses these as the graph is built,
  // as TensorFlow's does.
  EXPECT_THAT(Run1("SpaceToBatchND", {{x}, {Tensor::Vector<int32_t>({3, 2})}, {none}}),
              HasSubstr("evenly divisible by 3 but is 4"));
  EXPECT_THAT(Run1("BatchToSpaceND", {{x}, {block}, {none}}),
              HasSubstr("input batch 1 must be divisible"));
  pads.data<int32_t>()[0] = -1;
  EXPECT_THAT(Run1("SpaceToBatchND", {{x}, {block}, {pads}}),
              HasSubstr("paddings must be non-negative"));
}

TEST(ArrayKernelsTest, SpaceToDepthAndBack) {
  Tensor x = Iota(DT_INT32, TensorShape({1, 2, 4, 1}));
  const std::map<std::string, AttrValue> b2 = {{"block_size", MakeAttrValue(int64_t{2})}};
  ASSERT_OK_AND_ASSIGN(auto deep, RunKernel("SpaceToDepth", {{x}}, b2));
  EXPECT_EQ(deep[0].shape().DebugString() + " " + deep[0].SummarizeValue(8),
            "[1,1,2,4] 0 1 4 5 2 3 6 7");
  ASSERT_OK_AND_ASSIGN(auto back, RunKernel("DepthToSpace", {{deep[0]}}, b2));
  ExpectTensorEqual<int32_t>(back[0], x);
  // (Refused by the shape function, as TensorFlow's.)
  EXPECT_THAT(Run1("SpaceToDepth", {{Iota(DT_INT32, TensorShape({1, 3, 4, 1}))}}, b2),
              HasSubstr("evenly divisible by 2 but is 3"));
  EXPECT_THAT(Run1("DepthToSpace", {{x}}, b2), HasSubstr("evenly divisible by 4 but is 1"));
}

}  // namespace
}  // namespace minigraph
