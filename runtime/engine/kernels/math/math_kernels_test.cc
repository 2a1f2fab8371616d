// MatMul, reductions, neural-network and random kernels against plain
// references on random inputs.
#include <cmath>
#include <limits>
#include <random>
#include <set>

#include "absl/strings/str_cat.h"
#include "core/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/engine/kernels/kernel_test_util.h"
#include "tests/testing/tensors.h"

namespace minigraph {
namespace {

using ::testing::HasSubstr;

TEST(MatMulTest, AllTransposesAgainstTripleLoop) {
  std::mt19937 rng(1);
  // The last two are large enough to be split across the two intra-op
  // threads: by rows of the output (taller than wide, the last share
  // partial), then by columns.
  for (auto [m, k, n] : {std::array<int64_t, 3>{3, 4, 5},
                         {1, 1, 1},
                         {0, 3, 2},
                         {2, 0, 3},
                         {64, 96, 80},
                         {200, 150, 170},
                         {40, 700, 160}}) {
    for (bool ta : {false, true}) {
      for (bool tb : {false, true}) {
        SCOPED_TRACE(testing::Message()
                     << m << "x" << k << "x" << n << " ta=" << ta << " tb=" << tb);
        Tensor a =
            RandomUniform<double>(ta ? TensorShape({k, m}) : TensorShape({m, k}), &rng, -2, 2);
        Tensor b =
            RandomUniform<double>(tb ? TensorShape({n, k}) : TensorShape({k, n}), &rng, -2, 2);
        ASSERT_OK_AND_ASSIGN(auto out, RunKernel("MatMul", {{a}, {b}},
                                                 {{"transpose_a", MakeAttrValue(ta)},
                                                  {"transpose_b", MakeAttrValue(tb)}}));
        Tensor want(DT_DOUBLE, TensorShape({m, n}));
        auto A = a.matrix<double>();
        auto B = b.matrix<double>();
        for (int64_t i = 0; i < m; ++i) {
          for (int64_t j = 0; j < n; ++j) {
            double s = 0;
            for (int64_t p = 0; p < k; ++p)
              s += (ta ? A(p, i) : A(i, p)) * (tb ? B(j, p) : B(p, j));
            want.matrix<double>()(i, j) = s;
          }
        }
        ExpectTensorNear<double>(out[0], want, 1e-12);
      }
    }
  }
  Tensor a(DT_FLOAT, TensorShape({2, 3}));
  EXPECT_THAT(RunKernel("MatMul", {{a}, {a}}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("inner dimensions")));
}

// Reference reduction over `axes` by iterating every input element.
Tensor RefReduce(const Tensor& x, std::set<int> axes, bool keep, const std::string& op) {
  std::vector<int64_t> out_dims;
  for (int d = 0; d < x.dims(); ++d) {
    if (!axes.count(d))
      out_dims.push_back(x.dim_size(d));
    else if (keep)
      out_dims.push_back(1);
  }
  Tensor out(DT_DOUBLE, *TensorShape::Build(out_dims));
  std::vector<double> acc(out.NumElements()), count(out.NumElements(), 0);
  for (auto& a : acc) {
    a = op == "Max"    ? -std::numeric_limits<double>::infinity()
        : op == "Min"  ? std::numeric_limits<double>::infinity()
        : op == "Prod" ? 1
                       : 0;
  }
  for (int64_t i = 0; i < x.NumElements(); ++i) {
    int64_t rem = i, o = 0, stride = 1;
    std::vector<int64_t> coord(x.dims());
    for (int d = x.dims() - 1; d >= 0; --d) {
      coord[d] = rem % x.dim_size(d);
      rem /= x.dim_size(d);
    }
    for (int d = x.dims() - 1; d >= 0; --d) {
      if (axes.count(d)) continue;
      o += coord[d] * stride;
      stride *= x.dim_size(d);
    }
    const double v = x.flat<double>()(i);
    if (op == "Sum" || op == "Mean") acc[o] += v;
    if (op == "Max") acc[o] = std::max(acc[o], v);
    if (op == "Min") acc[o] = std::min(acc[o], v);
    if (op == "Prod") acc[o] *= v;
    count[o] += 1;
  }
  for (int64_t o = 0; o < out.NumElements(); ++o) {
    out.flat<double>()(o) = op == "Mean" ? acc[o] / count[o] : acc[o];
  }
  return out;
}

TEST(ReductionTest, EveryAxisSetAgainstReference) {
  std::mt19937 rng(2);
  // (The last shape alternates reduced and kept axes up to six times.)
  for (const TensorShape& shape :
       {TensorShape({5}), TensorShape({3, 4}), TensorShape({2, 3, 4}), TensorShape({2, 1, 3, 2, 2}),
        TensorShape({2, 0, 3}), TensorShape({2, 3, 2, 3, 2, 3})}) {
    Tensor x = RandomUniform<double>(shape, &rng, -2, 2);
    const int r = shape.dims();
    for (int mask = 0; mask < (1 << r); ++mask) {
      std::set<int> axes;
      std::vector<int32_t> axis_list;
      for (int d = 0; d < r; ++d) {
        if (mask & (1 << d)) {
          axes.insert(d);
          axis_list.push_back(d % 2 ? d - r : d);  // mix negative axes in
        }
      }
      Tensor axes_t(DT_INT32, TensorShape({static_cast<int64_t>(axis_list.size())}));
      for (size_t i = 0; i < axis_list.size(); ++i) axes_t.flat<int32_t>()(i) = axis_list[i];
      for (const char* op : {"Sum", "Mean", "Max", "Min", "Prod"}) {
        if (shape.num_elements() == 0 && (op == std::string("Max") || op == std::string("Min"))) {
          continue;  // identity of an empty max is -inf in both, compared below
        }
        for (bool keep : {false, true}) {
          SCOPED_TRACE(testing::Message()
                       << op << " " << shape.DebugString() << " mask=" << mask << " keep=" << keep);
          ASSERT_OK_AND_ASSIGN(
              auto out, RunKernel(op, {{x}, {axes_t}}, {{"keep_dims", MakeAttrValue(keep)}}));
          Tensor want = RefReduce(x, axes, keep, op);
          ASSERT_EQ(out[0].shape(), want.shape());
          for (int64_t i = 0; i < want.NumElements(); ++i) {
            const double w = want.flat<double>()(i), g = out[0].flat<double>()(i);
            if (std::isnan(w)) {
              EXPECT_TRUE(std::isnan(g));
            } else {
              ASSERT_NEAR(g, w, 1e-10 * std::max(1.0, std::abs(w)));
            }
          }
        }
      }
    }
  }
  Tensor x(DT_FLOAT, TensorShape({2}));
  EXPECT_THAT(RunKernel("Sum", {{x}, {Tensor::Scalar<int32_t>(3)}}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("out of range")));
}

TEST(ReductionTest, MaxAndMinPropagateNaNAsTensorFlow) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  Tensor x = Tensor::Vector<float>({1, nan, 3});
  for (const char* op : {"Max", "Min"}) {
    ASSERT_OK_AND_ASSIGN(auto out, RunKernel(op, {{x}, {Tensor::Scalar<int32_t>(0)}}));
    EXPECT_TRUE(std::isnan(out[0].scalar<float>()())) << op;
  }
  // An empty integer mean is 0, not a division by zero.
  ASSERT_OK_AND_ASSIGN(auto out, RunKernel("Mean", {{Tensor(DT_INT32, TensorShape({0}))},
                                                    {Tensor::Scalar<int32_t>(0)}}));
  EXPECT_EQ(out[0].scalar<int32_t>()(), 0);
}

TEST(ReductionTest, LongRowsSumAccurately) {
  // 2^25 float ones: one running float total stops growing at 2^24; the
  // row's blocked partial sums keep it exact.
  Tensor x(DT_FLOAT, TensorShape({1 << 25}));
  std::fill(x.data<float>(), x.data<float>() + x.NumElements(), 1.0f);
  ASSERT_OK_AND_ASSIGN(auto out, RunKernel("Sum", {{x}, {Tensor::Scalar<int32_t>(0)}}));
  EXPECT_EQ(out[0].scalar<float>()(), static_cast<float>(1 << 25));
}

TEST(ReductionTest, IntegerAndFloatTypes) {
  Tensor x = Tensor::Vector<int32_t>({1, 2, 3, 4});
  ASSERT_OK_AND_ASSIGN(auto out, RunKernel("Sum", {{x}, {Tensor::Scalar<int32_t>(0)}}));
  EXPECT_EQ(out[0].scalar<int32_t>()(), 10);
  Tensor f = Tensor::Vector<float>({1, 2, 3, 4});
  ASSERT_OK_AND_ASSIGN(out, RunKernel("Mean", {{f}, {Tensor::Vector<int64_t>({0})}}));
  EXPECT_EQ(out[0].scalar<float>()(), 2.5f);
}

TEST(ArgMaxTest, AlongEachAxis) {
  std::mt19937 rng(9);
  Tensor x = RandomUniform<float>(TensorShape({3, 4, 5}), &rng, -2, 2);
  for (int axis = -3; axis < 3; ++axis) {
    ASSERT_OK_AND_ASSIGN(auto out, RunKernel("ArgMax", {{x}, {Tensor::Scalar<int32_t>(axis)}}));
    const int a = axis < 0 ? axis + 3 : axis;
    auto t = x.tensor<float, 3>();
    int64_t o = 0;
    for (int i = 0; i < 3; ++i) {
      for (int j = 0; j < 4; ++j) {
        for (int k = 0; k < 5; ++k) {
          int c[3] = {i, j, k};
          if (c[a] != 0) continue;
          int best = 0;
          for (int v = 1; v < x.dim_size(a); ++v) {
            int cb[3] = {i, j, k}, cv[3] = {i, j, k};
            cb[a] = best;
            cv[a] = v;
            if (t(cv[0], cv[1], cv[2]) > t(cb[0], cb[1], cb[2])) best = v;
          }
          ASSERT_EQ(out[0].flat<int64_t>()(o++), best) << "axis " << axis;
        }
      }
    }
  }
  EXPECT_THAT(
      RunKernel("ArgMax", {{Tensor(DT_FLOAT, TensorShape({2, 0}))}, {Tensor::Scalar<int32_t>(1)}}),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("empty")));
}

TEST(NnKernelsTest, BiasAddAndGrad) {
  std::mt19937 rng(4);
  Tensor x = RandomUniform<float>(TensorShape({2, 3, 4}), &rng, -2, 2);
  Tensor b = RandomUniform<float>(TensorShape({4}), &rng, -2, 2);
  ASSERT_OK_AND_ASSIGN(auto out, RunKernel("BiasAdd", {{x}, {b}}));
  Tensor want(DT_FLOAT, x.shape());
  for (int i = 0; i < 24; ++i) want.flat<float>()(i) = x.flat<float>()(i) + b.flat<float>()(i % 4);
  ExpectTensorNear<float>(out[0], want, 1e-6);
  ASSERT_OK_AND_ASSIGN(auto grad, RunKernel("BiasAddGrad", {{x}}));
  Tensor gwant(DT_FLOAT, TensorShape({4}));
  gwant.flat<float>().setZero();
  for (int i = 0; i < 24; ++i) gwant.flat<float>()(i % 4) += x.flat<float>()(i);
  ExpectTensorNear<float>(grad[0], gwant, 1e-5);
  EXPECT_THAT(RunKernel("BiasAdd", {{x}, {Tensor(DT_FLOAT, TensorShape({3}))}}),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST(NnKernelsTest, SoftmaxLogSoftmaxAndCrossEntropy) {
  std::mt19937 rng(6);
  Tensor logits = RandomUniform<double>(TensorShape({5, 7}), &rng, -2, 2);
  Tensor labels(DT_DOUBLE, logits.shape());
  Tensor sparse(DT_INT64, TensorShape({5}));
  labels.flat<double>().setZero();
  for (int i = 0; i < 5; ++i) {
    sparse.flat<int64_t>()(i) = (i * 3) % 7;
    labels.matrix<double>()(i, (i * 3) % 7) = 1;
  }
  Tensor soft(DT_DOUBLE, logits.shape()), log_soft(DT_DOUBLE, logits.shape());
  Tensor loss(DT_DOUBLE, TensorShape({5}));
  for (int i = 0; i < 5; ++i) {
    double sum = 0;
    for (int j = 0; j < 7; ++j) sum += std::exp(logits.matrix<double>()(i, j));
    loss.flat<double>()(i) = 0;
    for (int j = 0; j < 7; ++j) {
      soft.matrix<double>()(i, j) = std::exp(logits.matrix<double>()(i, j)) / sum;
      log_soft.matrix<double>()(i, j) = logits.matrix<double>()(i, j) - std::log(sum);
      loss.flat<double>()(i) -= labels.matrix<double>()(i, j) * log_soft.matrix<double>()(i, j);
    }
  }
  ASSERT_OK_AND_ASSIGN(auto s, RunKernel("Softmax", {{logits}}));
  ExpectTensorNear<double>(s[0], soft, 1e-12);
  ASSERT_OK_AND_ASSIGN(auto ls, RunKernel("LogSoftmax", {{logits}}));
  ExpectTensorNear<double>(ls[0], log_soft, 1e-12);
  Tensor backprop(DT_DOUBLE, logits.shape());
  for (int i = 0; i < 35; ++i) {
    backprop.flat<double>()(i) = soft.flat<double>()(i) - labels.flat<double>()(i);
  }
  ASSERT_OK_AND_ASSIGN(auto x, RunKernel("SoftmaxCrossEntropyWithLogits", {{logits}, {labels}}));
  ExpectTensorNear<double>(x[0], loss, 1e-12);
  ExpectTensorNear<double>(x[1], backprop, 1e-12);
  ASSERT_OK_AND_ASSIGN(auto sx,
                       RunKernel("SparseSoftmaxCrossEntropyWithLogits", {{logits}, {sparse}}));
  ExpectTensorNear<double>(sx[0], loss, 1e-12);
  ExpectTensorNear<double>(sx[1], backprop, 1e-12);
  sparse.flat<int64_t>()(2) = 7;
  EXPECT_THAT(RunKernel("SparseSoftmaxCrossEntropyWithLogits", {{logits}, {sparse}}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("label value of 7 which is outside the valid range of [0, 7)")));
  // Large logits stay finite (the max is subtracted first).
  Tensor big = Tensor::Vector<float>({1000, 0});
  ASSERT_OK_AND_ASSIGN(big, big.Reshaped(TensorShape({1, 2})));
  ASSERT_OK_AND_ASSIGN(auto sb, RunKernel("Softmax", {{big}}));
  EXPECT_EQ(sb[0].SummarizeValue(4), "1 0");
  // A class masked out with a -inf logit leaves the sparse loss finite
  // (log(1 + e) - 1 for the label's logit 1 against 0).
  Tensor masked = Tensor::Vector<float>({0, -std::numeric_limits<float>::infinity(), 1});
  ASSERT_OK_AND_ASSIGN(masked, masked.Reshaped(TensorShape({1, 3})));
  ASSERT_OK_AND_ASSIGN(auto mx, RunKernel("SparseSoftmaxCrossEntropyWithLogits",
                                          {{masked}, {Tensor::Vector<int32_t>({2})}}));
  EXPECT_NEAR(mx[0].flat<float>()(0), std::log1p(std::exp(1.0f)) - 1.0f, 1e-6);
  EXPECT_EQ(mx[1].flat<float>()(1), 0.0f);
}

TEST(RandomKernelsTest, SeededDeterministicAndInRange) {
  Tensor shape = Tensor::Vector<int32_t>({20000});
  std::map<std::string, AttrValue> attrs = {{"dtype", MakeAttrValue(DT_FLOAT)},
                                            {"seed", MakeAttrValue(int64_t{7})},
                                            {"seed2", MakeAttrValue(int64_t{3})}};
  for (const char* op : {"RandomUniform", "RandomStandardNormal", "TruncatedNormal"}) {
    SCOPED_TRACE(op);
    ASSERT_OK_AND_ASSIGN(auto a, RunKernel(op, {{shape}}, attrs));
    ASSERT_OK_AND_ASSIGN(auto b, RunKernel(op, {{shape}}, attrs));
    EXPECT_EQ(a[0].tensor_data(), b[0].tensor_data());
    double sum = 0, sq = 0;
    for (int i = 0; i < 20000; ++i) {
      const float v = a[0].flat<float>()(i);
      sum += v;
      sq += v * v;
      if (op == std::string("RandomUniform")) ASSERT_TRUE(v >= 0 && v < 1);
      if (op == std::string("TruncatedNormal")) ASSERT_LT(std::abs(v), 2.0f);
    }
    const double mean = sum / 20000, var = sq / 20000 - mean * mean;
    // Means within 5 standard errors; variances of U(0,1), N(0,1) and the
    // normal truncated at 2 sigma (0.7737).
    if (op == std::string("RandomUniform")) {
      EXPECT_NEAR(mean, 0.5, 5 * 0.289 / std::sqrt(20000.0));
      EXPECT_NEAR(var, 1.0 / 12, 0.005);
    } else if (op == std::string("RandomStandardNormal")) {
      EXPECT_NEAR(mean, 0.0, 5 / std::sqrt(20000.0));
      EXPECT_NEAR(var, 1.0, 0.05);
    } else {
      EXPECT_NEAR(mean, 0.0, 5 * 0.88 / std::sqrt(20000.0));
      EXPECT_NEAR(var, 0.7737, 0.04);
    }
  }
  auto other = attrs;
  other["seed2"] = MakeAttrValue(int64_t{4});
  ASSERT_OK_AND_ASSIGN(auto c, RunKernel("RandomUniform", {{shape}}, other));
  ASSERT_OK_AND_ASSIGN(auto a, RunKernel("RandomUniform", {{shape}}, attrs));
  EXPECT_NE(a[0].tensor_data(), c[0].tensor_data());
}

// TensorFlow 2.21's first values for these seeds, bit for bit (its
// GuardedPhiloxRandom: key = seed, counter = [0, seed2]).
TEST(RandomKernelsTest, TensorFlowsValuesForSeeds) {
  auto run = [](const char* op, DataType dt, int64_t seed, int64_t seed2, int32_t n) {
    return RunKernel(op, {{Tensor::Vector<int32_t>({n})}},
                     {{"dtype", MakeAttrValue(dt)},
                      {"seed", MakeAttrValue(seed)},
                      {"seed2", MakeAttrValue(seed2)}});
  };
  ASSERT_OK_AND_ASSIGN(auto u, run("RandomUniform", DT_FLOAT, 1, 2, 4));
  EXPECT_EQ(u[0].flat<float>()(0), 0x1.a02678p-2f);
  EXPECT_EQ(u[0].flat<float>()(1), 0x1.b7174cp-1f);
  EXPECT_EQ(u[0].flat<float>()(2), 0x1.c5cd8p-5f);
  EXPECT_EQ(u[0].flat<float>()(3), 0x1.5fbbap-4f);
  ASSERT_OK_AND_ASSIGN(auto n, run("RandomStandardNormal", DT_DOUBLE, 7, 0, 3));
  EXPECT_EQ(n[0].flat<double>()(0), -0x1.29c57edcc53aep+1);
  EXPECT_EQ(n[0].flat<double>()(1), -0x1.4519bc4b1b85dp+0);
  EXPECT_EQ(n[0].flat<double>()(2), -0x1.9b29e2f7790b5p-2);
  ASSERT_OK_AND_ASSIGN(auto t, run("TruncatedNormal", DT_FLOAT, 3, 4, 3));
  EXPECT_EQ(t[0].flat<float>()(0), 0x1.2892bp-2f);
  EXPECT_EQ(t[0].flat<float>()(1), -0x1.18038ep-2f);
  EXPECT_EQ(t[0].flat<float>()(2), -0x1.31d3cp-2f);
}

// TensorFlow 2.21's values for these seeds (tf.random.stateless_uniform([5],
// seed=[1, 2]) and friends), bit for bit; the interop suite checks many more
// against TensorFlow itself.
TEST(StatelessRandomKernelsTest, TensorFlowsValuesForASeed) {
  Tensor seed = Tensor::Vector<int64_t>({1, 2});
  ASSERT_OK_AND_ASSIGN(auto kc, RunKernel("StatelessRandomGetKeyCounter", {{seed}},
                                          {{"Tseed", MakeAttrValue(DT_INT64)}}));
  EXPECT_EQ(kc[0].data<uint64_t>()[0], 10413732777507651514ull);
  EXPECT_EQ(kc[1].data<uint64_t>()[0], 0u);
  EXPECT_EQ(kc[1].data<uint64_t>()[1], 17830669156045600267ull);
  Tensor shape = Tensor::Vector<int32_t>({5});
  Tensor alg = Tensor::Scalar<int32_t>(1);
  ASSERT_OK_AND_ASSIGN(auto u, RunKernel("StatelessRandomUniformV2",
                                         {{shape}, {kc[0]}, {kc[1]}, {alg}},
                                         {{"dtype", MakeAttrValue(DT_FLOAT)},
                                          {"Tshape", MakeAttrValue(DT_INT32)}}));
  const uint32_t want_u[] = {0x3f581458, 0x3e44a788, 0x3f7f087c, 0x3e243c98, 0x3e8b424c};
  for (int i = 0; i < 5; ++i) {
    uint32_t bits;
    std::memcpy(&bits, u[0].data<float>() + i, 4);
    EXPECT_EQ(bits, want_u[i]) << i;
  }
  ASSERT_OK_AND_ASSIGN(auto t, RunKernel("StatelessTruncatedNormal",
                                         {{Tensor::Vector<int32_t>({3})}, {seed}},
                                         {{"dtype", MakeAttrValue(DT_DOUBLE)},
                                          {"T", MakeAttrValue(DT_INT32)},
                                          {"Tseed", MakeAttrValue(DT_INT64)}}));
  const uint64_t want_t[] = {0xbfc23745fceed393, 0x3fe7b30df7adce2e, 0xbfe1ad29167909a9};
  for (int i = 0; i < 3; ++i) {
    uint64_t bits;
    std::memcpy(&bits, t[0].data<double>() + i, 8);
    EXPECT_EQ(bits, want_t[i]) << i;
  }
  EXPECT_THAT(RunKernel("StatelessRandomUniformV2", {{shape}, {kc[0]}, {kc[1]},
                                                     {Tensor::Scalar<int32_t>(2)}},
                        {{"dtype", MakeAttrValue(DT_FLOAT)}, {"Tshape", MakeAttrValue(DT_INT32)}})
                  .status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("unsupported algorithm id 2")));
  EXPECT_THAT(RunKernel("StatelessRandomUniform",
                        {{shape}, {Tensor::Vector<int64_t>({1, 2, 3})}},
                        {{"dtype", MakeAttrValue(DT_FLOAT)},
                         {"T", MakeAttrValue(DT_INT32)},
                         {"Tseed", MakeAttrValue(DT_INT64)}})
                  .status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("seed must have shape [2]")));
}

// The division family's signs (TensorFlow's: floor division and modulo
// follow the divisor), integer division by zero, Round half to even, and
// the activations' values.
TEST(MathKernelsTest, DivisionRoundingAndActivations) {
  auto ints = [](std::initializer_list<int32_t> v) { return Tensor::Vector<int32_t>(v); };
  auto values = [](const Tensor& t) {
    std::vector<double> v;
    for (int64_t i = 0; i < t.NumElements(); ++i) {
      v.push_back(t.dtype() == DT_INT32 ? t.data<int32_t>()[i] : t.data<double>()[i]);
    }
    return v;
  };
  const Tensor a = ints({7, -7, 7, -7}), b = ints({2, 2, -2, -2});
  ASSERT_OK_AND_ASSIGN(auto out, RunKernel("Div", {{a}, {b}}));
  EXPECT_THAT(values(out[0]), ::testing::ElementsAre(3, -3, -3, 3));
  ASSERT_OK_AND_ASSIGN(out, RunKernel("FloorDiv", {{a}, {b}}));
  EXPECT_THAT(values(out[0]), ::testing::ElementsAre(3, -4, -4, 3));
  ASSERT_OK_AND_ASSIGN(out, RunKernel("FloorMod", {{a}, {b}}));
  EXPECT_THAT(values(out[0]), ::testing::ElementsAre(1, 1, -1, -1));
  EXPECT_THAT(RunKernel("FloorDiv", {{a}, {ints({1, 0, 1, 1})}}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("Integer division by zero")));
  const Tensor x = Tensor::Vector<double>({-7.5, 7.5, 2.5, -0.5});
  const Tensor y = Tensor::Vector<double>({2, 2, 0, -2});
  ASSERT_OK_AND_ASSIGN(out, RunKernel("FloorMod", {{x}, {Tensor::Vector<double>({2, -2, 2, 2})}}));
  EXPECT_THAT(values(out[0]), ::testing::ElementsAre(0.5, -0.5, 0.5, 1.5));
  ASSERT_OK_AND_ASSIGN(out, RunKernel("DivNoNan", {{x}, {y}}));
  EXPECT_THAT(values(out[0]), ::testing::ElementsAre(-3.75, 3.75, 0, 0.25));
  ASSERT_OK_AND_ASSIGN(out, RunKernel("Round", {{x}}));
  EXPECT_THAT(values(out[0]), ::testing::ElementsAre(-8, 8, 2, -0));
  ASSERT_OK_AND_ASSIGN(out, RunKernel("Softplus", {{Tensor::Vector<double>({-100, 0, 100})}}));
  EXPECT_NEAR(values(out[0])[0], std::exp(-100.0), 1e-50);
  EXPECT_NEAR(values(out[0])[1], std::log(2.0), 1e-12);
  EXPECT_EQ(values(out[0])[2], 100);
  ASSERT_OK_AND_ASSIGN(out, RunKernel("Relu6", {{Tensor::Vector<double>({-1, 3, 9})}}));
  EXPECT_THAT(values(out[0]), ::testing::ElementsAre(0, 3, 6));
  ASSERT_OK_AND_ASSIGN(out, RunKernel("Elu", {{Tensor::Vector<double>({-1, 2})}}));
  EXPECT_NEAR(values(out[0])[0], std::expm1(-1.0), 1e-12);
  ASSERT_OK_AND_ASSIGN(out, RunKernel("LeakyRelu", {{Tensor::Vector<double>({-1, 2})}},
                                      {{"alpha", MakeAttrValue(0.25f)}}));
  EXPECT_THAT(values(out[0]), ::testing::ElementsAre(-0.25, 2));
  ASSERT_OK_AND_ASSIGN(out, RunKernel("Rsqrt", {{Tensor::Vector<double>({4})}}));
  EXPECT_THAT(values(out[0]), ::testing::ElementsAre(0.5));
}

// Edge cases the op interop suite found, each as TensorFlow 2.21 gives it.
TEST(MathKernelsTest, EdgeValuesAsTensorFlow) {
  constexpr int32_t kMin = std::numeric_limits<int32_t>::min();
  const Tensor lowest = Tensor::Vector<int32_t>({kMin, kMin, 5});
  const Tensor minus_one = Tensor::Vector<int32_t>({-1, 3, -1});
  // The lowest integer by -1 wraps instead of trapping; floor division never
  // negates an operand (kMin / 3 floors to -715827883).
  ASSERT_OK_AND_ASSIGN(auto out, RunKernel("Div", {{lowest}, {minus_one}}));
  EXPECT_EQ(out[0].SummarizeValue(3), "-2147483648 -715827882 -5");
  ASSERT_OK_AND_ASSIGN(out, RunKernel("FloorDiv", {{lowest}, {minus_one}}));
  EXPECT_EQ(out[0].SummarizeValue(3), "-2147483648 -715827883 -5");
  ASSERT_OK_AND_ASSIGN(out, RunKernel("FloorMod", {{lowest}, {minus_one}}));
  EXPECT_EQ(out[0].SummarizeValue(3), "0 1 0");

  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const float denormal = std::numeric_limits<float>::denorm_min() * 8;
  // Relu and Relu6 keep a NaN; their gradients multiply (inf * 0 is NaN).
  ASSERT_OK_AND_ASSIGN(out, RunKernel("Relu", {{Tensor::Vector<float>({nan, -1, 2})}}));
  EXPECT_TRUE(std::isnan(out[0].flat<float>()(0)));
  ASSERT_OK_AND_ASSIGN(out, RunKernel("Relu6", {{Tensor::Vector<float>({nan, 7})}}));
  EXPECT_TRUE(std::isnan(out[0].flat<float>()(0)));
  EXPECT_EQ(out[0].flat<float>()(1), 6);
  ASSERT_OK_AND_ASSIGN(out, RunKernel("ReluGrad", {{Tensor::Vector<float>({inf, 1})},
                                                   {Tensor::Vector<float>({-1, 2})}}));
  EXPECT_TRUE(std::isnan(out[0].flat<float>()(0)));
  // Denormals read as zero, as under TensorFlow's executor: Floor(-tiny) is
  // -0, not -1; a double's Log is -inf; pow(0, tiny) is pow(0, 0) = 1.
  ASSERT_OK_AND_ASSIGN(out, RunKernel("Floor", {{Tensor::Vector<float>({-denormal})}}));
  EXPECT_EQ(out[0].flat<float>()(0), 0.0f);
  EXPECT_TRUE(std::signbit(out[0].flat<float>()(0)));
  ASSERT_OK_AND_ASSIGN(out, RunKernel("Log", {{Tensor::Vector<double>({5e-320})}}));
  EXPECT_EQ(out[0].flat<double>()(0), -std::numeric_limits<double>::infinity());
  ASSERT_OK_AND_ASSIGN(out, RunKernel("Pow", {{Tensor::Vector<float>({0})},
                                              {Tensor::Vector<float>({denormal})}}));
  EXPECT_EQ(out[0].flat<float>()(0), 1.0f);
  // Sqrt is exact at inf and -0; SqrtGrad and RsqrtGrad keep a zero
  // gradient zero where y is 0 or infinite.
  ASSERT_OK_AND_ASSIGN(out, RunKernel("Sqrt", {{Tensor::Vector<float>({inf, -0.0f, 4, 9, 16})}}));
  EXPECT_EQ(out[0].SummarizeValue(5), "inf -0 2 3 4");
  ASSERT_OK_AND_ASSIGN(out, RunKernel("SqrtGrad", {{Tensor::Vector<float>({0, 2})},
                                                   {Tensor::Vector<float>({0, 4})}}));
  EXPECT_EQ(out[0].SummarizeValue(2), "0 1");
  ASSERT_OK_AND_ASSIGN(out, RunKernel("RsqrtGrad", {{Tensor::Vector<float>({inf})},
                                                    {Tensor::Vector<float>({0})}}));
  EXPECT_EQ(out[0].SummarizeValue(1), "0");
  // An int32 mean sums in 64 bits: the mean of the lowest and -16 is exact.
  ASSERT_OK_AND_ASSIGN(out, RunKernel("Mean", {{Tensor::Vector<int32_t>({kMin, -16})},
                                               {Tensor::Scalar<int32_t>(0)}},
                                      {{"keep_dims", MakeAttrValue(false)}}));
  EXPECT_EQ(out[0].SummarizeValue(1), "-1073741832");
}

TEST(NnKernelsTest, BiasAddNchwAndCrossEntropyBroadcast) {
  // NCHW: the bias goes along dimension 1.
  Tensor x(DT_FLOAT, TensorShape({1, 2, 1, 2}));
  x.flat<float>().setValues({1, 2, 3, 4});
  const std::map<std::string, AttrValue> nchw = {{"data_format", MakeAttrValue("NCHW")}};
  ASSERT_OK_AND_ASSIGN(auto out, RunKernel("BiasAdd", {{x}, {Tensor::Vector<float>({10, 20})}},
                                           nchw));
  EXPECT_EQ(out[0].SummarizeValue(4), "11 12 23 24");
  ASSERT_OK_AND_ASSIGN(out, RunKernel("BiasAddGrad", {{x}}, nchw));
  EXPECT_EQ(out[0].SummarizeValue(2), "3 7");
  EXPECT_THAT(RunKernel("BiasAdd", {{x}, {Tensor::Vector<float>({1, 2})}},
                        {{"data_format", MakeAttrValue("NDHWC")}}),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("\"NDHWC\", which is not one of \"NHWC\", \"NCHW\"")));
  // Labels [1, c] broadcast over the batch, as TensorFlow's.
  Tensor logits(DT_FLOAT, TensorShape({2, 2}));
  logits.flat<float>().setValues({0, 0, 1, 1});
  Tensor labels(DT_FLOAT, TensorShape({1, 2}));
  labels.flat<float>().setValues({1, 0});
  ASSERT_OK_AND_ASSIGN(out, RunKernel("SoftmaxCrossEntropyWithLogits", {{logits}, {labels}}));
  EXPECT_EQ(out[0].shape(), TensorShape({2}));
  EXPECT_NEAR(out[0].flat<float>()(0), std::log(2.0), 1e-6);
  EXPECT_NEAR(out[0].flat<float>()(1), std::log(2.0), 1e-6);
  EXPECT_EQ(out[1].SummarizeValue(4), "-0.5 0.5 -0.5 0.5");
  EXPECT_THAT(RunKernel("SoftmaxCrossEntropyWithLogits",
                        {{logits}, {Tensor(DT_FLOAT, TensorShape({2, 3}))}}),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("broadcast")));
}

TEST(MathKernelsTest, ArgMinAllAny) {
  Tensor x(DT_FLOAT, TensorShape({2, 3}));
  const float v[] = {3, 1, 2, -1, 5, -1};
  std::copy(v, v + 6, x.data<float>());
  ASSERT_OK_AND_ASSIGN(auto out, RunKernel("ArgMin", {{x}, {Tensor::Scalar<int32_t>(1)}}));
  EXPECT_EQ(out[0].data<int64_t>()[0], 1);
  EXPECT_EQ(out[0].data<int64_t>()[1], 0);  // the first of equal minima
  Tensor b(DT_BOOL, TensorShape({2, 2}));
  const bool bv[] = {true, false, true, true};
  std::copy(bv, bv + 4, b.data<bool>());
  ASSERT_OK_AND_ASSIGN(out, RunKernel("All", {{b}, {Tensor::Scalar<int32_t>(1)}}));
  EXPECT_FALSE(out[0].data<bool>()[0]);
  EXPECT_TRUE(out[0].data<bool>()[1]);
  ASSERT_OK_AND_ASSIGN(out, RunKernel("Any", {{b}, {Tensor::Vector<int32_t>({0, 1})}}));
  EXPECT_TRUE(out[0].data<bool>()[0]);
}

// Cumsum and Cumprod on every axis, with exclusive and reverse, against a
// direct loop.
TEST(MathKernelsTest, ScansOnEveryAxisAgainstReference) {
  std::mt19937 rng(5);
  const Tensor x = RandomUniform<double>(TensorShape({2, 3, 4}), &rng, -2, 2);
  for (const char* op : {"Cumsum", "Cumprod"}) {
    const bool prod = std::string(op) == "Cumprod";
    for (int axis = -3; axis < 3; ++axis) {
      for (bool exclusive : {false, true}) {
        for (bool reverse : {false, true}) {
          SCOPED_TRACE(
              absl::StrCat(op, " axis ", axis, " exclusive ", exclusive, " reverse ", reverse));
          ASSERT_OK_AND_ASSIGN(auto out, RunKernel(op, {{x}, {Tensor::Scalar<int32_t>(axis)}},
                                                   {{"exclusive", MakeAttrValue(exclusive)},
                                                    {"reverse", MakeAttrValue(reverse)}}));
          const int a = (axis + 3) % 3;
          const int64_t dims[3] = {2, 3, 4};
          for (int64_t i = 0; i < 24; ++i) {
            int64_t at[3] = {i / 12, (i / 4) % 3, i % 4};
            double want = prod ? 1 : 0;
            for (int64_t k = 0; k < dims[a]; ++k) {
              const bool take = reverse ? (exclusive ? k > at[a] : k >= at[a])
                                        : (exclusive ? k < at[a] : k <= at[a]);
              if (!take) continue;
              int64_t src[3] = {at[0], at[1], at[2]};
              src[a] = k;
              const double v = x.data<double>()[src[0] * 12 + src[1] * 4 + src[2]];
              want = prod ? want * v : want + v;
            }
            ASSERT_NEAR(out[0].data<double>()[i], want, 1e-12) << "element " << i;
          }
        }
      }
    }
  }
  EXPECT_THAT(RunKernel("Cumsum", {{x}, {Tensor::Scalar<int32_t>(3)}}).status(),
              StatusIs(absl::StatusCode::kInvalidArgument));
}

TEST(MathKernelsTest, InTopKAndAssertFollowTensorFlow) {
  Tensor p(DT_FLOAT, TensorShape({3, 4}));
  const float v[] = {0.1f, 0.5f, 0.5f, 0.2f,  // ties with the 2nd largest count as in
                     1,    2,    3,    4,    1, std::nanf(""), 0, 0};
  std::copy(v, v + 12, p.data<float>());
  ASSERT_OK_AND_ASSIGN(auto out, RunKernel("InTopKV2", {{p},
                                                        {Tensor::Vector<int32_t>({2, 0, 1})},
                                                        {Tensor::Scalar<int32_t>(1)}}));
  EXPECT_EQ(out[0].SummarizeValue(3), "1 0 0");
  ASSERT_OK_AND_ASSIGN(
      out, RunKernel("InTopKV2",
                     {{p}, {Tensor::Vector<int64_t>({3, 1, 7})}, {Tensor::Scalar<int64_t>(3)}}));
  EXPECT_EQ(out[0].SummarizeValue(3), "1 1 0");  // out of range: false
  EXPECT_OK(
      RunKernel("Assert", {{Tensor::Scalar<bool>(true)}, {Tensor::Scalar<float>(1)}}).status());
  Tensor msg = Tensor::Scalar<std::string>("x must be positive, got");
  EXPECT_THAT(RunKernel("Assert", {{Tensor::Scalar<bool>(false)},
                                   {msg, Tensor::Vector<float>({-1, 2, 3, 4})}})
                  .status(),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("assertion failed: [x must be positive, got] [-1 2 3...]")));
}

// FusedBatchNorm against a direct computation: training statistics (the
// unbiased variance out, the biased one used and kept), running averages,
// inference with given statistics, NCHW.
TEST(MathKernelsTest, FusedBatchNormForward) {
  std::mt19937 rng(3);
  // NHWC: C = 2, 6 per channel.
  Tensor x = RandomUniform<float>(TensorShape({2, 3, 1, 2}), &rng, -2, 2);
  const Tensor scale = Tensor::Vector<float>({1.5f, 0.5f});
  const Tensor offset = Tensor::Vector<float>({0.25f, -1.0f});
  const Tensor mean = Tensor::Vector<float>({0.1f, -0.2f});
  const Tensor var = Tensor::Vector<float>({2.0f, 0.5f});
  double m[2] = {0, 0}, v[2] = {0, 0};
  for (int64_t i = 0; i < 12; ++i) m[i % 2] += x.data<float>()[i] / 6;
  for (int64_t i = 0; i < 12; ++i) {
    v[i % 2] += (x.data<float>()[i] - m[i % 2]) * (x.data<float>()[i] - m[i % 2]) / 6;
  }
  ASSERT_OK_AND_ASSIGN(auto out,
                       RunKernel("FusedBatchNormV3", {{x}, {scale}, {offset}, {mean}, {var}},
                                 {{"epsilon", MakeAttrValue(0.01f)},
                                  {"exponential_avg_factor", MakeAttrValue(0.25f)}}));
  ASSERT_EQ(out.size(), 6u);
  for (int64_t i = 0; i < 12; ++i) {
    const int c = i % 2;
    const double want =
        (x.data<float>()[i] - m[c]) / std::sqrt(v[c] + 0.01) * scale.data<float>()[c] +
        offset.data<float>()[c];
    EXPECT_NEAR(out[0].data<float>()[i], want, 1e-5) << i;
  }
  for (int c = 0; c < 2; ++c) {
    EXPECT_NEAR(out[1].data<float>()[c], 0.75 * mean.data<float>()[c] + 0.25 * m[c], 1e-6);
    EXPECT_NEAR(out[2].data<float>()[c], 0.75 * var.data<float>()[c] + 0.25 * v[c] * 6 / 5, 1e-6);
    EXPECT_NEAR(out[3].data<float>()[c], m[c], 1e-6);
    EXPECT_NEAR(out[4].data<float>()[c], v[c], 1e-6);
  }
  EXPECT_EQ(out[5].NumElements(), 0);
  // Inference, channels first: x as [2, 2, 3, 1] with the given statistics.
  Tensor xc(DT_FLOAT, TensorShape({2, 2, 3, 1}));
  std::copy(x.data<float>(), x.data<float>() + 12, xc.data<float>());
  ASSERT_OK_AND_ASSIGN(out, RunKernel("FusedBatchNorm", {{xc}, {scale}, {offset}, {mean}, {var}},
                                      {{"is_training", MakeAttrValue(false)},
                                       {"data_format", MakeAttrValue(std::string("NCHW"))}}));
  for (int64_t i = 0; i < 12; ++i) {
    const int c = (i / 3) % 2;
    const double want = (xc.data<float>()[i] - mean.data<float>()[c]) /
                            std::sqrt(var.data<float>()[c] + 1e-4) * scale.data<float>()[c] +
                        offset.data<float>()[c];
    EXPECT_NEAR(out[0].data<float>()[i], want, 1e-5) << i;
  }
  EXPECT_THAT(RunKernel("FusedBatchNormV3",
                        {{x}, {Tensor::Vector<float>({1, 2, 3})}, {offset}, {mean}, {var}})
                  .status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("scale")));
}

// BatchMatMulV2 against a triple loop per batch, with broadcasting; V1
// refuses batch dimensions that differ.
TEST(MathKernelsTest, BatchMatMulAgainstReference) {
  std::mt19937 rng(9);
  const Tensor x = RandomUniform<double>(TensorShape({2, 1, 3, 4}), &rng, -2, 2);
  const Tensor y = RandomUniform<double>(TensorShape({3, 5, 4}), &rng, -2, 2);  // used adjoint
  ASSERT_OK_AND_ASSIGN(auto out,
                       RunKernel("BatchMatMulV2", {{x}, {y}}, {{"adj_y", MakeAttrValue(true)}}));
  ASSERT_EQ(out[0].shape().DebugString(), "[2,3,3,5]");
  for (int a = 0; a < 2; ++a) {
    for (int b = 0; b < 3; ++b) {
      for (int i = 0; i < 3; ++i) {
        for (int j = 0; j < 5; ++j) {
          double want = 0;
          for (int k = 0; k < 4; ++k) {
            want += x.data<double>()[(a * 3 + i) * 4 + k] * y.data<double>()[(b * 5 + j) * 4 + k];
          }
          EXPECT_NEAR(out[0].data<double>()[((a * 3 + b) * 3 + i) * 5 + j], want, 1e-12);
        }
      }
    }
  }
  EXPECT_THAT(RunKernel("BatchMatMul", {{x}, {y}}, {{"adj_y", MakeAttrValue(true)}}).status(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("do not match")));
}

}  // namespace
}  // namespace minigraph
