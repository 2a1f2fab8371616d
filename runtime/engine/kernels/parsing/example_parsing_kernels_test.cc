// ParseExampleV2 on Examples built here: each kind of feature, and the
// inputs TensorFlow refuses (the interop suite checks the same against
// TensorFlow itself).
#include <string>
#include <vector>

#include "core/proto/example.pb.h"
#include "core/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/engine/kernels/kernel_test_util.h"
#include "runtime/graph/partial_shape.h"

namespace minigraph {
namespace {

using ::testing::HasSubstr;

std::string Serialized(const std::vector<float>& x, const std::vector<int64_t>& tags) {
  Example e;
  auto& features = *e.mutable_features()->mutable_feature();
  for (float v : x) features["x"].mutable_float_list()->add_value(v);
  for (int64_t t : tags) features["tags"].mutable_int64_list()->add_value(t);
  return e.SerializeAsString();
}

// One fixed-length dense float feature "x" of `shape` (default `def`) and
// one sparse int64 feature "tags", over `serialized`.
absl::StatusOr<std::vector<Tensor>> Parse(const Tensor& serialized, const Tensor& def,
                                          const PartialShape& shape) {
  AttrValue shapes;
  *shapes.mutable_list()->add_shape() = MakeAttrValue(shape).shape();
  return RunKernel("ParseExampleV2",
                   {{serialized},
                    {Tensor(DT_STRING, TensorShape({0}))},
                    {Tensor::Vector<std::string>({"tags"})},
                    {Tensor::Vector<std::string>({"x"})},
                    {Tensor(DT_STRING, TensorShape({0}))},
                    {def}},
                   {{"Tdense", MakeAttrValue(std::vector<DataType>{DT_FLOAT})},
                    {"num_sparse", MakeAttrValue(int64_t{1})},
                    {"sparse_types", MakeAttrValue(std::vector<DataType>{DT_INT64})},
                    {"ragged_value_types", MakeAttrValue(std::vector<DataType>{})},
                    {"ragged_split_types", MakeAttrValue(std::vector<DataType>{})},
                    {"dense_shapes", shapes}});
}

TEST(ExampleParsingTest, DenseAndSparseFeaturesOfABatch) {
  const Tensor batch =
      Tensor::Vector<std::string>({Serialized({1, 2}, {5, 6, 7}), Serialized({3, 4}, {})});
  ASSERT_OK_AND_ASSIGN(auto out, Parse(batch, Tensor(DT_FLOAT, TensorShape({0})),
                                       PartialShape({2})));
  ASSERT_EQ(out.size(), 4u);  // sparse indices, values, shape; dense
  EXPECT_EQ(out[0].SummarizeValue(10), "0 0 0 1 0 2");
  EXPECT_EQ(out[1].SummarizeValue(10), "5 6 7");
  EXPECT_EQ(out[2].SummarizeValue(10), "2 3");
  EXPECT_EQ(out[3].shape(), TensorShape({2, 2}));
  EXPECT_EQ(out[3].SummarizeValue(10), "1 2 3 4");
}

TEST(ExampleParsingTest, VariableLengthDenseIsPaddedWithTheDefault) {
  const Tensor batch =
      Tensor::Vector<std::string>({Serialized({1, 2, 3}, {}), Serialized({}, {})});
  ASSERT_OK_AND_ASSIGN(auto out, Parse(batch, Tensor::Scalar<float>(-1), PartialShape({-1})));
  EXPECT_EQ(out[3].shape(), TensorShape({2, 3}));
  EXPECT_EQ(out[3].SummarizeValue(10), "1 2 3 -1 -1 -1");
}

TEST(ExampleParsingTest, RefusesWhatTensorFlowRefuses) {
  const Tensor none(DT_FLOAT, TensorShape({0}));
  EXPECT_THAT(Parse(Tensor::Vector<std::string>({Serialized({}, {1})}), none, PartialShape({2})),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Feature: x (data type: float) is required")));
  EXPECT_THAT(Parse(Tensor::Vector<std::string>({Serialized({1}, {})}), none, PartialShape({2})),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Key: x, Index: 0.  Number of float values != expected")));
  Example wrong;
  (*wrong.mutable_features()->mutable_feature())["x"].mutable_int64_list()->add_value(1);
  EXPECT_THAT(Parse(Tensor::Vector<std::string>({wrong.SerializeAsString()}), none,
                    PartialShape({1})),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("Data types don't match")));
  EXPECT_THAT(Parse(Tensor::Vector<std::string>({std::string("\x0a\x05" "abc")}), none,
                    PartialShape({1})),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Could not parse example input")));
}

}  // namespace
}  // namespace minigraph
