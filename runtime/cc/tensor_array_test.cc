// TensorFlow 1's TensorArrays and stacks run: each op against plain
// expected values, TensorFlow's errors for misuse, arrays living for one
// step, the graph dynamic_rnn builds (arrays read and written in a while
// loop) against the recurrence computed by hand, stacks pushed in one loop
// and popped in another, and ControlTrigger's liveness.
#include <algorithm>
#include <cmath>
#include <memory>
#include <string>
#include <vector>

#include "core/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/cc/ops.h"
#include "runtime/graph/node_def_util.h"
#include "session/session.h"

namespace minigraph {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

struct Array {
  Output handle;
  Output flow;
};

struct ArrayOptions {
  DataType dtype = DT_FLOAT;
  PartialShape element_shape;
  bool dynamic_size = false;
  bool clear_after_read = true;
};

Array NewArray(const Scope& s, Output size, const ArrayOptions& o = {}) {
  Operation op = s.AddOp("TensorArrayV3", {{size}},
                         {{"dtype", MakeAttrValue(o.dtype)},
                          {"element_shape", MakeAttrValue(o.element_shape)},
                          {"dynamic_size", MakeAttrValue(o.dynamic_size)},
                          {"clear_after_read", MakeAttrValue(o.clear_after_read)}});
  return {op.output(0), op.output(1)};
}
Array NewArray(const Scope& s, int size, const ArrayOptions& o = {}) {
  return NewArray(s, ops::Const<int32_t>(s, size), o);
}

Output Write(const Scope& s, const Array& a, Output index, Output value, Output flow) {
  return s.AddOp("TensorArrayWriteV3", {{a.handle}, {index}, {value}, {flow}}).output(0);
}
Output Write(const Scope& s, const Array& a, int index, Output value, Output flow) {
  return Write(s, a, ops::Const<int32_t>(s, index), value, flow);
}
Output Read(const Scope& s, const Array& a, Output index, Output flow, DataType dt = DT_FLOAT) {
  return s.AddOp("TensorArrayReadV3", {{a.handle}, {index}, {flow}}, {{"dtype", MakeAttrValue(dt)}})
      .output(0);
}
Output Read(const Scope& s, const Array& a, int index, Output flow, DataType dt = DT_FLOAT) {
  return Read(s, a, ops::Const<int32_t>(s, index), flow, dt);
}
Output Gather(const Scope& s, const Array& a, Output indices, Output flow,
              const PartialShape& element_shape = PartialShape()) {
  return s
      .AddOp("TensorArrayGatherV3", {{a.handle}, {indices}, {flow}},
             {{"dtype", MakeAttrValue(DT_FLOAT)}, {"element_shape", MakeAttrValue(element_shape)}})
      .output(0);
}
Output Scatter(const Scope& s, const Array& a, Output indices, Output value, Output flow) {
  return s.AddOp("TensorArrayScatterV3", {{a.handle}, {indices}, {value}, {flow}}).output(0);
}
Output Size(const Scope& s, const Array& a, Output flow) {
  return s.AddOp("TensorArraySizeV3", {{a.handle}, {flow}}).output(0);
}

class TensorArrayTest : public ::testing::TestWithParam<int> {
 protected:
  // `producer`: the graph's GraphDef version (the ops of TensorFlow
  // before 1.0 are refused from 26 on), or Scope's own when negative.
  void Start(const Scope& root, int producer = -1) {
    SessionOptions opts;
    opts.inter_op_threads = GetParam();
    ASSERT_OK_AND_ASSIGN(session_, NewSession(opts));
    ASSERT_OK_AND_ASSIGN(GraphDef def, root.ToGraphDef());
    if (producer >= 0) def.mutable_versions()->set_producer(producer);
    ASSERT_OK(session_->Create(def));
  }
  absl::StatusOr<Tensor> Fetch(const Output& o,
                               const std::vector<std::pair<std::string, Tensor>>& feeds = {}) {
    std::vector<Tensor> out;
    MG_RETURN_IF_ERROR(session_->Run(feeds, {o.name()}, {}, &out));
    return out[0];
  }
  static std::vector<float> Floats(const Tensor& t) {
    return std::vector<float>(t.data<float>(), t.data<float>() + t.NumElements());
  }

  std::unique_ptr<Session> session_;
};

TEST_P(TensorArrayTest, WriteReadSizeAndGather) {
  Scope root = Scope::NewRootScope();
  Array a = NewArray(root, 3, {.element_shape = PartialShape({-1}), .clear_after_read = false});
  Output f = Write(root, a, 0, ops::Const<float>(root, {1, 2}), a.flow);
  f = Write(root, a, 2, ops::Const<float>(root, {5, 6}), f);
  f = Write(root, a, 1, ops::Const<float>(root, {3, 4}), f);
  Output one = Read(root, a, 1, f);
  Output size = Size(root, a, f);
  Output picked = Gather(root, a, ops::Const<int32_t>(root, {2, 0, 2}), f);
  Output stacked =
      Gather(root, a,
             ops::Range(root, ops::Const<int32_t>(root, 0), size, ops::Const<int32_t>(root, 1)), f);
  ASSERT_OK(root.status());
  EXPECT_EQ(picked.shape().DebugString(), "[3,?]");
  Start(root);
  ASSERT_OK_AND_ASSIGN(Tensor t, Fetch(one));
  EXPECT_THAT(Floats(t), ElementsAre(3, 4));
  ASSERT_OK_AND_ASSIGN(t, Fetch(size));
  EXPECT_EQ(*t.data<int32_t>(), 3);
  ASSERT_OK_AND_ASSIGN(t, Fetch(picked));
  EXPECT_EQ(t.shape().DebugString(), "[3,2]");
  EXPECT_THAT(Floats(t), ElementsAre(5, 6, 1, 2, 5, 6));
  ASSERT_OK_AND_ASSIGN(t, Fetch(stacked));
  EXPECT_THAT(Floats(t), ElementsAre(1, 2, 3, 4, 5, 6));
}

TEST_P(TensorArrayTest, ScatterSplitAndConcat) {
  Scope root = Scope::NewRootScope();
  Output rows = ops::Const<float>(root, {1, 2, 3, 4, 5, 6}, TensorShape({3, 2}));
  Array a = NewArray(root, 3);
  Output f = Scatter(root, a, ops::Const<int32_t>(root, {2, 0, 1}), rows, a.flow);
  Output permuted = Gather(root, a, ops::Const<int32_t>(root, {0, 1, 2}), f);

  Array b = NewArray(root, 3);
  Output value = ops::Const<float>(root, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10}, TensorShape({5, 2}));
  Output split = root.AddOp("TensorArraySplitV3",
                            {{b.handle}, {value}, {ops::Const<int64_t>(root, {2, 0, 3})}, {b.flow}})
                     .output(0);
  Operation concat = root.AddOp("TensorArrayConcatV3", {{b.handle}, {split}},
                                {{"dtype", MakeAttrValue(DT_FLOAT)},
                                 {"element_shape_except0", MakeAttrValue(PartialShape({2}))}});
  Array c = NewArray(root, 3);
  Output c_split =
      root.AddOp("TensorArraySplitV3",
                 {{c.handle}, {value}, {ops::Const<int64_t>(root, {2, 0, 3})}, {c.flow}})
          .output(0);
  Output middle = Read(root, c, 1, c_split);
  ASSERT_OK(root.status());
  EXPECT_EQ(concat.output(0).shape().DebugString(), "[?,2]");
  Start(root);
  ASSERT_OK_AND_ASSIGN(Tensor t, Fetch(permuted));
  EXPECT_THAT(Floats(t), ElementsAre(3, 4, 5, 6, 1, 2));
  std::vector<Tensor> out;
  ASSERT_OK(session_->Run({}, {concat.output(0).name(), concat.output(1).name()}, {}, &out));
  EXPECT_EQ(out[0].shape().DebugString(), "[5,2]");
  EXPECT_THAT(Floats(out[0]), ElementsAre(1, 2, 3, 4, 5, 6, 7, 8, 9, 10));
  EXPECT_THAT(std::vector<int64_t>(out[1].data<int64_t>(), out[1].data<int64_t>() + 3),
              ElementsAre(2, 0, 3));
  ASSERT_OK_AND_ASSIGN(t, Fetch(middle));
  EXPECT_EQ(t.shape().DebugString(), "[0,2]");
}

TEST_P(TensorArrayTest, DynamicSizeGrowsAndUnwrittenItemsReadAsZerosOfAKnownShape) {
  Scope root = Scope::NewRootScope();
  Array known = NewArray(root, 0, {.element_shape = PartialShape({2}), .dynamic_size = true});
  Output f = Write(root, known, 4, ops::Const<float>(root, {7, 8}), known.flow);
  Output size = Size(root, known, f);
  Output zeros = Read(root, known, 2, f);
  Array open = NewArray(root, 0, {.dynamic_size = true});
  Output g = Write(root, open, 4, ops::Const<float>(root, {7, 8}), open.flow);
  Output unknown = Read(root.WithOpName("unknown"), open, ops::Const<int32_t>(root, 2), g);
  Array empty = NewArray(root, 0, {.element_shape = PartialShape({2})});
  Output no_rows =
      Gather(root, empty, ops::Const(root, Tensor(DT_INT32, TensorShape({0}))), empty.flow);
  ASSERT_OK(root.status());
  Start(root);
  ASSERT_OK_AND_ASSIGN(Tensor t, Fetch(size));
  EXPECT_EQ(*t.data<int32_t>(), 5);
  ASSERT_OK_AND_ASSIGN(t, Fetch(zeros));
  EXPECT_THAT(Floats(t), ElementsAre(0, 0));
  EXPECT_THAT(Fetch(unknown).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr(": Could not read from TensorArray index 2.  Furthermore, "
                                       "the element shape is not fully defined: ?"),
                             HasSubstr("{{node unknown}}"))));
  ASSERT_OK_AND_ASSIGN(t, Fetch(no_rows));
  EXPECT_EQ(t.shape().DebugString(), "[0,2]");
}

TEST_P(TensorArrayTest, MisuseGetsTensorFlowsErrors) {
  Scope root = Scope::NewRootScope();
  Array a = NewArray(root, 3, {.element_shape = PartialShape({2})});
  Output v = ops::Const<float>(root, {1, 2});
  Output once = Write(root, a, 0, v, a.flow);
  Output twice = Write(root, a, 0, v, once);
  Output beyond = Write(root, a, 3, v, a.flow);
  Output wrong_shape = Write(root, a, 1, ops::Const<float>(root, {1, 2, 3}), a.flow);
  Output read = Read(root, a, 0, once);
  Output read_again =
      Read(root, a, 0, ops::Identity(root.WithControlDependencies({read.op()}), once));
  Output wrong_dtype = Read(root, a, 0, once, DT_INT32);
  Output out_of_range = Read(root, a, 7, once);
  Operation close = root.AddOp("TensorArrayCloseV3", {{a.handle}});
  Output after_close = Size(root.WithControlDependencies({close}), a, once);
  Array b = NewArray(root, 2, {.clear_after_read = false});
  Output mixed =
      Gather(root, b, ops::Const<int32_t>(root, {0, 1}),
             Write(root, b, 1, ops::Const<float>(root, {1, 2, 3}), Write(root, b, 0, v, b.flow)));
  Output negative = NewArray(root, -1).flow;
  Output fed = ops::Placeholder(root.WithOpName("fed"), DT_RESOURCE);
  Output stale = Read(root, Array{fed, a.flow}, 0, a.flow);
  ASSERT_OK(root.status());
  Start(root);

  auto expect = [&](const Output& o, const std::string& text) {
    absl::Status s = Fetch(o).status();
    EXPECT_THAT(s, StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr(text))) << o.name();
  };
  expect(twice, ": Could not write to TensorArray index 0 because it has already been written to.");
  expect(beyond, ": Tried to write to index 3 but array is not resizeable and size is: 3");
  expect(wrong_shape,
         ": Could not write to TensorArray index 1 because the value shape is [3] which is "
         "incompatible with the TensorArray's inferred element shape: [2] (consider setting "
         "infer_shape=False).");
  expect(read_again,
         ": Could not read index 0 twice because it was cleared after a previous read (perhaps "
         "try setting clear_after_read = false?).");
  expect(wrong_dtype, "TensorArray dtype is float but Op requested dtype int32.");
  expect(out_of_range, "Tried to read from index 7 but array size is: 3");
  expect(after_close, " has already been closed.");
  expect(mixed,
         "TensorArray has inconsistent shapes.  Index 0 has shape: [2] but index 1 has shape: [3]");
  expect(negative, "Size should be >= 0.");
  // A handle lives for the step that made it.
  ASSERT_OK_AND_ASSIGN(Tensor handle, Fetch(a.handle));
  EXPECT_THAT(handle.data<ResourceHandle>()->name(), HasSubstr("TensorArrayV3_"));
  EXPECT_THAT(Fetch(stale, {{"fed", handle}}).status(),
              StatusIs(absl::StatusCode::kNotFound,
                       AllOf(HasSubstr("Resource __per_step_"),
                             HasSubstr("/N10tensorflow11TensorArrayE does not exist."))));
}

// tf.nn.dynamic_rnn's graph for a tanh cell: the inputs unstacked into an
// array, one read and one write per step of a TensorFlow 1 while loop, the
// outputs stacked after it.
TEST_P(TensorArrayTest, DynamicRnnInAWhileLoop) {
  constexpr int kT = 5, kB = 2, kD = 3, kH = 4;
  std::vector<float> x(kT * kB * kD), w(kD * kH), u(kH * kH);
  for (size_t i = 0; i < x.size(); ++i) x[i] = std::sin(0.3f * i);
  for (size_t i = 0; i < w.size(); ++i) w[i] = std::cos(0.7f * i) * 0.5f;
  for (size_t i = 0; i < u.size(); ++i) u[i] = std::sin(1.1f * i) * 0.4f;
  auto tensor = [](const std::vector<float>& v, TensorShape shape) {
    Tensor t(DT_FLOAT, shape);
    std::copy(v.begin(), v.end(), t.data<float>());
    return t;
  };

  Scope root = Scope::NewRootScope();
  Output inputs = ops::Const(root, tensor(x, TensorShape({kT, kB, kD})));
  Output wt = ops::Const(root, tensor(w, TensorShape({kD, kH})));
  Output ut = ops::Const(root, tensor(u, TensorShape({kH, kH})));
  Scope rnn = root.NewSubScope("rnn");
  Output steps = ops::Const<int32_t>(rnn, kT);
  Array in_ta = NewArray(rnn, steps, {.element_shape = PartialShape({kB, kD})});
  Array out_ta = NewArray(rnn, steps);
  Output unstacked = Scatter(
      rnn, in_ta, ops::Range(rnn, ops::Const<int32_t>(rnn, 0), steps, ops::Const<int32_t>(rnn, 1)),
      inputs, in_ta.flow);
  Output h0 = ops::Const(rnn, tensor(std::vector<float>(kB * kH, 0.0f), TensorShape({kB, kH})));
  std::vector<Output> done = ops::WhileLoop(
      rnn, {ops::Const<int32_t>(rnn, 0), h0, out_ta.flow},
      [&](const Scope& c, const std::vector<Output>& v) {
        return ops::Less(c, v[0], ops::LoopInvariant(c, steps));
      },
      [&](const Scope& b, const std::vector<Output>& v) -> std::vector<Output> {
        Array in{ops::LoopInvariant(b, in_ta.handle), ops::LoopInvariant(b, unstacked)};
        Output x_t = Read(b, in, v[0], in.flow);
        Output h = ops::Tanh(b, ops::Add(b, ops::MatMul(b, x_t, ops::LoopInvariant(b, wt)),
                                         ops::MatMul(b, v[1], ops::LoopInvariant(b, ut))));
        Output flow = Write(b, Array{ops::LoopInvariant(b, out_ta.handle), v[2]}, v[0], h, v[2]);
        return {ops::Add(b, v[0], ops::Const<int32_t>(b, 1)), h, flow};
      },
      32);
  ASSERT_EQ(done.size(), 3u);
  Output outputs = Gather(
      rnn.WithOpName("outputs"), out_ta,
      ops::Range(rnn, ops::Const<int32_t>(rnn, 0), steps, ops::Const<int32_t>(rnn, 1)), done[2]);
  ASSERT_OK(root.status());
  Start(root);
  ASSERT_OK_AND_ASSIGN(Tensor got, Fetch(outputs));
  ASSERT_EQ(got.shape().DebugString(), "[5,2,4]");
  std::vector<float> h(kB * kH, 0.0f);
  for (int t = 0; t < kT; ++t) {
    std::vector<float> next(kB * kH);
    for (int b = 0; b < kB; ++b) {
      for (int j = 0; j < kH; ++j) {
        double acc = 0;
        for (int d = 0; d < kD; ++d) acc += x[(t * kB + b) * kD + d] * w[d * kH + j];
        for (int k = 0; k < kH; ++k) acc += h[b * kH + k] * u[k * kH + j];
        next[b * kH + j] = static_cast<float>(std::tanh(acc));
      }
    }
    h = next;
    for (int i = 0; i < kB * kH; ++i) {
      EXPECT_NEAR(got.data<float>()[t * kB * kH + i], h[i], 1e-5) << "step " << t << " item " << i;
    }
  }
  // The final state is the last output.
  ASSERT_OK_AND_ASSIGN(Tensor last, Fetch(done[1]));
  EXPECT_THAT(Floats(last), ::testing::Pointwise(::testing::FloatNear(1e-5), h));
}

// Stacks, as a TensorFlow 1 while loop's gradient uses them: one loop
// pushes each iteration's value, a second pops them in reverse order.
TEST_P(TensorArrayTest, StacksPushInOneLoopAndPopInAnother) {
  Scope root = Scope::NewRootScope();
  Output stack = root.AddOp("StackV2", {{ops::Const<int32_t>(root, -1)}},
                            {{"elem_type", MakeAttrValue(DT_INT32)}})
                     .output(0);
  constexpr int kN = 6;
  std::vector<Output> pushed = ops::WhileLoop(
      root.NewSubScope("forward"), {ops::Const<int32_t>(root, 0)},
      [](const Scope& c, const std::vector<Output>& v) {
        return ops::Less(c, v[0], ops::Const<int32_t>(c, kN));
      },
      [&](const Scope& b, const std::vector<Output>& v) -> std::vector<Output> {
        Output push =
            b.AddOp("StackPushV2", {{ops::LoopInvariant(b, stack)}, {ops::Mul(b, v[0], v[0])}})
                .output(0);
        return {ops::Add(b.WithControlDependencies({push.op()}), v[0], ops::Const<int32_t>(b, 1))};
      },
      1);
  // acc = acc * 100 + pop: the pops' order shows in the digits.
  std::vector<Output> popped = ops::WhileLoop(
      root.NewSubScope("backward"), {pushed[0], ops::Const<int64_t>(root, 0)},
      [](const Scope& c, const std::vector<Output>& v) {
        return ops::Greater(c, v[0], ops::Const<int32_t>(c, 0));
      },
      [&](const Scope& b, const std::vector<Output>& v) -> std::vector<Output> {
        Output pop = b.AddOp("StackPopV2", {{ops::LoopInvariant(b, stack)}},
                             {{"elem_type", MakeAttrValue(DT_INT32)}})
                         .output(0);
        return {ops::Sub(b, v[0], ops::Const<int32_t>(b, 1)),
                ops::Add(b, ops::Mul(b, v[1], ops::Const<int64_t>(b, 100)),
                         ops::Cast(b, pop, DT_INT64))};
      },
      1);
  Output empty =
      root.AddOp("StackPopV2", {{stack}}, {{"elem_type", MakeAttrValue(DT_INT32)}}).output(0);
  Output small = root.AddOp("StackV2", {{ops::Const<int32_t>(root, 1)}},
                            {{"elem_type", MakeAttrValue(DT_FLOAT)}})
                     .output(0);
  Output one = root.AddOp("StackPushV2", {{small}, {ops::Const<float>(root, 1)}}).output(0);
  Output two = root.AddOp("StackPushV2", {{small}, {ops::Const<float>(root, 2)}}, {}).output(0);
  Output overflow = ops::Identity(root.WithControlDependencies({one.op()}), two);
  Output wrong_type =
      root.AddOp("StackPushV2", {{small}, {ops::Const<int32_t>(root, 1)}}).output(0);
  ASSERT_OK(root.status());
  Start(root);
  ASSERT_OK_AND_ASSIGN(Tensor t, Fetch(popped[1]));
  // Pushed 0, 1, 4, 9, 16, 25; popped 25 first.
  EXPECT_EQ(*t.data<int64_t>(), 251609040100LL);
  EXPECT_THAT(Fetch(empty).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("] is empty.")));
  EXPECT_THAT(Fetch(wrong_type).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr(": must have type float but got int32")));
  std::vector<Tensor> out;
  absl::Status s = session_->Run({}, {overflow.name()}, {}, &out);
  EXPECT_THAT(
      s, StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("] overflowed its max_size (1)")));
}

// TensorFlow 0.12's arrays (string handles, no flow out of the array and
// its gradient), the first stacks (a reference to a string handle), and a
// gradient array whose items have dimensions prepended.
TEST_P(TensorArrayTest, PreOneZeroOpsFirstStacksAndGradientsWithShape) {
  Scope root = Scope::NewRootScope();
  Output values = ops::Const<float>(root, {1, 2, 3, 4, 5, 6}, TensorShape({3, 2}));
  Output handle = root.AddOp("TensorArrayV2", {{ops::Const<int32_t>(root, 3)}},
                             {{"dtype", MakeAttrValue(DT_FLOAT)},
                              {"clear_after_read", MakeAttrValue(false)}})
                      .output(0);
  Array a{handle, ops::Const<float>(root, 0.0f)};
  Output f = root.AddOp("TensorArrayScatterV2",
                        {{handle}, {ops::Const<int32_t>(root, {0, 1, 2})}, {values}, {a.flow}})
                 .output(0);
  Output second = root.AddOp("TensorArrayReadV2", {{handle}, {ops::Const<int32_t>(root, 1)}, {f}},
                             {{"dtype", MakeAttrValue(DT_FLOAT)}})
                      .output(0);
  Output size = root.AddOp("TensorArraySizeV2", {{handle}, {f}}).output(0);
  Output grad = root.AddOp("TensorArrayGradV2", {{handle}, {f}},
                           {{"source", MakeAttrValue(std::string("g"))}})
                    .output(0);
  Output unwritten = root.AddOp("TensorArrayReadV2", {{grad}, {ops::Const<int32_t>(root, 2)}, {f}},
                                {{"dtype", MakeAttrValue(DT_FLOAT)}})
                         .output(0);

  Output stack = root.AddOp("Stack", {}, {{"elem_type", MakeAttrValue(DT_FLOAT)}}).output(0);
  Output pushed = root.AddOp("StackPush", {{stack}, {second}}).output(0);
  Output popped = root.WithControlDependencies({pushed.op()})
                      .AddOp("StackPop", {{stack}}, {{"elem_type", MakeAttrValue(DT_FLOAT)}})
                      .output(0);

  Array v3 = NewArray(root, 2, {.element_shape = PartialShape({2})});
  Output f3 = Write(root, v3, 0, ops::Const<float>(root, {1, 2}), v3.flow);
  Operation with_shape = root.AddOp(
      "TensorArrayGradWithShape", {{v3.handle}, {f3}, {ops::Const<int32_t>(root, {4})}},
      {{"source", MakeAttrValue(std::string("s"))}});
  Output zeros = Read(root, {with_shape.output(0), with_shape.output(1)}, 0, with_shape.output(1));
  // A string handle that is not (container, name).
  Output bad_handle = root.AddOp("TensorArraySizeV2",
                                 {{ops::Const(root, Tensor::Vector<std::string>({"only"}))}, {f}})
                          .output(0);
  ASSERT_OK(root.status());
  Start(root, 25);
  EXPECT_THAT(Fetch(bad_handle).status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("a handle must be a scalar resource or a string vector "
                                 "(container, name), got string [1]")));
  ASSERT_OK_AND_ASSIGN(Tensor t, Fetch(second));
  EXPECT_THAT(Floats(t), ElementsAre(3, 4));
  ASSERT_OK_AND_ASSIGN(t, Fetch(size));
  EXPECT_EQ(*t.data<int32_t>(), 3);
  ASSERT_OK_AND_ASSIGN(t, Fetch(unwritten));
  EXPECT_THAT(Floats(t), ElementsAre(0, 0));
  ASSERT_OK_AND_ASSIGN(t, Fetch(popped));
  EXPECT_THAT(Floats(t), ElementsAre(3, 4));
  ASSERT_OK_AND_ASSIGN(t, Fetch(zeros));
  EXPECT_EQ(t.shape().DebugString(), "[4,2]");
  EXPECT_THAT(Floats(t), ElementsAre(0, 0, 0, 0, 0, 0, 0, 0));

  // From GraphDef version 26 on, TensorFlow's message.
  SessionOptions opts;
  ASSERT_OK_AND_ASSIGN(std::unique_ptr<Session> now, NewSession(opts));
  ASSERT_OK_AND_ASSIGN(GraphDef def, root.ToGraphDef());
  def.mutable_versions()->set_producer(26);
  EXPECT_THAT(now->Create(def),
              StatusIs(absl::StatusCode::kUnimplemented,
                       HasSubstr("It has been removed in version 26. Use TensorArrayV3")));
}

// ControlTrigger runs, and makes what waits on it run, even when what it
// waits on is dead (the untaken side of a Switch); a NoOp would pass the
// deadness on.
TEST_P(TensorArrayTest, ControlTriggerIsNeverDead) {
  Scope root = Scope::NewRootScope();
  Operation sw = root.AddOp("Switch", {{ops::Const<float>(root, 1)}, {ops::Const(root, false)}});
  Output dead = ops::Identity(root, sw.output(1));
  Operation trigger = root.WithControlDependencies({dead.op()}).AddOp("ControlTrigger", {});
  Operation noop = root.WithControlDependencies({dead.op()}).AddOp("NoOp", {});
  Output after_trigger = ops::Const<float>(root.WithControlDependencies({trigger}), 7);
  Output after_noop = ops::Const<float>(root.WithControlDependencies({noop}), 7);
  ASSERT_OK(root.status());
  Start(root);
  ASSERT_OK_AND_ASSIGN(Tensor t, Fetch(after_trigger));
  EXPECT_EQ(*t.data<float>(), 7);
  EXPECT_FALSE(Fetch(after_noop).ok());
}

INSTANTIATE_TEST_SUITE_P(Threads, TensorArrayTest, ::testing::Values(1, 4));

}  // namespace
}  // namespace minigraph
