// DrawBoundingBoxes and DrawBoundingBoxesV2 (tf.image.draw_bounding_boxes):
// the images with each box's outline drawn one pixel wide, in box order
// (later boxes over earlier ones), as draw_bounding_box_op.cc draws them:
// corners scaled by the image's size - 1 in float and truncated toward
// zero, edges outside the image left out, inverted boxes and boxes wholly
// outside skipped. Colors from V2's colors input (RGBA rows, cycled by box),
// else TensorFlow's default table of ten (all 1 in the first channel for
// grey images).
#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "Eigen/Core"  // half, bfloat16
#include "absl/strings/str_cat.h"
#include "runtime/engine/kernels/internal/kernel_families.h"
#include "runtime/engine/op_kernel.h"

namespace minigraph {
namespace kernels_internal {
namespace {

using Color = std::array<float, 4>;

std::vector<Color> DefaultColors(int64_t depth) {
  std::vector<Color> colors = {
      {1, 1, 0, 1},      // yellow
      {0, 0, 1, 1},      // blue
      {1, 0, 0, 1},      // red
      {0, 1, 0, 1},      // lime
      {0.5, 0, 0.5, 1},  // purple
      {0.5, 0.5, 0, 1},  // olive
      {0.5, 0, 0, 1},    // maroon
      {0, 0, 0.5, 1},    // navy
      {0, 1, 1, 1},      // aqua
      {1, 0, 1, 1},      // fuchsia
  };
  if (depth == 1) {
    for (Color& c : colors) c[0] = 1;
  }
  return colors;
}

template <typename T>
class DrawBoundingBoxesOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& images = ctx->input(0);
    const Tensor& boxes = ctx->input(1);
    if (images.dims() != 4) {
      return absl::InvalidArgumentError(
          absl::StrCat("The rank of the images should be 4, got ", images.shape().DebugString()));
    }
    const int64_t batch = images.dim_size(0), height = images.dim_size(1),
                  width = images.dim_size(2), depth = images.dim_size(3);
    if (batch == 0) {
      return absl::InvalidArgumentError("Batch size should be greater than 0");
    }
    if (depth != 1 && depth != 3 && depth != 4) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Channel depth should be either 1 (GRY), 3 (RGB), or 4 (RGBA), got ", depth));
    }
    if (boxes.dims() != 3 || boxes.dim_size(2) != 4 || boxes.dim_size(0) != batch) {
      return absl::InvalidArgumentError(absl::StrCat(
          "boxes must be 3-D [batch, num_bounding_boxes, 4] with the images' batch, got ",
          boxes.shape().DebugString(), " for images ", images.shape().DebugString()));
    }
    std::vector<Color> colors;
    if (ctx->num_inputs() == 3) {
      const Tensor& table = ctx->input(2);
      if (table.dims() != 2) {
        return absl::InvalidArgumentError(
            absl::StrCat("colors must be a 2-D matrix", table.shape().DebugString()));
      }
      if (table.dim_size(1) < depth) {
        return absl::InvalidArgumentError(
            absl::StrCat("colors must have equal or more channels than the image provided: ",
                         table.shape().DebugString()));
      }
      const int64_t channels = table.dim_size(1);
      for (int64_t i = 0; i < table.dim_size(0); ++i) {
        Color c = {0, 0, 0, 0};
        for (int64_t j = 0; j < std::min<int64_t>(channels, 4); ++j) {
          c[j] = table.data<float>()[i * channels + j];
        }
        colors.push_back(c);
      }
    }
    if (colors.empty()) colors = DefaultColors(depth);
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, images.shape(), &out));
    std::copy_n(images.data<T>(), images.NumElements(), out->data<T>());
    T* canvas = out->data<T>();
    const float* b = boxes.data<float>();
    const int64_t count = boxes.dim_size(1);
    for (int64_t n = 0; n < batch; ++n) {
      for (int64_t k = 0; k < count; ++k) {
        const float* box = b + (n * count + k) * 4;
        const Color& color = colors[k % colors.size()];
        auto paint = [&](int64_t row, int64_t col) {
          T* px = canvas + ((n * height + row) * width + col) * depth;
          for (int64_t c = 0; c < depth; ++c) px[c] = static_cast<T>(color[c]);
        };
        // (float products, truncated toward zero, as TensorFlow's)
        const int64_t top = static_cast<int64_t>(box[0] * static_cast<float>(height - 1));
        const int64_t left = static_cast<int64_t>(box[1] * static_cast<float>(width - 1));
        const int64_t bottom = static_cast<int64_t>(box[2] * static_cast<float>(height - 1));
        const int64_t right = static_cast<int64_t>(box[3] * static_cast<float>(width - 1));
        if (top > bottom || left > right) continue;  // inverted
        if (top >= height || bottom < 0 || left >= width || right < 0) continue;  // outside
        const int64_t r0 = std::max<int64_t>(top, 0), r1 = std::min(bottom, height - 1);
        const int64_t c0 = std::max<int64_t>(left, 0), c1 = std::min(right, width - 1);
        for (int64_t c = c0; c <= c1; ++c) {
          if (top >= 0) paint(top, c);
          if (bottom < height) paint(bottom, c);
        }
        for (int64_t r = r0; r <= r1; ++r) {
          if (left >= 0) paint(r, left);
          if (right < width) paint(r, right);
        }
      }
    }
    return absl::OkStatus();
  }
};

}  // namespace

void RegisterDrawBoxesKernels(KernelRegistry* r) {
  for (const char* op : {"DrawBoundingBoxes", "DrawBoundingBoxesV2"}) {
    r->Register(op, TypedFactory<DrawBoundingBoxesOp, float, half>());
  }
}

}  // namespace kernels_internal
}  // namespace minigraph
