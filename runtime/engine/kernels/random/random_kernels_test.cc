// What the TensorFlow differential test cannot run: RngReadAndSkip with
// ThreeFry (Unimplemented, which that test reads as no kernel) and a state
// longer than Philox's three elements (TensorFlow copies the whole state
// into its three-element output and corrupts its heap; minigraph reads the
// first three); the candidate samplers over several runs (the learned
// unigram sampler counts the true classes it sees), from a vocabulary file,
// and asked for more unique candidates than their weights can give
// (TensorFlow draws forever).
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "core/mem_env.h"
#include "core/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/cc/ops.h"
#include "runtime/cc/scope.h"
#include "runtime/engine/kernels/kernel_test_util.h"
#include "runtime/graph/node_def_util.h"
#include "runtime/graph/partial_shape.h"

namespace minigraph {
namespace {

using ::testing::ElementsAre;
using ::testing::FloatEq;
using ::testing::HasSubstr;
using ::testing::Pointwise;

std::vector<int64_t> Values(const Tensor& t) {
  return std::vector<int64_t>(t.data<int64_t>(), t.data<int64_t>() + t.NumElements());
}

std::vector<float> Floats(const Tensor& t) {
  return std::vector<float>(t.data<float>(), t.data<float>() + t.NumElements());
}

// A candidate sampler `op` named "s" of true classes [[3], [3], [1]], one
// column, four candidates from a range of five, seeds (1, 2).
GraphDef SamplerGraph(const std::string& op, bool unique,
                      std::vector<std::pair<std::string, AttrValue>> attrs) {
  Scope s = Scope::NewRootScope();
  attrs.insert(attrs.end(), {{"num_true", MakeAttrValue(int64_t{1})},
                             {"num_sampled", MakeAttrValue(int64_t{4})},
                             {"unique", MakeAttrValue(unique)},
                             {"range_max", MakeAttrValue(int64_t{5})},
                             {"seed", MakeAttrValue(int64_t{1})},
                             {"seed2", MakeAttrValue(int64_t{2})}});
  Tensor truth(DT_INT64, TensorShape({3, 1}));
  int64_t* t = truth.data<int64_t>();
  t[0] = t[1] = 3;
  t[2] = 1;
  s.WithOpName("s").AddOp(op, {{ops::Const(s, truth)}}, {attrs.begin(), attrs.end()});
  return s.ToGraphDef().value();
}

// The values TensorFlow 2.21 gives for the same graphs.
TEST(CandidateSamplerTest, LearnedUnigramLearnsTheTrueClassesOfEachRun) {
  ASSERT_OK_AND_ASSIGN(auto runner, GraphRunner::Create(SamplerGraph(
                                        "LearnedUnigramCandidateSampler", false, {})));
  const std::vector<std::vector<int64_t>> sampled = {{4, 0, 2, 4}, {3, 0, 1, 3}, {1, 1, 3, 1}};
  const std::vector<std::vector<float>> expected = {{0.8f, 0.8f, 0.8f, 0.8f},
                                                    {1.5f, 0.5f, 1.0f, 1.5f},
                                                    {12 / 11.f, 12 / 11.f, 20 / 11.f, 12 / 11.f}};
  const std::vector<std::vector<float>> true_expected = {
      {0.8f, 0.8f, 0.8f}, {1.5f, 1.5f, 1.0f}, {20 / 11.f, 20 / 11.f, 12 / 11.f}};
  for (int run = 0; run < 3; ++run) {
    std::vector<Tensor> out;
    ASSERT_OK(runner->Run({}, {"s:0", "s:1", "s:2"}, {}, &out));
    EXPECT_EQ(Values(out[0]), sampled[run]) << "run " << run;
    EXPECT_THAT(Floats(out[1]), Pointwise(FloatEq(), true_expected[run])) << "run " << run;
    EXPECT_THAT(Floats(out[2]), Pointwise(FloatEq(), expected[run])) << "run " << run;
  }
}

TEST(CandidateSamplerTest, FixedUnigramReadsTheLastFieldOfEachLineOfItsVocabulary) {
  MemEnv env;
  ASSERT_OK(WriteStringToFile(&env, "/vocab.csv", "a,1\nb,x,2\nc,3\r\nd,4\ne,5\n"));
  ASSERT_OK_AND_ASSIGN(
      auto runner,
      GraphRunner::Create(SamplerGraph("FixedUnigramCandidateSampler", true,
                                       {{"vocab_file", MakeAttrValue("/vocab.csv")},
                                        {"distortion", MakeAttrValue(0.5f)}}),
                          &env));
  std::vector<Tensor> out;
  ASSERT_OK(runner->Run({}, {"s:0", "s:1", "s:2"}, {}, &out));
  EXPECT_THAT(Values(out[0]), ElementsAre(0, 4, 1, 3));
  EXPECT_THAT(Floats(out[1]), Pointwise(FloatEq(), {0.95438826f, 0.95438826f, 0.6748544f}));
  EXPECT_THAT(Floats(out[2]),
              Pointwise(FloatEq(), {0.47719413f, 1.0670385f, 0.6748544f, 0.95438826f}));
}

TEST(CandidateSamplerTest, FixedUnigramsBadVocabularyIsNamed) {
  MemEnv env;
  ASSERT_OK(WriteStringToFile(&env, "/vocab.csv", "a,1\nb,2\n\nd,4\ne,5\n"));
  for (const auto& [file, code, text] :
       {std::tuple<std::string, absl::StatusCode, std::string>{
            "/vocab.csv", absl::StatusCode::kInvalidArgument, "/vocab.csv at line: "},
        {"/missing.csv", absl::StatusCode::kNotFound, "/missing.csv"}}) {
    ASSERT_OK_AND_ASSIGN(auto runner,
                         GraphRunner::Create(SamplerGraph("FixedUnigramCandidateSampler", false,
                                                          {{"vocab_file", MakeAttrValue(file)}}),
                                             &env));
    std::vector<Tensor> out;
    EXPECT_THAT(runner->Run({}, {"s:0"}, {}, &out), StatusIs(code, HasSubstr(text)));
  }
}

TEST(CandidateSamplerTest, MoreUniqueCandidatesThanNonzeroWeightsFail) {
  AttrValue unigrams;
  for (float w : {1.0f, 0.0f, 2.0f, 0.0f, 3.0f}) unigrams.mutable_list()->add_f(w);
  ASSERT_OK_AND_ASSIGN(auto runner,
                       GraphRunner::Create(SamplerGraph("FixedUnigramCandidateSampler", true,
                                                        {{"unigrams", unigrams}})));
  std::vector<Tensor> out;
  EXPECT_THAT(runner->Run({}, {"s:0"}, {}, &out),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("4 unique candidates asked of 3 values of weight above zero")));
}

TEST(RandomKernelsTest, RngReadAndSkipReadsPhiloxsStateAndMovesItsCounter) {
  Scope s = Scope::NewRootScope();
  PartialShape shape({4});
  AttrValue shape_attr;
  shape.AsProto(shape_attr.mutable_shape());
  Output h = s.WithOpName("h")
                 .AddOp("VarHandleOp", {},
                        {{"dtype", MakeAttrValue(DT_INT64)},
                         {"shape", shape_attr},
                         {"shared_name", MakeAttrValue("rng")}})
                 .output(0);
  s.WithOpName("init").AddOp("AssignVariableOp",
                             {{h}, {ops::Const<int64_t>(s, {-1, 7, 9, 11})}},
                             {{"dtype", MakeAttrValue(DT_INT64)}});
  for (const auto& [name, alg] : {std::pair<const char*, int32_t>{"philox", 1}, {"threefry", 2}}) {
    s.WithOpName(name).AddOp("RngReadAndSkip",
                             {{h}, {ops::Const<int32_t>(s, alg)}, {ops::Const<uint64_t>(s, 2)}});
  }
  s.WithOpName("read").AddOp("ReadVariableOp", {{h}}, {{"dtype", MakeAttrValue(DT_INT64)}});
  ASSERT_OK_AND_ASSIGN(GraphDef g, s.ToGraphDef());
  ASSERT_OK_AND_ASSIGN(auto runner, GraphRunner::Create(g));
  std::vector<Tensor> out;
  ASSERT_OK(runner->Run({}, {}, {"init"}, &out));
  ASSERT_OK(runner->Run({}, {"philox:0"}, {}, &out));
  EXPECT_THAT(Values(out[0]), ElementsAre(-1, 7, 9));
  // -1 + 2 * 256 carries into the counter's high half; the fourth element
  // is left alone.
  ASSERT_OK(runner->Run({}, {"read:0"}, {}, &out));
  EXPECT_THAT(Values(out[0]), ElementsAre(511, 8, 9, 11));
  EXPECT_THAT(runner->Run({}, {"threefry:0"}, {}, &out),
              StatusIs(absl::StatusCode::kUnimplemented, HasSubstr("ThreeFry")));
}

// Sobol points far along the sequence: TensorFlow's overflow there (its
// points turn negative once skip + num_results reaches 2^30) is not
// copied. The first dimension's points are n / 2^31 in Gray-code order.
TEST(SobolSampleTest, PointsPastTwoToTheThirtyStayInTheUnitInterval) {
  ASSERT_OK_AND_ASSIGN(std::vector<Tensor> out,
                       RunKernel("SobolSample",
                                 {{Tensor::Scalar<int32_t>(2)}, {Tensor::Scalar<int32_t>(3)},
                                  {Tensor::Scalar<int32_t>(1 << 30)}},
                                 {{"dtype", MakeAttrValue(DT_DOUBLE)}}));
  ASSERT_EQ(out[0].shape().DebugString(), "[3,2]");
  for (int i = 0; i < 6; ++i) {
    const double p = out[0].data<double>()[i];
    EXPECT_GE(p, 0.0) << i;
    EXPECT_LT(p, 1.0) << i;
  }
  EXPECT_THAT(RunKernel("SobolSample", {{Tensor::Scalar<int32_t>(21201)},
                                        {Tensor::Scalar<int32_t>(3)},
                                        {Tensor::Scalar<int32_t>(0)}},
                        {{"dtype", MakeAttrValue(DT_FLOAT)}}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("at most 21200")));
}

}  // namespace
}  // namespace minigraph
