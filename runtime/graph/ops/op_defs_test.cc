// minigraph's own op definitions against TensorFlow's (tensorflow_op_defs.pbtxt,
// which tests/tf_interop/op_defs_interop_test keeps equal to TensorFlow
// 2.21's registry): an op minigraph defines has TensorFlow's interface, and
// GlobalOpRegistry() holds every op of TensorFlow's.
#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "google/protobuf/util/message_differencer.h"
#include "runtime/graph/ops/internal/op_families.h"
#include "runtime/graph/ops/standard_ops.h"
#include "runtime/graph/node_def_util.h"
#include "runtime/graph/ops/tensorflow_op_defs.h"
#include "runtime/graph/shape_inference.h"

namespace minigraph {
namespace {

// `op` without its documentation, its attrs in name order.
OpDef Interface(OpDef op) {
  std::sort(op.mutable_attr()->begin(), op.mutable_attr()->end(),
            [](const OpDef::AttrDef& a, const OpDef::AttrDef& b) { return a.name() < b.name(); });
  op.clear_summary();
  op.clear_description();
  for (auto& arg : *op.mutable_input_arg()) arg.clear_description();
  for (auto& arg : *op.mutable_output_arg()) arg.clear_description();
  for (auto& attr : *op.mutable_attr()) attr.clear_description();
  return op;
}

TEST(OpDefsTest, TheCatalogueIsTensorFlowsSortedByName) {
  const OpList& ops = TensorFlowOpDefs();
  ASSERT_GT(ops.op_size(), 1800);
  for (int i = 1; i < ops.op_size(); ++i) {
    ASSERT_LT(ops.op(i - 1).name(), ops.op(i).name());
  }
  ASSERT_NE(FindTensorFlowOpDef("MatMul"), nullptr);
  EXPECT_EQ(FindTensorFlowOpDef("MatMul")->input_arg(0).name(), "a");
  EXPECT_EQ(FindTensorFlowOpDef("NoSuchOp"), nullptr);
}

TEST(OpDefsTest, EveryOpMinigraphDefinesHasTensorFlowsInterface) {
  OpRegistry ours;
  ops_internal::RegisterMinigraphOps(&ours);
  std::vector<std::string> differ;
  for (const std::string& name : ours.OpNames()) {
    const OpDef* theirs = FindTensorFlowOpDef(name);
    if (theirs == nullptr) {
      differ.push_back(absl::StrCat(name, ": not an op of TensorFlow's"));
      continue;
    }
    OpDef mine = Interface((*ours.LookUp(name))->op_def);
    OpDef tf = Interface(*theirs);
    // minigraph may allow fewer dtypes (those its kernels take), not others.
    for (auto& attr : *mine.mutable_attr()) {
      auto it = std::find_if(tf.mutable_attr()->begin(), tf.mutable_attr()->end(),
                             [&](const OpDef::AttrDef& a) { return a.name() == attr.name(); });
      if (it == tf.mutable_attr()->end() || !attr.has_allowed_values()) continue;
      for (int t : attr.allowed_values().list().type()) {
        const auto& allowed = it->allowed_values().list().type();
        if (it->has_allowed_values() &&
            std::find(allowed.begin(), allowed.end(), t) == allowed.end()) {
          differ.push_back(absl::StrCat(name, ": attr ", attr.name(), " allows ",
                                        DataType_Name(static_cast<DataType>(t)),
                                        ", which TensorFlow's does not"));
        }
      }
      if (attr.type() == "type" || attr.type() == "list(type)") {
        attr.clear_allowed_values();
        it->clear_allowed_values();
      }
    }
    std::string report;
    google::protobuf::util::MessageDifferencer d;
    d.ReportDifferencesToString(&report);
    if (!d.Compare(tf, mine)) {
      differ.push_back(absl::StrCat(name, ":\n", report));
    }
  }
  EXPECT_TRUE(differ.empty()) << differ.size() << " of " << ours.OpNames().size()
                              << " ops differ from TensorFlow's (left TensorFlow, right "
                                 "minigraph):\n"
                              << absl::StrJoin(differ, "\n");
}

TEST(OpDefsTest, GlobalRegistryHoldsEveryTensorFlowOp) {
  for (const OpDef& op : TensorFlowOpDefs().op()) {
    EXPECT_TRUE(GlobalOpRegistry()->LookUp(op.name()).ok()) << op.name();
  }
}

}  // namespace
}  // namespace minigraph

namespace minigraph {
namespace {

TEST(OpDefsTest, AnOpMinigraphDefinesTakesTensorFlowsInterfaceAndKeepsItsKernelTypes) {
  const OpRegistrationData& add = **GlobalOpRegistry()->LookUp("AddV2");
  EXPECT_EQ(add.op_def.attr(0).allowed_values().list().type_size(),
            FindTensorFlowOpDef("AddV2")->attr(0).allowed_values().list().type_size());
  ASSERT_EQ(add.kernel_types.count("T"), 1u);
  EXPECT_NE(std::find(add.kernel_types.at("T").begin(), add.kernel_types.at("T").end(), DT_FLOAT),
            add.kernel_types.at("T").end());
  EXPECT_TRUE(add.shape_fn != nullptr);
  // An op of TensorFlow's alone has its interface and no shape function.
  const OpRegistrationData& cudnn = **GlobalOpRegistry()->LookUp("CudnnRNN");
  EXPECT_EQ(cudnn.op_def.input_arg(0).name(), "input");
  EXPECT_TRUE(cudnn.shape_fn == nullptr);
}

}  // namespace
}  // namespace minigraph

namespace minigraph {
namespace {

// Einsum's shape function: labels' dimensions from the inputs, the
// ellipsis broadcast, unknown where an input does not say.
TEST(OpDefsTest, EinsumShapeFollowsItsEquation) {
  const OpRegistrationData& einsum = **GlobalOpRegistry()->LookUp("Einsum");
  auto infer = [&](const std::string& equation, std::vector<PartialShape> in) {
    NodeDef node;
    node.set_op("Einsum");
    (*node.mutable_attr())["equation"] = MakeAttrValue(equation);
    InferenceContext c(&node, std::vector<DataType>(in.size(), DT_FLOAT), in,
                       std::vector<const Tensor*>(in.size(), nullptr), 1);
    const absl::Status status = einsum.shape_fn(&c);
    return status.ok() ? c.outputs()[0].DebugString() : std::string(status.message());
  };
  EXPECT_EQ(infer("aecd,abcd->acbe", {PartialShape({2, 5, 4, 8}), PartialShape({2, 3, 4, 8})}),
            "[2,4,3,5]");
  EXPECT_EQ(infer("...ij,...jk->...ik", {PartialShape({3, 1, 2, 4}), PartialShape({5, 4, -1})}),
            "[3,5,2,?]");
  EXPECT_EQ(infer("ij,jk->ik", {PartialShape({-1, 4}), PartialShape()}), "[?,?]");
  EXPECT_EQ(infer("...ij->...ji", {PartialShape()}), "?");
  EXPECT_EQ(infer("ii->i", {PartialShape({3, 3})}), "[3]");
  EXPECT_EQ(infer("ij,jk->ik", {PartialShape({2, 3, 4}), PartialShape({3, 4})}),
            "Expected input 0 to have rank 2 but got: 3");
}

}  // namespace
}  // namespace minigraph
