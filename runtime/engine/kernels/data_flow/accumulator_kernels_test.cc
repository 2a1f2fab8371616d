// The conditional accumulator across steps on the executor: a take that
// waits for other steps' gradients, one that passes its step's deadline,
// and the staleness rule. TensorFlow 2.21's values for the same graphs are
// checked by op_interop_test (the "accumulators" graphs).
#include <string>
#include <thread>
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

}  // namespace
}  // namespace minigraph
