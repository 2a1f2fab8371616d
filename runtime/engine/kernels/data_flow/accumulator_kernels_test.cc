// The conditional accumulator across steps on the executor: a take that
// waits for other steps' gradients, one that passes its step's deadline,
// and the staleness rule. TensorFlow 2.21's values for the same graphs are
// checked by op_interop_test (the "accumulators" graphs).
#include <algorithm>
#include <string>
#include <thread>
#include <utility>
#include <vector>

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
using ::testing::HasSubstr;

class AccumulatorTest : public ::testing::Test {
 protected:
  // Accumulator "acc" of float [2]: "apply" (feeds "step:0", "grad:0"),
  // "take" (feed "n:0"), "count", "set_step" (feed "step:0").
  void SetUp() override {
    Scope s = Scope::NewRootScope();
    Output acc = s.WithOpName("acc")
                     .AddOp("ResourceConditionalAccumulator", {},
                            {{"dtype", MakeAttrValue(DT_FLOAT)},
                             {"shape", MakeAttrValue(PartialShape({2}))}})
                     .output(0);
    Output step = ops::Placeholder(s.WithOpName("step"), DT_INT64);
    Output grad = ops::Placeholder(s.WithOpName("grad"), DT_FLOAT);
    Output n = ops::Placeholder(s.WithOpName("n"), DT_INT32);
    s.WithOpName("apply").AddOp("ResourceAccumulatorApplyGradient", {{acc}, {step}, {grad}});
    s.WithOpName("take").AddOp("ResourceAccumulatorTakeGradient", {{acc}, {n}},
                               {{"dtype", MakeAttrValue(DT_FLOAT)}});
    s.WithOpName("count").AddOp("ResourceAccumulatorNumAccumulated", {{acc}});
    s.WithOpName("set_step").AddOp("ResourceAccumulatorSetGlobalStep", {{acc}, {step}});
    ASSERT_OK_AND_ASSIGN(runner_, GraphRunner::Create(s.ToGraphDef().value()));
  }
  absl::Status Apply(int64_t step, float a, float b) {
    std::vector<Tensor> out;
    return runner_->Run({{"step:0", Tensor::Scalar<int64_t>(step)},
                         {"grad:0", Tensor::Vector<float>({a, b})}},
                        {}, {"apply"}, &out);
  }
  absl::StatusOr<std::vector<float>> Take(int n, absl::Duration timeout = absl::ZeroDuration()) {
    std::vector<Tensor> out;
    MG_RETURN_IF_ERROR(
        runner_->Run({{"n:0", Tensor::Scalar<int32_t>(n)}}, {"take:0"}, {}, &out, timeout));
    return std::vector<float>(out[0].data<float>(), out[0].data<float>() + 2);
  }
  std::unique_ptr<GraphRunner> runner_;
};

TEST_F(AccumulatorTest, ATakeWaitsForOtherStepsGradientsAndAveragesThem) {
  absl::StatusOr<std::vector<float>> got;
  std::thread chief([&] { got = Take(2); });
  ASSERT_OK(Apply(0, 1, 2));
  ASSERT_OK(Apply(0, 3, 6));
  chief.join();
  EXPECT_THAT(got, IsOkAndHolds(ElementsAre(2.0f, 4.0f)));
}

TEST_F(AccumulatorTest, AStaleGradientIsDroppedAndATakeMovesTheStepOn) {
  ASSERT_OK(Apply(0, 1, 1));
  ASSERT_OK(Take(1).status());  // the accumulator's step is 1 now
  ASSERT_OK(Apply(0, 5, 5));    // stale: dropped
  std::vector<Tensor> out;
  ASSERT_OK(runner_->Run({}, {"count:0"}, {}, &out));
  EXPECT_EQ(out[0].data<int32_t>()[0], 0);
  ASSERT_OK(Apply(1, 4, 8));
  EXPECT_THAT(Take(1), IsOkAndHolds(ElementsAre(4.0f, 8.0f)));
}

TEST_F(AccumulatorTest, ATakePastItsDeadlineLetsTheNextTakeBeServed) {
  EXPECT_THAT(Take(1, absl::Milliseconds(50)), StatusIs(absl::StatusCode::kDeadlineExceeded));
  ASSERT_OK(Apply(0, 1, 3));
  EXPECT_THAT(Take(1), IsOkAndHolds(ElementsAre(1.0f, 3.0f)));
  EXPECT_THAT(Take(0), StatusIs(absl::StatusCode::kInvalidArgument));
}

// A sparse accumulator's take waits as a dense one's, and Sparse* ops
// refuse a dense accumulator by name (TensorFlow fails looking for an input
// the op does not have).
TEST(SparseAccumulatorTest, ATakeWaitsAndTheKindsDoNotMix) {
  Scope s = Scope::NewRootScope();
  Output sparse = s.WithOpName("sparse")
                      .AddOp("SparseConditionalAccumulator", {},
                             {{"dtype", MakeAttrValue(DT_FLOAT)},
                              {"shape", MakeAttrValue(PartialShape({4, 1}))}})
                      .output(0);
  Output dense = s.WithOpName("dense")
                     .AddOp("ConditionalAccumulator", {},
                            {{"dtype", MakeAttrValue(DT_FLOAT)},
                             {"shape", MakeAttrValue(PartialShape({1}))}})
                     .output(0);
  Output step = ops::Const<int64_t>(s, 0);
  Output indices = ops::Placeholder(s.WithOpName("indices"), DT_INT64);
  Output values = ops::Placeholder(s.WithOpName("values"), DT_FLOAT);
  Output shape = ops::Const<int64_t>(s, {4, 1});
  const AttrValue f32 = MakeAttrValue(DT_FLOAT);
  for (auto [name, acc] : {std::pair{"apply", sparse}, std::pair{"apply_dense", dense}}) {
    s.WithOpName(name).AddOp("SparseAccumulatorApplyGradient",
                             {{acc}, {step}, {indices}, {values}, {shape}},
                             {{"dtype", f32}, {"has_known_shape", MakeAttrValue(true)}});
  }
  Output n = ops::Const<int32_t>(s, 2);
  s.WithOpName("take").AddOp("SparseAccumulatorTakeGradient", {{sparse}, {n}}, {{"dtype", f32}});
  ASSERT_OK_AND_ASSIGN(auto runner, GraphRunner::Create(s.ToGraphDef().value()));
  auto apply = [&](std::vector<int64_t> i, std::vector<float> v) {
    std::vector<Tensor> out;
    const int64_t rows = static_cast<int64_t>(i.size());
    Tensor indices_t(DT_INT64, TensorShape({rows}));
    std::copy(i.begin(), i.end(), indices_t.data<int64_t>());
    Tensor values_t(DT_FLOAT, TensorShape({rows, 1}));
    std::copy(v.begin(), v.end(), values_t.data<float>());
    return runner->Run({{"indices:0", indices_t}, {"values:0", values_t}}, {}, {"apply"}, &out);
  };
  std::vector<Tensor> got;
  absl::Status taken;
  std::thread chief([&] { taken = runner->Run({}, {"take:0", "take:1", "take:2"}, {}, &got); });
  ASSERT_OK(apply({1, 3}, {2, 6}));
  ASSERT_OK(apply({1}, {4}));
  chief.join();
  ASSERT_OK(taken);
  // Rows 1 (two gradients: their mean) and 3 (one).
  EXPECT_THAT(std::vector<int64_t>(got[0].data<int64_t>(), got[0].data<int64_t>() + 2),
              ElementsAre(1, 3));
  EXPECT_THAT(std::vector<float>(got[1].data<float>(), got[1].data<float>() + 2),
              ElementsAre(3.0f, 6.0f));
  EXPECT_THAT(std::vector<int64_t>(got[2].data<int64_t>(), got[2].data<int64_t>() + 2),
              ElementsAre(4, 1));
  std::vector<Tensor> out;
  EXPECT_THAT(runner->Run({{"indices:0", Tensor::Vector<int64_t>({0})},
                           {"values:0", Tensor(DT_FLOAT, TensorShape({1, 1}))}},
                          {}, {"apply_dense"}, &out),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("SparseAccumulatorApplyGradient 'apply_dense': the accumulator "
                                 "dense is a ConditionalAccumulator")));
}

}  // namespace
}  // namespace minigraph
