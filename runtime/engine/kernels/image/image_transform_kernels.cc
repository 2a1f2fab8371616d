// ImageProjectiveTransformV2 and V3 (NHWC): each output pixel (x, y) reads
// the input at ((a0 x + a1 y + a2) / k, (b0 x + b1 y + b2) / k), k = c0 x +
// c1 y + 1, from its image's row of eight transform values (or the one row
// all share), with TensorFlow's CPU arithmetic step for step in float (so
// results equal its bit for bit): the coordinate mapped back into the image
// by the fill mode (REFLECT, WRAP, NEAREST; CONSTANT leaves it outside, where
// fill_value is read), then NEAREST (rounded half away from zero) or
// BILINEAR interpolation. Keras' RandomRotation, RandomZoom,
// RandomTranslation and RandomShear build this op.
#include <algorithm>
#include <cmath>
#include <string>

#include "Eigen/Core"  // half and bfloat16
#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "runtime/engine/kernel_registry.h"
#include "runtime/engine/kernels/internal/kernel_families.h"
#include "runtime/engine/op_kernel.h"

// Products and sums must round one by one, as TensorFlow's build does.
#pragma STDC FP_CONTRACT OFF

namespace minigraph {
namespace kernels_internal {
namespace {

enum class FillMode { kReflect, kWrap, kConstant, kNearest };

// TensorFlow's MapCoordinate (after scipy's ndimage): coordinate `at` of an
// axis of `len` pixels mapped into [0, len - 1] (kConstant: unchanged).
float MapCoordinate(FillMode mode, float at, int64_t len) {
  float in = at;
  switch (mode) {
    case FillMode::kConstant:
      return at;
    case FillMode::kNearest:
      return std::clamp(at, 0.0f, static_cast<float>(len - 1));
    case FillMode::kReflect:  // [abcd] as [dcba|abcd|dcba]
      if (in < 0) {
        if (len <= 1) {
          in = 0;
        } else {
          const int64_t sz2 = 2 * len;
          if (in < sz2) in = sz2 * static_cast<int64_t>(-in / sz2) + in;
          in = in < -len ? in + sz2 : -in - 1;
        }
      } else if (in > len - 1) {
        if (len <= 1) {
          in = 0;
        } else {
          const int64_t sz2 = 2 * len;
          in -= sz2 * static_cast<int64_t>(in / sz2);
          if (in >= len) in = sz2 - in - 1;
        }
      }
      break;
    case FillMode::kWrap:  // [abcd] as [abcd|abcd|abcd]
      if (in < 0) {
        if (len <= 1) {
          in = 0;
        } else {
          const int64_t sz = len - 1;
          in += len * (static_cast<int64_t>(-in / sz) + 1);
        }
      } else if (in > len - 1) {
        if (len <= 1) {
          in = 0;
        } else {
          const int64_t sz = len - 1;
          in -= len * static_cast<int64_t>(in / sz);
        }
      }
      break;
  }
  // Rounding 3.5 of 4 pixels would read the fifth.
  return std::clamp(in, 0.0f, static_cast<float>(len - 1));
}

template <typename T>
class ProjectiveTransformOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    std::string interpolation, mode;
    MG_RETURN_IF_ERROR(c->GetAttr("interpolation", &interpolation));
    MG_RETURN_IF_ERROR(c->GetAttr("fill_mode", &mode));
    if (interpolation != "NEAREST" && interpolation != "BILINEAR") {
      return absl::InvalidArgumentError(absl::StrCat(
          Where(), ": Invalid interpolation ", interpolation, ". Supported types: NEAREST, "
          "BILINEAR"));
    }
    bilinear_ = interpolation == "BILINEAR";
    if (mode == "REFLECT") {
      mode_ = FillMode::kReflect;
    } else if (mode == "WRAP") {
      mode_ = FillMode::kWrap;
    } else if (mode == "CONSTANT") {
      mode_ = FillMode::kConstant;
    } else if (mode == "NEAREST") {
      mode_ = FillMode::kNearest;
    } else {
      return absl::InvalidArgumentError(absl::StrCat(
          Where(), ": Invalid mode ", mode, ". Supported types: REFLECT, WRAP, CONSTANT, "
          "NEAREST"));
    }
    return absl::OkStatus();
  }

  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& images = ctx->input(0);
    const Tensor& transforms = ctx->input(1);
    const Tensor& shape = ctx->input(2);
    if (images.dims() != 4) {
      return absl::InvalidArgumentError(absl::StrCat(Where(), ": Input images must have rank 4, "
                                                     "got ", images.shape().DebugString()));
    }
    const int64_t batch = images.dim_size(0), height = images.dim_size(1),
                  width = images.dim_size(2), depth = images.dim_size(3);
    if (transforms.dims() != 2 || transforms.dim_size(1) != 8 ||
        (transforms.dim_size(0) != batch && transforms.dim_size(0) != 1)) {
      return absl::InvalidArgumentError(
          absl::StrCat(Where(), ": Input transform should be num_images x 8 or 1 x 8, got ",
                       transforms.shape().DebugString()));
    }
    if (shape.dims() != 1 || shape.NumElements() != 2) {
      return absl::InvalidArgumentError(absl::StrCat(
          Where(), ": output shape must be 1-dimensional with two elements, got ",
          shape.shape().DebugString()));
    }
    const int64_t out_h = shape.data<int32_t>()[0], out_w = shape.data<int32_t>()[1];
    if (out_h <= 0 || out_w <= 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(Where(), ": output dimensions must be positive, got ", out_h, "x", out_w));
    }
    T fill(0);
    if (ctx->num_inputs() > 3) {  // V3
      const Tensor& f = ctx->input(3);
      if (f.dims() != 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            Where(), ": fill_value must be a scalar, got ", f.shape().DebugString()));
      }
      fill = static_cast<T>(*f.data<float>());
    }
    MG_ASSIGN_OR_RETURN(TensorShape out_shape, TensorShape::Build({batch, out_h, out_w, depth}));
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, out_shape, &out));
    if (out->NumElements() == 0) return absl::OkStatus();
    const T* in = images.data<T>();
    T* y = out->data<T>();
    const float* all = transforms.data<float>();
    const bool shared = transforms.dim_size(0) == 1;
    // Input pixel (r, c) of image n, channel d, or fill outside the image.
    auto read = [&](int64_t n, int64_t r, int64_t c, int64_t d) {
      return r >= 0 && r < height && c >= 0 && c < width
                 ? in[((n * height + r) * width + c) * depth + d]
                 : fill;
    };
    const double cost = static_cast<double>(out_w * depth * 16);
    ctx->ParallelFor(batch * out_h, cost, cost, cost, [&](int64_t begin, int64_t end) {
      for (int64_t row = begin; row < end; ++row) {
        const int64_t n = row / out_h, oy = row % out_h;
        const float* t = shared ? all : all + 8 * n;
        T* o = y + row * out_w * depth;
        for (int64_t ox = 0; ox < out_w; ++ox, o += depth) {
          const float fx = static_cast<float>(ox), fy = static_cast<float>(oy);
          const float k = t[6] * fx + t[7] * fy + 1.f;
          if (k == 0) {  // a point at infinity: outside the input
            std::fill(o, o + depth, fill);
            continue;
          }
          const float x = MapCoordinate(mode_, (t[0] * fx + t[1] * fy + t[2]) / k, width);
          const float yy = MapCoordinate(mode_, (t[3] * fx + t[4] * fy + t[5]) / k, height);
          if (!bilinear_) {
            const int64_t r = static_cast<int64_t>(std::round(yy));
            const int64_t c = static_cast<int64_t>(std::round(x));
            for (int64_t d = 0; d < depth; ++d) o[d] = read(n, r, c, d);
            continue;
          }
          const float y0 = std::floor(yy), x0 = std::floor(x);
          const float y1 = y0 + 1, x1 = x0 + 1;
          const int64_t r0 = static_cast<int64_t>(y0), r1 = static_cast<int64_t>(y1);
          const int64_t c0 = static_cast<int64_t>(x0), c1 = static_cast<int64_t>(x1);
          for (int64_t d = 0; d < depth; ++d) {
            const float top = (x1 - x) * static_cast<float>(read(n, r0, c0, d)) +
                              (x - x0) * static_cast<float>(read(n, r0, c1, d));
            const float bottom = (x1 - x) * static_cast<float>(read(n, r1, c0, d)) +
                                 (x - x0) * static_cast<float>(read(n, r1, c1, d));
            o[d] = static_cast<T>((y1 - yy) * top + (yy - y0) * bottom);
          }
        }
      }
    });
    return absl::OkStatus();
  }

 private:
  std::string Where() const { return absl::StrCat(type_string(), " '", name(), "'"); }

  bool bilinear_ = false;
  FillMode mode_ = FillMode::kConstant;
};

}  // namespace

void RegisterImageTransformKernels(KernelRegistry* r) {
  for (const char* op : {"ImageProjectiveTransformV2", "ImageProjectiveTransformV3"}) {
    r->Register(op, TypedFactory<ProjectiveTransformOp, float, double, uint8_t, int32_t, int64_t,
                                 Eigen::half, Eigen::bfloat16>("dtype"));
  }
}

}  // namespace kernels_internal
}  // namespace minigraph
