// Conv2D, Conv3D, their gradients and the 2-D and 3-D pools against
// direct loops written from TensorFlow's definitions, over paddings (VALID,
// SAME, EXPLICIT), strides, dilations, the 1x1 shortcut and batches larger
// than one patch matrix; Dilation2D's bound on its rates; and
// MaxPoolGradWithArgmax's on its argmax.
#include <algorithm>
#include <array>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <vector>

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
  std::string padding;
  int64_t stride_r, stride_c, dil_r, dil_c;
  std::vector<int64_t> explicit_pad = {};  // top, bottom, left, right
};

std::map<std::string, AttrValue> ConvAttrs(const Case& c, DataType dt) {
  std::map<std::string, AttrValue> a = {
      {"T", MakeAttrValue(dt)},
      {"strides", MakeAttrValue(std::vector<int64_t>{1, c.stride_r, c.stride_c, 1})},
      {"dilations", MakeAttrValue(std::vector<int64_t>{1, c.dil_r, c.dil_c, 1})},
      {"padding", MakeAttrValue(c.padding)}};
  if (c.padding == "EXPLICIT") {
    const auto& p = c.explicit_pad;
    a["explicit_paddings"] =
        MakeAttrValue(std::vector<int64_t>{0, 0, p[0], p[1], p[2], p[3], 0, 0});
  }
  return a;
}

// Output size and padding before, as TensorFlow defines them.
void Window(const Case& c, int dim, int64_t in, int64_t k, int64_t* out, int64_t* pad) {
  const int64_t s = dim == 1 ? c.stride_r : c.stride_c;
  const int64_t eff = (k - 1) * (dim == 1 ? c.dil_r : c.dil_c) + 1;
  if (c.padding == "VALID") {
    *out = (in - eff + s) / s;
    *pad = 0;
  } else if (c.padding == "SAME") {
    *out = (in + s - 1) / s;
    *pad = std::max<int64_t>(0, (*out - 1) * s + eff - in) / 2;
  } else {
    const int64_t before = c.explicit_pad[dim == 1 ? 0 : 2];
    const int64_t after = c.explicit_pad[dim == 1 ? 1 : 3];
    *out = (in + before + after - eff + s) / s;
    *pad = before;
  }
}

// Direct convolution; `f` visits (input index, filter index, output index)
// of every multiply-add.
template <typename F>
void Visit(const Case& c, const TensorShape& x, const TensorShape& w, TensorShape* y, F f) {
  const int64_t n = x.dim_size(0), h = x.dim_size(1), wd = x.dim_size(2), d = x.dim_size(3);
  const int64_t kh = w.dim_size(0), kw = w.dim_size(1), od = w.dim_size(3);
  int64_t oh, ow, ph, pw;
  Window(c, 1, h, kh, &oh, &ph);
  Window(c, 2, wd, kw, &ow, &pw);
  *y = TensorShape({n, oh, ow, od});
  for (int64_t b = 0; b < n; ++b)
    for (int64_t i = 0; i < oh; ++i)
      for (int64_t j = 0; j < ow; ++j)
        for (int64_t p = 0; p < kh; ++p)
          for (int64_t q = 0; q < kw; ++q) {
            const int64_t r = i * c.stride_r - ph + p * c.dil_r;
            const int64_t s = j * c.stride_c - pw + q * c.dil_c;
            if (r < 0 || r >= h || s < 0 || s >= wd) continue;
            for (int64_t ci = 0; ci < d; ++ci)
              for (int64_t co = 0; co < od; ++co)
                f(((b * h + r) * wd + s) * d + ci, ((p * kw + q) * d + ci) * od + co,
                  ((b * oh + i) * ow + j) * od + co);
          }
}

const std::vector<Case> kCases = {{"VALID", 1, 1, 1, 1},
                                  {"SAME", 1, 1, 1, 1},
                                  {"SAME", 2, 2, 1, 1},
                                  {"VALID", 2, 3, 1, 1},
                                  {"SAME", 1, 2, 2, 1},
                                  {"VALID", 1, 1, 2, 2},
                                  {"EXPLICIT", 1, 2, 1, 1, {1, 2, 0, 3}}};

TEST(ConvKernelsTest, Conv2DAndItsGradientsMatchDirectLoops) {
  for (const TensorShape& ws : {TensorShape({3, 2, 3, 4}), TensorShape({1, 1, 3, 4})}) {
    for (const Case& c : kCases) {
      SCOPED_TRACE(c.padding + " strides " + std::to_string(c.stride_r) + "," +
                   std::to_string(c.stride_c) + " dilations " + std::to_string(c.dil_r) + "," +
                   std::to_string(c.dil_c) + " filter " + ws.DebugString());
      const TensorShape xs({2, 7, 8, 3});
      Tensor x = Random(xs, 1), w = Random(ws, 2);
      TensorShape ys;
      Visit(c, xs, ws, &ys, [](int64_t, int64_t, int64_t) {});
      Tensor dy = Random(ys, 3);
      Tensor y(DT_DOUBLE, ys), dx(DT_DOUBLE, xs), dw(DT_DOUBLE, ws);
      y.flat<double>().setZero();
      dx.flat<double>().setZero();
      dw.flat<double>().setZero();
      Visit(c, xs, ws, &ys, [&](int64_t xi, int64_t wi, int64_t yi) {
        y.data<double>()[yi] += x.data<double>()[xi] * w.data<double>()[wi];
        dx.data<double>()[xi] += dy.data<double>()[yi] * w.data<double>()[wi];
        dw.data<double>()[wi] += dy.data<double>()[yi] * x.data<double>()[xi];
      });
      const auto attrs = ConvAttrs(c, DT_DOUBLE);
      ASSERT_OK_AND_ASSIGN(auto got, RunKernel("Conv2D", {{x}, {w}}, attrs));
      ExpectTensorNear<double>(got[0], y, 1e-12);
      ASSERT_OK_AND_ASSIGN(
          got, RunKernel("Conv2DBackpropInput", {{Ints({2, 7, 8, 3})}, {w}, {dy}}, attrs));
      ExpectTensorNear<double>(got[0], dx, 1e-12);
      std::vector<int32_t> wdims;
      for (int i = 0; i < 4; ++i) wdims.push_back(static_cast<int32_t>(ws.dim_size(i)));
      ASSERT_OK_AND_ASSIGN(got,
                           RunKernel("Conv2DBackpropFilter", {{x}, {Ints(wdims)}, {dy}}, attrs));
      ExpectTensorNear<double>(got[0], dw, 1e-12);
    }
  }
}

// float, one thread and two, and a batch split over several patch matrices
// (64 MiB each): 40 images of 64x64x16 with a 5x5x16 filter.
TEST(ConvKernelsTest, LargeBatchesAreSplitAndFloatMatches) {
  const Case c{"SAME", 1, 1, 1, 1};
  const TensorShape xs({40, 64, 64, 16}), ws({5, 5, 16, 2});
  Tensor xd = Random(xs, 4), wd = Random(ws, 5);
  TensorShape ys;
  Visit(c, xs, ws, &ys, [](int64_t, int64_t, int64_t) {});
  Tensor y(DT_DOUBLE, ys);
  y.flat<double>().setZero();
  Visit(c, xs, ws, &ys, [&](int64_t xi, int64_t wi, int64_t yi) {
    y.data<double>()[yi] += xd.data<double>()[xi] * wd.data<double>()[wi];
  });
  Tensor x(DT_FLOAT, xs), w(DT_FLOAT, ws), yf(DT_FLOAT, ys);
  x.flat<float>() = xd.flat<double>().cast<float>();
  w.flat<float>() = wd.flat<double>().cast<float>();
  yf.flat<float>() = y.flat<double>().cast<float>();
  for (int threads : {1, 2}) {
    ASSERT_OK_AND_ASSIGN(auto got,
                         RunKernel("Conv2D", {{x}, {w}}, ConvAttrs(c, DT_FLOAT), threads));
    ExpectTensorNear<float>(got[0], yf, 1e-4);
  }
}

TEST(ConvKernelsTest, BadInputsNameTheNode) {
  const auto attrs = ConvAttrs({"VALID", 1, 1, 1, 1}, DT_DOUBLE);
  EXPECT_THAT(RunKernel("Conv2D", {{Random({1, 4, 4, 6}, 1)}, {Random({2, 2, 4, 1}, 2)}}, attrs),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("not a multiple")));
  EXPECT_THAT(RunKernel("Conv2D", {{Random({1, 1, 1, 1}, 1)}, {Random({3, 3, 1, 1}, 2)}}, attrs),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("negative")));
  auto nchw = attrs;
  nchw["data_format"] = MakeAttrValue("NCHW");
  EXPECT_THAT(RunKernel("Conv2D", {{Random({1, 1, 4, 4}, 1)}, {Random({2, 2, 1, 1}, 2)}}, nchw),
              StatusIs(absl::StatusCode::kUnimplemented, HasSubstr("NHWC")));
  auto batch_stride = attrs;
  batch_stride["strides"] = MakeAttrValue(std::vector<int64_t>{2, 1, 1, 1});
  EXPECT_THAT(
      RunKernel("Conv2D", {{Random({1, 4, 4, 1}, 1)}, {Random({2, 2, 1, 1}, 2)}}, batch_stride),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("batch and depth")));
  EXPECT_THAT(
      RunKernel("Conv2DBackpropInput",
                {{Ints({1, 4, 4, 1})}, {Random({2, 2, 1, 1}, 2)}, {Random({1, 2, 2, 1}, 3)}},
                attrs),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("out_backprop")));
  EXPECT_THAT(RunKernel("Conv2DBackpropInput",
                        {{Ints({1, 4, 4})}, {Random({2, 2, 1, 1}, 2)}, {Random({1, 3, 3, 1}, 3)}},
                        attrs),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("must have 4 elements, got 3")));
  std::map<std::string, AttrValue> pool = {
      {"T", MakeAttrValue(DT_DOUBLE)},
      {"ksize", MakeAttrValue(std::vector<int64_t>{1, 2, 2, 1})},
      {"strides", MakeAttrValue(std::vector<int64_t>{1, 1, 1, 1})},
      {"padding", MakeAttrValue("VALID")}};
  EXPECT_THAT(RunKernel("AvgPoolGrad", {{Ints({1, -4, 4, 1})}, {Random({1, 3, 3, 1}, 3)}}, pool),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("orig_input_shape")));
  EXPECT_THAT(RunKernel("MaxPoolGrad", {{Random({1, 4, 4, 1}, 1)}, {Random({1, 3, 3, 1}, 2)},
                                        {Random({1, 2, 3, 1}, 3)}},
                        pool),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("grad has shape")));
}

// Conv3D and its backprops against a direct loop: SAME and VALID, strides
// in each dimension, and the 1x1x1 shortcut.
TEST(ConvKernelsTest, Conv3DAndItsGradientsMatchADirectLoop) {
  struct Case3 {
    std::string padding;
    std::array<int64_t, 3> stride, k;
  };
  for (const Case3& c :
       {Case3{"SAME", {1, 1, 1}, {3, 2, 3}}, Case3{"VALID", {2, 1, 2}, {2, 3, 2}},
        Case3{"SAME", {2, 2, 1}, {3, 3, 1}}, Case3{"SAME", {1, 1, 1}, {1, 1, 1}}}) {
    SCOPED_TRACE(c.padding + " strides " + std::to_string(c.stride[0]) +
                 std::to_string(c.stride[1]) + std::to_string(c.stride[2]));
    const std::array<int64_t, 3> in = {5, 6, 4};
    const int64_t n = 2, d = 3, od = 2;
    std::array<int64_t, 3> out, pad;
    for (int i = 0; i < 3; ++i) {
      const Case one{c.padding, c.stride[i], 1, 1, 1};
      Window(one, 1, in[i], c.k[i], &out[i], &pad[i]);
    }
    const TensorShape xs({n, in[0], in[1], in[2], d}), ws({c.k[0], c.k[1], c.k[2], d, od}),
        ys({n, out[0], out[1], out[2], od});
    Tensor x = Random(xs, 1), w = Random(ws, 2), dy = Random(ys, 3);
    Tensor y(DT_DOUBLE, ys), dx(DT_DOUBLE, xs), dw(DT_DOUBLE, ws);
    y.flat<double>().setZero();
    dx.flat<double>().setZero();
    dw.flat<double>().setZero();
    for (int64_t b = 0; b < n; ++b)
      for (int64_t o0 = 0; o0 < out[0]; ++o0)
        for (int64_t o1 = 0; o1 < out[1]; ++o1)
          for (int64_t o2 = 0; o2 < out[2]; ++o2)
            for (int64_t k0 = 0; k0 < c.k[0]; ++k0)
              for (int64_t k1 = 0; k1 < c.k[1]; ++k1)
                for (int64_t k2 = 0; k2 < c.k[2]; ++k2) {
                  const int64_t i0 = o0 * c.stride[0] - pad[0] + k0;
                  const int64_t i1 = o1 * c.stride[1] - pad[1] + k1;
                  const int64_t i2 = o2 * c.stride[2] - pad[2] + k2;
                  if (i0 < 0 || i0 >= in[0] || i1 < 0 || i1 >= in[1] || i2 < 0 || i2 >= in[2])
                    continue;
                  for (int64_t ci = 0; ci < d; ++ci)
                    for (int64_t co = 0; co < od; ++co) {
                      const int64_t xi = (((b * in[0] + i0) * in[1] + i1) * in[2] + i2) * d + ci;
                      const int64_t wi = (((k0 * c.k[1] + k1) * c.k[2] + k2) * d + ci) * od + co;
                      const int64_t yi =
                          (((b * out[0] + o0) * out[1] + o1) * out[2] + o2) * od + co;
                      y.data<double>()[yi] += x.data<double>()[xi] * w.data<double>()[wi];
                      dx.data<double>()[xi] += dy.data<double>()[yi] * w.data<double>()[wi];
                      dw.data<double>()[wi] += dy.data<double>()[yi] * x.data<double>()[xi];
                    }
                }
    const std::map<std::string, AttrValue> attrs = {
        {"T", MakeAttrValue(DT_DOUBLE)},
        {"strides",
         MakeAttrValue(std::vector<int64_t>{1, c.stride[0], c.stride[1], c.stride[2], 1})},
        {"padding", MakeAttrValue(c.padding)}};
    ASSERT_OK_AND_ASSIGN(auto got, RunKernel("Conv3D", {{x}, {w}}, attrs));
    ExpectTensorNear<double>(got[0], y, 1e-12);
    ASSERT_OK_AND_ASSIGN(
        got, RunKernel("Conv3DBackpropInputV2", {{Ints({2, 5, 6, 4, 3})}, {w}, {dy}}, attrs));
    ExpectTensorNear<double>(got[0], dx, 1e-12);
    const std::vector<int32_t> wdims = {static_cast<int32_t>(c.k[0]), static_cast<int32_t>(c.k[1]),
                                        static_cast<int32_t>(c.k[2]), 3, 2};
    ASSERT_OK_AND_ASSIGN(
        got, RunKernel("Conv3DBackpropFilterV2", {{x}, {Ints(wdims)}, {dy}}, attrs));
    ExpectTensorNear<double>(got[0], dw, 1e-12);
  }
}

// TensorFlow's CPU kernels take no dilations, groups or NCDHW for Conv3D.
TEST(ConvKernelsTest, Conv3DRefusesWhatTensorFlowsCpuKernelsRefuse) {
  std::map<std::string, AttrValue> attrs = {
      {"T", MakeAttrValue(DT_DOUBLE)},
      {"strides", MakeAttrValue(std::vector<int64_t>{1, 1, 1, 1, 1})},
      {"padding", MakeAttrValue("SAME")}};
  const Tensor x = Random({1, 3, 3, 3, 4}, 1), w = Random({2, 2, 2, 4, 1}, 2);
  auto dilated = attrs;
  dilated["dilations"] = MakeAttrValue(std::vector<int64_t>{1, 2, 1, 1, 1});
  EXPECT_THAT(RunKernel("Conv3D", {{x}, {w}}, dilated),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("dilated rates of 1")));
  auto ncdhw = attrs;
  ncdhw["data_format"] = MakeAttrValue("NCDHW");
  EXPECT_THAT(RunKernel("Conv3D", {{x}, {w}}, ncdhw),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("NDHWC")));
  EXPECT_THAT(RunKernel("Conv3D", {{x}, {Random({2, 2, 2, 2, 1}, 2)}}, attrs),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Number of channels in filter (2)")));
  EXPECT_THAT(RunKernel("Conv3D", {{x}, {Random({2, 2, 4, 1}, 2)}}, attrs),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("must have rank 5")));
  EXPECT_THAT(RunKernel("Conv3DBackpropInputV2",
                        {{Ints({1, 3, 3, 3})}, {w}, {Random({1, 3, 3, 3, 1}, 3)}}, attrs),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("must have 5 elements, got 4")));
  EXPECT_THAT(RunKernel("Conv3DBackpropFilterV2",
                        {{x}, {Ints({2, 2, 2, 4, 1})}, {Random({1, 3, 2, 3, 1}, 3)}}, attrs),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("out_backprop")));
}

// Pools: a max ignores padding and sends its gradient to the first maximum
// of the window; an average divides by the elements inside the window.
TEST(ConvKernelsTest, PoolsAndTheirGradientsMatchDirectLoops) {
  for (const Case& c : {Case{"VALID", 2, 2, 1, 1}, Case{"SAME", 2, 2, 1, 1},
                        Case{"SAME", 1, 1, 1, 1}, Case{"VALID", 1, 2, 1, 1}}) {
    SCOPED_TRACE(c.padding + " strides " + std::to_string(c.stride_r) + "," +
                 std::to_string(c.stride_c));
    const TensorShape xs({2, 5, 6, 3});
    Tensor x = Random(xs, 6);
    // Ties: equal values in a window; the first (row-major) gets the grad.
    x.data<double>()[0] = x.data<double>()[3] = 5;
    const int64_t kh = 3, kw = 2;
    int64_t oh, ow, ph, pw;
    Window(c, 1, 5, kh, &oh, &ph);
    Window(c, 2, 6, kw, &ow, &pw);
    const TensorShape ys({2, oh, ow, 3});
    Tensor dy = Random(ys, 7);
    Tensor mx(DT_DOUBLE, ys), av(DT_DOUBLE, ys), dmx(DT_DOUBLE, xs), dav(DT_DOUBLE, xs);
    dmx.flat<double>().setZero();
    dav.flat<double>().setZero();
    for (int64_t b = 0; b < 2; ++b)
      for (int64_t i = 0; i < oh; ++i)
        for (int64_t j = 0; j < ow; ++j)
          for (int64_t d = 0; d < 3; ++d) {
            double best = -std::numeric_limits<double>::infinity(), sum = 0;
            int64_t at = -1, count = 0;
            for (int64_t p = 0; p < kh; ++p)
              for (int64_t q = 0; q < kw; ++q) {
                const int64_t r = i * c.stride_r - ph + p, s = j * c.stride_c - pw + q;
                if (r < 0 || r >= 5 || s < 0 || s >= 6) continue;
                const int64_t xi = ((b * 5 + r) * 6 + s) * 3 + d;
                if (at < 0 || x.data<double>()[xi] > best) best = x.data<double>()[at = xi];
                sum += x.data<double>()[xi];
                ++count;
              }
            const int64_t yi = ((b * oh + i) * ow + j) * 3 + d;
            mx.data<double>()[yi] = best;
            av.data<double>()[yi] = sum / count;
            dmx.data<double>()[at] += dy.data<double>()[yi];
            for (int64_t p = 0; p < kh; ++p)
              for (int64_t q = 0; q < kw; ++q) {
                const int64_t r = i * c.stride_r - ph + p, s = j * c.stride_c - pw + q;
                if (r < 0 || r >= 5 || s < 0 || s >= 6) continue;
                dav.data<double>()[((b * 5 + r) * 6 + s) * 3 + d] += dy.data<double>()[yi] / count;
              }
          }
    std::map<std::string, AttrValue> attrs = {
        {"T", MakeAttrValue(DT_DOUBLE)},
        {"ksize", MakeAttrValue(std::vector<int64_t>{1, kh, kw, 1})},
        {"strides", MakeAttrValue(std::vector<int64_t>{1, c.stride_r, c.stride_c, 1})},
        {"padding", MakeAttrValue(c.padding)}};
    ASSERT_OK_AND_ASSIGN(auto got, RunKernel("MaxPool", {{x}}, attrs));
    ExpectTensorNear<double>(got[0], mx, 1e-12);
    ASSERT_OK_AND_ASSIGN(got, RunKernel("MaxPoolGrad", {{x}, {mx}, {dy}}, attrs));
    ExpectTensorNear<double>(got[0], dmx, 1e-12);
    ASSERT_OK_AND_ASSIGN(got, RunKernel("AvgPool", {{x}}, attrs));
    ExpectTensorNear<double>(got[0], av, 1e-12);
    ASSERT_OK_AND_ASSIGN(got, RunKernel("AvgPoolGrad", {{Ints({2, 5, 6, 3})}, {dy}}, attrs));
    ExpectTensorNear<double>(got[0], dav, 1e-12);
  }
}

// Ties: each window's gradient goes to its first maximum (two channels,
// so the per-channel comparisons run side by side), as in TensorFlow.
TEST(ConvKernelsTest, MaxPoolGradGivesEachWindowToItsFirstMaximum) {
  // [1, 2, 3, 2]: channel 0 is all 1; channel 1 has its maxima (5) at
  // columns 1 and 2 of row 0 and at column 2 of row 1.
  Tensor x(DT_DOUBLE, TensorShape({1, 2, 3, 2}));
  const double xs[] = {1, 0, 1, 5, 1, 5, 1, 1, 1, 2, 1, 5};
  std::copy(std::begin(xs), std::end(xs), x.data<double>());
  Tensor y(DT_DOUBLE, TensorShape({1, 1, 2, 2}));
  const double ys[] = {1, 5, 1, 5};
  std::copy(std::begin(ys), std::end(ys), y.data<double>());
  Tensor dy(DT_DOUBLE, TensorShape({1, 1, 2, 2}));
  const double dys[] = {10, 20, 30, 40};
  std::copy(std::begin(dys), std::end(dys), dy.data<double>());
  const std::map<std::string, AttrValue> attrs = {
      {"T", MakeAttrValue(DT_DOUBLE)},
      {"ksize", MakeAttrValue(std::vector<int64_t>{1, 2, 2, 1})},
      {"strides", MakeAttrValue(std::vector<int64_t>{1, 1, 1, 1})},
      {"padding", MakeAttrValue("VALID")}};
  ASSERT_OK_AND_ASSIGN(auto got, RunKernel("MaxPoolGrad", {{x}, {y}, {dy}}, attrs));
  // Channel 0: both windows' first position is (0, 0) and (0, 1).
  // Channel 1: window 0's first 5 is (0, 1); window 1's is (0, 1) too.
  const double want[] = {10, 0, 30, 60, 0, 0, 0, 0, 0, 0, 0, 0};
  for (int i = 0; i < 12; ++i) EXPECT_EQ(got[0].data<double>()[i], want[i]) << i;
}

// 3-D pools on one column of four planes, windows of three (SAME, stride
// 1): the first window holds planes 0 and 1, the last planes 2 and 3.
TEST(ConvKernelsTest, Pools3DMatchTheirDefinitions) {
  const std::map<std::string, AttrValue> attrs = {
      {"T", MakeAttrValue(DT_FLOAT)},
      {"ksize", MakeAttrValue(std::vector<int64_t>{1, 3, 1, 1, 1})},
      {"strides", MakeAttrValue(std::vector<int64_t>{1, 1, 1, 1, 1})},
      {"padding", MakeAttrValue("SAME")}};
  const TensorShape shape({1, 4, 1, 1, 1});
  Tensor x(DT_FLOAT, shape), dy(DT_FLOAT, shape);
  std::copy_n(std::vector<float>{2, 2, 1, 5}.data(), 4, x.data<float>());
  std::copy_n(std::vector<float>{1, 10, 100, 1000}.data(), 4, dy.data<float>());
  ASSERT_OK_AND_ASSIGN(auto max, RunKernel("MaxPool3D", {{x}}, attrs));
  EXPECT_THAT(std::vector<float>(max[0].data<float>(), max[0].data<float>() + 4),
              ::testing::ElementsAre(2, 2, 5, 5));
  ASSERT_OK_AND_ASSIGN(auto avg, RunKernel("AvgPool3D", {{x}}, attrs));
  EXPECT_THAT(std::vector<float>(avg[0].data<float>(), avg[0].data<float>() + 4),
              ::testing::ElementsAre(2, 5.0f / 3, 8.0f / 3, 3));
  // Both 2s tie for the first two windows' maxima, and both get their
  // gradients (TensorFlow's 3-D rule; its 2-D one picks the first).
  ASSERT_OK_AND_ASSIGN(auto dmax, RunKernel("MaxPool3DGrad", {{x}, {max[0]}, {dy}}, attrs));
  EXPECT_THAT(std::vector<float>(dmax[0].data<float>(), dmax[0].data<float>() + 4),
              ::testing::ElementsAre(11, 11, 0, 1100));
  ASSERT_OK_AND_ASSIGN(auto davg,
                       RunKernel("AvgPool3DGrad", {{Ints({1, 4, 1, 1, 1})}, {dy}}, attrs));
  EXPECT_THAT(std::vector<float>(davg[0].data<float>(), davg[0].data<float>() + 4),
              ::testing::ElementsAre(0.5f + 10.0f / 3, 0.5f + 10.0f / 3 + 100.0f / 3,
                                     10.0f / 3 + 100.0f / 3 + 500, 100.0f / 3 + 500));
  auto batch = attrs;
  batch["ksize"] = MakeAttrValue(std::vector<int64_t>{2, 3, 1, 1, 1});
  EXPECT_THAT(RunKernel("MaxPool3D", {{x}}, batch),
              StatusIs(absl::StatusCode::kUnimplemented, HasSubstr("batch dimension")));
  EXPECT_THAT(RunKernel("MaxPool3DGrad", {{x}, {max[0]}, {Tensor(DT_FLOAT, {1, 2, 1, 1, 1})}},
                        attrs),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("grad has shape")));
}

TEST(ConvKernelsTest, PoolAttrsAreCheckedWithTensorFlowsMessages) {
  std::map<std::string, AttrValue> attrs = {
      {"T", MakeAttrValue(DT_FLOAT)},
      {"ksize", MakeAttrValue(std::vector<int64_t>{1, 2, 2})},
      {"strides", MakeAttrValue(std::vector<int64_t>{1, 1, 1, 1})},
      {"padding", MakeAttrValue("VALID")}};
  Tensor x(DT_FLOAT, TensorShape({1, 4, 4, 1}));
  x.flat<float>().setZero();
  EXPECT_THAT(RunKernel("MaxPool", {{x}}, attrs),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Length for attr 'ksize' of 3 must be at least minimum 4")));
  attrs["ksize"] = MakeAttrValue(std::vector<int64_t>{2, 2, 2, 1});
  EXPECT_THAT(RunKernel("MaxPool", {{x}}, attrs),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("Pooling is not yet supported on the batch nor depth")));
  attrs["ksize"] = MakeAttrValue(std::vector<int64_t>{1, 2, 2, 1});
  attrs["padding"] = MakeAttrValue("FULL");
  EXPECT_THAT(RunKernel("MaxPool", {{x}}, attrs),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("'padding' = \"FULL\", which is not one of")));
}

TEST(ConvKernelsTest, DilationRatesPastInt64AreInvalid) {
  const std::map<std::string, AttrValue> attrs = {
      {"T", MakeAttrValue(DT_DOUBLE)},
      {"strides", MakeAttrValue(std::vector<int64_t>{1, 1, 1, 1})},
      {"rates", MakeAttrValue(std::vector<int64_t>{1, int64_t{1} << 62, 1, 1})},
      {"padding", MakeAttrValue("SAME")}};
  EXPECT_THAT(RunKernel("Dilation2D", {{Random({1, 4, 4, 1}, 1)}, {Random({3, 2, 1}, 2)}}, attrs),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("does not fit in 64 bits")));
}

TEST(ConvKernelsTest, ArgmaxOutsideItsImageIsInvalid) {
  // (TensorFlow's kernel aborts the process on these.)
  const std::map<std::string, AttrValue> attrs = {
      {"T", MakeAttrValue(DT_DOUBLE)},
      {"ksize", MakeAttrValue(std::vector<int64_t>{1, 2, 2, 1})},
      {"strides", MakeAttrValue(std::vector<int64_t>{1, 2, 2, 1})},
      {"padding", MakeAttrValue("VALID")}};
  const Tensor x = Random({2, 4, 4, 1}, 1);
  const Tensor grad = Random({2, 2, 2, 1}, 2);
  for (int64_t bad : {int64_t{-1}, int64_t{16}, int64_t{1} << 40}) {
    Tensor argmax(DT_INT64, TensorShape({2, 2, 2, 1}));
    std::fill_n(argmax.data<int64_t>(), 8, 0);
    argmax.data<int64_t>()[5] = bad;
    EXPECT_THAT(RunKernel("MaxPoolGradWithArgmax", {{x}, {grad}, {argmax}}, attrs),
                StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("outside [0, 16)")))
        << bad;
  }
  // With the batch in the index, the second image's run from 16 to 32.
  auto with_batch = attrs;
  with_batch["include_batch_in_index"] = MakeAttrValue(true);
  Tensor argmax(DT_INT64, TensorShape({2, 2, 2, 1}));
  std::fill_n(argmax.data<int64_t>(), 8, 3);
  EXPECT_THAT(RunKernel("MaxPoolGradWithArgmax", {{x}, {grad}, {argmax}}, with_batch),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("outside [16, 32)")));
}

}  // namespace
}  // namespace minigraph
