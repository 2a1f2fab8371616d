// While loops end to end: ops::WhileLoop builds TensorFlow's Enter / Merge /
// Switch / NextIteration / Exit graph and the executor runs it in frames.
// Each test runs on the calling thread alone (1) and with an inter-op pool
// (4 threads, so iterations and loop bodies really overlap).
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "core/status_matchers.h"
#include "gmock/gmock.h"
#include "google/protobuf/text_format.h"
#include "gtest/gtest.h"
#include "runtime/cc/ops.h"
#include "runtime/cc/variables.h"
#include "session/session.h"

namespace minigraph {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

class WhileLoopTest : public ::testing::TestWithParam<int> {
 protected:
  std::unique_ptr<Session> MakeSession(const Scope& root) {
    SessionOptions opts;
    opts.inter_op_threads = GetParam();
    auto s = NewSession(opts);
    EXPECT_OK(s.status());
    auto def = root.ToGraphDef();
    EXPECT_OK(def.status());
    if (!def.ok()) return nullptr;
    EXPECT_OK((*s)->Create(*def));
    return *std::move(s);
  }

  template <typename T>
  T Fetch(Session* s, const std::string& name) {
    std::vector<Tensor> out;
    absl::Status st = s->Run({}, {name}, {}, &out);
    EXPECT_OK(st);
    return st.ok() ? *out[0].data<T>() : T();
  }
};

// i < limit, i + 1, from `start`.
std::vector<Output> CountTo(const Scope& s, Output start, int limit, int parallel = 10) {
  return ops::WhileLoop(
      s, {start},
      [limit](const Scope& c, const std::vector<Output>& v) {
        return ops::Less(c, v[0], ops::Const<int32_t>(c, limit));
      },
      [](const Scope& b, const std::vector<Output>& v) -> std::vector<Output> {
        return {ops::Add(b, v[0], ops::Const<int32_t>(b, 1))};
      },
      parallel);
}

TEST_P(WhileLoopTest, CountsAndNamesNodesAsTensorFlow) {
  Scope root = Scope::NewRootScope();
  std::vector<Output> out = CountTo(root, ops::Const<int32_t>(root, 0), 10);
  ASSERT_OK(root.status());
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].name(), "while/Exit");
  for (const char* name : {"while/Enter", "while/Merge", "while/LoopCond", "while/Switch",
                           "while/Identity", "while/NextIteration"}) {
    EXPECT_OK(root.FindOp(name).status()) << name;
  }
  auto s = MakeSession(root);
  EXPECT_EQ(Fetch<int32_t>(s.get(), "while/Exit"), 10);
  // A loop whose condition is false at once runs no iteration.
  Scope root2 = Scope::NewRootScope();
  Output done = CountTo(root2, ops::Const<int32_t>(root2, 42), 10)[0];
  auto s2 = MakeSession(root2);
  EXPECT_EQ(Fetch<int32_t>(s2.get(), done.name()), 42);
}

// i = tf.while_loop(lambda i: i < 10, lambda i: i + 1, [tf.constant(0)]) as
// TensorFlow 1.x's Python writes it: Merge(Enter, NextIteration), the
// constants pinned to the frame by control inputs from the Merge and the
// Identity, frame "while/while_context", colocation attrs.
constexpr char kPythonWhileLoop[] = R"pb(
  node { name: "Const" op: "Const"
         attr { key: "dtype" value { type: DT_INT32 } }
         attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 0 } } } }
  node { name: "while/Enter" op: "Enter" input: "Const"
         attr { key: "T" value { type: DT_INT32 } }
         attr { key: "frame_name" value { s: "while/while_context" } }
         attr { key: "is_constant" value { b: false } }
         attr { key: "parallel_iterations" value { i: 10 } } }
  node { name: "while/Merge" op: "Merge" input: "while/Enter" input: "while/NextIteration"
         attr { key: "N" value { i: 2 } }
         attr { key: "T" value { type: DT_INT32 } } }
  node { name: "while/Less/y" op: "Const" input: "^while/Merge"
         attr { key: "dtype" value { type: DT_INT32 } }
         attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 10 } } } }
  node { name: "while/Less" op: "Less" input: "while/Merge" input: "while/Less/y"
         attr { key: "T" value { type: DT_INT32 } } }
  node { name: "while/LoopCond" op: "LoopCond" input: "while/Less" }
  node { name: "while/Switch" op: "Switch" input: "while/Merge" input: "while/LoopCond"
         attr { key: "T" value { type: DT_INT32 } }
         attr { key: "_class" value { list { s: "loc:@while/Merge" } } } }
  node { name: "while/Identity" op: "Identity" input: "while/Switch:1"
         attr { key: "T" value { type: DT_INT32 } } }
  node { name: "while/add/y" op: "Const" input: "^while/Identity"
         attr { key: "dtype" value { type: DT_INT32 } }
         attr { key: "value" value { tensor { dtype: DT_INT32 tensor_shape {} int_val: 1 } } } }
  node { name: "while/add" op: "Add" input: "while/Identity" input: "while/add/y"
         attr { key: "T" value { type: DT_INT32 } } }
  node { name: "while/NextIteration" op: "NextIteration" input: "while/add"
         attr { key: "T" value { type: DT_INT32 } } }
  node { name: "while/Exit" op: "Exit" input: "while/Switch"
         attr { key: "T" value { type: DT_INT32 } } }
)pb";

TEST_P(WhileLoopTest, RunsTheGraphTensorFlowsPythonWrites) {
  GraphDef def;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(kPythonWhileLoop, &def));
  SessionOptions opts;
  opts.inter_op_threads = GetParam();
  ASSERT_OK_AND_ASSIGN(auto s, NewSession(opts));
  ASSERT_OK(s->Create(def));
  EXPECT_EQ(Fetch<int32_t>(s.get(), "while/Exit"), 10);
}

TEST_P(WhileLoopTest, AnExitLiveInSeveralIterationsFailsTheStep) {
  // Wired to the Switch's true side, the Exit delivers a value in every
  // iteration but the last, on several threads at once with a pool: the
  // step fails instead of keeping whichever value came last (found by
  // ThreadSanitizer as two threads writing one fetch).
  GraphDef def;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(kPythonWhileLoop, &def));
  for (NodeDef& node : *def.mutable_node()) {
    if (node.name() == "while/Exit") node.set_input(0, "while/Switch:1");
  }
  SessionOptions opts;
  opts.inter_op_threads = GetParam();
  ASSERT_OK_AND_ASSIGN(auto s, NewSession(opts));
  ASSERT_OK(s->Create(def));
  std::vector<Tensor> got;
  EXPECT_THAT(s->Run({}, {"while/Exit"}, {}, &got),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("fetched tensor 'while/Exit:0'"),
                             HasSubstr("produced more than once in one step"))));
}

TEST_P(WhileLoopTest, MutatedLoopGraphsFailCleanlyOrRun) {
  // 300 random damages to TensorFlow's loop graph (an input rewired to any
  // output of any node, an Enter's frame or constness changed, the Merge's
  // inputs swapped): each one is rejected with a Status, runs, or is stopped
  // by the step timeout. Never a crash or a hang.
  GraphDef base;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(kPythonWhileLoop, &base));
  std::mt19937 rng(1234);
  int created = 0, ran = 0;
  for (int trial = 0; trial < 300; ++trial) {
    GraphDef def = base;
    const int damages = 1 + static_cast<int>(rng() % 2);
    for (int d = 0; d < damages; ++d) {
      NodeDef* node = def.mutable_node(static_cast<int>(rng() % def.node_size()));
      switch (rng() % 4) {
        case 0:
        case 1:
          if (node->input_size() > 0) {
            const NodeDef& src = def.node(static_cast<int>(rng() % def.node_size()));
            const int k = static_cast<int>(rng() % node->input_size());
            const bool control = node->input(k)[0] == '^';
            node->set_input(k, control ? "^" + src.name()
                                       : absl::StrCat(src.name(), ":", rng() % 2));
          }
          break;
        case 2:
          if (node->op() == "Enter") {
            (*node->mutable_attr())["frame_name"].set_s(rng() % 2 ? "other" : "");
          } else {
            (*node->mutable_attr())["is_constant"].set_b(true);
          }
          break;
        case 3:
          if (node->op() == "Merge") {
            std::string first = node->input(0);
            node->set_input(0, node->input(1));
            node->set_input(1, first);
          }
          break;
      }
    }
    SessionOptions opts;
    opts.inter_op_threads = GetParam();
    ASSERT_OK_AND_ASSIGN(auto s, NewSession(opts));
    if (!s->Create(def).ok()) continue;
    ++created;
    RunOptions options;
    options.timeout_in_ms = 20;
    std::vector<Tensor> got;
    ran += s->Run(options, {}, {"while/Exit"}, {}, &got).ok();
  }
  // Some damage is harmless (a constant's input rewired to a twin), most is not.
  EXPECT_GT(created, 0);
  EXPECT_LT(ran, 300);
}

TEST_P(WhileLoopTest, SeveralLoopVariables) {
  // Sum of 1..100 and the count, as two loop variables.
  Scope root = Scope::NewRootScope();
  std::vector<Output> out = ops::WhileLoop(
      root, {ops::Const<int32_t>(root, 0), ops::Const<int64_t>(root, 0)},
      [](const Scope& c, const std::vector<Output>& v) {
        return ops::Less(c, v[0], ops::Const<int32_t>(c, 100));
      },
      [](const Scope& b, const std::vector<Output>& v) -> std::vector<Output> {
        Output i = ops::Add(b, v[0], ops::Const<int32_t>(b, 1));
        return {i, ops::Add(b, v[1], ops::Cast(b, i, DT_INT64))};
      });
  ASSERT_OK(root.status());
  auto s = MakeSession(root);
  std::vector<Tensor> got;
  ASSERT_OK(s->Run({}, {out[0].name(), out[1].name()}, {}, &got));
  EXPECT_EQ(*got[0].data<int32_t>(), 100);
  EXPECT_EQ(*got[1].data<int64_t>(), 5050);
}

TEST_P(WhileLoopTest, ParallelIterationsDoNotChangeTheResult) {
  // The step is each iteration's own, so with any overlap the result is the
  // same; with one iteration at a time the next waits for the previous.
  for (int parallel : {1, 2, 10, 64}) {
    Scope root = Scope::NewRootScope();
    Output x = ops::Placeholder(root.WithOpName("x"), DT_INT32, PartialShape::Scalar());
    std::vector<Output> out = ops::WhileLoop(
        root, {ops::Const<int32_t>(root, 0), x},
        [](const Scope& c, const std::vector<Output>& v) {
          return ops::Less(c, v[0], ops::Const<int32_t>(c, 50));
        },
        [](const Scope& b, const std::vector<Output>& v) -> std::vector<Output> {
          // Some independent work per iteration, so iterations can overlap.
          Output sq = ops::Mul(b, v[0], v[0]);
          return {ops::Add(b, v[0], ops::Const<int32_t>(b, 1)), ops::Add(b, v[1], sq)};
        },
        parallel);
    auto s = MakeSession(root);
    std::vector<Tensor> got;
    ASSERT_OK(s->Run({{"x", Tensor::Scalar<int32_t>(7)}}, {out[1].name()}, {}, &got));
    EXPECT_EQ(*got[0].data<int32_t>(), 7 + 49 * 50 * 99 / 6) << "parallel " << parallel;
  }
}

TEST_P(WhileLoopTest, ManyIterations) {
  // Each finished iteration is freed; a long loop runs in bounded memory.
  Scope root = Scope::NewRootScope();
  Output out = CountTo(root, ops::Const<int32_t>(root, 0), 100000)[0];
  auto s = MakeSession(root);
  EXPECT_EQ(Fetch<int32_t>(s.get(), out.name()), 100000);
  // Running the same plan again starts from a fresh frame.
  EXPECT_EQ(Fetch<int32_t>(s.get(), out.name()), 100000);
}

TEST_P(WhileLoopTest, ConcurrentStepsEachHaveTheirOwnFrames) {
  // Eight threads run the same loop with different inputs at once.
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_INT32, PartialShape::Scalar());
  std::vector<Output> out = ops::WhileLoop(
      root, {ops::Const<int32_t>(root, 0), x},
      [](const Scope& c, const std::vector<Output>& v) {
        return ops::Less(c, v[0], ops::Const<int32_t>(c, 200));
      },
      [](const Scope& b, const std::vector<Output>& v) -> std::vector<Output> {
        return {ops::Add(b, v[0], ops::Const<int32_t>(b, 1)), ops::Add(b, v[1], v[0])};
      });
  auto s = MakeSession(root);
  std::vector<std::thread> threads;
  std::vector<int32_t> results(8, -1);
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([&, t] {
      for (int rep = 0; rep < 20; ++rep) {
        std::vector<Tensor> got;
        if (!s->Run({{"x", Tensor::Scalar<int32_t>(t)}}, {out[1].name()}, {}, &got).ok()) return;
        results[t] = *got[0].data<int32_t>();
        if (results[t] != t + 199 * 200 / 2) return;
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < 8; ++t) EXPECT_EQ(results[t], t + 199 * 200 / 2) << "thread " << t;
}

TEST_P(WhileLoopTest, NestedLoops) {
  // for i in 0..3: for j in 0..4: total += i * j   (= 3 * 6 = 18; 12 steps)
  Scope root = Scope::NewRootScope();
  std::vector<Output> out = ops::WhileLoop(
      root, {ops::Const<int32_t>(root, 0), ops::Const<int32_t>(root, 0)},
      [](const Scope& c, const std::vector<Output>& v) {
        return ops::Less(c, v[0], ops::Const<int32_t>(c, 3));
      },
      [](const Scope& b, const std::vector<Output>& v) -> std::vector<Output> {
        Output i = v[0];
        std::vector<Output> inner = ops::WhileLoop(
            b, {ops::Const<int32_t>(b, 0), v[1]},
            [](const Scope& c, const std::vector<Output>& w) {
              return ops::Less(c, w[0], ops::Const<int32_t>(c, 4));
            },
            [i](const Scope& ib, const std::vector<Output>& w) -> std::vector<Output> {
              Output outer_i = ops::LoopInvariant(ib, i);
              return {ops::Add(ib, w[0], ops::Const<int32_t>(ib, 1)),
                      ops::Add(ib, w[1], ops::Mul(ib, outer_i, w[0]))};
            });
        return {ops::Add(b, i, ops::Const<int32_t>(b, 1)), inner[1]};
      });
  ASSERT_OK(root.status());
  auto s = MakeSession(root);
  EXPECT_EQ(Fetch<int32_t>(s.get(), out[1].name()), 18);
  EXPECT_EQ(Fetch<int32_t>(s.get(), out[0].name()), 3);
}

TEST_P(WhileLoopTest, LoopInvariantAndVariableUpdatesInTheBody) {
  // v += step, five times, through a reference that enters the loop once.
  Scope root = Scope::NewRootScope();
  Variable v = Variable::Create(root, "v", Tensor::Scalar<float>(0.0f));
  Output step = ops::Const(root.WithOpName("step"), 2.5f);
  std::vector<Output> out = ops::WhileLoop(
      root, {ops::Const<int32_t>(root, 0)},
      [](const Scope& c, const std::vector<Output>& w) {
        return ops::Less(c, w[0], ops::Const<int32_t>(c, 5));
      },
      [&](const Scope& b, const std::vector<Output>& w) -> std::vector<Output> {
        // A scope derived from the body's knows the loop too.
        Output ref = ops::LoopInvariant(b.NewSubScope("update"), v.ref());
        Output add = ops::AssignAdd(b, ref, ops::LoopInvariant(b, step), /*use_locking=*/true);
        return {ops::Add(b.WithControlDependencies({add.op()}), w[0],
                         ops::Const<int32_t>(b, 1))};
      },
      /*parallel_iterations=*/1);
  ASSERT_OK(root.status());
  auto s = MakeSession(root);
  std::vector<Tensor> got;
  ASSERT_OK(s->Run({}, {}, {"v/Assign"}, &got));
  EXPECT_EQ(Fetch<int32_t>(s.get(), out[0].name()), 5);
  EXPECT_EQ(Fetch<float>(s.get(), "v/read"), 12.5f);
}

TEST_P(WhileLoopTest, LoopOnTheUntakenSideOfACond) {
  // cond(pred, lambda: count x up to 10, lambda: -x): when pred is false the
  // whole loop is dead and the Merge after it takes the other branch.
  Scope root = Scope::NewRootScope();
  Output pred = ops::Placeholder(root.WithOpName("pred"), DT_BOOL, PartialShape::Scalar());
  Output x = ops::Placeholder(root.WithOpName("x"), DT_INT32, PartialShape::Scalar());
  auto sw = ops::Switch(root, x, pred);
  Output looped = CountTo(root, sw.output_true, 10)[0];
  Output negated = ops::Neg(root, sw.output_false);
  Output m = ops::Merge(root.WithOpName("m"), {negated, looped});
  auto s = MakeSession(root);
  for (bool p : {false, true, false}) {
    std::vector<Tensor> got;
    ASSERT_OK(s->Run({{"pred", Tensor::Scalar<bool>(p)}, {"x", Tensor::Scalar<int32_t>(3)}},
                     {"m"}, {}, &got));
    EXPECT_EQ(*got[0].data<int32_t>(), p ? 10 : -3);
  }
}

TEST_P(WhileLoopTest, AnErrorInsideTheLoopNamesTheNodeAndEndsTheStep) {
  // Gathers element i of a 3-element vector until i = 5: fails at i = 3.
  Scope root = Scope::NewRootScope();
  Output params = ops::Const<float>(root.WithOpName("params"), {1, 2, 3});
  std::vector<Output> out = ops::WhileLoop(
      root, {ops::Const<int32_t>(root, 0), ops::Const(root, 0.0f)},
      [](const Scope& c, const std::vector<Output>& v) {
        return ops::Less(c, v[0], ops::Const<int32_t>(c, 5));
      },
      [&](const Scope& b, const std::vector<Output>& v) -> std::vector<Output> {
        Output g = ops::Gather(b.WithOpName("lookup"), ops::LoopInvariant(b, params), v[0]);
        return {ops::Add(b, v[0], ops::Const<int32_t>(b, 1)), ops::Add(b, v[1], g)};
      });
  ASSERT_OK(root.status());
  auto s = MakeSession(root);
  std::vector<Tensor> got;
  EXPECT_THAT(s->Run({}, {out[1].name()}, {}, &got),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("{{node while/lookup}}")));
  // The session is still usable.
  ASSERT_OK(s->Run({}, {"params"}, {}, &got));
}

TEST_P(WhileLoopTest, AnEndlessLoopIsStoppedByTheRunTimeout) {
  // while True: i += 1. The step's deadline cancels it; the session stays
  // usable. (The loop never ends, so the outcome does not depend on timing.)
  Scope root = Scope::NewRootScope();
  std::vector<Output> out = ops::WhileLoop(
      root, {ops::Const<int32_t>(root, 0)},
      [](const Scope& c, const std::vector<Output>& v) {
        return ops::GreaterEqual(c, v[0], ops::Const<int32_t>(c, 0));
      },
      [](const Scope& b, const std::vector<Output>& v) -> std::vector<Output> {
        // Stays non-negative: i + 1, wrapping back to 0 before overflow.
        Output next = ops::Add(b, v[0], ops::Const<int32_t>(b, 1));
        return {ops::Maximum(b, next, ops::Const<int32_t>(b, 0))};
      });
  ops::Const<int32_t>(root.WithOpName("other"), 5);
  auto s = MakeSession(root);
  RunOptions options;
  options.timeout_in_ms = 50;
  std::vector<Tensor> got;
  EXPECT_THAT(s->Run(options, {}, {out[0].name()}, {}, &got),
              StatusIs(absl::StatusCode::kDeadlineExceeded, HasSubstr("timed out after 50ms")));
  EXPECT_EQ(Fetch<int32_t>(s.get(), "other"), 5);
}

TEST_P(WhileLoopTest, FetchesFeedsAndTargetsMustBeOutsideLoops) {
  Scope root = Scope::NewRootScope();
  CountTo(root, ops::Const<int32_t>(root, 0), 10);
  auto s = MakeSession(root);
  std::vector<Tensor> got;
  EXPECT_THAT(s->Run({}, {"while/Identity"}, {}, &got),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("'while/Identity'"),
                             HasSubstr("inside while loop frame 'while/while_context'"))));
  EXPECT_THAT(s->Run({{"while/Merge", Tensor::Scalar<int32_t>(1)}}, {"while/Exit"}, {}, &got),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("feed 'while/Merge")));
  EXPECT_THAT(s->Run({{"while/Enter", Tensor::Scalar<int32_t>(1)}}, {"while/Exit"}, {}, &got),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("feed 'while/Enter")));
  EXPECT_THAT(s->Run({}, {}, {"while/NextIteration"}, &got),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("target")));
}

TEST_P(WhileLoopTest, MalformedLoopsAreRejectedNamingTheNode) {
  // An Exit outside any loop.
  {
    Scope root = Scope::NewRootScope();
    ops::Exit(root.WithOpName("stray_exit"), ops::Const<int32_t>(root, 1));
    auto s = MakeSession(root);
    std::vector<Tensor> got;
    EXPECT_THAT(s->Run({}, {"stray_exit"}, {}, &got),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         HasSubstr("Exit node 'stray_exit' is not inside a while loop")));
  }
  // A body that uses a tensor from outside without LoopInvariant.
  {
    Scope root = Scope::NewRootScope();
    Output outside = ops::Const<int32_t>(root.WithOpName("outside"), 2);
    std::vector<Output> out = ops::WhileLoop(
        root, {ops::Const<int32_t>(root, 0)},
        [](const Scope& c, const std::vector<Output>& v) {
          return ops::Less(c, v[0], ops::Const<int32_t>(c, 5));
        },
        [&](const Scope& b, const std::vector<Output>& v) -> std::vector<Output> {
          return {ops::Add(b.WithOpName("bad_add"), v[0], outside)};
        });
    auto s = MakeSession(root);
    std::vector<Tensor> got;
    EXPECT_THAT(s->Run({}, {out[0].name()}, {}, &got),
                StatusIs(absl::StatusCode::kInvalidArgument,
                         AllOf(HasSubstr("node 'while/bad_add' has inputs from different frames"),
                               HasSubstr("'outside' is in the root frame"))));
  }
}

TEST_P(WhileLoopTest, BuilderErrors) {
  Scope outside = Scope::NewRootScope();
  ops::LoopInvariant(outside, ops::Const(outside.WithOpName("c"), 1.0f));
  EXPECT_THAT(outside.status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("LoopInvariant('c'): the scope is not inside a WhileLoop")));
  Scope root = Scope::NewRootScope();
  ops::WhileLoop(
      root, {ops::Const<int32_t>(root, 0)},
      [](const Scope&, const std::vector<Output>& v) { return v[0]; },
      [](const Scope&, const std::vector<Output>& v) { return v; });
  EXPECT_THAT(root.status(), StatusIs(absl::StatusCode::kInvalidArgument,
                                      HasSubstr("cond must return a bool, got int32")));
  Scope root2 = Scope::NewRootScope();
  ops::WhileLoop(
      root2, {ops::Const<int32_t>(root2, 0)},
      [](const Scope& c, const std::vector<Output>& v) {
        return ops::Less(c, v[0], ops::Const<int32_t>(c, 5));
      },
      [](const Scope& b, const std::vector<Output>&) -> std::vector<Output> {
        return {ops::Const(b, 1.0f)};
      });
  EXPECT_THAT(root2.status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("input 1 is int32, 'while/NextIteration' is float")));
}

TEST_P(WhileLoopTest, CondRunsOnlyTheBranchTaken) {
  // cond(pred, lambda: (x * 2, taken += 1), lambda: (x - 1,)): the untaken
  // branch's side effect never runs.
  Scope root = Scope::NewRootScope();
  Variable taken = Variable::Create(root, "taken", Tensor::Scalar<int32_t>(0));
  Output pred = ops::Placeholder(root.WithOpName("pred"), DT_BOOL, PartialShape::Scalar());
  Output x = ops::Placeholder(root.WithOpName("x"), DT_INT32, PartialShape::Scalar());
  std::vector<Output> out = ops::Cond(
      root, pred, {x},
      [&](const Scope& b, const std::vector<Output>& in) -> std::vector<Output> {
        Output count = ops::AssignAdd(b, taken.ref(), ops::Const<int32_t>(b, 1));
        return {ops::Mul(b.WithControlDependencies({count.op()}), in[0],
                         ops::Const<int32_t>(b, 2))};
      },
      [](const Scope& b, const std::vector<Output>& in) -> std::vector<Output> {
        return {ops::Sub(b, in[0], ops::Const<int32_t>(b, 1))};
      });
  ASSERT_OK(root.status());
  EXPECT_EQ(out[0].name(), "cond/Merge");
  auto s = MakeSession(root);
  std::vector<Tensor> got;
  ASSERT_OK(s->Run({}, {}, {"taken/Assign"}, &got));
  for (bool p : {true, false, false, true}) {
    ASSERT_OK(s->Run({{"pred", Tensor::Scalar<bool>(p)}, {"x", Tensor::Scalar<int32_t>(21)}},
                     {out[0].name()}, {}, &got));
    EXPECT_EQ(*got[0].data<int32_t>(), p ? 42 : 20);
  }
  EXPECT_EQ(Fetch<int32_t>(s.get(), "taken/read"), 2);
}

TEST_P(WhileLoopTest, CondInsideAWhileLoop) {
  // for i in range(10): acc += i if i < 5 else -i   (0+1+2+3+4 - 5-6-7-8-9 = -25)
  Scope root = Scope::NewRootScope();
  std::vector<Output> out = ops::WhileLoop(
      root, {ops::Const<int32_t>(root, 0), ops::Const<int32_t>(root, 0)},
      [](const Scope& c, const std::vector<Output>& v) {
        return ops::Less(c, v[0], ops::Const<int32_t>(c, 10));
      },
      [](const Scope& b, const std::vector<Output>& v) -> std::vector<Output> {
        Output term = ops::Cond(
            b, ops::Less(b, v[0], ops::Const<int32_t>(b, 5)), {v[0]},
            [](const Scope& t, const std::vector<Output>& in) { return in; },
            [](const Scope& e, const std::vector<Output>& in) -> std::vector<Output> {
              return {ops::Neg(e, in[0])};
            })[0];
        return {ops::Add(b, v[0], ops::Const<int32_t>(b, 1)), ops::Add(b, v[1], term)};
      });
  ASSERT_OK(root.status());
  auto s = MakeSession(root);
  EXPECT_EQ(Fetch<int32_t>(s.get(), out[1].name()), -25);
}

TEST_P(WhileLoopTest, CondBuilderErrors) {
  auto same = [](const Scope&, const std::vector<Output>& in) { return in; };
  Scope root = Scope::NewRootScope();
  ops::Cond(root, ops::Const<int32_t>(root, 1), {}, same, same);
  EXPECT_THAT(root.status(), StatusIs(absl::StatusCode::kInvalidArgument,
                                      HasSubstr("predicate must be a bool, got int32")));
  Scope root2 = Scope::NewRootScope();
  ops::Cond(root2, ops::Const(root2, true), {ops::Const<int32_t>(root2, 1)}, same,
            [](const Scope& b, const std::vector<Output>&) -> std::vector<Output> {
              return {ops::Const(b, 1.0f)};
            });
  EXPECT_THAT(root2.status(), StatusIs(absl::StatusCode::kInvalidArgument,
                                       HasSubstr("result 0 is int32 in one branch and float")));
}

INSTANTIATE_TEST_SUITE_P(InterOpThreads, WhileLoopTest, ::testing::Values(1, 4),
                         [](const ::testing::TestParamInfo<int>& p) {
                           return absl::StrCat("threads", p.param);
                         });

}  // namespace
}  // namespace minigraph
