// DepthwiseConv2dNative and its gradients against direct loops written from
// TensorFlow's definition, over paddings, strides, dilations, multipliers
// and thread counts; and their bad inputs.
#include <random>

#include "core/status_matchers.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "runtime/engine/kernels/kernel_test_util.h"
#include "tests/testing/tensors.h"

namespace minigraph {
namespace {

using ::testing::HasSubstr;

Tensor Random(const TensorShape& shape, int seed) {
  std::mt19937 rng(seed);
  return RandomUniform<double>(shape, &rng, -1, 1);
}

Tensor Ints(const std::vector<int32_t>& v) {
  Tensor t(DT_INT32, TensorShape({static_cast<int64_t>(v.size())}));
  std::copy(v.begin(), v.end(), t.data<int32_t>());
  return t;
}

struct Case {
  TensorShape input, filter;  // [n, h, w, d], [kh, kw, d, mult]
  std::string padding;
  int64_t stride, dilation;
  std::vector<int64_t> explicit_pad = {};  // top, bottom, left, right
};

std::map<std::string, AttrValue> Attrs(const Case& c) {
  std::map<std::string, AttrValue> a = {
      {"T", MakeAttrValue(DT_DOUBLE)},
      {"strides", MakeAttrValue(std::vector<int64_t>{1, c.stride, c.stride, 1})},
      {"dilations", MakeAttrValue(std::vector<int64_t>{1, c.dilation, c.dilation, 1})},
      {"padding", MakeAttrValue(c.padding)}};
  if (c.padding == "EXPLICIT") {
    const auto& p = c.explicit_pad;
    a["explicit_paddings"] =
        MakeAttrValue(std::vector<int64_t>{0, 0, p[0], p[1], p[2], p[3], 0, 0});
  }
  return a;
}

// TensorFlow's output size and padding before, for rows (dim 0) or columns.
void Window(const Case& c, int dim, int64_t in, int64_t k, int64_t* out, int64_t* pad) {
  const int64_t eff = (k - 1) * c.dilation + 1;
  if (c.padding == "VALID") {
    *out = (in - eff + c.stride) / c.stride;
    *pad = 0;
  } else if (c.padding == "SAME") {
    *out = (in + c.stride - 1) / c.stride;
    *pad = std::max<int64_t>(0, (*out - 1) * c.stride + eff - in) / 2;
  } else {
    const int64_t before = c.explicit_pad[2 * dim], after = c.explicit_pad[2 * dim + 1];
    *out = (in + before + after - eff + c.stride) / c.stride;
    *pad = before;
  }
}

// Every multiply-add of the depthwise convolution: f(input index, filter
// index, output index).
template <typename F>
TensorShape Visit(const Case& c, F f) {
  const int64_t n = c.input.dim_size(0), h = c.input.dim_size(1), w = c.input.dim_size(2);
  const int64_t d = c.input.dim_size(3), kh = c.filter.dim_size(0), kw = c.filter.dim_size(1);
  const int64_t m = c.filter.dim_size(3);
  int64_t oh, ow, ph, pw;
  Window(c, 0, h, kh, &oh, &ph);
  Window(c, 1, w, kw, &ow, &pw);
  for (int64_t b = 0; b < n; ++b)
    for (int64_t i = 0; i < oh; ++i)
      for (int64_t j = 0; j < ow; ++j)
        for (int64_t p = 0; p < kh; ++p)
          for (int64_t q = 0; q < kw; ++q) {
            const int64_t r = i * c.stride - ph + p * c.dilation;
            const int64_t s = j * c.stride - pw + q * c.dilation;
            if (r < 0 || r >= h || s < 0 || s >= w) continue;
            for (int64_t ci = 0; ci < d; ++ci)
              for (int64_t k = 0; k < m; ++k)
                f(((b * h + r) * w + s) * d + ci, ((p * kw + q) * d + ci) * m + k,
                  ((b * oh + i) * ow + j) * d * m + ci * m + k);
          }
  return TensorShape({n, oh, ow, d * m});
}

TEST(DepthwiseConvKernelsTest, ForwardAndGradientsMatchDirectLoops) {
  const std::vector<Case> cases = {
      {TensorShape({2, 7, 6, 3}), TensorShape({3, 3, 3, 1}), "SAME", 1, 1},
      {TensorShape({1, 9, 8, 4}), TensorShape({3, 3, 4, 2}), "VALID", 2, 1},
      {TensorShape({2, 9, 9, 2}), TensorShape({3, 3, 2, 3}), "SAME", 1, 2},
      {TensorShape({1, 8, 8, 5}), TensorShape({5, 5, 5, 1}), "SAME", 2, 1},
      {TensorShape({3, 5, 7, 2}), TensorShape({2, 3, 2, 1}), "EXPLICIT", 1, 1, {1, 2, 0, 3}},
      {TensorShape({2, 4, 4, 6}), TensorShape({1, 1, 6, 1}), "VALID", 1, 1},
      // Channels in whole blocks: the register-blocked paths, with their
      // edge columns.
      {TensorShape({2, 9, 11, 32}), TensorShape({3, 3, 32, 1}), "SAME", 1, 1},
      {TensorShape({1, 10, 13, 16}), TensorShape({3, 3, 16, 1}), "SAME", 1, 2},
      {TensorShape({1, 8, 14, 16}), TensorShape({5, 3, 16, 1}), "VALID", 1, 1},
      {TensorShape({1, 8, 9, 24}), TensorShape({3, 3, 24, 1}), "SAME", 1, 1},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.input.DebugString() + " " + c.filter.DebugString() + " " + c.padding);
    const Tensor x = Random(c.input, 1), f = Random(c.filter, 2);
    Tensor want(DT_DOUBLE, Visit(c, [](int64_t, int64_t, int64_t) {}));
    std::fill(want.data<double>(), want.data<double>() + want.NumElements(), 0.0);
    Visit(c, [&](int64_t xi, int64_t fi, int64_t yi) {
      want.data<double>()[yi] += x.data<double>()[xi] * f.data<double>()[fi];
    });
    const Tensor dy = Random(want.shape(), 3);
    Tensor want_dx(DT_DOUBLE, c.input), want_df(DT_DOUBLE, c.filter);
    std::fill(want_dx.data<double>(), want_dx.data<double>() + want_dx.NumElements(), 0.0);
    std::fill(want_df.data<double>(), want_df.data<double>() + want_df.NumElements(), 0.0);
    Visit(c, [&](int64_t xi, int64_t fi, int64_t yi) {
      want_dx.data<double>()[xi] += dy.data<double>()[yi] * f.data<double>()[fi];
      want_df.data<double>()[fi] += dy.data<double>()[yi] * x.data<double>()[xi];
    });
    auto dims = [](const TensorShape& s) {
      std::vector<int32_t> v;
      for (int i = 0; i < s.dims(); ++i) v.push_back(static_cast<int32_t>(s.dim_size(i)));
      return Ints(v);
    };
    for (int threads : {1, 2, 3}) {
      ASSERT_OK_AND_ASSIGN(auto y,
                           RunKernel("DepthwiseConv2dNative", {{x}, {f}}, Attrs(c), threads));
      ExpectTensorNear<double>(y[0], want, 1e-12);
      ASSERT_OK_AND_ASSIGN(auto dx, RunKernel("DepthwiseConv2dNativeBackpropInput",
                                              {{dims(c.input)}, {f}, {dy}}, Attrs(c), threads));
      ExpectTensorNear<double>(dx[0], want_dx, 1e-12);
      ASSERT_OK_AND_ASSIGN(auto df, RunKernel("DepthwiseConv2dNativeBackpropFilter",
                                              {{x}, {dims(c.filter)}, {dy}}, Attrs(c), threads));
      ExpectTensorNear<double>(df[0], want_df, 1e-12);
    }
  }
}

TEST(DepthwiseConvKernelsTest, BadInputsNameTheNode) {
  const auto attrs = Attrs({TensorShape(), TensorShape(), "VALID", 1, 1});
  EXPECT_THAT(RunKernel("DepthwiseConv2dNative",
                        {{Random({1, 4, 4, 2}, 1)}, {Random({3, 3, 3, 1}, 2)}}, attrs),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("node 'op'"), HasSubstr("same depth: 2 vs 3"))));
  EXPECT_THAT(RunKernel("DepthwiseConv2dNative",
                        {{Random({4, 4, 2}, 1)}, {Random({3, 3, 2, 1}, 2)}}, attrs),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("must have rank 4")));
  EXPECT_THAT(RunKernel("DepthwiseConv2dNative",
                        {{Random({1, 1, 1, 1}, 1)}, {Random({3, 3, 1, 1}, 2)}}, attrs),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("negative")));
  // input_sizes negative, of the wrong length, or not matching out_backprop.
  EXPECT_THAT(RunKernel("DepthwiseConv2dNativeBackpropInput",
                        {{Ints({1, -4, 4, 1})}, {Random({2, 2, 1, 1}, 2)},
                         {Random({1, 3, 3, 1}, 3)}},
                        attrs),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("input_sizes")));
  EXPECT_THAT(RunKernel("DepthwiseConv2dNativeBackpropInput",
                        {{Ints({1, 4, 4})}, {Random({2, 2, 1, 1}, 2)}, {Random({1, 3, 3, 1}, 3)}},
                        attrs),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("must have 4 elements")));
  EXPECT_THAT(RunKernel("DepthwiseConv2dNativeBackpropFilter",
                        {{Random({1, 4, 4, 1}, 1)}, {Ints({2, 2, 1, 1})},
                         {Random({1, 2, 3, 1}, 3)}},
                        attrs),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("out_backprop has shape")));
  auto nchw = attrs;
  nchw["data_format"] = MakeAttrValue("NCHW");
  EXPECT_THAT(RunKernel("DepthwiseConv2dNative",
                        {{Random({1, 1, 4, 4}, 1)}, {Random({2, 2, 4, 1}, 2)}}, nchw),
              StatusIs(absl::StatusCode::kUnimplemented, HasSubstr("NHWC")));
}

}  // namespace
}  // namespace minigraph
