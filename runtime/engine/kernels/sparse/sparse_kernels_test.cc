// SparseTensor and ragged-tensor kernels (and the two ops Keras'
// TextVectorization builds them with), against TensorFlow's documented
// examples.
#include <string>
#include <vector>

#include "core/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/engine/kernels/internal/fingerprint.h"
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
  EXPECT_THAT(
      Out("SparseReshape",
          {{idx}, {in_shape}, {Tensor::Vector<int64_t>({int64_t{1} << 40, int64_t{1} << 40})}}),
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

Tensor Strings(std::vector<std::string> v) {
  Tensor t(DT_STRING, TensorShape({static_cast<int64_t>(v.size())}));
  std::copy(v.begin(), v.end(), t.data<std::string>());
  return t;
}

std::string Split(std::vector<std::string> in, const std::string& sep, int64_t maxsplit = -1) {
  Tensor s(DT_STRING, TensorShape({}));
  s.data<std::string>()[0] = sep;
  auto out = RunKernel("StringSplitV2", {{Strings(std::move(in))}, {s}},
                       {{"maxsplit", MakeAttrValue(maxsplit)}});
  if (!out.ok()) return std::string(out.status().message());
  return (*out)[0].SummarizeValue(100) + " | " + (*out)[1].SummarizeValue(100) + " | " +
         (*out)[2].SummarizeValue(100);
}

TEST(SparseKernelsTest, StringSplitV2SplitsAsPythonDoes) {
  // No separator: runs of whitespace, none kept at the ends.
  EXPECT_EQ(Split({"a b  c", "", " d\t"}, ""), "0 0 0 1 0 2 2 0 | \"a\" \"b\" \"c\" \"d\" | 3 3");
  // A separator: each occurrence splits, empty pieces kept.
  EXPECT_EQ(Split({"1,,2", ""}, ","), "0 0 0 1 0 2 1 0 | \"1\" \"\" \"2\" \"\" | 2 3");
  EXPECT_EQ(Split({"a<>b<>"}, "<>"), "0 0 0 1 0 2 | \"a\" \"b\" \"\" | 1 3");
  // maxsplit: the rest is the last piece.
  EXPECT_EQ(Split({"a,b,c"}, ",", 1), "0 0 0 1 | \"a\" \"b,c\" | 1 2");
  EXPECT_EQ(Split({"a b  c"}, "", 1), "0 0 0 1 | \"a\" \"b  c\" | 1 2");
  EXPECT_EQ(Split({"a b"}, "", 0), "0 0 | \"a b\" | 1 1");
  EXPECT_EQ(Split({}, ","), " |  | 0 0");

  Tensor matrix(DT_STRING, TensorShape({1, 1}));
  Tensor sep(DT_STRING, TensorShape({}));
  // Refused when the graph is built (the kernel says the same when the
  // shapes were unknown then).
  EXPECT_THAT(std::string(RunKernel("StringSplitV2", {{matrix}, {sep}}).status().message()),
              HasSubstr("(StringSplitV2): input 0 must have rank 1, but has shape [1,1]"));
  EXPECT_THAT(
      std::string(
          RunKernel("StringSplitV2", {{Strings({"a"})}, {Strings({",", ";"})}}).status().message()),
      HasSubstr("(StringSplitV2): input 1 must have rank 0, but has shape [2]"));
}

std::string Bincount(const Tensor& in, int32_t size, const Tensor& weights, bool binary = false) {
  auto out = RunKernel("DenseBincount", {{in}, {Tensor::Scalar<int32_t>(size)}, {weights}},
                       {{"binary_output", MakeAttrValue(binary)}});
  if (!out.ok()) return std::string(out.status().message());
  return (*out)[0].shape().DebugString() + " " + (*out)[0].SummarizeValue(100);
}

TEST(SparseKernelsTest, DenseBincount) {
  const Tensor in = Tensor::Vector<int32_t>({1, 1, 3, 5});
  const Tensor none(DT_FLOAT, TensorShape({0}));
  // Values at or past `size` are left out.
  EXPECT_EQ(Bincount(in, 4, none), "[4] 0 2 0 1");
  EXPECT_EQ(Bincount(in, 4, Tensor::Vector<float>({0.5, 1, 2, 3})), "[4] 0 1.5 0 2");
  EXPECT_EQ(Bincount(in, 4, none, /*binary=*/true), "[4] 0 1 0 1");
  EXPECT_EQ(Bincount(in, 0, none), "[0] ");
  // A matrix counts each row apart.
  Tensor rows(DT_INT32, TensorShape({2, 2}));
  std::vector<int32_t> r = {0, 1, 1, 1};
  std::copy(r.begin(), r.end(), rows.data<int32_t>());
  EXPECT_EQ(Bincount(rows, 3, Tensor(DT_INT64, TensorShape({0}))), "[2,3] 1 1 0 0 2 0");

  EXPECT_THAT(Bincount(Tensor::Vector<int32_t>({1, -1}), 4, none),
              HasSubstr("Input arr must be non-negative!"));
  EXPECT_THAT(Bincount(in, 4, Tensor::Vector<float>({1, 2})),
              HasSubstr("`weights` must be the same shape as `arr` or a length-0 `Tensor`"));
  EXPECT_THAT(Bincount(in, -2, none), HasSubstr("size (-2) must be non-negative"));
}

std::string ToTensor(const Tensor& shape, const Tensor& values, const Tensor& def,
                     const std::vector<std::string>& types, std::vector<Tensor> partitions) {
  AttrValue t;
  for (const std::string& s : types) t.mutable_list()->add_s(s);
  auto out =
      RunKernel("RaggedTensorToTensor", {{shape}, {values}, {def}, std::move(partitions)},
                {{"row_partition_types", t},
                 {"num_row_partition_tensors", MakeAttrValue(static_cast<int64_t>(types.size()))}});
  if (!out.ok()) return std::string(out.status().message());
  return (*out)[0].shape().DebugString() + " " + (*out)[0].SummarizeValue(100);
}

TEST(SparseKernelsTest, RaggedTensorToTensor) {
  // [[1, 2], [], [3]] as TextVectorization builds it, then as row splits.
  const Tensor values = Tensor::Vector<int64_t>({1, 2, 3});
  const Tensor zero = Tensor::Scalar<int64_t>(0);
  const Tensor any = Tensor::Scalar<int64_t>(-1);
  const std::vector<std::string> rowids = {"FIRST_DIM_SIZE", "VALUE_ROWIDS"};
  const Tensor three = Tensor::Scalar<int64_t>(3);
  const Tensor ids = Tensor::Vector<int64_t>({0, 0, 2});
  EXPECT_EQ(ToTensor(any, values, zero, rowids, {three, ids}), "[3,2] 1 2 0 0 3 0");
  EXPECT_EQ(ToTensor(any, values, zero, {"ROW_SPLITS"}, {Tensor::Vector<int64_t>({0, 2, 2, 3})}),
            "[3,2] 1 2 0 0 3 0");
  // `shape` cuts and pads; -1 keeps what the rows need.
  EXPECT_EQ(ToTensor(Tensor::Vector<int64_t>({-1, 1}), values, zero, rowids, {three, ids}),
            "[3,1] 1 0 3");
  EXPECT_EQ(ToTensor(Tensor::Vector<int64_t>({2, 4}), values, Tensor::Scalar<int64_t>(9), rowids,
                     {three, ids}),
            "[2,4] 1 2 9 9 9 9 9 9");
  // Two ragged dimensions: [[[1, 2]], [[3]]].
  EXPECT_EQ(ToTensor(any, values, zero, {"ROW_SPLITS", "ROW_SPLITS"},
                     {Tensor::Vector<int64_t>({0, 1, 2}), Tensor::Vector<int64_t>({0, 2, 3})}),
            "[2,1,2] 1 2 3 0");
  // Values with an inner dimension, and a default for each inner block.
  const Tensor pairs = I64(TensorShape({2, 2}), {1, 2, 3, 4});
  EXPECT_EQ(ToTensor(any, pairs, Tensor::Vector<int64_t>({7, 8}), rowids,
                     {Tensor::Scalar<int64_t>(2), Tensor::Vector<int64_t>({1, 1})}),
            "[2,2,2] 7 8 7 8 1 2 3 4");
  // Strings.
  EXPECT_EQ(ToTensor(any, Strings({"a", "b"}), Strings({""}), {"ROW_SPLITS"},
                     {Tensor::Vector<int32_t>({0, 1, 2})}),
            "[2,1] \"a\" \"b\"");

  EXPECT_THAT(ToTensor(any, values, zero, rowids, {three, Tensor::Vector<int64_t>({0, 2, 1})}),
              HasSubstr("(VALUE_ROWIDS) must be sorted and in [0, 3), has 1 at 2"));
  EXPECT_THAT(ToTensor(any, values, zero, rowids, {three, Tensor::Vector<int64_t>({0, 3, 3})}),
              HasSubstr("has 3 at 1"));
  EXPECT_THAT(ToTensor(any, values, zero, {"ROW_SPLITS"}, {Tensor::Vector<int64_t>({1, 2, 3})}),
              HasSubstr("(ROW_SPLITS) must start at 0"));
  EXPECT_THAT(ToTensor(any, values, zero, {"ROW_SPLITS"}, {Tensor::Vector<int64_t>({0, 2, 1, 3})}),
              HasSubstr("(ROW_SPLITS) decreases at 2"));
  EXPECT_THAT(ToTensor(any, values, zero, {"ROW_SPLITS"}, {Tensor::Vector<int64_t>({0, 2})}),
              HasSubstr("the row partitions hold 2 values, but values has 3"));
  EXPECT_THAT(ToTensor(Tensor::Vector<int64_t>({3}), values, zero, rowids, {three, ids}),
              HasSubstr("has rank 1, the ragged tensor has rank 2"));
  EXPECT_THAT(ToTensor(any, values, Tensor::Vector<int64_t>({1, 2}), rowids, {three, ids}),
              HasSubstr("default_value of shape [2] is neither one element"));
  EXPECT_THAT(ToTensor(any, values, zero, {"VALUE_ROWIDS"}, {ids}),
              HasSubstr("starts with VALUE_ROWIDS"));
  EXPECT_THAT(ToTensor(any, values, zero, {"ROW_SPLITS", "FIRST_DIM_SIZE"}, {ids, three}),
              HasSubstr("row_partition_types[1] is \"FIRST_DIM_SIZE\""));
  // Sizes taken from values are checked before anything is allocated.
  EXPECT_THAT(ToTensor(any, values, zero, rowids, {Tensor::Scalar<int64_t>(int64_t{1} << 60), ids}),
              HasSubstr("RaggedTensorToTensor over 1152921504606846976 rows needs"));
  EXPECT_THAT(ToTensor(any, values, zero, {"ROW_SPLITS", "VALUE_ROWIDS"},
                       {Tensor::Vector<int64_t>({0, int64_t{1} << 60}), ids}),
              HasSubstr("(ROW_SPLITS) with 1152921504606846976 values needs"));
}

// Fingerprint64 against published FarmHash Fingerprint64 values, one or more
// in each of its length classes (0-16, 17-32, 33-64, and the 64-byte loop).
TEST(SparseKernelsTest, Fingerprint64IsFarmHashs) {
  const std::vector<std::pair<std::string, uint64_t>> known = {
      {"", 0x9ae16a3b2f90404fULL},
      {"a", 0xb3454265b6df75e3ULL},
      {"abcd", 0x1a5502de4a1f8101ULL},
      {"abcdefgh", 0xfee9d22990c82909ULL},
      {"0123456789=012345", 0x46a7416ed4861e3bULL},
      {"C is as portable as Stonehedge!!", 0xb944f8a16261e414ULL},
      {"Discard medicine more than two years old.", 0xe8f89ab6df9bdd25ULL},
      {"How can you write a big system without C++?  -Paul Glick", 0x5a0a6efd52e84e2aULL},
      {"For every action there is an equal and opposite government program.",
       0x55182f8859eca4ceULL},
      {"There is no reason for any individual to have a computer in their home. -Ken Olsen, 1977",
       0x7e85d7b050ed2967ULL},
      {"The fugacity of a constituent in a mixture of gases at a given temperature is "
       "proportional to its mole fraction.  Lewis-Randall Rule",
       0x098eff6958c5e91aULL},
      // TensorFlow's own, from its StringToHashBucketFast test.
      {"b", 11795596070477164822ULL},
      {"d", 4470636696479570465ULL},
  };
  for (const auto& [s, want] : known) {
    EXPECT_EQ(kernels_internal::Fingerprint64(s), want) << "\"" << s << "\"";
  }
}

TEST(SparseKernelsTest, StringToHashBucketFastIsTensorFlows) {
  auto out = RunKernel("StringToHashBucketFast", {{Strings({"a", "b", "c", "d"})}},
                       {{"num_buckets", MakeAttrValue(int64_t{10})}});
  ASSERT_TRUE(out.ok()) << out.status();
  EXPECT_EQ((*out)[0].SummarizeValue(10), "9 2 2 5");  // TensorFlow's test
}

// A SparseTensor of strings, one row per entry of `rows`.
std::vector<Tensor> SparseStrings(const std::vector<std::vector<std::string>>& rows) {
  std::vector<int64_t> idx;
  std::vector<std::string> vals;
  for (size_t r = 0; r < rows.size(); ++r) {
    for (size_t j = 0; j < rows[r].size(); ++j) {
      idx.push_back(r);
      idx.push_back(j);
      vals.push_back(rows[r][j]);
    }
  }
  size_t widest = 0;
  for (const auto& r : rows) widest = std::max(widest, r.size());
  return {
      I64(TensorShape({static_cast<int64_t>(vals.size()), 2}), idx), Strings(vals),
      Tensor::Vector<int64_t>({static_cast<int64_t>(rows.size()), static_cast<int64_t>(widest)})};
}

std::string Cross(const std::vector<std::vector<Tensor>>& sparse, const std::vector<Tensor>& dense,
                  bool hashed, int64_t buckets = 0, int64_t key = 0xDECAFCAFFE,
                  DataType internal = DT_INVALID) {
  std::vector<Tensor> indices, values, shapes;
  AttrValue sparse_types, dense_types;
  sparse_types.mutable_list();  // set, if empty
  dense_types.mutable_list();
  for (const auto& s : sparse) {
    indices.push_back(s[0]);
    values.push_back(s[1]);
    shapes.push_back(s[2]);
    sparse_types.mutable_list()->add_type(s[1].dtype());
  }
  for (const Tensor& d : dense) dense_types.mutable_list()->add_type(d.dtype());
  // Unless given, as TensorFlow's Python picks it: int64 when any feature is.
  if (internal == DT_INVALID) {
    internal = DT_STRING;
    for (const auto& s : sparse) internal = s[1].dtype() == DT_INT64 ? DT_INT64 : internal;
    for (const Tensor& d : dense) internal = d.dtype() == DT_INT64 ? DT_INT64 : internal;
  }
  auto out = RunKernel("SparseCross", {indices, values, shapes, dense},
                       {{"N", MakeAttrValue(static_cast<int64_t>(sparse.size()))},
                        {"hashed_output", MakeAttrValue(hashed)},
                        {"num_buckets", MakeAttrValue(buckets)},
                        {"hash_key", MakeAttrValue(key)},
                        {"sparse_types", sparse_types},
                        {"dense_types", dense_types},
                        {"out_type", MakeAttrValue(hashed ? DT_INT64 : DT_STRING)},
                        {"internal_type", MakeAttrValue(internal)}});
  if (!out.ok()) return std::string(out.status().message());
  return (*out)[0].SummarizeValue(100) + " | " + (*out)[1].SummarizeValue(100) + " | " +
         (*out)[2].SummarizeValue(100);
}

TEST(SparseKernelsTest, SparseCrossAsTensorFlowCrossesFeatures) {
  const auto fc1 = SparseStrings({{"batch1-FC1-F1"}});
  const auto fc2 = SparseStrings({{"batch1-FC2-F1"}});
  const auto fc3 = SparseStrings({{"batch1-FC3-F1"}});
  // TensorFlow's test values for the hashed cross, with its default key and
  // with that key + 1.
  EXPECT_EQ(Cross({fc1, fc2, fc3}, {}, true), "0 0 | 1971693436396284976 | 1 1");
  EXPECT_EQ(Cross({fc1, fc2, fc3}, {}, true, 0, 0xDECAFCAFFE + 1),
            "0 0 | 4847552627144134031 | 1 1");

  // Joined: every combination, the last column fastest, the sparse columns
  // before the dense ones; a row some column has nothing in has no crosses.
  Tensor dense(DT_INT64, TensorShape({3, 2}));
  std::vector<int64_t> d = {11, 333, 55555, 999999, 7, 8};
  std::copy(d.begin(), d.end(), dense.data<int64_t>());
  EXPECT_EQ(Cross({SparseStrings({{"a"}, {"b", "c"}, {}})}, {dense}, false),
            "0 0 0 1 1 0 1 1 1 2 1 3 | \"a_X_11\" \"a_X_333\" \"b_X_55555\" \"b_X_999999\" "
            "\"c_X_55555\" \"c_X_999999\" | 3 4");

  // With internal_type string every feature must be a string.
  const std::vector<Tensor> ints = {I64(TensorShape({1, 2}), {0, 0}),
                                    Tensor::Vector<int64_t>({7}), Tensor::Vector<int64_t>({1, 1})};
  EXPECT_EQ(Cross({fc1, ints}, {}, false), "0 0 | \"batch1-FC1-F1_X_7\" | 1 1");
  EXPECT_THAT(Cross({fc1, ints}, {}, false, 0, 1, DT_STRING),
              HasSubstr("SparseCross: values 1 should be of internal type string but is int64"));

  EXPECT_THAT(Cross({fc1, SparseStrings({{"x"}, {"y"}})}, {}, false),
              HasSubstr("Expected batch size 1 got 2 at position 1"));
  auto bad = SparseStrings({{"x"}, {"y"}});
  bad[0] = I64(TensorShape({2, 2}), {1, 0, 0, 0});
  EXPECT_THAT(Cross({bad}, {}, false), HasSubstr("is out of order or outside the batch of 2"));
  auto huge = SparseStrings({{"x"}});
  huge[2] = Tensor::Vector<int64_t>({int64_t{1} << 60, 1});
  EXPECT_THAT(Cross({huge}, {}, false),
              HasSubstr("SparseCross over a batch of 1152921504606846976 rows needs"));
}

// A dense shape alone may name a huge batch: a map for each of 2^30 rows
// (SparseCountSparseOutput), row starts for each of 2^40 (RaggedCross), are
// refused before they are allocated, where TensorFlow would allocate them.
TEST(SparseKernelsTest, HugeBatchesOfSparseInputsAreResourceExhausted) {
  const Tensor idx = I64(TensorShape({1, 2}), {0, 1});
  const Tensor values = Tensor::Vector<int64_t>({3});
  const Tensor shape = Tensor::Vector<int64_t>({int64_t{1} << 30, 4});
  EXPECT_THAT(RunKernel("SparseCountSparseOutput",
                        {{idx}, {values}, {shape}, {Tensor(DT_FLOAT, TensorShape({0}))}},
                        {{"T", MakeAttrValue(DT_INT64)},
                         {"output_type", MakeAttrValue(DT_FLOAT)},
                         {"binary_output", MakeAttrValue(false)}}),
              StatusIs(absl::StatusCode::kResourceExhausted, HasSubstr("1073741824 rows")));
  AttrValue none, one_int;
  none.mutable_list();
  one_int.mutable_list()->add_type(DT_INT64);
  const Tensor huge = Tensor::Vector<int64_t>({int64_t{1} << 40, 4});
  EXPECT_THAT(RunKernel("RaggedCross", {{}, {}, {idx}, {values}, {huge}, {}},
                        {{"Nsparse", MakeAttrValue(int64_t{1})},
                         {"input_order", MakeAttrValue("S")},
                         {"hashed_output", MakeAttrValue(false)},
                         {"num_buckets", MakeAttrValue(int64_t{0})},
                         {"hash_key", MakeAttrValue(int64_t{0})},
                         {"ragged_values_types", none},
                         {"ragged_splits_types", none},
                         {"sparse_values_types", one_int},
                         {"dense_types", none},
                         {"out_values_type", MakeAttrValue(DT_STRING)},
                         {"out_row_splits_type", MakeAttrValue(DT_INT64)}}),
              StatusIs(absl::StatusCode::kResourceExhausted,
                       HasSubstr("over a batch of 1099511627776 rows")));
}

}  // namespace
}  // namespace minigraph
