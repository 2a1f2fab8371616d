// RngReadAndSkip on a state variable, beyond what the TensorFlow
// differential test can run: ThreeFry (Unimplemented, which that test reads
// as no kernel) and a state longer than Philox's three elements (TensorFlow
// copies the whole state into its three-element output and corrupts its
// heap; minigraph reads the first three).
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

std::vector<int64_t> Values(const Tensor& t) {
  return std::vector<int64_t>(t.data<int64_t>(), t.data<int64_t>() + t.NumElements());
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

}  // namespace
}  // namespace minigraph
