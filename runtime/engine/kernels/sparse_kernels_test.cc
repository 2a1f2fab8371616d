// SparseTensor kernels, against TensorFlow's documented examples.
#include <string>
#include <vector>

#include "core/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/engine/kernels/kernel_test_util.h"

namespace minigraph {
namespace {

using ::testing::HasSubstr;

Tensor I64(const TensorShape& shape, std::vector<int64_t> v) {
  Tensor t(DT_INT64, shape);
  std::copy(v.begin(), v.end(), t.data<int64_t>());
  return t;
}

std::string Out(const std::string& op, const std::vector<std::vector<Tensor>>& in, int i = 0) {
  auto out = RunKernel(op, in);
  if (!out.ok()) return std::string(out.status().message());
  return (*out)[i].shape().DebugString() + " " + (*out)[i].SummarizeValue(100);
}

TEST(SparseKernelsTest, SparseToDense) {
  const Tensor shape = Tensor::Vector<int64_t>({2, 3});
  EXPECT_EQ(Out("SparseToDense", {{I64(TensorShape({2, 2}), {0, 1, 1, 2})},
                                  {shape},
                                  {Tensor::Vector<float>({5, 7})},
                                  {Tensor::Scalar<float>(-1)}}),
            "[2,3] -1 5 -1 -1 -1 7");
  // A vector of indices into a vector, one value for all.
  EXPECT_EQ(Out("SparseToDense", {{Tensor::Vector<int32_t>({0, 3})},
                                  {Tensor::Vector<int32_t>({4})},
                                  {Tensor::Scalar<int32_t>(1)},
                                  {Tensor::Scalar<int32_t>(0)}}),
            "[4] 1 0 0 1");
  Tensor words(DT_STRING, TensorShape({1}));
  words.data<std::string>()[0] = "us";
  Tensor none(DT_STRING, TensorShape({}));
  EXPECT_EQ(Out("SparseToDense", {{I64(TensorShape({1, 2}), {1, 0})}, {shape}, {words}, {none}}),
            "[2,3] \"\" \"\" \"\" \"us\" \"\" \"\"");
  EXPECT_THAT(Out("SparseToDense", {{I64(TensorShape({1, 2}), {2, 0})},
                                    {shape},
                                    {Tensor::Vector<float>({1})},
                                    {Tensor::Scalar<float>(0)}}),
              HasSubstr("indices[0] = [2,0] is out of bounds: need 0 <= index < [2,3]"));
  EXPECT_THAT(Out("SparseToDense", {{I64(TensorShape({2, 2}), {1, 0, 0, 2})},
                                    {shape},
                                    {Tensor::Vector<float>({1, 2})},
                                    {Tensor::Scalar<float>(0)}}),
              HasSubstr("indices[1] = [0,2] is out of order"));
  EXPECT_THAT(Out("SparseToDense", {{I64(TensorShape({2, 2}), {1, 0, 1, 0})},
                                    {shape},
                                    {Tensor::Vector<float>({1, 2})},
                                    {Tensor::Scalar<float>(0)}}),
              HasSubstr("indices[1] = [1,0] is repeated"));
  EXPECT_THAT(Out("SparseToDense", {{I64(TensorShape({2, 2}), {0, 0, 1, 0})},
                                    {shape},
                                    {Tensor::Vector<float>({1, 2, 3})},
                                    {Tensor::Scalar<float>(0)}}),
              HasSubstr("sparse_values has 3 elements; expected 1 or 2"));
}

TEST(SparseKernelsTest, SparseReshape) {
  // [2,3] -> [3,-1]: dense positions 1 and 5 become (0,1) and (2,1).
  const Tensor idx = I64(TensorShape({2, 2}), {0, 1, 1, 2});
  const Tensor in_shape = Tensor::Vector<int64_t>({2, 3});
  EXPECT_EQ(Out("SparseReshape", {{idx}, {in_shape}, {Tensor::Vector<int64_t>({3, -1})}}),
            "[2,2] 0 1 2 1");
  EXPECT_EQ(Out("SparseReshape", {{idx}, {in_shape}, {Tensor::Vector<int64_t>({3, -1})}}, 1),
            "[2] 3 2");
  EXPECT_EQ(Out("SparseReshape", {{idx}, {in_shape}, {Tensor::Vector<int64_t>({6})}}), "[2,1] 1 5");
  EXPECT_THAT(Out("SparseReshape", {{idx}, {in_shape}, {Tensor::Vector<int64_t>({4, 2})}}),
              HasSubstr("SparseTensor with 6 dense values, but the requested shape has 8"));
  EXPECT_THAT(Out("SparseReshape", {{idx}, {in_shape}, {Tensor::Vector<int64_t>({-1, -1})}}),
              HasSubstr("only one output dimension may be -1"));
  // An entry outside input_shape, and shapes that are not shapes.
  EXPECT_THAT(Out("SparseReshape", {{I64(TensorShape({2, 2}), {0, 1, 2, 0})},
                                    {in_shape},
                                    {Tensor::Vector<int64_t>({6})}}),
              HasSubstr("input_indices[1] = [2,0] lies outside input_shape [2,3]"));
  EXPECT_THAT(Out("SparseReshape", {{idx}, {Tensor::Vector<int64_t>({2, -3})}, {in_shape}}),
              HasSubstr("input_shape [2,-3] is not a shape"));
  EXPECT_THAT(Out("SparseReshape", {{idx},
                                    {Tensor::Vector<int64_t>({int64_t{1} << 40, int64_t{1} << 40})},
                                    {in_shape}}),
              HasSubstr("more than 2^63 values"));
  EXPECT_THAT(Out("SparseReshape", {{idx},
                                    {in_shape},
                                    {Tensor::Vector<int64_t>({int64_t{1} << 40, int64_t{1} << 40})}}),
              HasSubstr("new_shape [1099511627776,1099511627776] has more than 2^63 values"));
}

TEST(SparseKernelsTest, SparseFillEmptyRows) {
  // TensorFlow's example: rows 1 and 4 of 5 are empty.
  const Tensor idx = I64(TensorShape({4, 2}), {0, 1, 0, 3, 2, 0, 3, 1});
  Tensor values(DT_STRING, TensorShape({4}));
  const char* v[] = {"a", "b", "c", "d"};
  for (int i = 0; i < 4; ++i) values.data<std::string>()[i] = v[i];
  Tensor fill(DT_STRING, TensorShape({}));
  fill.data<std::string>()[0] = "x";
  const std::vector<std::vector<Tensor>> in = {
      {idx}, {values}, {Tensor::Vector<int64_t>({5, 6})}, {fill}};
  EXPECT_EQ(Out("SparseFillEmptyRows", in, 0), "[6,2] 0 1 0 3 1 0 2 0 3 1 4 0");
  EXPECT_EQ(Out("SparseFillEmptyRows", in, 1), "[6] \"a\" \"b\" \"x\" \"c\" \"d\" \"x\"");
  EXPECT_EQ(Out("SparseFillEmptyRows", in, 2), "[5] 0 1 0 0 1");
  EXPECT_EQ(Out("SparseFillEmptyRows", in, 3), "[4] 0 1 3 4");
  EXPECT_THAT(Out("SparseFillEmptyRows", {{I64(TensorShape({1, 2}), {7, 0})},
                                          {Tensor::Vector<float>({1})},
                                          {Tensor::Vector<int64_t>({5, 6})},
                                          {Tensor::Scalar<float>(0)}}),
              HasSubstr("indices(0, 0) is invalid: 7 >= 5"));
  EXPECT_THAT(Out("SparseFillEmptyRows", {{I64(TensorShape({1, 2}), {-2, 0})},
                                          {Tensor::Vector<float>({1})},
                                          {Tensor::Vector<int64_t>({5, 6})},
                                          {Tensor::Scalar<float>(0)}}),
              HasSubstr("indices(0, 0) is invalid: -2 < 0"));
  // A dense shape asking for terabytes is refused before anything is
  // allocated for it.
  EXPECT_THAT(Out("SparseFillEmptyRows", {{I64(TensorShape({0, 2}), {})},
                                          {Tensor(DT_FLOAT, TensorShape({0}))},
                                          {Tensor::Vector<int64_t>({int64_t{1} << 50, 6})},
                                          {Tensor::Scalar<float>(0)}}),
              HasSubstr("max_tensor_bytes"));
}

TEST(SparseKernelsTest, SparseSegmentSum) {
  // TensorFlow's example: c = [[1,2,3,4], [-1,-2,-3,-4], [5,6,7,8]].
  Tensor c(DT_FLOAT, TensorShape({3, 4}));
  const float cv[] = {1, 2, 3, 4, -1, -2, -3, -4, 5, 6, 7, 8};
  std::copy(cv, cv + 12, c.data<float>());
  EXPECT_EQ(Out("SparseSegmentSum",
                {{c}, {Tensor::Vector<int32_t>({0, 1})}, {Tensor::Vector<int32_t>({0, 0})}}),
            "[1,4] 0 0 0 0");
  EXPECT_EQ(Out("SparseSegmentSum",
                {{c}, {Tensor::Vector<int32_t>({0, 1})}, {Tensor::Vector<int32_t>({0, 1})}}),
            "[2,4] 1 2 3 4 -1 -2 -3 -4");
  EXPECT_EQ(Out("SparseSegmentSum",
                {{c}, {Tensor::Vector<int64_t>({0, 1, 2})}, {Tensor::Vector<int32_t>({0, 0, 1})}}),
            "[2,4] 0 0 0 0 5 6 7 8");
  EXPECT_THAT(Out("SparseSegmentSum",
                  {{c}, {Tensor::Vector<int32_t>({0, 1})}, {Tensor::Vector<int32_t>({1, 0})}}),
              HasSubstr("segment ids are not increasing"));
  EXPECT_THAT(Out("SparseSegmentSum",
                  {{c}, {Tensor::Vector<int32_t>({0, 3})}, {Tensor::Vector<int32_t>({0, 0})}}),
              HasSubstr("indices[1] = 3 is out of range [0, 3)"));
}

}  // namespace
}  // namespace minigraph
