#include "session/local_session.h"

#include <atomic>
#include <map>
#include <thread>

#include "absl/strings/str_cat.h"
#include "core/proto/step_stats.pb.h"
#include "core/status_matchers.h"
#include "core/tensor_types.h"
#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "runtime/cc/ops.h"
#include "runtime/cc/variables.h"
#include "runtime/engine/kernel_registry.h"
#include "runtime/graph/ops/standard_ops.h"
#include "session/internal/run_partition.h"
#include "session/session.h"
#include "tests/testing/endless_loop.h"
#include "tests/testing/function_library.h"

namespace minigraph {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

std::unique_ptr<Session> MakeSession(const Scope& root, int inter_op = 2) {
  SessionOptions opts;
  opts.inter_op_threads = inter_op;
  auto s = NewSession(opts);
  EXPECT_OK(s.status());
  auto def = root.ToGraphDef();
  EXPECT_OK(def.status());
  EXPECT_OK((*s)->Create(*def));
  return *std::move(s);
}

template <typename T>
T Scalar(Session* s, const std::string& fetch) {
  std::vector<Tensor> out;
  absl::Status st = s->Run({}, {fetch}, {}, &out);
  EXPECT_OK(st);
  return st.ok() ? *out[0].data<T>() : T();
}

TEST(LocalSessionTest, PruningDoesNotRunSideEffectsOffTheFetchedPath) {
  Scope root = Scope::NewRootScope();
  Variable v = Variable::Create(root, "v", Tensor::Scalar<int64_t>(0));
  Output inc = ops::AssignAdd(root.WithOpName("inc"), v.ref(), ops::Const<int64_t>(root, 1));
  Output unrelated =
      ops::Add(root.WithOpName("sum"), ops::Const(root, 2.0f), ops::Const(root, 3.0f));
  auto s = MakeSession(root);
  std::vector<Tensor> out;
  ASSERT_OK(s->Run({}, {}, {v.initializer().name()}, &out));
  EXPECT_EQ(Scalar<float>(s.get(), "sum"), 5.0f);
  EXPECT_EQ(Scalar<int64_t>(s.get(), "v/read"), 0);
  EXPECT_EQ(Scalar<int64_t>(s.get(), "inc"), 1);
  EXPECT_EQ(Scalar<int64_t>(s.get(), "v/read"), 1);
}

TEST(LocalSessionTest, TracedStepRecordsEachNodeRunAsTensorFlowsStepStats) {
  Scope root = Scope::NewRootScope();
  Output a = ops::Const(root.WithOpName("a"), 2.0f);
  Output b = ops::Const(root.WithOpName("b"), 3.0f);
  ops::Mul(root.WithOpName("product"), a, b);
  ops::Neg(root.WithOpName("unfetched"), a);
  auto s = MakeSession(root);
  tensorflow::StepStats stats;
  RunOptions options;
  options.step_stats = &stats;
  std::vector<Tensor> out;
  ASSERT_OK(s->Run(options, {}, {"product:0"}, {}, &out));
  EXPECT_EQ(*out[0].data<float>(), 6.0f);
  ASSERT_EQ(stats.dev_stats_size(), 1);
  EXPECT_EQ(stats.dev_stats(0).device(), "/job:localhost/replica:0/task:0/device:CPU:0");
  std::map<std::string, tensorflow::NodeExecStats> nodes;
  for (const tensorflow::NodeExecStats& n : stats.dev_stats(0).node_stats()) {
    nodes[n.node_name()] = n;
  }
  ASSERT_EQ(nodes.size(), 3u);  // a, b and product; not the unfetched node
  EXPECT_EQ(nodes["product"].timeline_label(), "product = Mul(a, b)");
  EXPECT_EQ(nodes["a"].timeline_label(), "a = Const()");
  for (const auto& [name, n] : nodes) {
    EXPECT_GT(n.all_start_micros(), 0) << name;
    EXPECT_GE(n.all_end_rel_nanos(), 0) << name;
    EXPECT_EQ(n.op_end_rel_nanos(), n.all_end_rel_nanos()) << name;
  }
  // Each output's dtype, shape and bytes, as TensorFlow's NodeOutput.
  ASSERT_EQ(nodes["product"].output_size(), 1);
  const tensorflow::NodeOutput& product = nodes["product"].output(0);
  EXPECT_EQ(product.slot(), 0);
  EXPECT_EQ(product.tensor_description().dtype(), DT_FLOAT);
  EXPECT_EQ(product.tensor_description().shape().dim_size(), 0);
  EXPECT_EQ(product.tensor_description().allocation_description().requested_bytes(), 4);
  // The product ran after its inputs.
  EXPECT_GE(nodes["product"].all_start_nanos(),
            nodes["a"].all_start_nanos() + nodes["a"].all_end_rel_nanos());
  // An untraced step records nothing.
  ASSERT_OK(s->Run({}, {"product:0"}, {}, &out));
  EXPECT_EQ(stats.dev_stats_size(), 1);
}

TEST(LocalSessionTest, ControlDependenciesOrderExecution) {
  Scope root = Scope::NewRootScope();
  Variable v = Variable::Create(root, "v", Tensor::Scalar<int32_t>(1));
  Output set = ops::Assign(root.WithOpName("set"), v.ref(), ops::Const<int32_t>(root, 5));
  Output after =
      ops::Identity(root.WithOpName("after").WithControlDependencies({set.op()}), v.ref());
  auto s = MakeSession(root);
  std::vector<Tensor> out;
  ASSERT_OK(s->Run({}, {}, {"v/Assign"}, &out));
  EXPECT_EQ(Scalar<int32_t>(s.get(), "after"), 5);
}

TEST(LocalSessionTest, FeedsReplaceSubgraphs) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  Output y = ops::Square(root.WithOpName("y"), x);
  Output z = ops::Add(root.WithOpName("z"), y, ops::Const(root, 1.0f));
  auto s = MakeSession(root);
  std::vector<Tensor> out;
  // y is fed, so the unfed placeholder x behind it never runs.
  ASSERT_OK(s->Run({{"y", Tensor::Scalar<float>(10)}}, {"z", "y"}, {}, &out));
  EXPECT_EQ(*out[0].data<float>(), 11.0f);
  EXPECT_EQ(*out[1].data<float>(), 10.0f);  // a fed tensor fetches its feed
  ASSERT_OK(s->Run({{"x:0", Tensor::Scalar<float>(3)}}, {"z:0"}, {}, &out));
  EXPECT_EQ(*out[0].data<float>(), 10.0f);
}

TEST(LocalSessionTest, ErrorsNameTheFailingNode) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_FLOAT, PartialShape({2}));
  ops::Neg(root.WithOpName("neg"), x);
  Variable v = Variable::Create(root, "v", Tensor::Scalar<float>(1));
  auto s = MakeSession(root);
  std::vector<Tensor> out;
  EXPECT_THAT(s->Run({}, {"neg"}, {}, &out),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("You must feed a value for placeholder tensor 'x' with "
                                       "dtype float and shape [2]"),
                             HasSubstr("[[{{node x}}]]"))));
  EXPECT_THAT(s->Run({}, {"v/read"}, {}, &out),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       AllOf(HasSubstr("Attempting to use uninitialized value v"),
                             HasSubstr("[[{{node v/read}}]]"))));
  EXPECT_THAT(s->Run({{"x", Tensor::Scalar<float>(1)}}, {"neg"}, {}, &out),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("cannot feed a value of shape [] to 'x', which has shape [2]")));
  EXPECT_THAT(s->Run({{"x", Tensor::Vector<int32_t>({1, 2})}}, {"neg"}, {}, &out),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("cannot feed a int32")));
  EXPECT_THAT(s->Run({}, {"nope:0"}, {}, &out),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("'nope'")));
  EXPECT_THAT(s->Run({}, {"neg:3"}, {}, &out),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("'neg:3'")));
}

TEST(LocalSessionTest, KernelErrorAbortsTheStep) {
  Scope root = Scope::NewRootScope();
  Output idx = ops::Placeholder(root.WithOpName("idx"), DT_INT32);
  Output g = ops::Gather(root.WithOpName("gather"), ops::Const<float>(root, {1, 2, 3}), idx);
  auto s = MakeSession(root);
  std::vector<Tensor> out;
  EXPECT_THAT(
      s->Run({{"idx", Tensor::Vector<int32_t>({0, 7})}}, {"gather"}, {}, &out),
      StatusIs(absl::StatusCode::kInvalidArgument,
               AllOf(HasSubstr("indices[1] = 7 is not in [0, 3)"), HasSubstr("{{node gather}}"))));
  EXPECT_TRUE(out.empty());
}

TEST(LocalSessionTest, ConcurrentAssignAddWithLockingSumsExactly) {
  Scope root = Scope::NewRootScope();
  Variable v = Variable::Create(root, "counter", Tensor::Scalar<int64_t>(0));
  ops::AssignAdd(root.WithOpName("inc"), v.ref(), ops::Const<int64_t>(root, 1),
                 /*use_locking=*/true);
  auto s = MakeSession(root);
  std::vector<Tensor> out;
  ASSERT_OK(s->Run({}, {}, {"counter/Assign"}, &out));
  std::vector<std::thread> threads;
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&] {
      std::vector<Tensor> o;
      for (int i = 0; i < 1000; ++i) ASSERT_OK(s->Run({}, {}, {"inc"}, &o));
    });
  }
  for (auto& t : threads) t.join();
  EXPECT_EQ(Scalar<int64_t>(s.get(), "counter/read"), 8000);
}

TEST(LocalSessionTest, SessionsOnEmptyTargetDoNotShareVariables) {
  Scope root = Scope::NewRootScope();
  Variable v = Variable::Create(root, "v", Tensor::Scalar<float>(3));
  auto a = MakeSession(root);
  auto b = MakeSession(root);
  std::vector<Tensor> out;
  ASSERT_OK(a->Run({}, {}, {"v/Assign"}, &out));
  EXPECT_EQ(Scalar<float>(a.get(), "v/read"), 3.0f);
  EXPECT_THAT(b->Run({}, {"v/read"}, {}, &out), StatusIs(absl::StatusCode::kFailedPrecondition));
}

TEST(LocalSessionTest, BuiltAndImportedGraphsAgree) {
  Scope root = Scope::NewRootScope();
  Output a = ops::Const<float>(root, {1, 2, 3, 4, 5, 6}, TensorShape({2, 3}));
  Output b = ops::Const<float>(root, {0.5f, -1, 2}, TensorShape({3, 1}));
  Output y = ops::Relu(root.WithOpName("y"), ops::MatMul(root, a, b));
  ASSERT_OK_AND_ASSIGN(GraphDef def, root.ToGraphDef());
  std::string text;
  ASSERT_TRUE(google::protobuf::TextFormat::PrintToString(def, &text));
  GraphDef imported;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &imported));
  auto built = MakeSession(root);
  ASSERT_OK_AND_ASSIGN(auto other, NewSession(SessionOptions()));
  ASSERT_OK(other->Create(imported));
  std::vector<Tensor> x, z;
  ASSERT_OK(built->Run({}, {"y"}, {}, &x));
  ASSERT_OK(other->Run({}, {"y"}, {}, &z));
  EXPECT_EQ(x[0].tensor_data(), z[0].tensor_data());
  EXPECT_EQ(x[0].SummarizeValue(10), "4.5 9");
}

// A graph from before TensorFlow 1.0 names its variables' op "Variable".
TEST(LocalSessionTest, LegacyVariableOpRuns) {
  Scope root = Scope::NewRootScope();
  Variable v = Variable::Create(root, "v", Tensor::Scalar<float>(3));
  ASSERT_OK_AND_ASSIGN(GraphDef def, root.ToGraphDef());
  for (NodeDef& n : *def.mutable_node()) {
    if (n.op() == "VariableV2") n.set_op("Variable");
  }
  ASSERT_OK_AND_ASSIGN(auto s, NewSession(SessionOptions()));
  ASSERT_OK(s->Create(def));
  std::vector<Tensor> out;
  EXPECT_THAT(s->Run({}, {"v/read"}, {}, &out),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr("uninitialized value v")));
  ASSERT_OK(s->Run({}, {}, {"v/Assign"}, &out));
  EXPECT_EQ(Scalar<float>(s.get(), "v/read"), 3.0f);
}

TEST(LocalSessionTest, LifecycleErrors) {
  ASSERT_OK_AND_ASSIGN(auto s, NewSession(SessionOptions()));
  std::vector<Tensor> out;
  EXPECT_THAT(s->Run({}, {"x"}, {}, &out), StatusIs(absl::StatusCode::kFailedPrecondition));
  Scope root = Scope::NewRootScope();
  ops::Const(root.WithOpName("c"), 1.0f);
  ASSERT_OK_AND_ASSIGN(GraphDef def, root.ToGraphDef());
  ASSERT_OK(s->Create(def));
  EXPECT_THAT(s->Create(def), StatusIs(absl::StatusCode::kAlreadyExists));
  ASSERT_OK(s->Close());
  EXPECT_THAT(s->Run({}, {"c"}, {}, &out), StatusIs(absl::StatusCode::kCancelled));
  SessionOptions bad;
  bad.target = "ftp://x";
  EXPECT_THAT(NewSession(bad), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("ftp://x")));
}

TEST(LocalSessionTest, ExtendAddsNodes) {
  Scope root = Scope::NewRootScope();
  ops::Const(root.WithOpName("c"), 2.0f);
  auto s = MakeSession(root);
  GraphDef more;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(R"pb(
                                                              node {
                                                                name: "d"
                                                                op: "Square"
                                                                input: "c"
                                                                attr {
                                                                  key: "T"
                                                                  value { type: DT_FLOAT }
                                                                }
                                                              }
                                                            )pb",
                                                            &more));
  ASSERT_OK(s->Extend(more));
  EXPECT_EQ(Scalar<float>(s.get(), "d"), 4.0f);
  EXPECT_EQ(s->graph_def().node_size(), 2);
  GraphDef dup = more;
  EXPECT_THAT(s->Extend(dup), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("duplicate")));
  EXPECT_EQ(Scalar<float>(s.get(), "d"), 4.0f);  // the failed Extend changed nothing
}

// TensorFlow's client sends the whole function library again with every
// Extend, its maps (a node's attrs, the function's attrs and rets) in
// whatever order they serialize in: a function equal as a message to one the
// session has is that function. (wire_interop_test's
// test_a_graph_with_functions_grows_after_its_first_run runs TensorFlow's
// own client, whose second send differed in bytes.)
TEST(LocalSessionTest, ExtendTakesTheLibraryAgainWhateverTheOrderOfItsMaps) {
  // The test library with a function that has attributes as TensorFlow
  // gives them (_input_shapes and the like), many, so that their order
  // varies from copy to copy.
  std::string attributed =
      "signature { name: 'attributed' input_arg { name: 'x' type: DT_FLOAT } "
      "output_arg { name: 'y' type: DT_FLOAT } } ret { key: 'y' value: 'x' } ";
  for (int i = 0; i < 16; ++i) {
    absl::StrAppend(&attributed, "attr { key: '_a", i, "' value { i: ", i, " } } ");
  }
  auto library = [&](GraphDef* g) {
    return google::protobuf::TextFormat::ParseFromString(kFunctionLibraryText, g) &&
           google::protobuf::TextFormat::ParseFromString(attributed,
                                                         g->mutable_library()->add_function());
  };
  GraphDef graph;
  ASSERT_TRUE(library(&graph));
  auto s = NewSession(SessionOptions());
  ASSERT_OK(s.status());
  ASSERT_OK((*s)->Create(graph));
  for (int i = 0; i < 20; ++i) {
    GraphDef more;
    ASSERT_TRUE(library(&more));
    ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(
        absl::StrCat("node { name: 'c", i, "' op: 'Const' attr { key: 'dtype' value { type: ",
                     "DT_INT32 } } attr { key: 'value' value { tensor { dtype: DT_INT32 ",
                     "tensor_shape {} int_val: ", i, " } } } }"),
        &more)) << i;
    ASSERT_OK((*s)->Extend(more)) << "Extend " << i;
  }
  EXPECT_EQ(Scalar<int32_t>(s->get(), "c19"), 19);
  // A function that differs under the same name is still refused.
  GraphDef other;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(kFunctionLibraryText, &other));
  other.mutable_library()->mutable_function(0)->mutable_ret()->begin()->second = "mul:z:0";
  EXPECT_THAT((*s)->Extend(other),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("a different function with the same name already exists")));
}

// SessionOptions::max_step_bytes bounds what one step's tensors hold at
// once: twelve fetched Fills of 400 KB fit in 8 MB, not in 4 MB, where the
// step fails with ResourceExhausted naming a Fill and the bound; each
// tensor alone fits. The next step, smaller, runs.
TEST(LocalSessionTest, MaxStepBytesBoundsWhatAStepHoldsAtOnce) {
  Scope root = Scope::NewRootScope();
  std::vector<std::string> fills;
  for (int i = 0; i < 12; ++i) {
    Output f = ops::Fill(root.WithOpName(absl::StrCat("fill", i)),
                         ops::Const<int32_t>(root, {100000}), ops::Const(root, 1.0f));
    fills.push_back(f.name());
  }
  for (int64_t bound : {int64_t{8} << 20, int64_t{4} << 20}) {
    SessionOptions opts;
    opts.max_step_bytes = bound;
    ASSERT_OK_AND_ASSIGN(auto s, NewSession(opts));
    ASSERT_OK(s->Create(*root.ToGraphDef()));
    std::vector<Tensor> out;
    absl::Status st = s->Run({}, fills, {}, &out);
    if (bound == int64_t{8} << 20) {
      EXPECT_OK(st);
      continue;
    }
    EXPECT_THAT(st, StatusIs(absl::StatusCode::kResourceExhausted,
                             AllOf(HasSubstr("fill"), HasSubstr("a bound of 4194304 bytes"))));
    EXPECT_OK(s->Run({}, {fills[0], fills[1]}, {}, &out));
  }
}

// As TensorFlow's: VarHandleOps without a shared_name all name the one
// variable "" of their container (VariableV2s without one are their own).
TEST(LocalSessionTest, VarHandleOpsWithoutASharedNameShareTheirVariable) {
  Scope root = Scope::NewRootScope();
  const std::map<std::string, AttrValue> attrs = {{"dtype", MakeAttrValue(DT_FLOAT)},
                                                  {"shape", MakeAttrValue(PartialShape({}))}};
  Operation a = root.WithOpName("a").AddOp("VarHandleOp", {}, attrs);
  Operation b = root.WithOpName("b").AddOp("VarHandleOp", {}, attrs);
  root.WithOpName("assign").AddOp("AssignVariableOp",
                                  {{a.output(0)}, {ops::Const(root, 3.0f)}});
  root.WithOpName("read").AddOp("ReadVariableOp", {{b.output(0)}},
                                {{"dtype", MakeAttrValue(DT_FLOAT)}});
  auto s = MakeSession(root);
  std::vector<Tensor> out;
  ASSERT_OK(s->Run({}, {}, {"assign"}, &out));
  EXPECT_EQ(Scalar<float>(s.get(), "read"), 3.0f);
}

TEST(LocalSessionTest, WideGraphRunsOnInterOpPool) {
  Scope root = Scope::NewRootScope();
  std::vector<Output> parts;
  for (int i = 0; i < 32; ++i) {
    parts.push_back(ops::Square(root, ops::Const<float>(root, static_cast<float>(i))));
  }
  ops::AddN(root.WithOpName("total"), parts);
  for (int inter : {1, 2, 4}) {
    auto s = MakeSession(root, inter);
    float want = 0;
    for (int i = 0; i < 32; ++i) want += i * i;
    EXPECT_EQ(Scalar<float>(s.get(), "total"), want) << inter;
  }
}

// TensorFlow's ConfigProto.operation_timeout_in_ms: a session-wide deadline
// for every step whose RunOptions give none; a step's own deadline wins.
TEST(LocalSessionTest, OperationTimeoutBoundsEveryStepWithoutItsOwn) {
  ASSERT_OK_AND_ASSIGN(GraphDef def, EndlessLoopGraph());
  std::vector<Tensor> out;
  for (int threads : {1, 2}) {
    SessionOptions opts;
    opts.inter_op_threads = threads;
    opts.operation_timeout_in_ms = 50;
    ASSERT_OK_AND_ASSIGN(auto sess, NewSession(opts));
    ASSERT_OK(sess->Create(def));
    EXPECT_THAT(sess->Run({}, {"forever:0"}, {}, &out),
                StatusIs(absl::StatusCode::kDeadlineExceeded))
        << threads << " threads";
  }
  SessionOptions opts;
  opts.operation_timeout_in_ms = int64_t{3600} * 1000;
  ASSERT_OK_AND_ASSIGN(auto sess, NewSession(opts));
  ASSERT_OK(sess->Create(def));
  RunOptions run;
  run.timeout_in_ms = 50;  // an hour's wait would time the test out
  EXPECT_THAT(sess->Run(run, {}, {"forever:0"}, {}, &out),
              StatusIs(absl::StatusCode::kDeadlineExceeded));
}

// RunOptions::cancelled: asked while the step runs; true cancels it (a
// server passes whether its client went away). The first answers are no,
// so the step is under way when it is cancelled.
TEST(LocalSessionTest, ACancelledStepEndsCancelled) {
  ASSERT_OK_AND_ASSIGN(GraphDef def, EndlessLoopGraph());
  for (int threads : {1, 2}) {
    SessionOptions opts;
    opts.inter_op_threads = threads;
    ASSERT_OK_AND_ASSIGN(auto sess, NewSession(opts));
    ASSERT_OK(sess->Create(def));
    std::atomic<int> asked{0};
    RunOptions run;
    run.cancelled = [&asked] { return asked.fetch_add(1) >= 3; };
    std::vector<Tensor> out;
    EXPECT_THAT(sess->Run(run, {}, {"forever:0"}, {}, &out),
                StatusIs(absl::StatusCode::kCancelled, HasSubstr("step cancelled")))
        << threads << " threads";
    EXPECT_GE(asked.load(), 4);
  }
}

TEST(LocalSessionTest, InitializedValueGuardsUninitializedVariables) {
  Scope root = Scope::NewRootScope();
  Variable v = Variable::Create(root, "v", Tensor::Scalar<int32_t>(1));
  // w's initial value is v's value when v is initialized, else v's initial value.
  Variable w = Variable::Create(root, "w", v.InitializedValue(root));
  auto s = MakeSession(root);
  std::vector<Tensor> out;
  ASSERT_OK(s->Run({}, {}, {"w/Assign"}, &out));  // v uninitialized: no error
  EXPECT_EQ(Scalar<int32_t>(s.get(), "w/read"), 1);
  ASSERT_OK(s->Run({}, {}, {"v/Assign"}, &out));
  Output set = ops::Assign(root.WithOpName("set_v"), v.ref(), ops::Const<int32_t>(root, 7));
  auto s2 = MakeSession(root);
  ASSERT_OK(s2->Run({}, {}, {"set_v"}, &out));
  ASSERT_OK(s2->Run({}, {}, {"w/Assign"}, &out));
  EXPECT_EQ(Scalar<int32_t>(s2.get(), "w/read"), 7);  // now v's value
}

TEST(LocalSessionTest, SwitchMergeDeadnessAndDeadFetch) {
  Scope root = Scope::NewRootScope();
  Output pred = ops::Placeholder(root.WithOpName("pred"), DT_BOOL, PartialShape::Scalar());
  Output x = ops::Const(root, 3.0f);
  auto sw = ops::Switch(root.WithOpName("sw"), x, pred);
  Output t = ops::Square(root.WithOpName("t"), sw.output_true);
  Output f = ops::Neg(root.WithOpName("f"), sw.output_false);
  Output m = ops::Merge(root.WithOpName("m"), {f, t});
  // A node after a dead one through a control edge is dead too.
  ops::NoOp(root.WithOpName("after_t").WithControlDependencies({t.op()}));
  auto s = MakeSession(root);
  std::vector<Tensor> out;
  ASSERT_OK(s->Run({{"pred", Tensor::Scalar<bool>(true)}}, {"m", "m:1"}, {}, &out));
  EXPECT_EQ(*out[0].data<float>(), 9.0f);
  EXPECT_EQ(*out[1].data<int32_t>(), 1);
  ASSERT_OK(s->Run({{"pred", Tensor::Scalar<bool>(false)}}, {"m", "m:1"}, {"after_t"}, &out));
  EXPECT_EQ(*out[0].data<float>(), -3.0f);
  EXPECT_EQ(*out[1].data<int32_t>(), 0);
  EXPECT_THAT(s->Run({{"pred", Tensor::Scalar<bool>(false)}}, {"t"}, {}, &out),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("untaken side")));
}

TEST(LocalSessionTest, MergeWaitsForItsControlInputsWhichCannotKillIt) {
  // m = Merge(-x, x^2) with control inputs from "bump" (counts its runs) and
  // from a node on the untaken side: m waits for both, and stays live.
  Scope root = Scope::NewRootScope();
  Variable runs = Variable::Create(root, "runs", Tensor::Scalar<int32_t>(0));
  Output pred = ops::Placeholder(root.WithOpName("pred"), DT_BOOL, PartialShape::Scalar());
  Output x = ops::Const(root, 3.0f);
  auto sw = ops::Switch(root.WithOpName("sw"), x, pred);
  Output t = ops::Square(root.WithOpName("t"), sw.output_true);
  Output f = ops::Neg(root.WithOpName("f"), sw.output_false);
  Output bump = ops::AssignAdd(root.WithOpName("bump"), runs.ref(), ops::Const<int32_t>(root, 1),
                               /*use_locking=*/true);
  ops::Merge(root.WithOpName("m").WithControlDependencies({bump.op(), t.op()}), {f, t});
  auto s = MakeSession(root);
  std::vector<Tensor> out;
  ASSERT_OK(s->Run({}, {}, {"runs/Assign"}, &out));
  for (bool p : {false, true, false}) {
    ASSERT_OK(s->Run({{"pred", Tensor::Scalar<bool>(p)}}, {"m"}, {}, &out));
    EXPECT_EQ(*out[0].data<float>(), p ? 9.0f : -3.0f);
  }
  EXPECT_EQ(Scalar<int32_t>(s.get(), "runs/read"), 3);
}

// An op of the user's own, registered at run time (TensorFlow's REGISTER_OP
// and REGISTER_KERNEL_BUILDER), is usable from the builder and sessions.
class TimesTwoOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    Tensor out(DT_FLOAT, ctx->input(0).shape());
    out.flat<float>() = ctx->input(0).flat<float>() * 2.0f;
    ctx->set_output(0, std::move(out));
    return absl::OkStatus();
  }
};

TEST(LocalSessionTest, CustomOpsAndKernels) {
  auto op = OpDefBuilder("TimesTwoForTest").Input("x: float").Output("y: float");
  ASSERT_OK(RegisterOp(op));
  EXPECT_THAT(RegisterOp(op), StatusIs(absl::StatusCode::kAlreadyExists,
                                       HasSubstr("TimesTwoForTest is registered twice")));
  Scope root = Scope::NewRootScope();
  Operation twice =
      root.WithOpName("twice").AddOp("TimesTwoForTest", {{ops::Const<float>(root, {1, 2, 3})}});
  ASSERT_TRUE(twice.valid());
  // Without a kernel, the graph loads and what does not need the node runs;
  // a step that needs it fails naming the node and the op.
  ASSERT_OK_AND_ASSIGN(auto s, NewSession(SessionOptions()));
  ASSERT_OK(s->Create(*root.ToGraphDef()));
  std::vector<Tensor> out;
  ASSERT_OK(s->Run({}, {"Const:0"}, {}, &out));
  EXPECT_THAT(s->Run({}, {"twice:0"}, {}, &out),
              StatusIs(absl::StatusCode::kNotFound,
                       HasSubstr("no kernel registered for op TimesTwoForTest (node 'twice')")));
  RegisterKernel("TimesTwoForTest", MakeFactory<TimesTwoOp>());
  auto s2 = MakeSession(root);
  ASSERT_OK(s2->Run({}, {"twice"}, {}, &out));
  EXPECT_EQ(out[0].SummarizeValue(10), "2 4 6");
}

}  // namespace
}  // namespace minigraph

namespace minigraph {
namespace {

GraphDef ParseGraph(const std::string& text) {
  GraphDef g;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &g));
  return g;
}

std::string SendRecvAttrs(const std::string& name) {
  return absl::StrCat(
      "attr { key: 'tensor_name' value { s: '", name, "' } }",
      "attr { key: 'send_device' value { s: '/job:a/replica:0/task:0/device:CPU:0' } }",
      "attr { key: 'send_device_incarnation' value { i: 1 } }",
      "attr { key: 'recv_device' value { s: '/job:b/replica:0/task:0/device:CPU:0' } }");
}

// Two partitions of one step that wait on each other both ways, each run by
// one thread: a _Recv that would block that thread before its partition's
// _Send ran would hang the step. Blocking kernels get threads of their own.
TEST(LocalSessionTest, PartitionsExchangeBothWaysWithOneThreadEach) {
  SessionOptions opts;
  opts.inter_op_threads = 1;
  auto state = std::make_shared<SessionState>("");
  LocalSession a(opts, state), b(opts, state);
  ASSERT_OK(a.Create(ParseGraph(absl::StrCat(
      "node { name: 'from_b' op: '_Recv' attr { key: 'tensor_type' value { type: DT_FLOAT } }",
      SendRecvAttrs("b_to_a"), "}",
      "node { name: 'three' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } }"
      "  attr { key: 'value' value { tensor { dtype: DT_FLOAT float_val: 3 } } } }",
      "node { name: 'to_b' op: '_Send' input: 'three' attr { key: 'T' value { type: DT_FLOAT } }",
      SendRecvAttrs("a_to_b"), "}",
      "node { name: 'result' op: '_Send' input: 'from_b'"
      "  attr { key: 'T' value { type: DT_FLOAT } }",
      SendRecvAttrs("result"), "}"))));
  ASSERT_OK(b.Create(ParseGraph(absl::StrCat(
      "node { name: 'from_a' op: '_Recv' attr { key: 'tensor_type' value { type: DT_FLOAT } }",
      SendRecvAttrs("a_to_b"), "}",
      "node { name: 'sq' op: 'Square' input: 'from_a' attr { key: 'T' value { type: DT_FLOAT } } }",
      "node { name: 'to_a' op: '_Send' input: 'sq' attr { key: 'T' value { type: DT_FLOAT } }",
      SendRecvAttrs("b_to_a"), "}"))));
  for (int step = 1; step <= 20; ++step) {
    LocalRendezvous r;
    absl::Status sa, sb;
    std::thread ta(
        [&] { sa = session_internal::RunPartition(&a, {}, {"result", "to_b"}, &r, step); });
    std::thread tb([&] { sb = session_internal::RunPartition(&b, {}, {"to_a"}, &r, step); });
    ta.join();
    tb.join();
    ASSERT_OK(sa);
    ASSERT_OK(sb);
    Tensor t;
    bool dead;
    ASSERT_TRUE(r.TryRecv(RendezvousKey("/job:a/replica:0/task:0/device:CPU:0", 1,
                                        "/job:b/replica:0/task:0/device:CPU:0", "result"),
                          &t, &dead));
    EXPECT_EQ(*t.data<float>(), 9.0f);
  }
  // Run on its own, b's _Recv would wait for ever for a's _Send: a clear
  // error instead.
  EXPECT_THAT(b.Run({}, {}, {"to_a"}, nullptr),
              StatusIs(absl::StatusCode::kFailedPrecondition,
                       HasSubstr("(_Recv) waits for a tensor that no _Send in this graph "
                                 "sends; it runs only in a partition of a distributed step")));
}

// A graph with its own _Send/_Recv pair across the two branches of a
// Switch: the _Send on the untaken branch sends the deadness (as
// TensorFlow's transfer nodes do), so the _Recv's consumer is dead too and
// the Merge takes the live branch; without it the _Recv would wait for ever.
TEST(LocalSessionTest, ASendOnAnUntakenBranchSendsDeadness) {
  SessionOptions opts;
  for (const char* send_op : {"_Send", "_HostSend"}) {
    SCOPED_TRACE(send_op);
    LocalSession session(opts, std::make_shared<SessionState>(""));
    ASSERT_OK(session.Create(ParseGraph(absl::StrCat(
        "node { name: 'x' op: 'Const' attr { key: 'dtype' value { type: DT_FLOAT } }"
        "  attr { key: 'value' value { tensor { dtype: DT_FLOAT float_val: 3 } } } }",
        "node { name: 'p' op: 'Placeholder' attr { key: 'dtype' value { type: DT_BOOL } } }",
        "node { name: 'sw' op: 'Switch' input: 'x' input: 'p'"
        "  attr { key: 'T' value { type: DT_FLOAT } } }",
        "node { name: 'send' op: '", send_op, "' input: 'sw:1'"
        "  attr { key: 'T' value { type: DT_FLOAT } }",
        SendRecvAttrs("taken"), "}",
        "node { name: 'recv' op: '_Recv' attr { key: 'tensor_type' value { type: DT_FLOAT } }",
        SendRecvAttrs("taken"), "}",
        "node { name: 'twice' op: 'Mul' input: 'recv' input: 'recv'"
        "  attr { key: 'T' value { type: DT_FLOAT } } }",
        "node { name: 'm' op: 'Merge' input: 'twice' input: 'sw:0'"
        "  attr { key: 'T' value { type: DT_FLOAT } } attr { key: 'N' value { i: 2 } } }"))));
    for (bool taken : {false, true}) {
      std::vector<Tensor> out;
      ASSERT_OK(session.Run({{"p", Tensor::Scalar<bool>(taken)}}, {"m:0", "m:1"}, {"send"},
                            &out));
      EXPECT_EQ(*out[0].data<float>(), taken ? 9.0f : 3.0f) << taken;
      EXPECT_EQ(*out[1].data<int32_t>(), taken ? 0 : 1) << taken;
    }
  }
}

}  // namespace
}  // namespace minigraph
