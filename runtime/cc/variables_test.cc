// Variables, their initializers, readiness reports and the optimizer kernels,
// through a session.
#include "runtime/cc/variables.h"

#include <cmath>

#include "core/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/cc/ops.h"
#include "runtime/graph/node_def_util.h"
#include "session/session.h"

namespace minigraph {
namespace {

using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

class VariablesTest : public ::testing::Test {
 protected:
  void Start() {
    ASSERT_OK_AND_ASSIGN(GraphDef def, root_.ToGraphDef());
    ASSERT_OK_AND_ASSIGN(session_, NewSession(SessionOptions()));
    ASSERT_OK(session_->Create(def));
  }
  absl::Status Run(const std::vector<std::string>& targets) {
    std::vector<Tensor> out;
    return session_->Run({}, {}, targets, &out);
  }
  Tensor Fetch(const std::string& name) {
    std::vector<Tensor> out;
    absl::Status s = session_->Run({}, {name}, {}, &out);
    EXPECT_OK(s);
    return s.ok() ? out[0] : Tensor();
  }
  std::vector<std::string> Strings(const Tensor& t) {
    std::vector<std::string> v;
    for (int64_t i = 0; i < t.NumElements(); ++i) v.push_back(t.data<std::string>()[i]);
    return v;
  }

  Scope root_ = Scope::NewRootScope();
  std::unique_ptr<Session> session_;
};

TEST_F(VariablesTest, NodesCollectionsAndMetaGraph) {
  Variable v = Variable::Create(root_, "v", Tensor::Vector<float>({1, 2, 3}));
  Scope layer = root_.NewSubScope("layer1");
  Variable w = Variable::Create(layer, "w", Tensor::Scalar<int64_t>(5),
                                {.trainable = false, .collections = {kLocalVariables}});
  EXPECT_EQ(v.name(), "v");
  EXPECT_EQ(v.initializer().name(), "v/Assign");
  EXPECT_EQ(v.value().name(), "v/read");
  EXPECT_EQ(v.initial_value().name(), "v/initial_value");
  EXPECT_EQ(w.name(), "layer1/w");
  EXPECT_EQ(w.initializer().name(), "layer1/w/Assign");
  EXPECT_EQ(GlobalVariables(root_).size(), 1u);
  EXPECT_EQ(LocalVariables(root_).size(), 1u);
  EXPECT_EQ(TrainableVariables(root_).size(), 1u);
  ASSERT_OK_AND_ASSIGN(MetaGraphDef meta, root_.ToMetaGraphDef());
  ASSERT_TRUE(meta.collection_def().contains("variables"));
  VariableDef def;
  ASSERT_TRUE(def.ParseFromString(meta.collection_def().at("variables").bytes_list().value(0)));
  EXPECT_EQ(def.variable_name(), "v:0");
  EXPECT_EQ(def.initializer_name(), "v/Assign");
  EXPECT_EQ(def.snapshot_name(), "v/read:0");
  // A second "v" is uniquified, as in TensorFlow.
  EXPECT_EQ(Variable::Create(root_, "v", Tensor::Scalar<float>(0)).name(), "v_1");
}

TEST_F(VariablesTest, PartitionedVariablesFollowTensorFlow) {
  Tensor init(DT_FLOAT, TensorShape({2, 7}));
  for (int i = 0; i < 14; ++i) init.data<float>()[i] = static_cast<float>(i);
  // TensorFlow's fixed_size_partitioner: at most one part per element.
  EXPECT_THAT(FixedSizePartitions(init.shape(), 3, 1), ElementsAre(1, 3));
  EXPECT_THAT(FixedSizePartitions(init.shape(), 3, 0), ElementsAre(2, 1));
  Scope layer = root_.NewSubScope("layer");
  ASSERT_OK_AND_ASSIGN(PartitionedVariable pv,
                       PartitionedVariable::Create(layer, "emb", init, {1, 3}));
  EXPECT_EQ(pv.name(), "layer/emb");
  ASSERT_EQ(pv.parts().size(), 3u);
  // 7 columns in 3 parts: 3, 2, 2.
  std::vector<std::string> names, specs;
  for (const Variable& v : pv.parts()) {
    names.push_back(v.name());
    specs.push_back(v.checkpoint_slice_spec());
    EXPECT_EQ(v.checkpoint_key(), "layer/emb");
  }
  EXPECT_THAT(names, ElementsAre("layer/emb/part_0", "layer/emb/part_1", "layer/emb/part_2"));
  EXPECT_THAT(specs, ElementsAre("2 7 0,2:0,3", "2 7 0,2:3,2", "2 7 0,2:5,2"));
  Output full = pv.AsTensor(root_);
  EXPECT_EQ(full.name(), "layer/emb/ConcatPartitions/concat");

  // The collections carry each part's SaveSliceInfoDef, as TensorFlow's do.
  std::vector<Variable> global = GlobalVariables(root_);
  ASSERT_EQ(global.size(), 3u);
  ASSERT_TRUE(global[2].save_slice_info().has_value());
  EXPECT_THAT(global[2].save_slice_info()->var_offset, ElementsAre(0, 5));
  const VariableDef def = global[2].ToDef();
  EXPECT_EQ(def.save_slice_info_def().full_name(), "layer/emb");
  EXPECT_THAT(def.save_slice_info_def().var_shape(), ElementsAre(2, 2));

  Operation init_op = GlobalVariablesInitializer(root_);
  Start();
  ASSERT_OK(Run({init_op.name()}));
  Tensor value = Fetch(full.name());
  EXPECT_EQ(value.shape(), init.shape());
  EXPECT_EQ(value.SummarizeValue(20), init.SummarizeValue(20));
  EXPECT_EQ(Fetch("layer/emb/part_1/read").SummarizeValue(10), "3 4 10 11");

  // Partition lists that do not fit say which variable and why.
  Scope other = Scope::NewRootScope();
  EXPECT_THAT(PartitionedVariable::Create(other, "a", init, {3}).status().message(),
              AllOf(HasSubstr("'a'"), HasSubstr("one entry per dimension")));
  EXPECT_THAT(PartitionedVariable::Create(other, "b", init, {2, 2}).status().message(),
              HasSubstr("along one dimension only"));
  EXPECT_THAT(PartitionedVariable::Create(other, "c", init, {3, 1}).status().message(),
              HasSubstr("dimension 0 has only 2 elements"));
  EXPECT_THAT(PartitionedVariable::Create(other, "d", init, {0, 1}).status().message(),
              HasSubstr("at least 1 part"));
  EXPECT_THAT(
      PartitionedVariable::Create(other, "e", Tensor::Scalar<float>(1), {}).status().message(),
      HasSubstr("a scalar cannot be partitioned"));
}

// embedding_lookup over a partitioned variable, in TensorFlow's two
// strategies: "div" reads the full tensor's rows, "mod" id i from part
// i % 3 at row i / 3.
TEST_F(VariablesTest, EmbeddingLookupOverPartsInBothStrategies) {
  Tensor init(DT_FLOAT, TensorShape({10, 2}));
  for (int r = 0; r < 10; ++r) {
    init.data<float>()[2 * r] = static_cast<float>(r);
    init.data<float>()[2 * r + 1] = static_cast<float>(10 + r);
  }
  ASSERT_OK_AND_ASSIGN(PartitionedVariable emb,
                       PartitionedVariable::Create(root_, "emb", init, {3, 1}));
  Tensor ids(DT_INT64, TensorShape({2, 2}));
  const int64_t v[] = {4, 0, 9, 5};
  std::copy(v, v + 4, ids.data<int64_t>());
  Output id = ops::Const(root_, ids);
  Output by_div = ops::EmbeddingLookup(root_, emb.values(), id, "div");
  Output by_mod = ops::EmbeddingLookup(root_, emb.values(), id);
  Output whole = ops::EmbeddingLookup(root_, {emb.AsTensor(root_)}, ops::Cast(root_, id, DT_INT32));
  Scope other = Scope::NewRootScope();
  ops::EmbeddingLookup(other, {ops::Const(other, init), ops::Const(other, init)},
                       ops::Const(other, ids), "hash");
  EXPECT_THAT(other.status().message(), HasSubstr("Unrecognized partition strategy: hash"));
  Operation init_op = GlobalVariablesInitializer(root_);
  Start();
  ASSERT_OK(Run({init_op.name()}));
  Tensor div = Fetch(by_div.name());
  EXPECT_EQ(div.shape(), TensorShape({2, 2, 2}));
  EXPECT_EQ(div.SummarizeValue(10), "4 14 0 10 9 19 5 15");
  EXPECT_EQ(Fetch(whole.name()).SummarizeValue(10), "4 14 0 10 9 19 5 15");
  EXPECT_EQ(Fetch(by_mod.name()).SummarizeValue(10), "5 15 0 10 3 13 8 18");
}

TEST_F(VariablesTest, ReportUninitializedVariablesFollowsTensorFlow) {
  Variable v = Variable::Create(root_, "v", Tensor::Scalar<float>(1));
  Variable w = Variable::Create(root_.NewSubScope("scope"), "w", Tensor::Scalar<float>(2),
                                {.collections = {kLocalVariables}});
  Output all = ReportUninitializedVariables(root_);
  Output globals = ReportUninitializedVariables(root_, GlobalVariables(root_));
  Output none = ReportUninitializedVariables(root_, {});
  Operation init = GlobalVariablesInitializer(root_);
  Operation local_init = LocalVariablesInitializer(root_);
  EXPECT_EQ(init.name(), "init");
  EXPECT_EQ(local_init.name(), "init_1");
  EXPECT_EQ(all.op().name().rfind("report_uninitialized_variables/", 0), 0u);
  EXPECT_EQ(globals.op().name().rfind("report_uninitialized_variables_1/", 0), 0u);
  Start();
  EXPECT_THAT(Strings(Fetch(all.name())), ElementsAre("v", "scope/w"));
  EXPECT_THAT(Strings(Fetch(globals.name())), ElementsAre("v"));
  Tensor empty = Fetch(none.name());
  EXPECT_EQ(empty.dtype(), DT_STRING);
  EXPECT_EQ(empty.shape(), TensorShape({0}));
  ASSERT_OK(Run({init.name()}));
  EXPECT_THAT(Strings(Fetch(all.name())), ElementsAre("scope/w"));
  EXPECT_EQ(Fetch(globals.name()).NumElements(), 0);
  ASSERT_OK(Run({local_init.name()}));
  EXPECT_EQ(Fetch(all.name()).NumElements(), 0);
  EXPECT_EQ(Fetch(all.name()).shape(), TensorShape({0}));
}

// variables.py's "backwards compatibility for old-style variables": with
// the global and local collections empty, the report covers every VariableV2
// op of the graph; an explicit (even empty) list does not fall back.
TEST_F(VariablesTest, ReportFallsBackToVariableOpsWhenTheCollectionsAreEmpty) {
  Variable a = Variable::Create(root_, "a", Tensor::Scalar<float>(1), {.collections = {}});
  Variable b = Variable::Create(root_.NewSubScope("s"), "b", Tensor::Scalar<float>(2),
                                {.collections = {}});
  Output all = ReportUninitializedVariables(root_);
  Output none = ReportUninitializedVariables(root_, GlobalVariables(root_));
  Output ranks = AssertVariablesInitialized(root_);
  Start();
  EXPECT_THAT(Strings(Fetch(all.name())), ElementsAre("a", "s/b"));
  EXPECT_EQ(Fetch(none.name()).NumElements(), 0);
  std::vector<Tensor> out;
  EXPECT_THAT(session_->Run({}, {ranks.name()}, {}, &out),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("Attempting to use uninitialized value")));
  ASSERT_OK(Run({a.initializer().name()}));
  EXPECT_THAT(Strings(Fetch(all.name())), ElementsAre("s/b"));
  ASSERT_OK(Run({b.initializer().name()}));
  EXPECT_EQ(Fetch(all.name()).NumElements(), 0);
  EXPECT_EQ(Fetch(ranks.name()).SummarizeValue(2), "0 0");
}

// Once any variable is in a collection, variables outside them are not
// reported (TensorFlow's fallback applies only to an empty var_list).
TEST_F(VariablesTest, ReportDoesNotFallBackWhenACollectionHasVariables) {
  Variable::Create(root_, "outside", Tensor::Scalar<float>(1), {.collections = {}});
  Variable::Create(root_, "inside", Tensor::Scalar<float>(2));
  Output all = ReportUninitializedVariables(root_);
  Start();
  EXPECT_THAT(Strings(Fetch(all.name())), ElementsAre("inside"));
}

TEST_F(VariablesTest, AssignChecksShapesAndUpdatesChecksInitialization) {
  Variable v = Variable::Create(root_, "v", Tensor::Vector<float>({1, 2}));
  Output p = ops::Placeholder(root_.WithOpName("p"), DT_FLOAT);
  ops::Assign(root_.WithOpName("assign_p"), v.ref(), p);
  ops::AssignAdd(root_.WithOpName("add_p"), v.ref(), p);
  ops::IsVariableInitialized(root_.WithOpName("is_init"), v.ref());
  ASSERT_OK_AND_ASSIGN(GraphDef def, root_.ToGraphDef());
  ASSERT_OK_AND_ASSIGN(session_, NewSession(SessionOptions()));
  ASSERT_OK(session_->Create(def));
  EXPECT_FALSE(*Fetch("is_init").data<bool>());
  std::vector<Tensor> out;
  EXPECT_THAT(session_->Run({{"p", Tensor::Vector<float>({1, 1})}}, {}, {"add_p"}, &out),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("Attempting to use uninitialized value v")));
  ASSERT_OK(Run({"v/Assign"}));
  EXPECT_TRUE(*Fetch("is_init").data<bool>());
  EXPECT_THAT(session_->Run({{"p", Tensor::Vector<float>({1, 2, 3})}}, {}, {"assign_p"}, &out),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("lhs shape= [2] rhs shape= [3]")));
  ASSERT_OK(session_->Run({{"p", Tensor::Vector<float>({10, 20})}}, {}, {"add_p"}, &out));
  EXPECT_EQ(Fetch("v/read").SummarizeValue(4), "11 22");
  // A fetched value is a snapshot: later in-place updates do not change it.
  Tensor before = Fetch("v/read");
  ASSERT_OK(session_->Run({{"p", Tensor::Vector<float>({1, 1})}}, {}, {"add_p"}, &out));
  EXPECT_EQ(before.SummarizeValue(4), "11 22");
  EXPECT_EQ(Fetch("v/read").SummarizeValue(4), "12 23");
}

TEST_F(VariablesTest, OptimizerKernelsFollowTensorFlowsEquations) {
  const Tensor g = Tensor::Vector<double>({0.5, -1.0});
  Variable sgd = Variable::Create(root_, "sgd", Tensor::Vector<double>({1, 2}));
  Variable mom = Variable::Create(root_, "mom", Tensor::Vector<double>({1, 2}));
  Variable acc = Variable::Create(root_, "acc", Tensor::Vector<double>({0, 0}));
  Variable adam = Variable::Create(root_, "adam", Tensor::Vector<double>({1, 2}));
  Variable m = Variable::Create(root_, "m", Tensor::Vector<double>({0, 0}));
  Variable v = Variable::Create(root_, "v", Tensor::Vector<double>({0, 0}));
  Output grad = ops::Const(root_, g);
  auto c = [&](double x) { return ops::Const(root_, x); };
  ops::ApplyGradientDescent(root_.WithOpName("apply_sgd"), sgd.ref(), c(0.1), grad);
  ops::ApplyMomentum(root_.WithOpName("apply_mom"), mom.ref(), acc.ref(), c(0.1), grad, c(0.9));
  ops::ApplyAdam(root_.WithOpName("apply_adam"), adam.ref(), m.ref(), v.ref(), c(0.9), c(0.999),
                 c(0.01), c(0.9), c(0.999), c(1e-8), grad);
  Operation init = GlobalVariablesInitializer(root_);
  Start();
  ASSERT_OK(Run({init.name()}));
  double sgd_v[2] = {1, 2}, mom_v[2] = {1, 2}, acc_v[2] = {0, 0};
  double adam_v[2] = {1, 2}, m_v[2] = {0, 0}, v_v[2] = {0, 0};
  for (int step = 0; step < 3; ++step) {
    ASSERT_OK(Run({"apply_sgd", "apply_mom", "apply_adam"}));
    for (int i = 0; i < 2; ++i) {
      const double gi = g.data<double>()[i];
      sgd_v[i] -= 0.1 * gi;
      acc_v[i] = acc_v[i] * 0.9 + gi;
      mom_v[i] -= 0.1 * acc_v[i];
      const double alpha = 0.01 * std::sqrt(1 - 0.999) / (1 - 0.9);
      m_v[i] += (gi - m_v[i]) * (1 - 0.9);
      v_v[i] += (gi * gi - v_v[i]) * (1 - 0.999);
      adam_v[i] -= alpha * m_v[i] / (std::sqrt(v_v[i]) + 1e-8);
    }
    for (int i = 0; i < 2; ++i) {
      EXPECT_NEAR(Fetch("sgd/read").data<double>()[i], sgd_v[i], 1e-12);
      EXPECT_NEAR(Fetch("mom/read").data<double>()[i], mom_v[i], 1e-12);
      EXPECT_NEAR(Fetch("adam/read").data<double>()[i], adam_v[i], 1e-12);
    }
  }
}

TEST_F(VariablesTest, BuilderReportsErrorsWhereTheyAreMade) {
  Output a = ops::Const<float>(root_, {1, 2, 3});
  Output b = ops::Const<int32_t>(root_, {1, 2, 3});
  ops::Add(root_.WithOpName("bad_add"), a, b);
  EXPECT_THAT(root_.status(), StatusIs(absl::StatusCode::kInvalidArgument,
                                       HasSubstr("'bad_add'")));
  // Later ops are no-ops; the first error sticks.
  ops::Neg(root_, a);
  EXPECT_THAT(root_.ToGraphDef(), StatusIs(absl::StatusCode::kInvalidArgument,
                                           HasSubstr("'bad_add'")));
}

TEST_F(VariablesTest, VariableNeedsAFullyDefinedInitialShape) {
  Output p = ops::Placeholder(root_, DT_FLOAT);
  Variable::Create(root_, "v", p);
  EXPECT_THAT(root_.status(), StatusIs(absl::StatusCode::kInvalidArgument,
                                       HasSubstr("fully defined shape")));
}

// Resource variables: TensorFlow's node names, reads that are snapshots,
// the readiness report, and TensorFlow's errors.
TEST_F(VariablesTest, ResourceVariablesFollowTensorFlow) {
  Variable r =
      Variable::Create(root_, "r", Tensor::Vector<float>({1, 2, 3}), {.use_resource = true});
  Variable c = Variable::Create(root_.NewSubScope("layer"), "c", Tensor::Scalar<int64_t>(5),
                                {.use_resource = true});
  EXPECT_TRUE(r.is_resource());
  EXPECT_EQ(r.name(), "r");
  EXPECT_EQ(r.initializer().name(), "r/Assign");
  EXPECT_EQ(r.value().name(), "r/Read/ReadVariableOp");
  EXPECT_EQ(r.dtype(), DT_FLOAT);
  EXPECT_EQ(r.value().shape().DebugString(), "[3]");
  EXPECT_EQ(c.name(), "layer/c");
  ASSERT_OK_AND_ASSIGN(GraphDef graph, root_.ToGraphDef());
  for (const NodeDef& n : graph.node()) {
    if (n.name() == "layer/c") {
      EXPECT_EQ(n.op(), "VarHandleOp");
      EXPECT_EQ(n.attr().at("shared_name").s(), "layer/c");
    }
  }
  ASSERT_OK_AND_ASSIGN(Variable again, Variable::FromDef(root_, r.ToDef()));
  EXPECT_TRUE(again.is_resource());
  EXPECT_EQ(again.value().name(), "r/Read/ReadVariableOp");
  EXPECT_EQ(again.shape().DebugString(), "[3]");
  Output report = ReportUninitializedVariables(root_);
  Operation add = ops::AssignAddVariableOp(root_.WithOpName("add"), r.ref(),
                                           ops::Const<float>(root_, {10, 10, 10}));
  ops::AssignAddVariableOp(root_.WithOpName("bad_add"), r.ref(), ops::Const<float>(root_, {1, 1}));
  Output initialized_or_initial = r.InitializedValue(root_);
  Output gathered =
      ops::Identity(root_.WithOpName("gathered"),
                    root_
                        .AddOp("ResourceGather", {{r.ref()}, {ops::Const<int32_t>(root_, {2, 0})}},
                               {{"dtype", MakeAttrValue(DT_FLOAT)}})
                        .output(0));
  Output shape = root_.AddOp("VariableShape", {{r.ref()}}).output(0);
  root_.AddOp("DestroyResourceOp", {{c.ref()}}, {{"ignore_lookup_error", MakeAttrValue(false)}});
  Operation no_copy = root_.WithOpName("no_copy").AddOp("DisableCopyOnRead", {{r.ref()}});
  Start();

  // Before initialization there is no variable: TensorFlow's text.
  EXPECT_THAT(Strings(Fetch(report.name())), ElementsAre("r", "layer/c"));
  EXPECT_EQ(Fetch(initialized_or_initial.name()).SummarizeValue(3), "1 2 3");
  std::vector<Tensor> out;
  EXPECT_THAT(session_->Run({}, {r.value().name()}, {}, &out),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("Could not find variable r. This could mean that the variable has "
                                 "been deleted. In TF1, it can also mean the variable is "
                                 "uninitialized. Debug info: container=localhost, status error "
                                 "message=Resource localhost/r/N10tensorflow3VarE does not "
                                 "exist.")));
  EXPECT_THAT(Run({add.name()}), StatusIs(absl::StatusCode::kFailedPrecondition,
                                          HasSubstr("Could not find variable r")));
  // Keras's DisableCopyOnRead: nothing to do for a read that is a snapshot,
  // but the variable must exist.
  EXPECT_THAT(Run({no_copy.name()}), StatusIs(absl::StatusCode::kFailedPrecondition,
                                              HasSubstr("Could not find variable r")));
  ASSERT_OK(Run({r.initializer().name()}));
  ASSERT_OK(Run({no_copy.name()}));
  EXPECT_THAT(Strings(Fetch(report.name())), ElementsAre("layer/c"));
  ASSERT_OK(Run({c.initializer().name()}));
  EXPECT_THAT(Strings(Fetch(report.name())), ElementsAre());

  // A read is a snapshot: an update after it leaves the fetched value alone.
  Tensor before = Fetch(r.value().name());
  ASSERT_OK(Run({add.name()}));
  EXPECT_EQ(before.SummarizeValue(3), "1 2 3");
  EXPECT_EQ(Fetch(r.value().name()).SummarizeValue(3), "11 12 13");
  EXPECT_EQ(Fetch(initialized_or_initial.name()).SummarizeValue(3), "11 12 13");
  EXPECT_EQ(Fetch(gathered.name()).SummarizeValue(2), "13 11");
  EXPECT_EQ(Fetch(shape.name()).SummarizeValue(1), "3");
  EXPECT_THAT(Run({"bad_add"}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Cannot update variable with shape [3] using a "
                                 "Tensor with shape [2], shapes must be equal.")));

  // Destroyed: gone for every reader; destroying it again is NotFound.
  ASSERT_OK(Run({"DestroyResourceOp"}));
  EXPECT_THAT(Strings(Fetch(report.name())), ElementsAre("layer/c"));
  EXPECT_THAT(Run({"DestroyResourceOp"}),
              StatusIs(absl::StatusCode::kNotFound,
                       HasSubstr("Resource localhost/layer/c/N10tensorflow3VarE does not exist.")));
}

TEST_F(VariablesTest, ResourceReadsCheckTheDtype) {
  Variable r = Variable::Create(root_, "r", Tensor::Scalar<float>(1), {.use_resource = true});
  Output wrong = ops::ReadVariableOp(root_.WithOpName("wrong"), r.ref(), DT_INT32);
  Start();
  ASSERT_OK(Run({r.initializer().name()}));
  std::vector<Tensor> out;
  EXPECT_THAT(session_->Run({}, {wrong.name()}, {}, &out),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Trying to read variable r with wrong dtype. Expected int32 got "
                                 "float")));
}

}  // namespace
}  // namespace minigraph
