// Scope's names for new operations and Operation's handle semantics.
#include "runtime/cc/scope.h"

#include <string>
#include <vector>

#include "core/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/cc/ops.h"
#include "runtime/graph/node_def_util.h"

namespace minigraph {
namespace {

using ::testing::ElementsAre;

// Unnamed operations of one type are numbered as TensorFlow numbers them,
// skipping a number a name given explicitly already took.
TEST(ScopeTest, UniqueNamesNumberEachTypeAndSkipTakenNames) {
  Scope root = Scope::NewRootScope();
  std::vector<std::string> names;
  for (int i = 0; i < 3; ++i) names.push_back(ops::Const(root, 1.0f).op().name());
  names.push_back(ops::Const(root.WithOpName("Const_4"), 1.0f).op().name());
  for (int i = 0; i < 2; ++i) names.push_back(ops::Const(root, 1.0f).op().name());
  Scope layer = root.NewSubScope("layer");
  names.push_back(ops::Const(layer, 1.0f).op().name());
  names.push_back(ops::Const(layer, 1.0f).op().name());
  EXPECT_THAT(names, ElementsAre("Const", "Const_1", "Const_2", "Const_4", "Const_3", "Const_5",
                                 "layer/Const", "layer/Const_1"));
  ASSERT_OK(root.status());
}

// Thousands of operations of one type: each name is found without trying
// every earlier number (this loop was quadratic).
TEST(ScopeTest, ManyOperationsOfOneType) {
  Scope root = Scope::NewRootScope();
  std::string last;
  for (int i = 0; i < 20000; ++i) last = ops::Const(root, 1.0f).op().name();
  EXPECT_EQ(last, "Const_19999");
  ASSERT_OK(root.status());
}

// An Operation is a handle: copies (every Output holds one) share what the
// Scope recorded, outputs keep their dtypes and shapes, and a default one is
// invalid with no name and no outputs.
// ExtendOp appends inputs to an op already in the graph: its outputs grow
// (the handles taken before see them), the new inputs' nodes move before it
// so AllOps() stays topological, and an input that depends on the op is
// refused.
TEST(ScopeTest, ExtendOpAppendsInputsAndKeepsTheOrderTopological) {
  Scope root = Scope::NewRootScope();
  Output a = ops::Const(root.WithOpName("a"), 1.0f);
  Operation n = root.WithOpName("n").AddOp("ShapeN", {{a}});
  Output after = ops::Identity(root.WithOpName("after"), n.output(0));
  Output b = ops::Const(root.WithOpName("b"), {2.0f, 3.0f});
  root.ExtendOp(n, {b}, {{"N", MakeAttrValue(int64_t{2})}});
  ASSERT_OK(root.status());
  EXPECT_EQ(n.num_outputs(), 2);
  EXPECT_EQ(n.output(1).dtype(), DT_INT32);
  std::vector<std::string> order;
  for (const Operation& op : root.AllOps()) order.push_back(op.name());
  EXPECT_THAT(order, ::testing::ElementsAre("a", "b", "n", "after"));
  ASSERT_OK_AND_ASSIGN(GraphDef def, root.ToGraphDef());
  EXPECT_EQ(def.node(2).name(), "n");
  EXPECT_THAT(def.node(2).input(), ::testing::ElementsAre("a", "b"));
  EXPECT_EQ(root.GetNodeDef(after.op()).input(0), "n");

  root.ExtendOp(n, {ops::Cast(root, after, DT_FLOAT)}, {{"N", MakeAttrValue(int64_t{3})}});
  EXPECT_THAT(root.status(),
              StatusIs(absl::StatusCode::kInvalidArgument, ::testing::HasSubstr("depends on it")));
}

TEST(ScopeTest, OperationIsAHandle) {
  Operation none;
  EXPECT_FALSE(none.valid());
  EXPECT_EQ(none.name(), "");
  EXPECT_EQ(none.num_outputs(), 0);

  Scope root = Scope::NewRootScope();
  Output x = ops::Const(root, Tensor::Vector<float>({1, 2, 3, 4}));
  std::vector<Output> parts = ops::Split(root, ops::Const<int32_t>(root, 0), x, 2);
  ASSERT_OK(root.status());
  ASSERT_EQ(parts.size(), 2u);
  const Operation split = parts[1].op();
  EXPECT_TRUE(split.valid());
  EXPECT_EQ(split.num_outputs(), 2);
  EXPECT_EQ(parts[1].name(), split.name() + ":1");
  EXPECT_EQ(split.output(0).dtype(), DT_FLOAT);
  EXPECT_EQ(split.output(1).shape().DebugString(), "[2]");
}

}  // namespace
}  // namespace minigraph
