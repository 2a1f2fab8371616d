// Every gradient function against central finite differences on random
// float64 inputs (relative error <= 1e-6), broadcasting included.
#include "runtime/cc/gradients.h"

#include <cmath>
#include <functional>
#include <random>
#include <set>
#include <tuple>

#include "absl/strings/match.h"
#include "core/status_matchers.h"
#include "core/tensor_types.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/cc/ops.h"
#include "runtime/cc/variables.h"
#include "runtime/graph/node_def_util.h"
#include "session/session.h"
#include "tests/testing/tensors.h"

namespace minigraph {
namespace {

using ::testing::HasSubstr;
using Build = std::function<Output(const Scope&, const std::vector<Output>&)>;

// Checks d(sum(y * w))/d(inputs) for y = build(inputs) and random w.
void CheckGradients(const Build& build, std::vector<Tensor> inputs, double lo = -2, double hi = 2,
                    std::vector<bool> differentiable = {}) {
  std::mt19937 rng(17);
  Scope root = Scope::NewRootScope();
  std::vector<Output> xs;
  std::vector<std::string> names;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const std::string name = absl::StrCat("x", i);
    xs.push_back(ops::Placeholder(root.WithOpName(name), inputs[i].dtype(),
                                  PartialShape::FromShape(inputs[i].shape())));
    names.push_back(name);
  }
  Output y = build(root, xs);
  Output w = ops::Placeholder(root.WithOpName("w"), DT_DOUBLE);
  Output loss = ops::Sum(root.WithOpName("loss"),
                         ops::Reshape(root, ops::Mul(root, y, w), ops::Const<int32_t>(root, {-1})),
                         ops::Const<int32_t>(root, 0));
  std::vector<Output> diff_xs;
  for (size_t i = 0; i < xs.size(); ++i) {
    if (differentiable.empty() || differentiable[i]) diff_xs.push_back(xs[i]);
  }
  std::vector<Output> grads;
  ASSERT_OK(AddSymbolicGradients(root, {loss}, diff_xs, &grads));
  ASSERT_OK_AND_ASSIGN(GraphDef def, root.ToGraphDef());
  ASSERT_OK_AND_ASSIGN(auto sess, NewSession(SessionOptions()));
  ASSERT_OK(sess->Create(def));
  auto feeds = [&](const std::vector<Tensor>& in, const Tensor& wt) {
    std::vector<std::pair<std::string, Tensor>> f;
    for (size_t i = 0; i < in.size(); ++i) f.push_back({names[i], in[i]});
    f.push_back({"w", wt});
    return f;
  };
  std::vector<Tensor> out;
  // y's shape (for w) from a first run with w = 1 broadcast.
  ASSERT_OK(sess->Run(feeds(inputs, Tensor::Scalar<double>(1)), {y.name()}, {}, &out));
  Tensor weights = RandomUniform<double>(out[0].shape(), &rng, 0.5, 1.5);
  std::vector<std::string> grad_names;
  for (const Output& g : grads) grad_names.push_back(g.name());
  ASSERT_OK(sess->Run(feeds(inputs, weights), grad_names, {}, &out));
  const std::vector<Tensor> analytic = out;
  auto loss_at = [&](const std::vector<Tensor>& in) {
    std::vector<Tensor> o;
    EXPECT_OK(sess->Run(feeds(in, weights), {"loss"}, {}, &o));
    return *o[0].data<double>();
  };
  size_t gi = 0;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!differentiable.empty() && !differentiable[i]) continue;
    const Tensor& g = analytic[gi++];
    ASSERT_EQ(g.shape(), inputs[i].shape()) << "gradient " << i;
    for (int64_t j = 0; j < inputs[i].NumElements(); ++j) {
      std::vector<Tensor> plus = inputs, minus = inputs;
      plus[i] = tensor::DeepCopy(inputs[i]);
      minus[i] = tensor::DeepCopy(inputs[i]);
      const double h = 1e-6 * std::max(1.0, std::abs(inputs[i].data<double>()[j]));
      plus[i].data<double>()[j] += h;
      minus[i].data<double>()[j] -= h;
      const double numeric = (loss_at(plus) - loss_at(minus)) / (2 * h);
      const double got = g.data<double>()[j];
      ASSERT_LE(std::abs(got - numeric), 1e-6 * std::max(1.0, std::abs(numeric)))
          << "input " << i << " element " << j << ": analytic " << got << ", numeric " << numeric;
    }
  }
}

std::mt19937& Rng() {
  static std::mt19937 rng(5);
  return rng;
}
Tensor R(std::initializer_list<int64_t> dims, double lo = -2, double hi = 2) {
  return RandomUniform<double>(TensorShape(dims), &Rng(), lo, hi);
}

using Binary = Output (*)(const Scope&, Output, Output);

TEST(GradientsTest, BinaryOpsWithBroadcasting) {
  const std::vector<std::pair<TensorShape, TensorShape>> shapes = {
      {TensorShape({2, 3}), TensorShape({2, 3})},
      {TensorShape({2, 3}), TensorShape({3})},
      {TensorShape({4, 1}), TensorShape({1, 3})},
      {TensorShape(), TensorShape({2, 2})}};
  const std::vector<std::pair<const char*, Binary>> ops_list = {
      {"Add", &ops::Add},         {"AddV2", &ops::AddV2},
      {"Sub", &ops::Sub},         {"Mul", &ops::Mul},
      {"RealDiv", &ops::RealDiv}, {"Maximum", &ops::Maximum},
      {"Minimum", &ops::Minimum}, {"SquaredDifference", &ops::SquaredDifference},
      {"Div", &ops::Div},         {"DivNoNan", &ops::DivNoNan}};
  for (const auto& [name, fn] : ops_list) {
    for (const auto& [a, b] : shapes) {
      SCOPED_TRACE(absl::StrCat(name, " ", a.DebugString(), " ", b.DebugString()));
      const bool div = absl::StrContains(name, "Div");
      CheckGradients(
          // An init-capture: C++17 cannot capture a structured binding.
          [fn = fn](const Scope& s, const std::vector<Output>& x) { return fn(s, x[0], x[1]); },
          {RandomUniform<double>(a, &Rng(), div ? 0.5 : -2, 2),
           RandomUniform<double>(b, &Rng(), div ? 0.5 : -2, 2)});
    }
  }
}

TEST(GradientsTest, UnaryOps) {
  struct Case {
    Output (*fn)(const Scope&, Output);
    double lo, hi;
  };
  for (const Case& c :
       {Case{&ops::Neg, -2, 2}, Case{&ops::Square, -2, 2}, Case{&ops::Sqrt, 0.5, 3},
        Case{&ops::Exp, -2, 2}, Case{&ops::Log, 0.5, 3}, Case{&ops::Reciprocal, 0.5, 3},
        Case{&ops::Sigmoid, -3, 3}, Case{&ops::Tanh, -2, 2}, Case{&ops::Relu, 0.1, 2},
        Case{&ops::Identity, -2, 2}, Case{&ops::Softmax, -2, 2}, Case{&ops::LogSoftmax, -2, 2},
        Case{&ops::Rsqrt, 0.5, 3}, Case{&ops::Log1p, -0.5, 3}, Case{&ops::Softplus, -3, 3},
        Case{&ops::Elu, -2, -0.1}, Case{&ops::Elu, 0.1, 2}, Case{&ops::Relu6, 0.1, 5.9},
        Case{&ops::Relu6, 6.1, 8}}) {
    CheckGradients([&](const Scope& s, const std::vector<Output>& x) { return c.fn(s, x[0]); },
                   {R({3, 4}, c.lo, c.hi)});
  }
  // Relu's negative side has zero gradient.
  CheckGradients([](const Scope& s, const std::vector<Output>& x) { return ops::Relu(s, x[0]); },
                 {R({5}, -3, -0.1)});
}

TEST(GradientsTest, LeakyReluAndFloorMod) {
  for (double lo : {-2.0, 0.1}) {
    CheckGradients(
        [](const Scope& s, const std::vector<Output>& x) { return ops::LeakyRelu(s, x[0], 0.3f); },
        {R({3, 4}, lo, lo + 1.9)});
  }
  // x in (0.1, 0.9) and y in (1, 2): no discontinuity of floor(x / y) near.
  CheckGradients(
      [](const Scope& s, const std::vector<Output>& x) { return ops::FloorMod(s, x[0], x[1]); },
      {R({2, 3}, 0.1, 0.9), R({3}, 1, 2)});
}

TEST(GradientsTest, MatMulAllTransposesAndBiasAdd) {
  for (bool ta : {false, true}) {
    for (bool tb : {false, true}) {
      CheckGradients(
          [&](const Scope& s, const std::vector<Output>& x) {
            return ops::MatMul(s, x[0], x[1], ta, tb);
          },
          {ta ? R({4, 3}) : R({3, 4}), tb ? R({2, 4}) : R({4, 2})});
    }
  }
  CheckGradients(
      [](const Scope& s, const std::vector<Output>& x) { return ops::BiasAdd(s, x[0], x[1]); },
      {R({3, 4}), R({4})});
}

// Conv2D (both inputs, every padding, strides, dilations), MaxPool and
// AvgPool against finite differences; and the backprop ops' own gradients
// (a transposed convolution trains through them).
TEST(GradientsTest, ConvolutionsAndPools) {
  const std::vector<std::tuple<std::string, std::vector<int64_t>, ops::Conv2DOptions>> cases = {
      {"VALID", {1, 1, 1, 1}, {}},
      {"SAME", {1, 2, 2, 1}, {}},
      {"SAME", {1, 1, 1, 1}, {.dilations = {1, 2, 1, 1}}},
      {"EXPLICIT", {1, 1, 2, 1}, {.explicit_paddings = {0, 0, 1, 0, 2, 1, 0, 0}}}};
  for (const auto& [padding, strides, options] : cases) {
    SCOPED_TRACE(padding);
    CheckGradients(
        [strides = strides, padding = padding, options = options](const Scope& s,
                                                                  const std::vector<Output>& x) {
          return ops::Conv2D(s, x[0], x[1], strides, padding, options);
        },
        {R({2, 5, 4, 3}), R({2, 3, 3, 2})});
  }
  for (const char* padding : {"VALID", "SAME"}) {
    // Distinct values, so no window holds two maxima within the finite
    // difference's step.
    Tensor x(DT_DOUBLE, TensorShape({2, 5, 4, 2}));
    for (int64_t i = 0; i < x.NumElements(); ++i) x.data<double>()[i] = (i * 37 % 80) * 0.05;
    CheckGradients(
        [&](const Scope& s, const std::vector<Output>& in) {
          return ops::MaxPool(s, in[0], {1, 2, 3, 1}, {1, 2, 1, 1}, padding);
        },
        {x});
    CheckGradients(
        [&](const Scope& s, const std::vector<Output>& in) {
          return ops::AvgPool(s, in[0], {1, 2, 3, 1}, {1, 2, 1, 1}, padding);
        },
        {R({2, 5, 4, 2})});
  }
  CheckGradients(
      [](const Scope& s, const std::vector<Output>& x) {
        return ops::Conv2DBackpropInput(s, ops::Const<int32_t>(s, {2, 5, 4, 3}), x[0], x[1],
                                        {1, 2, 2, 1}, "SAME");
      },
      {R({2, 3, 3, 2}), R({2, 3, 2, 2})});
  CheckGradients(
      [](const Scope& s, const std::vector<Output>& x) {
        return ops::Conv2DBackpropFilter(s, x[0], ops::Const<int32_t>(s, {2, 3, 3, 2}), x[1],
                                         {1, 2, 2, 1}, "SAME");
      },
      {R({2, 5, 4, 3}), R({2, 3, 2, 2})});
}

// The slicing ops' gradients against finite differences; outputs a graph
// does not use (Split's, Unstack's) get zeros.
TEST(GradientsTest, SlicingOps) {
  using Fn = std::function<Output(const Scope&, Output)>;
  const std::vector<std::pair<std::string, Fn>> cases = {
      {"ExpandDims",
       [](const Scope& s, Output x) { return ops::ExpandDims(s, x, ops::Const<int32_t>(s, 1)); }},
      {"Squeeze",
       [](const Scope& s, Output x) {
         return ops::Squeeze(s, ops::Reshape(s, x, ops::Const<int32_t>(s, {1, 3, 1, 4})));
       }},
      {"Transpose",
       [](const Scope& s, Output x) {
         return ops::Transpose(s, x, ops::Const<int32_t>(s, {1, 0}));
       }},
      {"Slice",
       [](const Scope& s, Output x) {
         return ops::Slice(s, x, ops::Const<int64_t>(s, {1, 1}), ops::Const<int64_t>(s, {-1, 2}));
       }},
      {"StridedSlice",
       [](const Scope& s, Output x) {  // x[::-2, 1:, tf.newaxis]
         return ops::StridedSlice(s, x, ops::Const<int32_t>(s, {0, 1, 0}),
                                  ops::Const<int32_t>(s, {0, 0, 0}),
                                  ops::Const<int32_t>(s, {-2, 1, 1}),
                                  {.begin_mask = 1, .end_mask = 3, .new_axis_mask = 4});
       }},
      {"StridedSlice shrink",
       [](const Scope& s, Output x) {  // x[-1, ...]
         return ops::StridedSlice(s, x, ops::Const<int32_t>(s, {-1, 0}),
                                  ops::Const<int32_t>(s, {0, 0}), ops::Const<int32_t>(s, {1, 1}),
                                  {.ellipsis_mask = 2, .shrink_axis_mask = 1});
       }},
      {"Tile",
       [](const Scope& s, Output x) {
         return ops::Tile(s, x, ops::Const<int32_t>(s, {2, 3}));
       }},
      {"Pad",
       [](const Scope& s, Output x) {
         return ops::Pad(s, x, ops::Const<int32_t>(s, {1, 0, 2, 1}, TensorShape({2, 2})));
       }},
      {"PadV2",
       [](const Scope& s, Output x) {
         return ops::PadV2(s, x, ops::Const<int64_t>(s, {0, 2, 1, 1}, TensorShape({2, 2})),
                           ops::Const<double>(s, 7.0));
       }},
      {"ReverseV2",
       [](const Scope& s, Output x) {
         return ops::ReverseV2(s, x, ops::Const<int32_t>(s, {0, 1}));
       }},
      {"Split",
       [](const Scope& s, Output x) { return ops::Split(s, ops::Const<int32_t>(s, 1), x, 2)[1]; }},
      {"SplitV",
       [](const Scope& s, Output x) {
         auto parts =
             ops::SplitV(s, x, ops::Const<int32_t>(s, {1, -1}), ops::Const<int32_t>(s, 0), 2);
         return ops::Mul(s, parts[1], parts[1]);
       }},
      {"Unstack",
       [](const Scope& s, Output x) {
         auto rows = ops::Unstack(s, x, 4, 1);
         return ops::Mul(s, rows[0], rows[3]);
       }},
  };
  for (const auto& [name, fn] : cases) {
    SCOPED_TRACE(name);
    CheckGradients([fn = fn](const Scope& s, const std::vector<Output>& x) { return fn(s, x[0]); },
                   {R({3, 4})});
  }
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_DOUBLE);
  Output y = ops::PreventGradient(root.WithOpName("guard"), x, "not differentiable here");
  std::vector<Output> grads;
  EXPECT_THAT(AddSymbolicGradients(root, {ops::Square(root, y)}, {x}, &grads),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Gradient explicitly disabled for 'guard'. Reason: not "
                                 "differentiable here")));
}

TEST(GradientsTest, Reductions) {
  for (bool keep : {false, true}) {
    for (std::vector<int32_t> axes : {std::vector<int32_t>{0}, {1}, {0, 2}, {-1}}) {
      for (auto fn : {&ops::Sum, &ops::Mean, &ops::Max}) {
        CheckGradients(
            [&](const Scope& s, const std::vector<Output>& x) {
              Tensor a(DT_INT32, TensorShape({static_cast<int64_t>(axes.size())}));
              for (size_t i = 0; i < axes.size(); ++i) a.data<int32_t>()[i] = axes[i];
              return fn(s, x[0], ops::Const(s, a), keep);
            },
            {R({2, 3, 4})});
      }
    }
  }
}

TEST(GradientsTest, CrossEntropies) {
  // Labels are distributions (rows sum to 1), as the op requires.
  Tensor labels = R({3, 5}, 0.1, 1);
  for (int i = 0; i < 3; ++i) {
    double sum = 0;
    for (int j = 0; j < 5; ++j) sum += labels.matrix<double>()(i, j);
    for (int j = 0; j < 5; ++j) labels.matrix<double>()(i, j) /= sum;
  }
  CheckGradients(
      [](const Scope& s, const std::vector<Output>& x) {
        return ops::SoftmaxCrossEntropyWithLogits(s, x[0], x[1]).loss;
      },
      {R({3, 5}), labels});
  Tensor sparse = Tensor::Vector<int64_t>({4, 0, 2});
  CheckGradients(
      [&](const Scope& s, const std::vector<Output>& x) {
        return ops::SparseSoftmaxCrossEntropyWithLogits(s, x[0], ops::Const(s, sparse)).loss;
      },
      {R({3, 5})});
}

TEST(GradientsTest, ArrayOps) {
  CheckGradients(
      [](const Scope& s, const std::vector<Output>& x) {
        return ops::Reshape(s, x[0], ops::Const<int32_t>(s, {3, -1}));
      },
      {R({2, 6})});
  CheckGradients(
      [](const Scope& s, const std::vector<Output>& x) {
        return ops::Cast(s, ops::Square(s, x[0]), DT_DOUBLE);
      },
      {R({4})});
  CheckGradients(
      [](const Scope& s, const std::vector<Output>& x) {
        return ops::Pack(s, {x[0], x[1]}, 1);
      },
      {R({2, 3}), R({2, 3})});
  CheckGradients(
      [](const Scope& s, const std::vector<Output>& x) {
        return ops::ConcatV2(s, {x[0], x[1]}, ops::Const<int32_t>(s, 1));
      },
      {R({2, 3}), R({2, 2})});
  CheckGradients(
      [](const Scope& s, const std::vector<Output>& x) {
        return ops::Gather(s, x[0], ops::Const<int32_t>(s, {2, 0, 2}));
      },
      {R({4, 3})});
  // Each row gets its segment's gradient; a row with a negative id (dropped
  // by the sum) gets zeros. 1-D and 2-D segment ids.
  CheckGradients(
      [](const Scope& s, const std::vector<Output>& x) {
        return ops::UnsortedSegmentSum(s, x[0], ops::Const<int32_t>(s, {2, -1, 0, 2}),
                                       ops::Const<int32_t>(s, 3));
      },
      {R({4, 3})});
  CheckGradients(
      [](const Scope& s, const std::vector<Output>& x) {
        Tensor ids(DT_INT64, TensorShape({2, 2}));
        const int64_t v[] = {0, 1, 1, -1};
        std::copy(v, v + 4, ids.data<int64_t>());
        return ops::UnsortedSegmentSum(s, x[0], ops::Const(s, ids), ops::Const<int32_t>(s, 2));
      },
      {R({2, 2, 3})});
  // Row 2 is picked twice, row 1 never.
  CheckGradients(
      [](const Scope& s, const std::vector<Output>& x) {
        return ops::SparseSegmentSum(s, x[0], ops::Const<int32_t>(s, {2, 0, 2, 3}),
                                     ops::Const<int64_t>(s, {0, 0, 1, 3}));
      },
      {R({4, 3})});
  // SelectV2 broadcasts: a [3,1] condition, a [1,4] then, a [3,4] else.
  CheckGradients(
      [](const Scope& s, const std::vector<Output>& x) {
        Tensor c(DT_BOOL, TensorShape({3, 1}));
        c.data<bool>()[0] = true;
        c.data<bool>()[1] = false;
        c.data<bool>()[2] = true;
        return ops::SelectV2(s, ops::Const(s, c), x[0], x[1]);
      },
      {R({1, 4}), R({3, 4})});
  CheckGradients(
      [](const Scope& s, const std::vector<Output>& x) {
        Output cond = ops::Const(s, Tensor::Vector<bool>({true, false, true}));
        return ops::Select(s, cond, x[0], x[1]);
      },
      {R({3}), R({3})});
  CheckGradients(
      [](const Scope& s, const std::vector<Output>& x) {
        return ops::AddN(s, {x[0], x[1], x[0]});
      },
      {R({2, 2}), R({2, 2})});
  CheckGradients(
      [](const Scope& s, const std::vector<Output>& x) {
        return ops::Fill(s, ops::Const<int32_t>(s, {2, 3}), x[0]);
      },
      {R({})});
}

TEST(GradientsTest, StopGradientUnrelatedInputsAndMissingGradients) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_DOUBLE, PartialShape({2}));
  Output z = ops::Placeholder(root.WithOpName("z"), DT_DOUBLE, PartialShape({2}));
  Output y = ops::Add(root, ops::Square(root, x), ops::StopGradient(root, ops::Exp(root, x)));
  Output loss = ops::Sum(root, y, ops::Const<int32_t>(root, 0));
  std::vector<Output> grads;
  ASSERT_OK(AddSymbolicGradients(root, {loss}, {x, z}, &grads));
  ASSERT_OK_AND_ASSIGN(auto sess, NewSession(SessionOptions()));
  ASSERT_OK(sess->Create(*root.ToGraphDef()));
  std::vector<Tensor> out;
  ASSERT_OK(
      sess->Run({{"x", Tensor::Vector<double>({1, 2})}, {"z", Tensor::Vector<double>({0, 0})}},
                {grads[0].name(), grads[1].name()}, {}, &out));
  EXPECT_EQ(out[0].SummarizeValue(4), "2 4");  // d(x^2)/dx only
  EXPECT_EQ(out[1].SummarizeValue(4), "0 0");  // y does not depend on z

  // An op without a gradient function on the path is named.
  Scope r2 = Scope::NewRootScope();
  // (TensorFlow's "gradient" of SparseSparseMaximum raises NotImplementedError.)
  Output a = ops::Placeholder(r2.WithOpName("a"), DT_FLOAT, PartialShape({2}));
  Output idx = ops::Const<int64_t>(r2, {0, 1}, TensorShape({2, 1}));
  Output shape = ops::Const<int64_t>(r2, {3});
  Output l2 = r2.AddOp("SparseSparseMaximum", {{idx}, {a}, {shape}, {idx}, {a}, {shape}})
                  .output(1);
  EXPECT_THAT(AddSymbolicGradients(r2, {l2}, {a}, &grads),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("op type SparseSparseMaximum")));
}

// ResourceGather's gradient is the variable's, dense: each row the sum of
// the gradients of the gathers that read it.
TEST(GradientsTest, ResourceGatherGivesTheVariableADenseGradient) {
  Scope root = Scope::NewRootScope();
  Tensor init(DT_FLOAT, TensorShape({3, 2}));
  for (int i = 0; i < 6; ++i) init.data<float>()[i] = static_cast<float>(i + 1);
  Variable v = Variable::Create(root, "v", init, {.use_resource = true});
  Output indices = ops::Const<int32_t>(root, {2, 0, 2, 2}, TensorShape({2, 2}));
  Output gathered =
      root.AddOp("ResourceGather", {{v.ref()}, {indices}}, {{"dtype", MakeAttrValue(DT_FLOAT)}})
          .output(0);
  Output weights = ops::Const<float>(root, {1, 10});
  Output loss = ops::Sum(root, ops::Mul(root, gathered, weights),
                         ops::Const<int32_t>(root, {0, 1, 2}));
  std::vector<Output> grads;
  ASSERT_OK(AddSymbolicGradients(root, {loss}, {v.ref()}, &grads));
  ASSERT_OK_AND_ASSIGN(auto sess, NewSession(SessionOptions()));
  ASSERT_OK(sess->Create(*root.ToGraphDef()));
  ASSERT_OK(sess->Run({}, {}, {v.initializer().name()}, nullptr));
  std::vector<Tensor> out;
  ASSERT_OK(sess->Run({}, {grads[0].name()}, {}, &out));
  EXPECT_EQ(out[0].SummarizeValue(6), "1 10 0 0 3 30");
}

TEST(GradientsTest, CondBackpropagatesThroughTheBranchTaken) {
  // y = cond(p, lambda: w * x^2, lambda: 3x + w), summed.
  // dy/dx = 2wx or 3; dy/dw = x^2 or 1, per element.
  Scope root = Scope::NewRootScope();
  Output p = ops::Placeholder(root.WithOpName("p"), DT_BOOL, PartialShape::Scalar());
  Output x = ops::Placeholder(root.WithOpName("x"), DT_DOUBLE, PartialShape({2}));
  Output w = ops::Placeholder(root.WithOpName("w"), DT_DOUBLE, PartialShape::Scalar());
  Output y = ops::Cond(
      root, p, {x, w},
      [](const Scope& b, const std::vector<Output>& in) -> std::vector<Output> {
        return {ops::Mul(b, in[1], ops::Square(b, in[0]))};
      },
      [](const Scope& b, const std::vector<Output>& in) -> std::vector<Output> {
        return {ops::Add(b, ops::Mul(b, ops::Const(b, 3.0), in[0]), in[1])};
      })[0];
  Output loss = ops::Sum(root, y, ops::Const<int32_t>(root, 0));
  std::vector<Output> grads;
  ASSERT_OK(AddSymbolicGradients(root, {loss}, {x, w}, &grads));
  ASSERT_OK_AND_ASSIGN(auto sess, NewSession(SessionOptions()));
  ASSERT_OK(sess->Create(*root.ToGraphDef()));
  for (bool taken : {true, false, true}) {
    std::vector<Tensor> out;
    ASSERT_OK(sess->Run({{"p", Tensor::Scalar<bool>(taken)},
                         {"x", Tensor::Vector<double>({1, -2})},
                         {"w", Tensor::Scalar<double>(0.5)}},
                        {loss.name(), grads[0].name(), grads[1].name()}, {}, &out));
    if (taken) {
      EXPECT_EQ(*out[0].data<double>(), 0.5 * (1 + 4));
      EXPECT_EQ(out[1].SummarizeValue(4), "1 -2");  // 2wx
      EXPECT_EQ(*out[2].data<double>(), 5.0);       // sum of x^2
    } else {
      EXPECT_EQ(*out[0].data<double>(), 3 * (1 - 2) + 2 * 0.5);
      EXPECT_EQ(out[1].SummarizeValue(4), "3 3");
      EXPECT_EQ(*out[2].data<double>(), 2.0);  // w is added to both elements
    }
  }

  // A tensor used in both branches without coming in through the cond's
  // inputs: its gradient sums a live and a dead part, so it is dead
  // whichever branch runs: an error on fetch, never a wrong value.
  Output direct = ops::Cond(
      root, p, {},
      [&](const Scope& b, const std::vector<Output>&) -> std::vector<Output> {
        return {ops::Mul(b, w, ops::Const(b, 2.0))};
      },
      [&](const Scope& b, const std::vector<Output>&) -> std::vector<Output> {
        return {ops::Mul(b, w, ops::Const(b, 5.0))};
      })[0];
  std::vector<Output> direct_grads;
  ASSERT_OK(AddSymbolicGradients(root, {direct}, {w}, &direct_grads));
  ASSERT_OK_AND_ASSIGN(auto sess2, NewSession(SessionOptions()));
  ASSERT_OK(sess2->Create(*root.ToGraphDef()));
  std::vector<Tensor> out;
  EXPECT_THAT(sess2->Run({{"p", Tensor::Scalar<bool>(true)}, {"w", Tensor::Scalar<double>(1)}},
                         {direct_grads[0].name()}, {}, &out),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("untaken side")));
}

// MatrixSquareRoot's gradient (a Sylvester equation solved as one linear
// system) against differences, on a symmetric positive definite matrix;
// and for a batch of empty matrices, where TensorFlow's process dies of a
// division by zero, an empty gradient.
TEST(GradientsTest, MatrixSquareRoot) {
  Tensor a(DT_DOUBLE, TensorShape({3, 3}));
  const double values[] = {4, 1, 0.5, 1, 3, 0.2, 0.5, 0.2, 2};
  std::copy(std::begin(values), std::end(values), a.data<double>());
  auto sqrtm = [](const Scope& s, const std::vector<Output>& x) {
    return s.AddOp("MatrixSquareRoot", {{x[0]}}).output(0);
  };
  CheckGradients(sqrtm, {a});
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_DOUBLE);
  Output y = sqrtm(root, {x});
  std::vector<Output> grads;
  ASSERT_OK(AddSymbolicGradients(root, {y}, {x}, &grads));
  ASSERT_OK_AND_ASSIGN(GraphDef def, root.ToGraphDef());
  ASSERT_OK_AND_ASSIGN(auto sess, NewSession(SessionOptions()));
  ASSERT_OK(sess->Create(def));
  std::vector<Tensor> out;
  ASSERT_OK(sess->Run({{"x", Tensor(DT_DOUBLE, TensorShape({2, 0, 0}))}}, {grads[0].name()}, {},
                      &out));
  EXPECT_EQ(out[0].shape(), TensorShape({2, 0, 0}));
}

TEST(GradientsTest, BroadcastToCumsumDynamicStitchAndDynamicPartition) {
  CheckGradients(
      [](const Scope& s, const std::vector<Output>& x) {
        return ops::Square(
            s, s.AddOp("BroadcastTo", {{x[0]}, {ops::Const<int32_t>(s, {2, 3, 4})}}).output(0));
      },
      {R({3, 1})});
  for (bool exclusive : {false, true}) {
    for (bool reverse : {false, true}) {
      CheckGradients(
          [&](const Scope& s, const std::vector<Output>& x) {
            return ops::Square(s, s.AddOp("Cumsum", {{x[0]}, {ops::Const<int32_t>(s, 1)}},
                                          {{"exclusive", MakeAttrValue(exclusive)},
                                           {"reverse", MakeAttrValue(reverse)}})
                                      .output(0));
          },
          {R({2, 5})});
    }
  }
  CheckGradients(
      [](const Scope& s, const std::vector<Output>& x) {
        return ops::Square(s, s.AddOp("DynamicStitch", {{ops::Const<int32_t>(s, {3, 0}),
                                                         ops::Const<int32_t>(s, {1, 2})},
                                                        {x[0], x[1]}})
                                  .output(0));
      },
      {R({2, 3}), R({2, 3})});
  // DynamicPartition over a two-dimensional prefix; partition 1 is unused
  // (its gradient is zero). The Concat of its outputs, whose sizes are
  // known only at run time, splits its gradient by their runtime sizes.
  CheckGradients(
      [](const Scope& s, const std::vector<Output>& x) {
        Tensor p(DT_INT32, TensorShape({2, 3}));
        const int32_t v[] = {2, 0, 1, 0, 2, 2};
        std::copy(v, v + 6, p.data<int32_t>());
        std::vector<Output> parts = ops::DynamicPartition(s, x[0], ops::Const(s, p), 3);
        return ops::ConcatV2(s, {ops::Square(s, parts[0]), parts[2]}, ops::Const<int32_t>(s, 0));
      },
      {R({2, 3, 2})});
  // embedding_lookup over three parts, both strategies, a repeated id.
  for (const char* strategy : {"mod", "div"}) {
    SCOPED_TRACE(strategy);
    CheckGradients(
        [strategy](const Scope& s, const std::vector<Output>& x) {
          return ops::EmbeddingLookup(s, x, ops::Const<int32_t>(s, {6, 0, 3, 6, 1}), strategy);
        },
        {R({3, 2}), R({2, 2}), R({2, 2})});
  }
}

// FusedBatchNormV3's gradient (FusedBatchNormGradV3 from the reserve
// spaces) against finite differences, training and inference, both data
// formats. The kernels are float only, as TensorFlow's: central
// differences with a wide step, and a looser tolerance.
TEST(GradientsTest, FusedBatchNormInTrainingAndInference) {
  std::mt19937 rng(11);
  std::uniform_real_distribution<float> d(-2, 2);
  auto random = [&](std::vector<int64_t> dims, float lo, float hi) {
    Tensor t(DT_FLOAT, TensorShape(dims));
    std::uniform_real_distribution<float> u(lo, hi);
    for (int64_t i = 0; i < t.NumElements(); ++i) t.data<float>()[i] = u(rng);
    return t;
  };
  for (const char* format : {"NHWC", "NCHW"}) {
    for (bool training : {true, false}) {
      SCOPED_TRACE(absl::StrCat(format, training ? " training" : " inference"));
      const bool nchw = std::string(format) == "NCHW";
      const std::vector<int64_t> xdims =
          nchw ? std::vector<int64_t>{2, 3, 2, 2} : std::vector<int64_t>{2, 2, 2, 3};
      std::vector<Tensor> inputs = {random(xdims, -2, 2), random({3}, 0.5, 1.5), random({3}, -1, 1),
                                    random({3}, -0.5, 0.5), random({3}, 0.5, 1.5)};
      Scope root = Scope::NewRootScope();
      std::vector<Output> in;
      for (int k = 0; k < 5; ++k) {
        in.push_back(ops::Placeholder(root.WithOpName(absl::StrCat("in", k)), DT_FLOAT));
      }
      Operation bn = root.AddOp("FusedBatchNormV3", {{in[0]}, {in[1]}, {in[2]}, {in[3]}, {in[4]}},
                                {{"is_training", MakeAttrValue(training)},
                                 {"epsilon", MakeAttrValue(0.001f)},
                                 {"data_format", MakeAttrValue(std::string(format))}});
      Tensor w = random(xdims, 0.5, 1.5);
      Output loss = ops::Sum(root.WithOpName("loss"),
                             ops::Reshape(root, ops::Mul(root, bn.output(0), ops::Const(root, w)),
                                          ops::Const<int32_t>(root, {-1})),
                             ops::Const<int32_t>(root, 0));
      std::vector<Output> grads;
      ASSERT_OK(AddSymbolicGradients(root, {loss}, {in[0], in[1], in[2]}, &grads));
      ASSERT_OK_AND_ASSIGN(GraphDef def, root.ToGraphDef());
      ASSERT_OK_AND_ASSIGN(auto sess, NewSession(SessionOptions()));
      ASSERT_OK(sess->Create(def));
      auto feeds = [&](const std::vector<Tensor>& v) {
        std::vector<std::pair<std::string, Tensor>> f;
        for (int k = 0; k < 5; ++k) f.push_back({absl::StrCat("in", k), v[k]});
        return f;
      };
      std::vector<Tensor> analytic;
      ASSERT_OK(sess->Run(feeds(inputs), {grads[0].name(), grads[1].name(), grads[2].name()}, {},
                          &analytic));
      for (int k = 0; k < 3; ++k) {
        for (int64_t j = 0; j < inputs[k].NumElements(); ++j) {
          double loss_at[2];
          for (int side = 0; side < 2; ++side) {
            std::vector<Tensor> moved = inputs;
            moved[k] = tensor::DeepCopy(inputs[k]);
            moved[k].data<float>()[j] += side == 0 ? 1e-2f : -1e-2f;
            std::vector<Tensor> out;
            ASSERT_OK(sess->Run(feeds(moved), {"loss"}, {}, &out));
            loss_at[side] = *out[0].data<float>();
          }
          const double numeric = (loss_at[0] - loss_at[1]) / 2e-2;
          const double got = analytic[k].data<float>()[j];
          ASSERT_NEAR(got, numeric, 1e-2 * std::max(1.0, std::abs(numeric)))
              << "input " << k << " element " << j;
        }
      }
    }
  }
}

TEST(GradientsTest, BatchMatMulEveryAdjointWithBroadcasting) {
  for (bool ax : {false, true}) {
    for (bool ay : {false, true}) {
      SCOPED_TRACE(absl::StrCat("adj_x ", ax, " adj_y ", ay));
      // x [2, 1, 3, 4] (or its adjoint), y [3, 4, 5]: batch [2, 3].
      CheckGradients(
          [&](const Scope& s, const std::vector<Output>& x) {
            return s
                .AddOp("BatchMatMulV2", {{x[0]}, {x[1]}},
                       {{"adj_x", MakeAttrValue(ax)}, {"adj_y", MakeAttrValue(ay)}})
                .output(0);
          },
          {ax ? R({2, 1, 4, 3}) : R({2, 1, 3, 4}), ay ? R({3, 5, 4}) : R({3, 4, 5})});
    }
  }
}

// LRN's gradient (LRNGrad) against finite differences (float kernels: a
// wide step and a looser tolerance), and its value against the formula.
TEST(GradientsTest, LocalResponseNormalization) {
  std::mt19937 rng(13);
  std::uniform_real_distribution<float> u(-2, 2);
  Tensor x(DT_FLOAT, TensorShape({1, 2, 1, 5}));
  for (int64_t i = 0; i < x.NumElements(); ++i) x.data<float>()[i] = u(rng);
  Scope root = Scope::NewRootScope();
  Output in = ops::Placeholder(root.WithOpName("x"), DT_FLOAT);
  Output y = root.AddOp("LRN", {{in}},
                        {{"depth_radius", MakeAttrValue(int64_t{1})},
                         {"bias", MakeAttrValue(2.0f)},
                         {"alpha", MakeAttrValue(0.5f)},
                         {"beta", MakeAttrValue(0.75f)}})
                 .output(0);
  Tensor w(DT_FLOAT, x.shape());
  for (int64_t i = 0; i < w.NumElements(); ++i) w.data<float>()[i] = 0.5f + 0.1f * i;
  Output loss = ops::Sum(
      root.WithOpName("loss"),
      ops::Reshape(root, ops::Mul(root, y, ops::Const(root, w)), ops::Const<int32_t>(root, {-1})),
      ops::Const<int32_t>(root, 0));
  std::vector<Output> grads;
  ASSERT_OK(AddSymbolicGradients(root, {loss}, {in}, &grads));
  ASSERT_OK_AND_ASSIGN(GraphDef def, root.ToGraphDef());
  ASSERT_OK_AND_ASSIGN(auto sess, NewSession(SessionOptions()));
  ASSERT_OK(sess->Create(def));
  std::vector<Tensor> out;
  ASSERT_OK(sess->Run({{"x", x}}, {y.name(), grads[0].name()}, {}, &out));
  for (int64_t r = 0; r < 2; ++r) {
    for (int64_t i = 0; i < 5; ++i) {
      double sum = 0;
      for (int64_t k = std::max<int64_t>(0, i - 1); k < std::min<int64_t>(5, i + 2); ++k) {
        sum += x.data<float>()[r * 5 + k] * x.data<float>()[r * 5 + k];
      }
      EXPECT_NEAR(out[0].data<float>()[r * 5 + i],
                  x.data<float>()[r * 5 + i] * std::pow(2.0 + 0.5 * sum, -0.75), 1e-5);
    }
  }
  for (int64_t j = 0; j < x.NumElements(); ++j) {
    double at[2];
    for (int side = 0; side < 2; ++side) {
      Tensor moved = tensor::DeepCopy(x);
      moved.data<float>()[j] += side == 0 ? 1e-2f : -1e-2f;
      std::vector<Tensor> l;
      ASSERT_OK(sess->Run({{"x", moved}}, {"loss"}, {}, &l));
      at[side] = *l[0].data<float>();
    }
    const double numeric = (at[0] - at[1]) / 2e-2;
    EXPECT_NEAR(out[1].data<float>()[j], numeric, 5e-3 * std::max(1.0, std::abs(numeric)))
        << "element " << j;
  }
}

// TensorFlow 1's TensorArrays: every op's gradient (a read's writes into
// the gradient array, a write's reads back from it), items nothing reads
// (zeros), one item read twice (the gradient array adds both), and two
// tf.gradients calls over one array (each has its own gradient array).
// A TensorFlow 1 TensorArray of doubles: its handle and its first flow.
struct Array {
  Output handle, flow;
};

Array NewArray(const Scope& s, int size, bool clear_after_read = true,
               PartialShape element_shape = PartialShape()) {
  Operation op = s.AddOp("TensorArrayV3", {{ops::Const<int32_t>(s, size)}},
                         {{"dtype", MakeAttrValue(DT_DOUBLE)},
                          {"clear_after_read", MakeAttrValue(clear_after_read)},
                          {"element_shape", MakeAttrValue(element_shape)}});
  return Array{op.output(0), op.output(1)};
}

Output Int32s(const Scope& s, std::initializer_list<int32_t> v) {
  return ops::Const<int32_t>(s, v);
}

// Item i of `a` set to v after `flow`; returns the new flow.
Output ArrayWrite(const Scope& s, const Array& a, int i, Output v, Output flow) {
  return s.AddOp("TensorArrayWriteV3", {{a.handle}, {ops::Const<int32_t>(s, i)}, {v}, {flow}})
      .output(0);
}

Output ArrayRead(const Scope& s, const Array& a, int i, Output flow) {
  return s
      .AddOp("TensorArrayReadV3", {{a.handle}, {ops::Const<int32_t>(s, i)}, {flow}},
             {{"dtype", MakeAttrValue(DT_DOUBLE)}})
      .output(0);
}

Output ArrayGather(const Scope& s, const Array& a, Output indices, Output flow) {
  return s
      .AddOp("TensorArrayGatherV3", {{a.handle}, {indices}, {flow}},
             {{"dtype", MakeAttrValue(DT_DOUBLE)}})
      .output(0);
}

TEST(GradientsTest, TensorArrays) {
  {
    SCOPED_TRACE("scatter, then gather in another order");
    CheckGradients(
        [&](const Scope& s, const std::vector<Output>& x) {
          Array a = NewArray(s, 3);
          Output f = s.AddOp("TensorArrayScatterV3",
                             {{a.handle}, {Int32s(s, {2, 0, 1})}, {ops::Square(s, x[0])}, {a.flow}})
                         .output(0);
          return ops::Mul(s, ArrayGather(s, a, Int32s(s, {1, 2, 0}), f), x[0]);
        },
        {R({3, 2})});
  }
  {
    SCOPED_TRACE("writes and reads; item 2 never read; item 0 read twice");
    CheckGradients(
        [&](const Scope& s, const std::vector<Output>& x) {
          Array a = NewArray(s, 3, /*clear_after_read=*/false);
          Output f = ArrayWrite(s, a, 0, ops::Square(s, x[0]), a.flow);
          f = ArrayWrite(s, a, 1, ops::Tanh(s, x[0]), f);
          f = ArrayWrite(s, a, 2, x[1], f);
          Output r0 = ArrayRead(s, a, 0, f);
          return ops::Mul(s, ops::Mul(s, r0, ArrayRead(s, a, 1, f)), ArrayRead(s, a, 0, f));
        },
        {R({2}), R({2})});
  }
  {
    SCOPED_TRACE("split, then concat");
    CheckGradients(
        [&](const Scope& s, const std::vector<Output>& x) {
          Array a = NewArray(s, 3);
          Output f =
              s.AddOp(
                   "TensorArraySplitV3",
                   {{a.handle}, {ops::Exp(s, x[0])}, {ops::Const<int64_t>(s, {2, 0, 3})}, {a.flow}})
                  .output(0);
          Output joined = s.AddOp("TensorArrayConcatV3", {{a.handle}, {f}},
                                  {{"dtype", MakeAttrValue(DT_DOUBLE)}})
                              .output(0);
          return ops::Mul(s, joined, x[0]);
        },
        {R({5, 2})});
  }
  {
    SCOPED_TRACE("rows written one by one, stacked");
    CheckGradients(
        [&](const Scope& s, const std::vector<Output>& x) {
          Array a = NewArray(s, 2);
          Output f = ArrayWrite(s, a, 1, ops::Tanh(s, x[0]), a.flow);
          f = ArrayWrite(s, a, 0, ops::Mul(s, x[0], x[1]), f);
          return ArrayGather(s, a, Int32s(s, {0, 1}), f);
        },
        {R({2, 3}), R({2, 3})});
  }
}

TEST(GradientsTest, TwoGradientsOfOneTensorArrayEachHaveTheirOwnGradientArray) {
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_DOUBLE, PartialShape({2}));
  Array a = NewArray(root, 1, /*clear_after_read=*/false, PartialShape({2}));
  Output y = ArrayRead(root, a, 0, ArrayWrite(root, a, 0, ops::Square(root, x), a.flow));
  Output l1 = ops::Sum(root, y, Int32s(root, {0}));
  Output l2 = ops::Sum(root, ops::Mul(root, y, y), Int32s(root, {0}));
  std::vector<Output> g1, g2;
  ASSERT_OK(AddSymbolicGradients(root, {l1}, {x}, &g1));
  ASSERT_OK(AddSymbolicGradients(root, {l2}, {x}, &g2));
  std::set<std::string> sources;
  for (const Operation& op : root.AllOps()) {
    if (root.GetNodeDef(op).op() == "TensorArrayGradV3") {
      sources.insert(root.GetNodeDef(op).attr().at("source").s());
    }
  }
  EXPECT_EQ(sources, (std::set<std::string>{"gradients", "gradients_1"}));
  ASSERT_OK_AND_ASSIGN(GraphDef def, root.ToGraphDef());
  ASSERT_OK_AND_ASSIGN(auto sess, NewSession(SessionOptions()));
  ASSERT_OK(sess->Create(def));
  std::vector<Tensor> out;
  ASSERT_OK(sess->Run({{"x", Tensor::Vector<double>({1.5, -2})}}, {g1[0].name(), g2[0].name()}, {},
                      &out));
  // d(x^2)/dx = 2x; d(x^4)/dx = 4x^3.
  EXPECT_DOUBLE_EQ(out[0].data<double>()[0], 3.0);
  EXPECT_DOUBLE_EQ(out[0].data<double>()[1], -4.0);
  EXPECT_DOUBLE_EQ(out[1].data<double>()[0], 4 * 1.5 * 1.5 * 1.5);
  EXPECT_DOUBLE_EQ(out[1].data<double>()[1], -32.0);
}

// TensorFlow 1 while loops (ops::WhileLoop's frames): the forward values
// each iteration's gradient needs are kept on stacks, a backward loop pops
// them in reverse; loop invariants' gradients sum over the iterations.
Output Int32(const Scope& s, int v) { return ops::Const<int32_t>(s, v); }

// A loop condition: the counter (the first variable) is below n.
std::function<Output(const Scope&, const std::vector<Output>&)> Below(int n) {
  return [n](const Scope& c, const std::vector<Output>& v) {
    return ops::Less(c, v[0], Int32(c, n));
  };
}

// h after `n` runs of step(b, i, h) from h0, a counter i alongside.
using Step = std::function<Output(const Scope&, const Output& i, const Output& h)>;
Output Counted(const Scope& s, int n, Output h0, const Step& step, int parallel = 10) {
  return ops::WhileLoop(
      s, {Int32(s, 0), h0}, Below(n),
      [&](const Scope& b, const std::vector<Output>& v) -> std::vector<Output> {
        return {ops::Add(b, v[0], Int32(b, 1)), step(b, v[0], v[1])};
      },
      parallel)[1];
}

void CheckNamed(const char* what, const Build& build, std::vector<Tensor> inputs) {
  SCOPED_TRACE(what);
  CheckGradients(build, std::move(inputs));
}

TEST(GradientsTest, TensorFlow1WhileLoops) {
  CheckNamed("h = tanh(h * w + 0.1), three times",
        [&](const Scope& s, const std::vector<Output>& x) {
          return Counted(s, 3, x[0], [&](const Scope& b, const Output&, const Output& h) {
            Output w = ops::LoopInvariant(b, x[1]);
            return ops::Tanh(b, ops::Add(b, ops::Mul(b, h, w), ops::Const(b, 0.1)));
          });
        },
        {R({3}), R({3})});
  CheckNamed("a recurrent layer: h = tanh(h W + b), four times",
        [&](const Scope& s, const std::vector<Output>& x) {
          return Counted(
              s, 4, x[0],
              [&](const Scope& b, const Output&, const Output& h) {
                return ops::Tanh(b, ops::BiasAdd(b, ops::MatMul(b, h, ops::LoopInvariant(b, x[1])),
                                                 ops::LoopInvariant(b, x[2])));
              },
              /*parallel=*/4);
        },
        {R({2, 3}), R({3, 3}, -1, 1), R({3})});
  CheckNamed("a = a * c with c passed through: a c^5",
        [&](const Scope& s, const std::vector<Output>& x) {
          std::vector<Output> out = ops::WhileLoop(
              s, {Int32(s, 0), x[0], x[1]}, Below(5),
              [&](const Scope& b, const std::vector<Output>& v) -> std::vector<Output> {
                return {ops::Add(b, v[0], Int32(b, 1)), ops::Mul(b, v[1], v[2]), v[2]};
              });
          return ops::Add(s, out[1], out[2]);
        },
        {R({2}), R({2}, 0.5, 1.5)});
  CheckNamed("h = -h: a body whose gradient needs no forward value (no stack)",
        [&](const Scope& s, const std::vector<Output>& x) {
          return Counted(s, 3, x[0], [](const Scope& b, const Output&, const Output& h) {
            return ops::Neg(b, h);
          });
        },
        {R({2})});
}

TEST(GradientsTest, TensorFlow1WhileLoopsInsideLoops) {
  CheckNamed("a loop inside a loop: g = tanh(g w) twice per step, h = g + h / 2, 3 steps",
        [&](const Scope& s, const std::vector<Output>& x) {
          return Counted(s, 3, x[0], [&](const Scope& b, const Output&, const Output& h) {
            Output w = ops::LoopInvariant(b, x[1]);
            Output g = Counted(b.NewSubScope("inner"), 2, h,
                               [&](const Scope& ib, const Output&, const Output& g) {
                                 return ops::Tanh(ib, ops::Mul(ib, g, ops::LoopInvariant(ib, w)));
                               });
            return ops::Add(b, g, ops::Mul(b, h, ops::Const(b, 0.5)));
          });
        },
        {R({2}, -1, 1), R({2}, -1.5, 1.5)});
  CheckNamed("an inner loop that runs once more in each outer step, inside a cond",
        [&](const Scope& s, const std::vector<Output>& x) {
          return Counted(s, 4, x[0], [&](const Scope& b, const Output& i, const Output& h) {
            Output odd = ops::Equal(b, ops::FloorMod(b, i, Int32(b, 2)), Int32(b, 1));
            return ops::Cond(
                b, odd, {h, i},
                [&](const Scope& t, const std::vector<Output>& in) -> std::vector<Output> {
                  Output steps = in[1];
                  return {ops::WhileLoop(
                      t.NewSubScope("inner"), {Int32(t, 0), in[0]},
                      [&](const Scope& c, const std::vector<Output>& u) {
                        return ops::Less(c, u[0], ops::LoopInvariant(c, steps));
                      },
                      [&](const Scope& ib, const std::vector<Output>& u) -> std::vector<Output> {
                        return {ops::Add(ib, u[0], Int32(ib, 1)),
                                ops::Tanh(ib, ops::Add(ib, u[1], ops::Const(ib, 0.25)))};
                      })[1]};
                },
                [&](const Scope& e, const std::vector<Output>& in) -> std::vector<Output> {
                  return {ops::Mul(e, in[0], ops::LoopInvariant(e, x[1]))};
                })[0];
          });
        },
        {R({2}, -1, 1), R({2}, 0.5, 1.5)});
}

TEST(GradientsTest, TensorFlow1WhileLoopsWithCondsInTheBody) {
  CheckNamed("a cond in the body, its branch alternating with the counter",
        [&](const Scope& s, const std::vector<Output>& x) {
          return Counted(s, 5, x[0], [&](const Scope& b, const Output& i, const Output& h) {
            Output even = ops::Equal(b, ops::FloorMod(b, i, Int32(b, 2)), Int32(b, 0));
            return ops::Cond(
                b, even, {h, ops::LoopInvariant(b, x[1])},
                [](const Scope& t, const std::vector<Output>& in) -> std::vector<Output> {
                  return {ops::Tanh(t, ops::Mul(t, in[0], in[1]))};
                },
                [](const Scope& e, const std::vector<Output>& in) -> std::vector<Output> {
                  return {ops::Add(e, ops::Square(e, in[0]), in[1])};
                })[0];
          });
        },
        {R({3}, -1, 1), R({3}, -1, 1)});
  CheckNamed("a cond on the data: halve the state while its sum of squares is above 1",
        [&](const Scope& s, const std::vector<Output>& x) {
          return Counted(s, 4, x[0], [&](const Scope& b, const Output&, const Output& h) {
            Output big = ops::Greater(b, ops::Sum(b, ops::Square(b, h), ops::Const<int32_t>(b, 0)),
                                      ops::Const(b, 1.0));
            return ops::Cond(
                b, big, {h},
                [](const Scope& t, const std::vector<Output>& in) -> std::vector<Output> {
                  return {ops::Mul(t, in[0], ops::Const(t, 0.5))};
                },
                [&](const Scope& e, const std::vector<Output>& in) -> std::vector<Output> {
                  return {ops::Mul(e, in[0], ops::LoopInvariant(e, x[1]))};
                })[0];
          });
        },
        {Tensor::Vector<double>({1.5, -0.5}), Tensor::Vector<double>({1.2, 1.7})});
}

// A data-dependent count: x doubles until its sum reaches 10.
TEST(GradientsTest, TensorFlow1WhileLoopWithADataDependentCount) {
  std::vector<Output> grads;
  ASSERT_OK_AND_ASSIGN(auto sess, NewSession(SessionOptions()));
  Scope root = Scope::NewRootScope();
  Output x = ops::Placeholder(root.WithOpName("x"), DT_DOUBLE, PartialShape({2}));
  std::vector<Output> looped = ops::WhileLoop(
      root, {x},
      [](const Scope& c, const std::vector<Output>& v) {
        return ops::Less(c, ops::Sum(c, v[0], ops::Const<int32_t>(c, 0)), ops::Const(c, 10.0));
      },
      [](const Scope& b, const std::vector<Output>& v) -> std::vector<Output> {
        return {ops::Mul(b, v[0], ops::Const(b, 2.0))};
      });
  ASSERT_OK(AddSymbolicGradients(root, {looped[0]}, {x}, &grads));
  ASSERT_OK(sess->Create(*root.ToGraphDef()));
  for (const auto& [start, factor] :
       std::vector<std::pair<double, double>>{{1.0, 8.0}, {3.0, 2.0}, {6.0, 1.0}, {0.25, 32.0}}) {
    std::vector<Tensor> out;
    ASSERT_OK(sess->Run({{"x", Tensor::Vector<double>({start, start})}},
                        {looped[0].name(), grads[0].name()}, {}, &out));
    EXPECT_EQ(out[0].data<double>()[0], start * factor) << start;
    EXPECT_EQ(out[1].data<double>()[0], factor) << start;
    EXPECT_EQ(out[1].data<double>()[1], factor) << start;
  }
}

// tf.nn.dynamic_rnn's graph, differentiated: the inputs unstacked into a
// TensorArray, read and written per step in a TensorFlow 1 loop, the
// outputs stacked; the gradient runs through the arrays' gradients inside
// the backward loop.
TEST(GradientsTest, DynamicRnnWithTensorArrays) {
  constexpr int kT = 4, kB = 2, kD = 3, kH = 2;
  auto array = [](const Scope& s, Output size, PartialShape element) {
    Operation op =
        s.AddOp("TensorArrayV3", {{size}},
                {{"dtype", MakeAttrValue(DT_DOUBLE)}, {"element_shape", MakeAttrValue(element)}});
    return std::make_pair(op.output(0), op.output(1));
  };
  CheckGradients(
      [&](const Scope& s, const std::vector<Output>& x) {
        Output steps = ops::Const<int32_t>(s, kT);
        Output range = ops::Range(s, ops::Const<int32_t>(s, 0), steps, ops::Const<int32_t>(s, 1));
        const auto in = array(s, steps, PartialShape({kB, kD}));
        const auto out = array(s, steps, PartialShape({kB, kH}));
        const Output in_ta = in.first, in_flow = in.second;
        const Output out_ta = out.first, out_flow = out.second;
        Output unstacked =
            s.AddOp("TensorArrayScatterV3", {{in_ta}, {range}, {x[0]}, {in_flow}}).output(0);
        std::vector<Output> done = ops::WhileLoop(
            s, {ops::Const<int32_t>(s, 0), x[3], out_flow},
            [&](const Scope& c, const std::vector<Output>& v) {
              return ops::Less(c, v[0], ops::LoopInvariant(c, steps));
            },
            [&](const Scope& b, const std::vector<Output>& v) -> std::vector<Output> {
              Output x_t =
                  b.AddOp(
                       "TensorArrayReadV3",
                       {{ops::LoopInvariant(b, in_ta)}, {v[0]}, {ops::LoopInvariant(b, unstacked)}},
                       {{"dtype", MakeAttrValue(DT_DOUBLE)}})
                      .output(0);
              Output h = ops::Tanh(b, ops::Add(b, ops::MatMul(b, x_t, ops::LoopInvariant(b, x[1])),
                                               ops::MatMul(b, v[1], ops::LoopInvariant(b, x[2]))));
              Output flow = b.AddOp("TensorArrayWriteV3",
                                    {{ops::LoopInvariant(b, out_ta)}, {v[0]}, {h}, {v[2]}})
                                .output(0);
              return {ops::Add(b, v[0], ops::Const<int32_t>(b, 1)), h, flow};
            },
            /*parallel_iterations=*/32);
        Output outputs = s.AddOp("TensorArrayGatherV3", {{out_ta}, {range}, {done[2]}},
                                 {{"dtype", MakeAttrValue(DT_DOUBLE)},
                                  {"element_shape", MakeAttrValue(PartialShape({kB, kH}))}})
                             .output(0);
        // The outputs and the final state both reach the loss.
        return ops::Add(s, outputs, done[1]);
      },
      {R({kT, kB, kD}), R({kD, kH}, -1, 1), R({kH, kH}, -1, 1), R({kB, kH})});
}

}  // namespace
}  // namespace minigraph
