// ResizeBilinear, ResizeNearestNeighbor and their gradients (NHWC), with
// TensorFlow's CPU arithmetic step for step (single-precision source
// coordinates, the same order of operations), so that results equal
// TensorFlow's bit for bit: its scalers (legacy: x * scale; half-pixel
// centres: (x + 0.5) * scale - 0.5) and its clamping of the neighbours.
#include <algorithm>
#include <cmath>
#include <vector>

#include "Eigen/Core"  // half and bfloat16
#include "absl/strings/str_cat.h"
#include "core/status_macros.h"
#include "runtime/engine/kernel_registry.h"
#include "runtime/engine/kernels/internal/kernel_families.h"
#include "runtime/engine/op_kernel.h"

// a + (b - a) * t must round twice, as TensorFlow's build does, not fuse.
#pragma STDC FP_CONTRACT OFF

namespace minigraph {
namespace kernels_internal {
namespace {

// An input of one row (or column) scales as without align_corners: all
// its weight goes to that row either way, and TensorFlow 2.21's gradients
// round as this does (measured; its source reads otherwise).
float ResizeScale(int64_t in, int64_t out, bool align_corners) {
  return align_corners && out > 1 && in > 1
             ? static_cast<float>(in - 1) / static_cast<float>(out - 1)
             : static_cast<float>(in) / static_cast<float>(out);
}

// Where output index x samples the input, as a float.
float SourceCoordinate(int64_t x, float scale, bool half_pixel_centers) {
  return half_pixel_centers ? (static_cast<float>(x) + 0.5f) * scale - 0.5f
                            : static_cast<float>(x) * scale;
}

// The input index a nearest-neighbour output index x takes.
int64_t NearestIndex(int64_t x, float scale, int64_t in_size, bool align_corners,
                     bool half_pixel_centers) {
  // Half-pixel centres: (x + 0.5) * scale, floored (no -0.5).
  const float at = half_pixel_centers ? (static_cast<float>(x) + 0.5f) * scale
                                      : static_cast<float>(x) * scale;
  int64_t i = std::min(align_corners ? static_cast<int64_t>(std::roundf(at))
                                     : static_cast<int64_t>(std::floor(at)),
                       in_size - 1);
  if (half_pixel_centers) i = std::max<int64_t>(i, 0);
  return i;
}

struct Interpolation {
  int64_t lower = 0, upper = 0;
  float lerp = 0;
};

std::vector<Interpolation> Weights(int64_t out_size, int64_t in_size, float scale,
                                   bool half_pixel_centers) {
  std::vector<Interpolation> w(out_size);
  for (int64_t i = 0; i < out_size; ++i) {
    const float in = SourceCoordinate(i, scale, half_pixel_centers);
    const float floor = std::floor(in);
    w[i].lower = std::max<int64_t>(static_cast<int64_t>(floor), 0);
    w[i].upper = std::min<int64_t>(static_cast<int64_t>(std::ceil(in)), in_size - 1);
    w[i].lerp = in - floor;
  }
  return w;
}

// The sizes of a forward resize, checked with TensorFlow's messages.
struct ResizeGeometry {
  int64_t batch = 0, in_height = 0, in_width = 0, channels = 0;
  int64_t out_height = 0, out_width = 0;
  float height_scale = 0, width_scale = 0;
};

absl::Status CheckCorners(bool align_corners, bool half_pixel_centers) {
  if (align_corners && half_pixel_centers) {
    return absl::InvalidArgumentError(
        "If half_pixel_centers is True, align_corners must be False.");
  }
  return absl::OkStatus();
}

absl::Status CheckSize(const Tensor& size) {
  if (size.dims() != 1) {
    return absl::InvalidArgumentError(
        absl::StrCat("shape_t must be 1-dimensional", size.shape().DebugString()));
  }
  if (size.NumElements() != 2) {
    return absl::InvalidArgumentError(
        absl::StrCat("shape_t must have two elements", size.shape().DebugString()));
  }
  return absl::OkStatus();
}

absl::StatusOr<ResizeGeometry> Geometry(const Tensor& images, const Tensor& size,
                                        bool align_corners, bool half_pixel_centers) {
  MG_RETURN_IF_ERROR(CheckCorners(align_corners, half_pixel_centers));
  if (images.dims() != 4) {
    return absl::InvalidArgumentError(
        absl::StrCat("input must be 4-dimensional", images.shape().DebugString()));
  }
  ResizeGeometry g;
  g.batch = images.dim_size(0);
  g.in_height = images.dim_size(1);
  g.in_width = images.dim_size(2);
  g.channels = images.dim_size(3);
  if (g.channels <= 0) {
    return absl::InvalidArgumentError("image must have at least one channel");
  }
  if (g.in_height <= 0 || g.in_width <= 0) {
    return absl::InvalidArgumentError("input image must be of non-zero size");
  }
  if (g.in_height > std::numeric_limits<int32_t>::max() ||
      g.in_width > std::numeric_limits<int32_t>::max()) {
    return absl::InvalidArgumentError("input sizes must be between 0 and max int32");
  }
  MG_RETURN_IF_ERROR(CheckSize(size));
  g.out_height = size.data<int32_t>()[0];
  g.out_width = size.data<int32_t>()[1];
  if (g.out_height <= 0 || g.out_width <= 0) {
    return absl::InvalidArgumentError("output dimensions must be positive");
  }
  g.height_scale = ResizeScale(g.in_height, g.out_height, align_corners);
  g.width_scale = ResizeScale(g.in_width, g.out_width, align_corners);
  return g;
}

// Reads the attrs every resize op has.
class ResizeBase : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    MG_RETURN_IF_ERROR(c->GetAttr("align_corners", &align_corners_));
    return c->GetAttr("half_pixel_centers", &half_pixel_centers_);
  }

 protected:
  bool align_corners_ = false;
  bool half_pixel_centers_ = false;
};

template <typename T>
class ResizeBilinearOp : public ResizeBase {
 public:
  using ResizeBase::ResizeBase;
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& images = ctx->input(0);
    MG_ASSIGN_OR_RETURN(ResizeGeometry g, Geometry(images, ctx->input(1), align_corners_,
                                                   half_pixel_centers_));
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(
        0, TensorShape({g.batch, g.out_height, g.out_width, g.channels}), &out));
    if (out->NumElements() == 0) return absl::OkStatus();
    const T* in = images.data<T>();
    float* o = out->data<float>();
    if (g.out_height == g.in_height && g.out_width == g.in_width) {
      for (int64_t i = 0; i < out->NumElements(); ++i) o[i] = static_cast<float>(in[i]);
      return absl::OkStatus();
    }
    const std::vector<Interpolation> ys =
        Weights(g.out_height, g.in_height, g.height_scale, half_pixel_centers_);
    const std::vector<Interpolation> xs =
        Weights(g.out_width, g.in_width, g.width_scale, half_pixel_centers_);
    const int64_t c = g.channels, in_row = g.in_width * c, out_row = g.out_width * c;
    ctx->ParallelFor(
        g.batch * g.out_height, in_row * 2 * sizeof(T), out_row * sizeof(float), out_row * 8.0,
        [&](int64_t begin, int64_t end) {
          for (int64_t r = begin; r < end; ++r) {
            const int64_t b = r / g.out_height, y = r % g.out_height;
            const T* image = in + b * g.in_height * in_row;
            const T* top = image + ys[y].lower * in_row;
            const T* bottom = image + ys[y].upper * in_row;
            const float y_lerp = ys[y].lerp;
            float* row = o + r * out_row;
            for (int64_t x = 0; x < g.out_width; ++x) {
              const int64_t left = xs[x].lower * c, right = xs[x].upper * c;
              const float x_lerp = xs[x].lerp;
              for (int64_t k = 0; k < c; ++k) {
                const float tl = static_cast<float>(top[left + k]);
                const float tr = static_cast<float>(top[right + k]);
                const float bl = static_cast<float>(bottom[left + k]);
                const float br = static_cast<float>(bottom[right + k]);
                const float upper = tl + (tr - tl) * x_lerp;
                const float lower = bl + (br - bl) * x_lerp;
                row[x * c + k] = upper + (lower - upper) * y_lerp;
              }
            }
          }
        });
    return absl::OkStatus();
  }
};

// The gradient flows to the four pixels each output pixel mixed, in the
// proportions it mixed them. float and double accumulate in their own type,
// half and bfloat16 in float (as TensorFlow).
template <typename T>
class ResizeBilinearGradOp : public ResizeBase {
 public:
  using ResizeBase::ResizeBase;
  absl::Status Compute(OpKernelContext* ctx) const override {
    MG_RETURN_IF_ERROR(CheckCorners(align_corners_, half_pixel_centers_));
    const Tensor& grads = ctx->input(0);
    const Tensor& original = ctx->input(1);
    if (grads.dims() != 4) {
      return absl::InvalidArgumentError(
          absl::StrCat("input_grad must be 4-dimensional", grads.shape().DebugString()));
    }
    const int64_t batch = grads.dim_size(0), channels = grads.dim_size(3);
    const int64_t resized_height = grads.dim_size(1), resized_width = grads.dim_size(2);
    if (resized_height <= 0 || resized_width <= 0) {
      return absl::InvalidArgumentError("resized dimensions must be positive");
    }
    if (original.dims() != 4) {
      return absl::InvalidArgumentError(absl::StrCat("original_image must be 4-dimensional",
                                                     original.shape().DebugString()));
    }
    const int64_t height = original.dim_size(1), width = original.dim_size(2);
    if (height <= 0 || width <= 0) {
      return absl::InvalidArgumentError("original dimensions must be positive");
    }
    if (height > std::numeric_limits<int32_t>::max() ||
        width > std::numeric_limits<int32_t>::max()) {
      return absl::InvalidArgumentError("original sizes must be between 0 and max int32");
    }
    const float height_scale = ResizeScale(height, resized_height, align_corners_);
    const float width_scale = ResizeScale(width, resized_width, align_corners_);
    Tensor* out;
    MG_RETURN_IF_ERROR(
        ctx->allocate_output(0, TensorShape({batch, height, width, channels}), &out));
    using Acc = std::conditional_t<std::is_same_v<T, double>, double, float>;
    std::vector<Acc> acc(out->NumElements(), Acc(0));
    const float* g = grads.data<float>();
    for (int64_t b = 0; b < batch; ++b) {
      Acc* image = acc.data() + b * height * width * channels;
      for (int64_t y = 0; y < resized_height; ++y) {
        const float in_y = SourceCoordinate(y, height_scale, half_pixel_centers_);
        const int64_t top = std::max<int64_t>(static_cast<int64_t>(std::floor(in_y)), 0);
        const int64_t bottom = std::min<int64_t>(static_cast<int64_t>(std::ceil(in_y)), height - 1);
        const float y_lerp = in_y - std::floor(in_y);
        const float inverse_y = 1.0f - y_lerp;
        for (int64_t x = 0; x < resized_width; ++x) {
          const float in_x = SourceCoordinate(x, width_scale, half_pixel_centers_);
          const int64_t left = std::max<int64_t>(static_cast<int64_t>(std::floor(in_x)), 0);
          const int64_t right =
              std::min<int64_t>(static_cast<int64_t>(std::ceil(in_x)), width - 1);
          const float x_lerp = in_x - std::floor(in_x);
          const float inverse_x = 1.0f - x_lerp;
          const float* d = g + ((b * resized_height + y) * resized_width + x) * channels;
          Acc* tl = image + (top * width + left) * channels;
          Acc* tr = image + (top * width + right) * channels;
          Acc* bl = image + (bottom * width + left) * channels;
          Acc* br = image + (bottom * width + right) * channels;
          for (int64_t k = 0; k < channels; ++k) {
            tl[k] += static_cast<Acc>(d[k] * inverse_y * inverse_x);
            tr[k] += static_cast<Acc>(d[k] * inverse_y * x_lerp);
            bl[k] += static_cast<Acc>(d[k] * y_lerp * inverse_x);
            br[k] += static_cast<Acc>(d[k] * y_lerp * x_lerp);
          }
        }
      }
    }
    T* o = out->data<T>();
    for (size_t i = 0; i < acc.size(); ++i) o[i] = static_cast<T>(acc[i]);
    return absl::OkStatus();
  }
};

template <typename T>
class ResizeNearestNeighborOp : public ResizeBase {
 public:
  using ResizeBase::ResizeBase;
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& images = ctx->input(0);
    MG_ASSIGN_OR_RETURN(ResizeGeometry g, Geometry(images, ctx->input(1), align_corners_,
                                                   half_pixel_centers_));
    if (g.in_height >= (1 << 24) || g.in_width >= (1 << 24)) {
      return absl::InvalidArgumentError("nearest neighbor requires max height & width of 2^24");
    }
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(
        0, TensorShape({g.batch, g.out_height, g.out_width, g.channels}), &out));
    if (out->NumElements() == 0) return absl::OkStatus();
    std::vector<int64_t> xs(g.out_width);
    for (int64_t x = 0; x < g.out_width; ++x) {
      xs[x] = NearestIndex(x, g.width_scale, g.in_width, align_corners_, half_pixel_centers_);
    }
    const T* in = images.data<T>();
    T* o = out->data<T>();
    const int64_t c = g.channels;
    ctx->ParallelFor(g.batch * g.out_height, g.out_width * c * sizeof(T),
                     g.out_width * c * sizeof(T), g.out_width * 4.0,
                     [&](int64_t begin, int64_t end) {
                       for (int64_t r = begin; r < end; ++r) {
                         const int64_t b = r / g.out_height, y = r % g.out_height;
                         const int64_t in_y = NearestIndex(y, g.height_scale, g.in_height,
                                                           align_corners_, half_pixel_centers_);
                         const T* row = in + ((b * g.in_height + in_y) * g.in_width) * c;
                         T* dst = o + r * g.out_width * c;
                         for (int64_t x = 0; x < g.out_width; ++x) {
                           std::copy_n(row + xs[x] * c, c, dst + x * c);
                         }
                       }
                     });
    return absl::OkStatus();
  }
};

// Each gradient pixel goes to the one input pixel its output took.
template <typename T>
class ResizeNearestNeighborGradOp : public ResizeBase {
 public:
  using ResizeBase::ResizeBase;
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& grads = ctx->input(0);
    const Tensor& size = ctx->input(1);
    if (grads.dims() != 4) {
      return absl::InvalidArgumentError(
          absl::StrCat("input must be 4-dimensional", grads.shape().DebugString()));
    }
    MG_RETURN_IF_ERROR(CheckSize(size));
    const int64_t out_height = size.data<int32_t>()[0], out_width = size.data<int32_t>()[1];
    if (out_height <= 0 || out_width <= 0) {
      return absl::InvalidArgumentError("shape_t's elements must be positive");
    }
    const int64_t batch = grads.dim_size(0), in_height = grads.dim_size(1);
    const int64_t in_width = grads.dim_size(2), c = grads.dim_size(3);
    Tensor* out;
    MG_RETURN_IF_ERROR(
        ctx->allocate_output(0, TensorShape({batch, out_height, out_width, c}), &out));
    if (out->NumElements() == 0) return absl::OkStatus();
    const float height_scale = ResizeScale(out_height, in_height, align_corners_);
    const float width_scale = ResizeScale(out_width, in_width, align_corners_);
    T* o = out->data<T>();
    std::fill_n(o, out->NumElements(), T(0));
    const T* g = grads.data<T>();
    for (int64_t b = 0; b < batch; ++b) {
      for (int64_t y = 0; y < in_height; ++y) {
        const int64_t to_y =
            NearestIndex(y, height_scale, out_height, align_corners_, half_pixel_centers_);
        for (int64_t x = 0; x < in_width; ++x) {
          const int64_t to_x =
              NearestIndex(x, width_scale, out_width, align_corners_, half_pixel_centers_);
          const T* from = g + ((b * in_height + y) * in_width + x) * c;
          T* to = o + ((b * out_height + to_y) * out_width + to_x) * c;
          for (int64_t k = 0; k < c; ++k) to[k] += from[k];
        }
      }
    }
    return absl::OkStatus();
  }
};

}  // namespace

void RegisterImageResizeKernels(KernelRegistry* r) {
  r->Register("ResizeBilinear", TypedFactory<ResizeBilinearOp, int8_t, uint8_t, int16_t, uint16_t,
                                             int32_t, int64_t, bfloat16, half, float, double>());
  r->Register("ResizeBilinearGrad",
              TypedFactory<ResizeBilinearGradOp, float, bfloat16, half, double>());
  r->Register("ResizeNearestNeighbor",
              TypedFactory<ResizeNearestNeighborOp, int8_t, uint8_t, int16_t, uint16_t, int32_t,
                           int64_t, bfloat16, half, float, double>());
  r->Register("ResizeNearestNeighborGrad",
              TypedFactory<ResizeNearestNeighborGradOp, uint8_t, int8_t, int32_t, half, float,
                           double, bfloat16>());
}

}  // namespace kernels_internal
}  // namespace minigraph
