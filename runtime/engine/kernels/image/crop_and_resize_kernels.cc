// CropAndResize (boxes of a batch of images, each resized to one crop size
// by bilinear or nearest sampling; what object detectors' ROI pooling
// builds) and its gradients' ops, CropAndResizeGradImage and
// CropAndResizeGradBoxes, computed in float as TensorFlow's kernels
// compute them.
#include <cmath>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "runtime/engine/kernels/internal/kernel_families.h"
#include "runtime/engine/kernels/internal/tensor_util.h"

namespace minigraph {
namespace kernels_internal {
namespace {

// The boxes ([n, 4] of y1, x1, y2, x2, normalized) and their images' index
// in the batch, checked (an index past the batch is OutOfRange, as
// TensorFlow's).
struct Boxes {
  const float* coords = nullptr;
  std::vector<int64_t> image;
  int64_t count = 0;
};

absl::StatusOr<Boxes> ReadBoxes(const OpKernel& k, const Tensor& boxes, const Tensor& box_ind,
                                int64_t batch) {
  if (boxes.dims() != 2 || boxes.dim_size(1) != 4 || box_ind.dims() != 1 ||
      box_ind.dim_size(0) != boxes.dim_size(0)) {
    return absl::InvalidArgumentError(absl::StrCat(
        k.type_string(), ": boxes must be [num_boxes, 4] and box_ind [num_boxes], got shapes ",
        boxes.shape().DebugString(), " and ", box_ind.shape().DebugString()));
  }
  Boxes b;
  b.coords = boxes.data<float>();
  b.count = boxes.dim_size(0);
  MG_ASSIGN_OR_RETURN(b.image, FlatInts(box_ind, "box_ind"));
  for (int64_t i = 0; i < b.count; ++i) {
    if (b.image[i] < 0 || b.image[i] >= batch) {
      return absl::OutOfRangeError(absl::StrCat(
          k.type_string(), ": box_ind[", i, "] = ", b.image[i], " is not in [0, ", batch, ")"));
    }
  }
  return b;
}

// Where output row (or column) y of a crop of `crop` samples falls in an
// image dimension of `size`, for the box edge coordinates v1, v2.
struct Sampling {
  float scale, start, center;
  int64_t crop;
  Sampling(float v1, float v2, int64_t size, int64_t crop)
      : scale(crop > 1 ? (v2 - v1) * (size - 1) / (crop - 1) : 0),
        start(v1 * (size - 1)),
        center(0.5f * (v1 + v2) * (size - 1)),
        crop(crop) {}
  float at(int64_t y) const { return crop > 1 ? start + y * scale : center; }
};

absl::Status ReadMethod(OpKernelConstruction* c, bool* bilinear) {
  std::string method;
  MG_RETURN_IF_ERROR(c->GetAttr("method", &method));
  if (method != "bilinear" && method != "nearest") {
    return absl::InvalidArgumentError(absl::StrCat(c->def().op(), " node '", c->def().name(),
                                                   "': method must be 'bilinear' or 'nearest', "
                                                   "got '", method, "'"));
  }
  *bilinear = method == "bilinear";
  return absl::OkStatus();
}

// Visits each sample of each crop inside its image: fn(box, y, x, in_y,
// in_x) with the sampled position; outside(box, y, x) for the others.
template <typename Inside, typename Outside>
void ForEachSample(const Boxes& boxes, int64_t height, int64_t width, int64_t crop_h,
                   int64_t crop_w, const Inside& inside, const Outside& outside) {
  for (int64_t b = 0; b < boxes.count; ++b) {
    const float* c = boxes.coords + 4 * b;
    const Sampling ys(c[0], c[2], height, crop_h), xs(c[1], c[3], width, crop_w);
    for (int64_t y = 0; y < crop_h; ++y) {
      const float in_y = ys.at(y);
      for (int64_t x = 0; x < crop_w; ++x) {
        const float in_x = xs.at(x);
        if (in_y < 0 || in_y > height - 1 || in_x < 0 || in_x > width - 1) {
          outside(b, y, x);
        } else {
          inside(b, y, x, in_y, in_x);
        }
      }
    }
  }
}

template <typename T>
class CropAndResizeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    MG_RETURN_IF_ERROR(ReadMethod(c, &bilinear_));
    return c->GetAttr("extrapolation_value", &extrapolation_);
  }
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& image = ctx->input(0);
    if (image.dims() != 4) {
      return absl::InvalidArgumentError(absl::StrCat(
          "CropAndResize: input image must be 4-D, got shape ", image.shape().DebugString()));
    }
    const int64_t height = image.dim_size(1), width = image.dim_size(2);
    const int64_t depth = image.dim_size(3);
    if (height <= 0 || width <= 0) {
      return absl::InvalidArgumentError("CropAndResize: image dimensions must be positive");
    }
    MG_ASSIGN_OR_RETURN(Boxes boxes,
                        ReadBoxes(*this, ctx->input(1), ctx->input(2), image.dim_size(0)));
    MG_ASSIGN_OR_RETURN(std::vector<int64_t> size, FlatInts(ctx->input(3), "crop_size"));
    if (ctx->input(3).dims() != 1 || size.size() != 2 || size[0] <= 0 || size[1] <= 0) {
      return absl::InvalidArgumentError(
          "CropAndResize: crop_size must be a vector of 2 positive elements");
    }
    Tensor* out;
    MG_RETURN_IF_ERROR(
        ctx->allocate_output(0, TensorShape({boxes.count, size[0], size[1], depth}), &out));
    const T* in = image.data<T>();
    float* o = out->data<float>();
    auto pixel = [&](int64_t b, int64_t y, int64_t x, int64_t d) {
      return static_cast<float>(in[((boxes.image[b] * height + y) * width + x) * depth + d]);
    };
    auto dst = [&](int64_t b, int64_t y, int64_t x) {
      return o + ((b * size[0] + y) * size[1] + x) * depth;
    };
    ForEachSample(
        boxes, height, width, size[0], size[1],
        [&](int64_t b, int64_t y, int64_t x, float in_y, float in_x) {
          float* out_px = dst(b, y, x);
          if (!bilinear_) {
            const int64_t ny = std::lround(in_y), nx = std::lround(in_x);
            for (int64_t d = 0; d < depth; ++d) out_px[d] = pixel(b, ny, nx, d);
            return;
          }
          const int64_t top = std::floor(in_y), bottom = std::ceil(in_y);
          const int64_t left = std::floor(in_x), right = std::ceil(in_x);
          const float y_lerp = in_y - top, x_lerp = in_x - left;
          for (int64_t d = 0; d < depth; ++d) {
            const float tl = pixel(b, top, left, d), tr = pixel(b, top, right, d);
            const float bl = pixel(b, bottom, left, d), br = pixel(b, bottom, right, d);
            const float upper = tl + (tr - tl) * x_lerp;
            const float lower = bl + (br - bl) * x_lerp;
            out_px[d] = upper + (lower - upper) * y_lerp;
          }
        },
        [&](int64_t b, int64_t y, int64_t x) {
          std::fill_n(dst(b, y, x), depth, extrapolation_);
        });
    return absl::OkStatus();
  }

 private:
  bool bilinear_ = true;
  float extrapolation_ = 0;
};

// The gradient with respect to the image: each sample's gradient shared
// among the pixels it read, by their interpolation weights.
template <typename T>
class CropAndResizeGradImageOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) { return ReadMethod(c, &bilinear_); }
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& grads = ctx->input(0);
    MG_ASSIGN_OR_RETURN(std::vector<int64_t> shape, FlatInts(ctx->input(3), "image_size"));
    if (grads.dims() != 4 || shape.size() != 4 || shape[3] != grads.dim_size(3) ||
        shape[1] <= 0 || shape[2] <= 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "CropAndResizeGradImage: grads must be 4-D and image_size 4 elements (positive "
          "height and width, grads' depth), got shapes ",
          grads.shape().DebugString(), " and [", absl::StrJoin(shape, ","), "]"));
    }
    MG_ASSIGN_OR_RETURN(Boxes boxes, ReadBoxes(*this, ctx->input(1), ctx->input(2), shape[0]));
    if (boxes.count != grads.dim_size(0)) {
      return absl::InvalidArgumentError("CropAndResizeGradImage: boxes and grads have "
                                        "different numbers of boxes");
    }
    MG_ASSIGN_OR_RETURN(TensorShape image_shape, TensorShape::Build(shape));
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, image_shape, &out));
    T* o = out->data<T>();
    std::fill_n(o, out->NumElements(), T(0));
    const int64_t height = shape[1], width = shape[2], depth = shape[3];
    const int64_t crop_h = grads.dim_size(1), crop_w = grads.dim_size(2);
    const float* g = grads.data<float>();
    auto add = [&](int64_t b, int64_t y, int64_t x, int64_t d, float v) {
      o[((boxes.image[b] * height + y) * width + x) * depth + d] += static_cast<T>(v);
    };
    ForEachSample(
        boxes, height, width, crop_h, crop_w,
        [&](int64_t b, int64_t y, int64_t x, float in_y, float in_x) {
          const float* gp = g + ((b * crop_h + y) * crop_w + x) * depth;
          if (!bilinear_) {
            const int64_t ny = std::lround(in_y), nx = std::lround(in_x);
            for (int64_t d = 0; d < depth; ++d) add(b, ny, nx, d, gp[d]);
            return;
          }
          const int64_t top = std::floor(in_y), bottom = std::ceil(in_y);
          const int64_t left = std::floor(in_x), right = std::ceil(in_x);
          const float y_lerp = in_y - top, x_lerp = in_x - left;
          for (int64_t d = 0; d < depth; ++d) {
            const float dtop = (1 - y_lerp) * gp[d];
            const float dbottom = y_lerp * gp[d];
            add(b, top, left, d, (1 - x_lerp) * dtop);
            add(b, top, right, d, x_lerp * dtop);
            add(b, bottom, left, d, (1 - x_lerp) * dbottom);
            add(b, bottom, right, d, x_lerp * dbottom);
          }
        },
        [](int64_t, int64_t, int64_t) {});
    return absl::OkStatus();
  }

 private:
  bool bilinear_ = true;
};

// The gradient with respect to the boxes' coordinates, through bilinear
// sampling (TensorFlow's, for either method): each sample's gradient times
// the image's slope there, times how the sample moves with each edge.
template <typename T>
class CropAndResizeGradBoxesOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& grads = ctx->input(0);
    const Tensor& image = ctx->input(1);
    if (grads.dims() != 4 || image.dims() != 4 || grads.dim_size(3) != image.dim_size(3)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "CropAndResizeGradBoxes: grads and image must be 4-D of the same depth, got shapes ",
          grads.shape().DebugString(), " and ", image.shape().DebugString()));
    }
    const int64_t height = image.dim_size(1), width = image.dim_size(2);
    const int64_t depth = image.dim_size(3);
    if (height <= 0 || width <= 0) {
      return absl::InvalidArgumentError(
          "CropAndResizeGradBoxes: image dimensions must be positive");
    }
    MG_ASSIGN_OR_RETURN(Boxes boxes,
                        ReadBoxes(*this, ctx->input(2), ctx->input(3), image.dim_size(0)));
    if (boxes.count != grads.dim_size(0)) {
      return absl::InvalidArgumentError("CropAndResizeGradBoxes: boxes and grads have "
                                        "different numbers of boxes");
    }
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, TensorShape({boxes.count, 4}), &out));
    float* o = out->data<float>();
    std::fill_n(o, out->NumElements(), 0.0f);
    const int64_t crop_h = grads.dim_size(1), crop_w = grads.dim_size(2);
    const float* g = grads.data<float>();
    const T* in = image.data<T>();
    auto pixel = [&](int64_t b, int64_t y, int64_t x, int64_t d) {
      return static_cast<float>(in[((boxes.image[b] * height + y) * width + x) * depth + d]);
    };
    ForEachSample(
        boxes, height, width, crop_h, crop_w,
        [&](int64_t b, int64_t y, int64_t x, float in_y, float in_x) {
          const float height_ratio =
              crop_h > 1 ? static_cast<float>(height - 1) / (crop_h - 1) : 0;
          const float width_ratio = crop_w > 1 ? static_cast<float>(width - 1) / (crop_w - 1) : 0;
          const int64_t top = std::floor(in_y), bottom = std::ceil(in_y);
          const int64_t left = std::floor(in_x), right = std::ceil(in_x);
          const float y_lerp = in_y - top, x_lerp = in_x - left;
          const float* gp = g + ((b * crop_h + y) * crop_w + x) * depth;
          float* ob = o + 4 * b;
          for (int64_t d = 0; d < depth; ++d) {
            const float tl = pixel(b, top, left, d), tr = pixel(b, top, right, d);
            const float bl = pixel(b, bottom, left, d), br = pixel(b, bottom, right, d);
            const float slope_y = (1 - x_lerp) * (bl - tl) + x_lerp * (br - tr);
            const float slope_x = (1 - y_lerp) * (tr - tl) + y_lerp * (br - bl);
            const float gy = gp[d] * slope_y, gx = gp[d] * slope_x;
            if (crop_h > 1) {
              ob[0] += gy * (height - 1 - y * height_ratio);
              ob[2] += gy * (y * height_ratio);
            } else {
              ob[0] += gy * 0.5f * (height - 1);
              ob[2] += gy * 0.5f * (height - 1);
            }
            if (crop_w > 1) {
              ob[1] += gx * (width - 1 - x * width_ratio);
              ob[3] += gx * (x * width_ratio);
            } else {
              ob[1] += gx * 0.5f * (width - 1);
              ob[3] += gx * 0.5f * (width - 1);
            }
          }
        },
        [](int64_t, int64_t, int64_t) {});
    return absl::OkStatus();
  }
};

}  // namespace

void RegisterCropAndResizeKernels(KernelRegistry* r) {
  r->Register("CropAndResize", TypedFactory<CropAndResizeOp, float, double, uint8_t, int32_t,
                                            int64_t>());
  r->Register("CropAndResizeGradImage",
              TypedFactory<CropAndResizeGradImageOp, float, double>());
  r->Register("CropAndResizeGradBoxes", TypedFactory<CropAndResizeGradBoxesOp, float, double,
                                                     uint8_t, int32_t, int64_t>());
}

}  // namespace kernels_internal
}  // namespace minigraph
