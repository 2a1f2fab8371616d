// Element-wise kernels against a plain reference on random inputs, including
// broadcasting and empty tensors.
#include <cmath>
#include <limits>
#include <functional>
#include <random>

#include "core/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/engine/kernels/kernel_test_util.h"
#include "tests/testing/tensors.h"

namespace minigraph {
namespace {

using ::testing::HasSubstr;

// Reference broadcasting by explicit index arithmetic.
template <typename T, typename R>
Tensor RefBinary(const Tensor& x, const Tensor& y, const std::function<R(T, T)>& f) {
  const int rank = std::max(x.dims(), y.dims());
  std::vector<int64_t> out(rank);
  auto dim = [&](const Tensor& t, int i) {
    const int j = t.dims() - rank + i;
    return j >= 0 ? t.dim_size(j) : int64_t{1};
  };
  for (int i = 0; i < rank; ++i) out[i] = std::max(dim(x, i), dim(y, i));
  for (int i = 0; i < rank; ++i) {
    if (dim(x, i) == 0 || dim(y, i) == 0) out[i] = 0;
  }
  Tensor z(DataTypeToEnum<R>::value, *TensorShape::Build(out));
  for (int64_t k = 0; k < z.NumElements(); ++k) {
    int64_t rem = k, xi = 0, yi = 0, xs = 1, ys = 1;
    for (int i = rank - 1; i >= 0; --i) {
      const int64_t c = rem % out[i];
      rem /= out[i];
      xi += (dim(x, i) == 1 ? 0 : c) * xs;
      yi += (dim(y, i) == 1 ? 0 : c) * ys;
      xs *= dim(x, i);
      ys *= dim(y, i);
    }
    z.flat<R>()(k) = f(x.flat<T>()(xi), y.flat<T>()(yi));
  }
  return z;
}

const std::vector<std::pair<TensorShape, TensorShape>>& ShapePairs() {
  static const auto* pairs = new std::vector<std::pair<TensorShape, TensorShape>>{
      {TensorShape({2, 3}), TensorShape({2, 3})},
      {TensorShape({2, 3}), TensorShape({3})},
      {TensorShape({2, 3}), TensorShape()},
      {TensorShape(), TensorShape({4})},
      {TensorShape({4, 1}), TensorShape({1, 5})},
      {TensorShape({2, 1, 3}), TensorShape({4, 1})},
      {TensorShape({3, 1, 2, 1}), TensorShape({1, 4, 1, 5})},
      {TensorShape({2, 3, 4, 5, 6}), TensorShape({1, 3, 1, 5, 1})},
      {TensorShape({0, 3}), TensorShape({3})},
      {TensorShape({2, 0}), TensorShape({1, 1})},
      {TensorShape({200, 300}), TensorShape({300})},  // big enough for the intra-op pool
      {TensorShape({70000}), TensorShape()},           // a scalar, split across the pool
      {TensorShape({2, 1, 2, 1, 2, 1}), TensorShape({1, 3, 1, 3, 1, 3})},  // rank 6 merged
  };
  return *pairs;
}

template <typename T>
struct NonDeduced {
  using type = T;
};

template <typename T, typename R = T>
void CheckBinary(const std::string& op, typename NonDeduced<std::function<R(T, T)>>::type f,
                 double lo = -3, double hi = 3) {
  std::mt19937 rng(42);
  for (const auto& [xs, ys] : ShapePairs()) {
    SCOPED_TRACE(op + " " + xs.DebugString() + " " + ys.DebugString());
    Tensor x = RandomUniform<T>(xs, &rng, lo, hi), y = RandomUniform<T>(ys, &rng, lo, hi);
    ASSERT_OK_AND_ASSIGN(auto out, RunKernel(op, {{x}, {y}}));
    Tensor want = RefBinary<T, R>(x, y, f);
    if constexpr (std::is_floating_point_v<R>) {
      ExpectTensorNear<R>(out[0], want, 1e-6);
    } else {
      ExpectTensorEqual<R>(out[0], want);
    }
    ASSERT_OK_AND_ASSIGN(auto swapped, RunKernel(op, {{y}, {x}}));
    Tensor want_swapped = RefBinary<T, R>(y, x, f);
    if constexpr (std::is_floating_point_v<R>) {
      ExpectTensorNear<R>(swapped[0], want_swapped, 1e-6);
    } else {
      ExpectTensorEqual<R>(swapped[0], want_swapped);
    }
  }
}

TEST(CwiseKernelsTest, ArithmeticFloat) {
  CheckBinary<float>("Add", [](float a, float b) { return a + b; });
  CheckBinary<float>("AddV2", [](float a, float b) { return a + b; });
  CheckBinary<float>("Sub", [](float a, float b) { return a - b; });
  CheckBinary<float>("Mul", [](float a, float b) { return a * b; });
  CheckBinary<float>("RealDiv", [](float a, float b) { return a / b; }, 0.5, 3);
  CheckBinary<float>("Maximum", [](float a, float b) { return std::max(a, b); });
  CheckBinary<float>("Minimum", [](float a, float b) { return std::min(a, b); });
  CheckBinary<float>("SquaredDifference", [](float a, float b) { return (a - b) * (a - b); });
  CheckBinary<float>("Pow", [](float a, float b) { return std::pow(a, b); }, 0.5, 3);
  CheckBinary<double>("Pow", [](double a, double b) { return std::pow(a, b); }, 0.5, 3);
}

TEST(CwiseKernelsTest, ArithmeticOtherTypes) {
  CheckBinary<double>("Mul", [](double a, double b) { return a * b; });
  CheckBinary<int32_t>("Add", [](int32_t a, int32_t b) { return a + b; }, -100, 100);
  CheckBinary<int64_t>("Sub", [](int64_t a, int64_t b) { return a - b; }, -100, 100);
  CheckBinary<int64_t>("Maximum", [](int64_t a, int64_t b) { return std::max(a, b); }, -9, 9);
}

TEST(CwiseKernelsTest, Comparisons) {
  CheckBinary<float, bool>("Greater", [](float a, float b) { return a > b; });
  CheckBinary<float, bool>("Less", [](float a, float b) { return a < b; });
  CheckBinary<int32_t, bool>("GreaterEqual", [](int32_t a, int32_t b) { return a >= b; }, -2, 2);
  CheckBinary<int32_t, bool>("LessEqual", [](int32_t a, int32_t b) { return a <= b; }, -2, 2);
  CheckBinary<int64_t, bool>("Equal", [](int64_t a, int64_t b) { return a == b; }, -2, 2);
  CheckBinary<int32_t, bool>(
      "NotEqual", [](int32_t a, int32_t b) { return a != b; }, -2, 2);
}

// Feature columns compare string inputs with "" (to_sparse_input).
TEST(CwiseKernelsTest, StringEqualityBroadcasts) {
  Tensor words(DT_STRING, TensorShape({3, 1}));
  words.data<std::string>()[0] = "us";
  words.data<std::string>()[2] = "de";
  Tensor empty(DT_STRING, TensorShape({}));
  ASSERT_OK_AND_ASSIGN(auto ne, RunKernel("NotEqual", {{words}, {empty}}));
  EXPECT_EQ(ne[0].shape().DebugString(), "[3,1]");
  EXPECT_EQ(ne[0].SummarizeValue(10), "1 0 1");
  ASSERT_OK_AND_ASSIGN(auto eq, RunKernel("Equal", {{words}, {words}}));
  EXPECT_EQ(eq[0].SummarizeValue(10), "1 1 1");
  Tensor row(DT_STRING, TensorShape({2}));
  row.data<std::string>()[0] = "us";
  ASSERT_OK_AND_ASSIGN(eq, RunKernel("Equal", {{words}, {row}}));
  EXPECT_EQ(eq[0].shape().DebugString(), "[3,2]");
  EXPECT_EQ(eq[0].SummarizeValue(10), "1 0 0 1 0 0");
}

TEST(CwiseKernelsTest, Logical) {
  Tensor a = Tensor::Vector<bool>({true, true, false, false});
  Tensor b = Tensor::Vector<bool>({true, false, true, false});
  ASSERT_OK_AND_ASSIGN(auto and_out, RunKernel("LogicalAnd", {{a}, {b}}));
  EXPECT_EQ(and_out[0].SummarizeValue(10), "1 0 0 0");
  ASSERT_OK_AND_ASSIGN(auto and_scalar,
                       RunKernel("LogicalAnd", {{a}, {Tensor::Scalar<bool>(true)}}));
  EXPECT_EQ(and_scalar[0].SummarizeValue(10), "1 1 0 0");
  ASSERT_OK_AND_ASSIGN(auto not_out, RunKernel("LogicalNot", {{a}}));
  EXPECT_EQ(not_out[0].SummarizeValue(10), "0 0 1 1");
  ASSERT_OK_AND_ASSIGN(auto or_out, RunKernel("LogicalOr", {{a}, {b}}));
  EXPECT_EQ(or_out[0].SummarizeValue(10), "1 1 1 0");
  const float inf = std::numeric_limits<float>::infinity();
  const Tensor x = Tensor::Vector<float>({1, inf, -inf, std::nanf("")});
  ASSERT_OK_AND_ASSIGN(auto finite, RunKernel("IsFinite", {{x}}));
  EXPECT_EQ(finite[0].SummarizeValue(10), "1 0 0 0");
  ASSERT_OK_AND_ASSIGN(auto is_inf, RunKernel("IsInf", {{x}}));
  EXPECT_EQ(is_inf[0].SummarizeValue(10), "0 1 1 0");
  ASSERT_OK_AND_ASSIGN(auto is_nan, RunKernel("IsNan", {{x}}));
  EXPECT_EQ(is_nan[0].SummarizeValue(10), "0 0 0 1");
}

TEST(CwiseKernelsTest, IncompatibleShapesAreInvalidArgument) {
  Tensor x(DT_FLOAT, TensorShape({2, 3}));
  Tensor y(DT_FLOAT, TensorShape({4}));
  // The shape function catches it when the graph is built.
  EXPECT_THAT(RunKernel("Add", {{x}, {y}}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("[2,3] and [4]")));
}

template <typename T>
void CheckUnary(const std::string& op, typename NonDeduced<std::function<T(T)>>::type f,
                double lo = -3, double hi = 3, double tol = 1e-6) {
  std::mt19937 rng(7);
  for (const TensorShape& shape :
       {TensorShape(), TensorShape({7}), TensorShape({3, 0}), TensorShape({300, 200})}) {
    SCOPED_TRACE(op + " " + shape.DebugString());
    Tensor x = RandomUniform<T>(shape, &rng, lo, hi);
    ASSERT_OK_AND_ASSIGN(auto out, RunKernel(op, {{x}}));
    Tensor want(x.dtype(), shape);
    for (int64_t i = 0; i < x.NumElements(); ++i) want.flat<T>()(i) = f(x.flat<T>()(i));
    ExpectTensorNear<T>(out[0], want, tol);
  }
}

TEST(CwiseKernelsTest, Unary) {
  CheckUnary<float>("Neg", [](float a) { return -a; });
  CheckUnary<float>("Square", [](float a) { return a * a; });
  CheckUnary<float>("Sqrt", [](float a) { return std::sqrt(a); }, 0, 9);
  CheckUnary<float>("Exp", [](float a) { return std::exp(a); }, -3, 3, 1e-5);
  CheckUnary<float>("Log", [](float a) { return std::log(a); }, 0.1, 9, 1e-5);
  CheckUnary<float>("Sigmoid", [](float a) { return 1 / (1 + std::exp(-a)); }, -5, 5, 1e-5);
  CheckUnary<float>("Tanh", [](float a) { return std::tanh(a); }, -3, 3, 1e-5);
  CheckUnary<float>("Sin", [](float a) { return std::sin(a); }, -7, 7, 1e-5);
  CheckUnary<float>("Cos", [](float a) { return std::cos(a); }, -7, 7, 1e-5);
  CheckUnary<float>("Reciprocal", [](float a) { return 1 / a; }, 0.5, 3, 1e-5);
  CheckUnary<float>("Relu", [](float a) { return a > 0 ? a : 0; });
  CheckUnary<float>("Floor", [](float a) { return std::floor(a); });
  CheckUnary<double>("Floor", [](double a) { return std::floor(a); });
  CheckUnary<double>("Exp", [](double a) { return std::exp(a); }, -3, 3, 1e-12);
  CheckUnary<int32_t>("Neg", [](int32_t a) { return -a; }, -50, 50);
  CheckUnary<int64_t>("Square", [](int64_t a) { return a * a; }, -50, 50);
}

// Integers wrap around in two's complement, as TensorFlow's do.
TEST(CwiseKernelsTest, IntegersWrapAround) {
  constexpr int32_t kMin = std::numeric_limits<int32_t>::min();
  constexpr int32_t kMax = std::numeric_limits<int32_t>::max();
  const Tensor x = Tensor::Vector<int32_t>({kMin, kMax, 65536});
  const Tensor one = Tensor::Vector<int32_t>({1, 1, 1});
  struct Case {
    const char* op;
    std::vector<std::vector<Tensor>> inputs;
    std::vector<int32_t> want;
  };
  for (const Case& c : {Case{"Neg", {{x}}, {kMin, -kMax, -65536}},
                        Case{"Square", {{x}}, {0, 1, 0}},
                        Case{"Add", {{x}, {x}}, {0, -2, 131072}},
                        Case{"Sub", {{one}, {x}}, {kMin + 1, kMin + 2, -65535}},
                        Case{"Mul", {{x}, {x}}, {0, 1, 0}},
                        Case{"AddN", {{x, one}}, {kMin + 1, kMin, 65537}},
                        Case{"SquaredDifference", {{x}, {one}}, {1, 4, -131071}}}) {
    SCOPED_TRACE(c.op);
    ASSERT_OK_AND_ASSIGN(auto out, RunKernel(c.op, c.inputs));
    EXPECT_EQ(std::vector<int32_t>(out[0].data<int32_t>(), out[0].data<int32_t>() + 3), c.want);
  }
}

TEST(CwiseKernelsTest, GradientHelpers) {
  std::mt19937 rng(3);
  Tensor y = RandomUniform<double>(TensorShape({4, 5}), &rng, 0.1, 0.9);
  Tensor dy = RandomUniform<double>(TensorShape({4, 5}), &rng, -3, 3);
  struct Case {
    const char* op;
    std::function<double(double, double)> f;
  };
  for (const Case& c : {Case{"SigmoidGrad", [](double a, double g) { return g * a * (1 - a); }},
                        Case{"TanhGrad", [](double a, double g) { return g * (1 - a * a); }},
                        Case{"SqrtGrad", [](double a, double g) { return g * 0.5 / a; }},
                        Case{"ReluGrad", [](double g, double f) { return f > 0 ? g : 0; }}}) {
    SCOPED_TRACE(c.op);
    ASSERT_OK_AND_ASSIGN(auto out, RunKernel(c.op, {{y}, {dy}}));
    Tensor want(DT_DOUBLE, y.shape());
    for (int i = 0; i < 20; ++i) {
      want.flat<double>()(i) = c.f(y.flat<double>()(i), dy.flat<double>()(i));
    }
    ExpectTensorNear<double>(out[0], want, 1e-12);
  }
  EXPECT_THAT(RunKernel("ReluGrad", {{y}, {Tensor(DT_DOUBLE, TensorShape({5, 4}))}}),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST(CwiseKernelsTest, AddN) {
  std::mt19937 rng(5);
  std::vector<Tensor> xs;
  for (int i = 0; i < 4; ++i) xs.push_back(RandomUniform<float>(TensorShape({3, 4}), &rng, -3, 3));
  ASSERT_OK_AND_ASSIGN(auto out, RunKernel("AddN", {xs}));
  Tensor want(DT_FLOAT, TensorShape({3, 4}));
  for (int i = 0; i < 12; ++i) {
    want.flat<float>()(i) = 0;
    for (const Tensor& x : xs) want.flat<float>()(i) += x.flat<float>()(i);
  }
  ExpectTensorNear<float>(out[0], want, 1e-6);
  ASSERT_OK_AND_ASSIGN(auto one, RunKernel("AddN", {{xs[0]}}));
  ExpectTensorEqual<float>(one[0], xs[0]);
}

// Where Debian's Eigen 3.4 and TensorFlow's Eigen part, minigraph gives
// TensorFlow's (and the functions' definitions): ndtri outside [0, 1] is
// NaN, and polygamma(n >= 1, +inf) is 0.
TEST(CwiseKernelsTest, SpecialFunctionsAtTheirDomainsEdges) {
  const float inf = std::numeric_limits<float>::infinity();
  Tensor p(DT_FLOAT, TensorShape({5}));
  const float ps[5] = {0, 1, 0.5f, inf, -0.25f};
  std::copy(ps, ps + 5, p.data<float>());
  ASSERT_OK_AND_ASSIGN(auto out, RunKernel("Ndtri", {{p}}, {{"T", MakeAttrValue(DT_FLOAT)}}));
  const float* q = out[0].data<float>();
  EXPECT_EQ(q[0], -inf);
  EXPECT_EQ(q[1], inf);
  EXPECT_EQ(q[2], 0);
  EXPECT_TRUE(std::isnan(q[3]));
  EXPECT_TRUE(std::isnan(q[4]));
  Tensor n(DT_FLOAT, TensorShape({2})), x(DT_FLOAT, TensorShape({2}));
  n.data<float>()[0] = 1;
  n.data<float>()[1] = 0;
  x.data<float>()[0] = x.data<float>()[1] = inf;
  ASSERT_OK_AND_ASSIGN(out, RunKernel("Polygamma", {{n}, {x}}, {{"T", MakeAttrValue(DT_FLOAT)}}));
  EXPECT_EQ(out[0].data<float>()[0], 0);    // trigamma(inf)
  EXPECT_EQ(out[0].data<float>()[1], inf);  // digamma(inf)
}

}  // namespace
}  // namespace minigraph
