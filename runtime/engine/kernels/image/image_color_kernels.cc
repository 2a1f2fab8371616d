// Colour adjustments of RGB images (the last dimension the 3 channels):
// RGBToHSV, HSVToRGB, AdjustHue, AdjustSaturation and AdjustContrastv2, as
// TensorFlow's colorspace_op.h, adjust_hue_op.cc, adjust_saturation_op.cc
// and adjust_contrast_op.cc compute them (their formulas and their order of
// float operations, so that results agree to the last bits).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "runtime/engine/kernels/internal/kernel_families.h"
#include "runtime/engine/op_kernel.h"

namespace minigraph {
namespace kernels_internal {
namespace {

// OK when `t` has at least `rank` dimensions and 3 channels last (else
// InvalidArgument; FailedPrecondition for the channels of the colour-space
// conversions (rank 1), as TensorFlow's).
absl::Status CheckRgb(const Tensor& t, int rank) {
  if (t.dims() < rank) {
    return absl::InvalidArgumentError(absl::StrCat("input must be at least ", rank,
                                                   "-D, got shape", t.shape().DebugString()));
  }
  const int64_t channels = t.dim_size(t.dims() - 1);
  if (channels != 3) {
    const std::string message =
        absl::StrCat("input must have 3 channels but input only has ", channels, " channels.");
    return rank == 1 ? absl::FailedPreconditionError(message)
                     : absl::InvalidArgumentError(message);
  }
  return absl::OkStatus();
}

// A scalar float input `name`.
absl::StatusOr<float> ScalarFloat(const Tensor& t, const char* name) {
  if (t.dims() != 0) {
    return absl::InvalidArgumentError(
        absl::StrCat(name, " must be scalar: ", t.shape().DebugString()));
  }
  return *t.data<float>();
}

// y[pixel] = f(x[pixel]) for every 3-channel pixel, on the intra-op threads.
template <typename T, typename F>
absl::Status PerPixel(OpKernelContext* ctx, const Tensor& in, const F& f) {
  Tensor* out;
  MG_RETURN_IF_ERROR(ctx->allocate_output(0, in.shape(), &out));
  const T* x = in.data<T>();
  T* y = out->data<T>();
  ctx->ParallelFor(in.NumElements() / 3, 3 * sizeof(T), 3 * sizeof(T), 10,
                   [&](int64_t begin, int64_t end) {
                     for (int64_t p = begin; p < end; ++p) f(x + 3 * p, y + 3 * p);
                   });
  return absl::OkStatus();
}

// colorspace_op.h's RGBToHSV and HSVToRGB.
template <typename T>
void RgbToHsv(const T* rgb, T* hsv) {
  const T r = rgb[0], g = rgb[1], b = rgb[2];
  const T v = std::max(r, std::max(g, b));
  const T range = v - std::min(r, std::min(g, b));
  const T s = v > T(0) ? range / v : T(0);
  const T norm = T(1) / range * (T(1) / T(6));
  T h = r == v   ? norm * (g - b)
        : g == v ? norm * (b - r) + T(2) / T(6)
                 : norm * (r - g) + T(4) / T(6);
  if (!(range > T(0))) h = T(0);
  if (h < T(0)) h = h + T(1);
  hsv[0] = h;
  hsv[1] = s;
  hsv[2] = v;
}

template <typename T>
void HsvToRgb(const T* hsv, T* rgb) {
  const T h = hsv[0], s = hsv[1], v = hsv[2];
  const T dh = h * T(6);
  auto clamp = [](T x) { return std::min(std::max(x, T(0)), T(1)); };
  const T dr = clamp(std::abs(dh - T(3)) - T(1));
  const T dg = clamp(-std::abs(dh - T(2)) + T(2));
  const T db = clamp(-std::abs(dh - T(4)) + T(2));
  const T one_s = -s + T(1);
  rgb[0] = (one_s + s * dr) * v;
  rgb[1] = (one_s + s * dg) * v;
  rgb[2] = (one_s + s * db) * v;
}

template <typename T>
class RgbToHsvOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    MG_RETURN_IF_ERROR(CheckRgb(ctx->input(0), 1));
    return PerPixel<T>(ctx, ctx->input(0), RgbToHsv<T>);
  }
};

template <typename T>
class HsvToRgbOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    MG_RETURN_IF_ERROR(CheckRgb(ctx->input(0), 1));
    return PerPixel<T>(ctx, ctx->input(0), HsvToRgb<T>);
  }
};

// adjust_hue_op.cc's hue and value range of a colour, the hue in [0, 6).
void RgbToHueRange(const float* rgb, float* h, float* v_min, float* v_max) {
  const float r = rgb[0], g = rgb[1], b = rgb[2];
  float v_mid;
  int category;
  if (r < g) {
    if (b < r) {
      *v_max = g, v_mid = r, *v_min = b, category = 1;
    } else if (b > g) {
      *v_max = b, v_mid = g, *v_min = r, category = 3;
    } else {
      *v_max = g, v_mid = b, *v_min = r, category = 2;
    }
  } else if (b < g) {
    *v_max = r, v_mid = g, *v_min = b, category = 0;
  } else if (b > r) {
    *v_max = b, v_mid = r, *v_min = g, category = 4;
  } else {
    *v_max = r, v_mid = b, *v_min = g, category = 5;
  }
  if (*v_max == *v_min) {
    *h = 0;
    return;
  }
  const float ratio = (v_mid - *v_min) / (*v_max - *v_min);
  *h = category + ((category & 1) == 0 ? ratio : 1 - ratio);
}

void HueRangeToRgb(float h, float v_min, float v_max, float* rgb) {
  const int category = static_cast<int>(h);
  float ratio = h - category;
  if ((category & 1) != 0) ratio = 1 - ratio;
  const float v_mid = v_min + ratio * (v_max - v_min);
  static constexpr int kOrder[6][3] = {{2, 1, 0}, {1, 2, 0}, {0, 2, 1},
                                       {0, 1, 2}, {1, 0, 2}, {2, 0, 1}};
  const float values[3] = {v_min, v_mid, v_max};
  const int* order = kOrder[category >= 0 && category < 5 ? category : 5];
  for (int c = 0; c < 3; ++c) rgb[c] = values[order[c]];
}

class AdjustHueOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    MG_RETURN_IF_ERROR(CheckRgb(ctx->input(0), 3));
    MG_ASSIGN_OR_RETURN(const float delta, ScalarFloat(ctx->input(1), "delta"));
    return PerPixel<float>(ctx, ctx->input(0), [delta](const float* rgb, float* out) {
      float h, v_min, v_max;
      RgbToHueRange(rgb, &h, &v_min, &v_max);
      h += delta * 6;
      while (h < 0) h += 6;
      while (h >= 6) h -= 6;
      HueRangeToRgb(h, v_min, v_max, out);
    });
  }
};

// adjust_saturation_op.cc's own HSV conversions (not colorspace_op.h's).
void SaturationRgbToHsv(const float* rgb, float* h, float* s, float* v) {
  const float r = rgb[0], g = rgb[1], b = rgb[2];
  const float vv = std::max(r, std::max(g, b));
  const float range = vv - std::min(r, std::min(g, b));
  *s = vv > 0 ? range / vv : 0;
  const float norm = 1.0f / (6.0f * range);
  float hh;
  if (r == vv) {
    hh = norm * (g - b);
  } else if (g == vv) {
    hh = norm * (b - r) + 2.0 / 6.0;
  } else {
    hh = norm * (r - g) + 4.0 / 6.0;
  }
  if (range <= 0.0) hh = 0;
  if (hh < 0.0) hh = hh + 1;
  *v = vv;
  *h = hh;
}

void SaturationHsvToRgb(float h, float s, float v, float* rgb) {
  const float c = s * v, m = v - c, dh = h * 6;
  const int category = static_cast<int>(dh);
  float fmodu = dh;
  while (fmodu <= 0) fmodu += 2.0f;
  while (fmodu >= 2.0f) fmodu -= 2.0f;
  const float x = c * (1 - std::abs(fmodu - 1));
  float parts[3] = {0, 0, 0};
  static constexpr int kC[6] = {0, 1, 1, 2, 2, 0}, kX[6] = {1, 0, 2, 1, 0, 2};
  if (category >= 0 && category < 6) {
    parts[kC[category]] = c;
    parts[kX[category]] = x;
  }
  for (int k = 0; k < 3; ++k) rgb[k] = parts[k] + m;
}

class AdjustSaturationOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    MG_RETURN_IF_ERROR(CheckRgb(ctx->input(0), 3));
    MG_ASSIGN_OR_RETURN(const float scale, ScalarFloat(ctx->input(1), "scale"));
    return PerPixel<float>(ctx, ctx->input(0), [scale](const float* rgb, float* out) {
      float h, s, v;
      SaturationRgbToHsv(rgb, &h, &s, &v);
      s = std::min(1.0f, std::max(0.0f, s * scale));
      SaturationHsvToRgb(h, s, v, out);
    });
  }
};

// Each channel of each image moved away from (or toward) its mean over the
// image by the factor: mean + (x - mean) * factor.
class AdjustContrastV2Op : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& in = ctx->input(0);
    if (in.dims() < 3) {
      return absl::InvalidArgumentError(
          absl::StrCat("input must be at least 3-D, got shape", in.shape().DebugString()));
    }
    MG_ASSIGN_OR_RETURN(const float factor, ScalarFloat(ctx->input(1), "contrast_factor"));
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, in.shape(), &out));
    const int r = in.dims();
    const int64_t channels = in.dim_size(r - 1);
    const int64_t pixels = in.dim_size(r - 2) * in.dim_size(r - 3);
    if (in.NumElements() == 0) return absl::OkStatus();
    const int64_t images = in.NumElements() / (pixels * channels);
    const float* x = in.data<float>();
    float* y = out->data<float>();
    ctx->ParallelFor(images, pixels * channels * 4.0, pixels * channels * 4.0,
                     pixels * channels * 3.0, [&](int64_t begin, int64_t end) {
                       std::vector<float> mean(channels);
                       for (int64_t i = begin; i < end; ++i) {
                         const float* xi = x + i * pixels * channels;
                         float* yi = y + i * pixels * channels;
                         std::copy(xi, xi + channels, mean.begin());
                         for (int64_t p = 1; p < pixels; ++p) {
                           for (int64_t c = 0; c < channels; ++c) mean[c] += xi[p * channels + c];
                         }
                         const float scale = 1.0f / static_cast<float>(pixels);
                         for (float& m : mean) m *= scale;
                         for (int64_t p = 0; p < pixels; ++p) {
                           for (int64_t c = 0; c < channels; ++c) {
                             const float m = mean[c];
                             yi[p * channels + c] = (xi[p * channels + c] - m) * factor + m;
                           }
                         }
                       }
                     });
    return absl::OkStatus();
  }
};

}  // namespace

void RegisterImageColorKernels(KernelRegistry* r) {
  r->Register("RGBToHSV", TypedFactory<RgbToHsvOp, float, double>());
  r->Register("HSVToRGB", TypedFactory<HsvToRgbOp, float, double>());
  // Float images only, as TensorFlow's CPU kernels.
  r->Register("AdjustHue", OneTypeFactory<AdjustHueOp>(DT_FLOAT));
  r->Register("AdjustSaturation", OneTypeFactory<AdjustSaturationOp>(DT_FLOAT));
  r->Register("AdjustContrastv2", OneTypeFactory<AdjustContrastV2Op>(DT_FLOAT));
}

}  // namespace kernels_internal
}  // namespace minigraph
