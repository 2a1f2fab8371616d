// The executor on its own: graphs written as GraphDef text, the standard
// ops' signatures and the CPU kernels (linked, not included), one step at a
// time. Pruning, feeds and fetches, control dependencies, dead branches,
// loop frames and their iterations, errors, cancellation and deadlines.
#include "runtime/engine/executor.h"

#include <algorithm>
#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "core/allocator.h"
#include "core/status_matchers.h"
#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "runtime/engine/kernel_registry.h"
#include "runtime/engine/resource_mgr.h"
#include "runtime/graph/graph.h"
#include "runtime/graph/ops/standard_ops.h"
#include "unsupported/Eigen/CXX11/Tensor"

namespace minigraph {
namespace {

using ::testing::HasSubstr;
using ::testing::UnorderedElementsAre;

// NodeDef text for the common nodes.
std::string Const(const std::string& name, float value) {
  return absl::StrFormat(
      R"(node { name: "%s" op: "Const" attr { key: "dtype" value { type: DT_FLOAT } }
             attr { key: "value" value { tensor { dtype: DT_FLOAT tensor_shape {}
                                                  float_val: %g } } } })",
      name, value);
}
std::string BoolConst(const std::string& name, bool value) {
  return absl::StrFormat(
      R"(node { name: "%s" op: "Const" attr { key: "dtype" value { type: DT_BOOL } }
             attr { key: "value" value { tensor { dtype: DT_BOOL tensor_shape {}
                                                  bool_val: %s } } } })",
      name, value ? "true" : "false");
}
// A float node of `op` with these inputs ("x", "x:1", "^x").
std::string Op(const std::string& name, const std::string& op,
               const std::vector<std::string>& inputs, const std::string& extra_attrs = "") {
  std::string in;
  for (const std::string& i : inputs) absl::StrAppend(&in, "input: \"", i, "\" ");
  return absl::StrFormat(
      R"(node { name: "%s" op: "%s" %s attr { key: "T" value { type: DT_FLOAT } } %s })", name,
      op, in, extra_attrs);
}
std::string Placeholder(const std::string& name) {
  return absl::StrFormat(
      R"(node { name: "%s" op: "Placeholder" attr { key: "dtype" value { type: DT_FLOAT } } })",
      name);
}

class ExecutorTest : public ::testing::Test {
 protected:
  // Installs the graph `nodes` (concatenated NodeDef texts) with a kernel
  // for every node.
  void Load(const std::vector<std::string>& nodes) {
    GraphDef def;
    std::string text;
    for (const std::string& n : nodes) absl::StrAppend(&text, n, "\n");
    ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &def)) << text;
    ASSERT_OK_AND_ASSIGN(graph_, Graph::Create(def, GlobalOpRegistry()));
    owned_.clear();
    kernels_.clear();
    for (const Node& node : graph_->nodes()) {
      ASSERT_OK_AND_ASSIGN(std::unique_ptr<OpKernel> k, GlobalKernelRegistry()->CreateKernel(node));
      kernels_.push_back(k.get());
      owned_.push_back(std::move(k));
    }
  }

  absl::StatusOr<std::unique_ptr<Executor>> Make(const std::vector<std::string>& feeds,
                                                 const std::vector<std::string>& fetches,
                                                 const std::vector<std::string>& targets = {}) {
    std::vector<TensorId> feed_ids, fetch_ids;
    for (const std::string& f : feeds) {
      MG_ASSIGN_OR_RETURN(TensorId id, ParseTensorName(f));
      feed_ids.push_back(id);
    }
    for (const std::string& f : fetches) {
      MG_ASSIGN_OR_RETURN(TensorId id, ParseTensorName(f));
      fetch_ids.push_back(id);
    }
    return Executor::Create(graph_.get(), kernels_, feed_ids, fetch_ids, targets);
  }

  Executor::Args Args(std::vector<Tensor> feeds = {}) {
    Executor::Args args;
    args.feeds = std::move(feeds);
    args.step.device = &device_;
    args.step.resource_mgr = &resources_;
    args.step.allocator = DefaultAllocator();
    args.pool = &pool_;
    return args;
  }

  // The names of the nodes `e` plans to run.
  std::vector<std::string> Planned(const Executor& e) {
    std::vector<std::string> names;
    for (int id : e.PlannedNodes()) names.push_back(graph_->node(id).name());
    return names;
  }

  static float Scalar(const Tensor& t) { return *t.data<float>(); }

  Eigen::ThreadPool pool_{2};
  Eigen::ThreadPoolDevice device_{&pool_, 2};
  ResourceMgr resources_;
  std::unique_ptr<Graph> graph_;
  std::vector<std::unique_ptr<OpKernel>> owned_;
  std::vector<const OpKernel*> kernels_;
};

// A counting loop: i = 0; while (i < limit) i = i + 1; "loop/exit" is i.
std::vector<std::string> CountingLoop(float limit, int parallel_iterations = 10) {
  const std::string enter_attrs = absl::StrFormat(
      R"(attr { key: "frame_name" value { s: "loop" } }
         attr { key: "parallel_iterations" value { i: %d } })",
      parallel_iterations);
  const std::string constant = R"(attr { key: "is_constant" value { b: true } })";
  return {
      Const("zero", 0),
      Const("limit", limit),
      Const("one", 1),
      Op("loop/enter", "Enter", {"zero"}, enter_attrs),
      Op("loop/limit", "Enter", {"limit"}, enter_attrs + constant),
      Op("loop/one", "Enter", {"one"}, enter_attrs + constant),
      Op("loop/merge", "Merge", {"loop/enter", "loop/next"},
         R"(attr { key: "N" value { i: 2 } })"),
      Op("loop/less", "Less", {"loop/merge", "loop/limit"}),
      R"(node { name: "loop/cond" op: "LoopCond" input: "loop/less" })",
      Op("loop/switch", "Switch", {"loop/merge", "loop/cond"}),
      Op("loop/body", "Identity", {"loop/switch:1"}),
      Op("loop/add", "AddV2", {"loop/body", "loop/one"}),
      Op("loop/next", "NextIteration", {"loop/add"}),
      Op("loop/exit", "Exit", {"loop/switch"}),
  };
}

TEST_F(ExecutorTest, RunsOnlyWhatTheFetchesNeedAndFeedsCutTheGraph) {
  Load({Const("a", 2), Const("b", 3), Op("sum", "AddV2", {"a", "b"}),
        Op("product", "Mul", {"sum", "b"}), Op("unused", "Neg", {"a"})});
  ASSERT_OK_AND_ASSIGN(auto all, Make({}, {"product"}));
  EXPECT_THAT(Planned(*all), UnorderedElementsAre("a", "b", "sum", "product"));
  std::vector<Tensor> out;
  ASSERT_OK(all->Run(Args(), &out));
  EXPECT_EQ(Scalar(out[0]), 15);
  // Feeding "sum" leaves it and "a" out: a fed tensor cuts what is above it.
  ASSERT_OK_AND_ASSIGN(auto fed, Make({"sum"}, {"product", "sum:0"}));
  EXPECT_THAT(Planned(*fed), UnorderedElementsAre("b", "product"));
  ASSERT_OK(fed->Run(Args({Tensor::Scalar<float>(10)}), &out));
  EXPECT_EQ(Scalar(out[0]), 30);
  EXPECT_EQ(Scalar(out[1]), 10);  // a fed tensor fetched is the fed value
}

// "x" (fed), "zero", and "reshape" of "x" to [3] (which fails for any
// other size only when the step runs), its "neg", and "after": "zero" once
// "reshape" is done. Tests add their own nodes to it.
std::vector<std::string> ReshapeOfX(const std::vector<std::string>& more) {
  std::vector<std::string> nodes = {
      Placeholder("x"), Const("zero", 0),
      R"(node { name: "shape" op: "Const" attr { key: "dtype" value { type: DT_INT32 } }
         attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape { dim { size: 1 } }
                                             int_val: 3 } } } })",
      Op("reshape", "Reshape", {"x", "shape"},
         R"(attr { key: "Tshape" value { type: DT_INT32 } })"),
      Op("neg", "Neg", {"reshape"}), Op("after", "Identity", {"zero", "^reshape"})};
  nodes.insert(nodes.end(), more.begin(), more.end());
  return nodes;
}

TEST_F(ExecutorTest, ControlDependenciesRunFirstAndTheirErrorsEndTheStep) {
  // The reshape's value is read, by the target "neg" (see
  // ValuesNoOneReadsAreNotComputed).
  Load(ReshapeOfX({R"(node { name: "group" op: "NoOp" input: "^after" })"}));
  ASSERT_OK_AND_ASSIGN(auto e, Make({"x"}, {"after"}, {"group", "neg"}));
  EXPECT_THAT(Planned(*e),
              UnorderedElementsAre("zero", "shape", "reshape", "neg", "after", "group"));
  std::vector<Tensor> out;
  Tensor three(DT_FLOAT, TensorShape({3}));
  std::fill_n(three.data<float>(), 3, 1.0f);
  ASSERT_OK(e->Run(Args({three}), &out));
  EXPECT_EQ(Scalar(out[0]), 0);
  EXPECT_THAT(e->Run(Args({Tensor::Scalar<float>(1)}), &out),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("[[{{node reshape}}]]")));
}

TEST_F(ExecutorTest, ValuesNoOneReadsAreNotComputed) {
  // "reshape" fails for a scalar "x", but only control edges wait for it
  // and "neg" (whose value only "group" waits for): as with TensorFlow's
  // grappler, neither computes and the step succeeds. Fetched, or read by
  // a node that runs, they compute and fail.
  Load(ReshapeOfX({R"(node { name: "group" op: "NoOp" input: "^after" input: "^neg" })",
                   Op("sum", "AddN", {"neg", "neg"}, R"(attr { key: "N" value { i: 2 } })")}));
  const std::vector<Tensor> scalar = {Tensor::Scalar<float>(1)};
  std::vector<Tensor> out;
  ASSERT_OK_AND_ASSIGN(auto unread, Make({"x"}, {"after"}, {"group"}));
  EXPECT_THAT(Planned(*unread),
              UnorderedElementsAre("zero", "shape", "reshape", "neg", "after", "group"));
  ASSERT_OK(unread->Run(Args(scalar), &out));
  EXPECT_EQ(Scalar(out[0]), 0);
  for (const std::string& fetch : {"neg", "sum"}) {
    ASSERT_OK_AND_ASSIGN(auto read, Make({"x"}, {fetch}, {"group"}));
    EXPECT_THAT(read->Run(Args(scalar), &out),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("[[{{node reshape}}]]")))
        << fetch;
  }
  // A target computes (TensorFlow keeps the nodes it is asked to run).
  ASSERT_OK_AND_ASSIGN(auto target, Make({"x"}, {}, {"neg"}));
  EXPECT_THAT(target->Run(Args(scalar), &out),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("[[{{node reshape}}]]")));
}

TEST_F(ExecutorTest, DeadBranchesAreSkippedAndMergeForwardsTheLiveOne) {
  for (bool pred : {false, true}) {
    Load({Const("x", 4), BoolConst("pred", pred), Op("switch", "Switch", {"x", "pred"}),
          Op("if_false", "Neg", {"switch:0"}), Op("if_true", "Square", {"switch:1"}),
          Op("merge", "Merge", {"if_false", "if_true"}, R"(attr { key: "N" value { i: 2 } })")});
    ASSERT_OK_AND_ASSIGN(auto e, Make({}, {"merge", "merge:1"}));
    std::vector<Tensor> out;
    ASSERT_OK(e->Run(Args(), &out));
    EXPECT_EQ(Scalar(out[0]), pred ? 16 : -4);
    EXPECT_EQ(*out[1].data<int32_t>(), pred ? 1 : 0);  // the input Merge took
    // The untaken branch's tensor is dead: fetching it is an error.
    ASSERT_OK_AND_ASSIGN(auto dead, Make({}, {pred ? "if_false" : "if_true"}));
    EXPECT_THAT(dead->Run(Args(), &out), StatusIs(absl::StatusCode::kInvalidArgument));
  }
}

TEST_F(ExecutorTest, LoopFramesRunEveryIteration) {
  for (int parallel : {1, 10}) {
    Load(CountingLoop(100, parallel));
    ASSERT_OK_AND_ASSIGN(auto e, Make({}, {"loop/exit"}));
    std::vector<Tensor> out;
    ASSERT_OK(e->Run(Args(), &out));
    EXPECT_EQ(Scalar(out[0]), 100) << "parallel_iterations " << parallel;
  }
  // Run on the calling thread alone, too.
  Load(CountingLoop(7));
  ASSERT_OK_AND_ASSIGN(auto e, Make({}, {"loop/exit"}));
  Executor::Args args = Args();
  args.pool = nullptr;
  std::vector<Tensor> out;
  ASSERT_OK(e->Run(args, &out));
  EXPECT_EQ(Scalar(out[0]), 7);
}

TEST_F(ExecutorTest, ConcurrentStepsOfOneExecutorKeepTheirOwnValues) {
  Load({Placeholder("x"), Const("two", 2), Op("y", "Mul", {"x", "two"})});
  ASSERT_OK_AND_ASSIGN(auto e, Make({"x"}, {"y"}));
  std::vector<std::thread> threads;
  std::atomic<int> wrong{0};
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 200; ++i) {
        std::vector<Tensor> out;
        const float x = static_cast<float>(t * 1000 + i);
        if (!e->Run(Args({Tensor::Scalar<float>(x)}), &out).ok() || Scalar(out[0]) != 2 * x) {
          ++wrong;
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0);
}

TEST_F(ExecutorTest, BadFeedsFetchesAndTargetsAreErrorsThatNameThem) {
  Load({Const("a", 1), Op("b", "Neg", {"a"})});
  EXPECT_THAT(Make({}, {"nope"}).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("nope")));
  EXPECT_THAT(Make({}, {"b:3"}).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("b:3")));
  EXPECT_THAT(Make({"a", "a:0"}, {"b"}).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("a")));
  EXPECT_THAT(Make({}, {}, {"missing_target"}).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("missing_target")));
  // A needed node without a kernel.
  kernels_[graph_->FindNode("b")->id()] = nullptr;
  EXPECT_THAT(Make({}, {"b"}).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("b")));
}

TEST_F(ExecutorTest, ACancelledStepStopsWithCancelled) {
  Load(CountingLoop(1e7));
  ASSERT_OK_AND_ASSIGN(auto e, Make({}, {"loop/exit"}));
  Executor::Args args = Args();
  std::atomic<int> asked{0};
  args.cancelled = [&] { return ++asked > 2; };
  std::vector<Tensor> out;
  EXPECT_THAT(e->Run(args, &out), StatusIs(absl::StatusCode::kCancelled));
  EXPECT_GT(asked.load(), 2);
}

TEST_F(ExecutorTest, AStepPastItsDeadlineStopsWithDeadlineExceeded) {
  // Ten million iterations take seconds; the deadline is a millisecond.
  Load(CountingLoop(1e7));
  ASSERT_OK_AND_ASSIGN(auto e, Make({}, {"loop/exit"}));
  Executor::Args args = Args();
  args.timeout = absl::Milliseconds(1);
  std::vector<Tensor> out;
  EXPECT_THAT(e->Run(args, &out), StatusIs(absl::StatusCode::kDeadlineExceeded));
}

}  // namespace
}  // namespace minigraph
