// ExtractGlimpse and ExtractGlimpseV2 (tf.image.extract_glimpse, attention
// models' crops): for each image a window of `size` at its offset (y, x),
// the offset read as TensorFlow's eigen_attention.h reads it: in pixels or
// normalized to [0, 1] (or [-1, 1] when centered), measured from the image's
// corner or center. ExtractGlimpse then always moves the window back by half
// its size (the offset is its center); V2 does so only for normalized,
// centered offsets (the older reading TensorFlow keeps for it). What falls
// outside the image is noise: zeros, uniform between the image's minimum
// and maximum, or Gaussian with each channel's mean and deviation, clipped
// to its range.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>

#include "absl/strings/str_cat.h"
#include "runtime/engine/kernels/internal/kernel_families.h"
#include "runtime/engine/op_kernel.h"

namespace minigraph {
namespace kernels_internal {
namespace {

enum class Noise { kUniform, kGaussian, kZero };

// The part of one axis the window takes from the image: [from, from +
// extent) of the image into [base, base + extent) of the window; `glimpse`
// is 0 when none of it falls inside; `partial` when some of it falls outside.
struct AxisCut {
  int64_t from = 0, extent = 0, base = 0, glimpse = 0;
  bool partial = false;
};

AxisCut Cut(int64_t offset, int64_t window, int64_t size) {
  AxisCut c{offset, window, 0, window, false};
  if (offset < 0) {
    c.from = 0;
    c.glimpse = std::max<int64_t>(0, window + offset);
    c.extent = c.glimpse;
    c.base = window - c.glimpse;
    c.partial = true;
  } else if (offset + window >= size) {
    c.glimpse = std::max<int64_t>(0, size - offset);
    c.extent = c.glimpse;
    c.partial = true;
  }
  c.extent = std::min(size, c.extent);
  return c;
}

class ExtractGlimpseOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    v2_ = c->def().op() == "ExtractGlimpseV2";
    bool uniform;
    std::string noise;
    MG_RETURN_IF_ERROR(c->GetAttr("normalized", &normalized_));
    MG_RETURN_IF_ERROR(c->GetAttr("centered", &centered_));
    MG_RETURN_IF_ERROR(c->GetAttr("uniform_noise", &uniform));
    MG_RETURN_IF_ERROR(c->GetAttr("noise", &noise));
    if (uniform && !noise.empty() && noise != "uniform") {
      return absl::InvalidArgumentError(absl::StrCat(
          Where(), ": The uniform_noise should not be True when noise is not uniform, got ",
          noise));
    }
    if (noise.empty()) {
      noise_ = uniform ? Noise::kUniform : Noise::kGaussian;
    } else if (noise == "uniform") {
      noise_ = Noise::kUniform;
    } else if (noise == "gaussian") {
      noise_ = Noise::kGaussian;
    } else if (noise == "zero") {
      noise_ = Noise::kZero;
    } else {
      return absl::InvalidArgumentError(absl::StrCat(
          Where(), ": noise must be uniform, gaussian or zero, got '", noise, "'"));
    }
    return absl::OkStatus();
  }

  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& in = ctx->input(0);
    const Tensor& size = ctx->input(1);
    const Tensor& offsets = ctx->input(2);
    if (in.dims() != 4) {
      return absl::InvalidArgumentError(absl::StrCat(
          Where(), ": input must be 4-dimensional (batch_size, height, width, depth), got ",
          in.shape().DebugString()));
    }
    if (size.dims() != 1 || size.NumElements() != 2) {
      return absl::InvalidArgumentError(absl::StrCat(
          Where(), ": size must be a vector of 2 (height, width), got ",
          size.shape().DebugString()));
    }
    const int64_t batch = in.dim_size(0), height = in.dim_size(1), width = in.dim_size(2),
                  depth = in.dim_size(3);
    const int64_t win_h = size.data<int32_t>()[0], win_w = size.data<int32_t>()[1];
    if (win_h < 0 || win_w < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(Where(), ": size must not be negative, got [", win_h, ", ", win_w, "]"));
    }
    if (offsets.dims() != 2 || offsets.dim_size(0) != batch || offsets.dim_size(1) != 2) {
      return absl::InvalidArgumentError(absl::StrCat(
          Where(), ": offsets must be [batch, 2] (y, x), got ", offsets.shape().DebugString(),
          " for a batch of ", batch));
    }
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, TensorShape({batch, win_h, win_w, depth}), &out));
    if (out->NumElements() == 0) return absl::OkStatus();
    const float* x = in.data<float>();
    float* y = out->data<float>();
    std::mt19937 random(std::random_device{}());
    for (int64_t b = 0; b < batch; ++b) {
      float oy = offsets.data<float>()[2 * b], ox = offsets.data<float>()[2 * b + 1];
      Position(&ox, &oy, width, height, win_w, win_h);
      const AxisCut cx = Cut(static_cast<int64_t>(ox), win_w, width);
      const AxisCut cy = Cut(static_cast<int64_t>(oy), win_h, height);
      const float* image = x + b * height * width * depth;
      float* glimpse = y + b * win_h * win_w * depth;
      if (cx.partial || cy.partial) {
        FillNoise(image, height * width, depth, win_h * win_w, glimpse, &random);
        if (cx.glimpse == 0 || cy.glimpse == 0) continue;
      }
      for (int64_t r = 0; r < cy.extent; ++r) {
        std::copy_n(image + ((cy.from + r) * width + cx.from) * depth, cx.extent * depth,
                    glimpse + ((cy.base + r) * win_w + cx.base) * depth);
      }
    }
    return absl::OkStatus();
  }

 private:
  std::string Where() const { return absl::StrCat(type_string(), " '", name(), "'"); }

  // The window's corner in pixels, from the offset as each version reads it.
  void Position(float* x, float* y, int64_t width, int64_t height, int64_t win_w,
                int64_t win_h) const {
    const bool recentre = v2_ ? normalized_ && centered_ : true;
    if (normalized_) {
      *x *= width;
      *y *= height;
    }
    if (centered_ && (normalized_ || !v2_)) {
      *x /= 2.0f;
      *y /= 2.0f;
    }
    if (centered_) {
      *x += width / 2.0f;
      *y += height / 2.0f;
    }
    if (recentre) {
      *x -= win_w / 2.0f;
      *y -= win_h / 2.0f;
    }
  }

  void FillNoise(const float* image, int64_t pixels, int64_t depth, int64_t out_pixels,
                 float* out, std::mt19937* random) const {
    const int64_t n = out_pixels * depth;
    if (noise_ == Noise::kZero) {
      std::fill_n(out, n, 0.0f);
    } else if (noise_ == Noise::kUniform) {
      const auto [lo, hi] = std::minmax_element(image, image + pixels * depth);
      std::uniform_real_distribution<float> u(0.0f, 1.0f);
      for (int64_t i = 0; i < n; ++i) out[i] = *lo + u(*random) * (*hi - *lo);
    } else {
      std::normal_distribution<float> g(0.0f, 1.0f);
      for (int64_t c = 0; c < depth; ++c) {
        double sum = 0, squares = 0;
        float lo = image[c], hi = image[c];
        for (int64_t p = 0; p < pixels; ++p) {
          const float v = image[p * depth + c];
          sum += v;
          lo = std::min(lo, v);
          hi = std::max(hi, v);
        }
        const double mean = sum / pixels;
        for (int64_t p = 0; p < pixels; ++p) {
          squares += (image[p * depth + c] - mean) * (image[p * depth + c] - mean);
        }
        const float sigma = static_cast<float>(std::sqrt(squares / pixels));
        for (int64_t p = 0; p < out_pixels; ++p) {
          out[p * depth + c] =
              std::max(lo, std::min(hi, static_cast<float>(mean) + g(*random) * sigma));
        }
      }
    }
  }

  bool v2_ = false, normalized_ = true, centered_ = true;
  Noise noise_ = Noise::kUniform;
};

}  // namespace

void RegisterGlimpseKernels(KernelRegistry* r) {
  r->Register("ExtractGlimpse", MakeFactory<ExtractGlimpseOp>());
  r->Register("ExtractGlimpseV2", MakeFactory<ExtractGlimpseOp>());
}

}  // namespace kernels_internal
}  // namespace minigraph
