// Shape inference on its own: the InferenceContext's helpers and the shared
// shape functions, on shapes known, partly known and unknown.
#include "runtime/graph/shape_inference.h"

#include "core/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace minigraph {
namespace {

using ::testing::HasSubstr;

NodeDef Node(const std::string& name) {
  NodeDef n;
  n.set_name(name);
  n.set_op("TestOp");
  return n;
}

TEST(ShapeInferenceTest, BroadcastBinaryFollowsNumpy) {
  const NodeDef node = Node("add");
  auto infer = [&](PartialShape a, PartialShape b) -> absl::StatusOr<std::string> {
    InferenceContext c(&node, {DT_FLOAT, DT_FLOAT}, {a, b}, {nullptr, nullptr}, 1);
    MG_RETURN_IF_ERROR(shape_fn::BroadcastBinary(&c));
    return c.outputs()[0].DebugString();
  };
  EXPECT_THAT(infer(PartialShape({2, 1, 3}), PartialShape({4, 1})),
              IsOkAndHolds(PartialShape({2, 4, 3}).DebugString()));
  EXPECT_THAT(infer(PartialShape({-1, 3}), PartialShape({3})),
              IsOkAndHolds(PartialShape({-1, 3}).DebugString()));
  EXPECT_THAT(infer(PartialShape(), PartialShape({3})),
              IsOkAndHolds(PartialShape().DebugString()));
  EXPECT_THAT(infer(PartialShape({2}), PartialShape({3})).status(),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST(ShapeInferenceTest, MergeAndRankChecksSayWhatIsWrong) {
  const NodeDef node = Node("merge_me");
  InferenceContext c(&node, {DT_FLOAT, DT_FLOAT}, {PartialShape({-1, 3}), PartialShape({2, -1})},
                     {nullptr, nullptr}, 1);
  ASSERT_OK(shape_fn::MergeAllInputs(&c));
  EXPECT_EQ(c.outputs()[0].DebugString(), PartialShape({2, 3}).DebugString());
  ASSERT_OK_AND_ASSIGN(PartialShape rank2, c.WithRank(0, 2));
  EXPECT_EQ(rank2.DebugString(), PartialShape({-1, 3}).DebugString());
  EXPECT_THAT(c.WithRank(0, 3).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("input 0 must have rank 3, but has shape [?,3]")));
  InferenceContext clash(&node, {DT_FLOAT, DT_FLOAT}, {PartialShape({2}), PartialShape({3})},
                         {nullptr, nullptr}, 1);
  EXPECT_THAT(shape_fn::MergeAllInputs(&clash), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(c.Error("no good"), StatusIs(absl::StatusCode::kInvalidArgument, "no good"));
}

TEST(ShapeInferenceTest, SharedShapeFunctions) {
  const NodeDef node = Node("n");
  InferenceContext c(&node, {DT_FLOAT}, {PartialShape({5, 7})}, {nullptr}, 2);
  ASSERT_OK(shape_fn::Unchanged(&c));
  EXPECT_EQ(c.outputs()[0].DebugString(), PartialShape({5, 7}).DebugString());
  ASSERT_OK(shape_fn::Scalar(&c));
  EXPECT_EQ(c.outputs()[0].DebugString(), PartialShape::Scalar().DebugString());
  ASSERT_OK(shape_fn::Unknown(&c));
  EXPECT_FALSE(c.outputs()[0].rank_known());
  EXPECT_FALSE(c.outputs()[1].rank_known());
}

TEST(ShapeInferenceTest, OutputShapesAttrGivesOneShapePerOutput) {
  NodeDef node = Node("it");
  auto* list = (*node.mutable_attr())["output_shapes"].mutable_list();
  list->add_shape()->add_dim()->set_size(4);
  list->add_shape()->set_unknown_rank(true);
  InferenceContext c(&node, {}, {}, {}, 2);
  ASSERT_OK(shape_fn::OutputShapesAttr(&c));
  EXPECT_EQ(c.outputs()[0].DebugString(), PartialShape({4}).DebugString());
  EXPECT_FALSE(c.outputs()[1].rank_known());
  // A list of another length says nothing.
  InferenceContext three(&node, {}, {}, {}, 3);
  ASSERT_OK(shape_fn::OutputShapesAttr(&three));
  EXPECT_FALSE(three.outputs()[0].rank_known());
}

}  // namespace
}  // namespace minigraph
