// SampleDistortedBoundingBox, its V2 and StatelessSampleDistortedBoundingBox
// (tf.image.sample_distorted_bounding_box, the random crop of Inception's
// and ResNet's training preprocessing): up to max_attempts crops of a random
// aspect ratio and area that cover at least min_object_covered of one of
// the given boxes (the whole image when there are none and
// use_image_if_no_bounding_boxes), else the whole image; as a Slice's begin
// and size and as a box in [0, 1]. Drawn as TensorFlow's
// sample_distorted_bounding_box_op.cc draws them, so that a seeded graph
// crops the same pixels: the stateful ops from the node's stream (4 samples
// per attempt reserved), the stateless one from its seed input.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/engine/kernels/internal/kernel_families.h"
#include "runtime/engine/kernels/internal/random_streams.h"
#include "runtime/engine/op_kernel.h"

namespace minigraph {
namespace kernels_internal {
namespace {

// A rectangle of whole pixels, [min, max) on each axis.
struct Rect {
  int min_x = 0, min_y = 0, max_x = 0, max_y = 0;
  float Area() const { return static_cast<float>((max_x - min_x) * (max_y - min_y)); }
  Rect Intersect(const Rect& r) const {
    Rect o{std::max(min_x, r.min_x), std::max(min_y, r.min_y), std::min(max_x, r.max_x),
           std::min(max_y, r.max_y)};
    if (o.min_x > o.max_x || o.min_y > o.max_y) return Rect{};
    return o;
  }
};

// Whether `crop` has a pixel and covers enough of one box of a pixel or more.
bool CoversEnough(const Rect& crop, float min_covered, const std::vector<Rect>& boxes) {
  if (crop.Area() < 1.0f) return false;
  for (const Rect& box : boxes) {
    const float area = box.Area();
    if (area < 1.0f) continue;
    if (crop.Intersect(box).Area() / area >= min_covered) return true;
  }
  return false;
}

// A crop of `aspect` whose area lies in [min_area, max_area] of the image,
// its height uniform between the smallest and largest that fit and its
// corner uniform within the image; false when none fits. TensorFlow's
// GenerateRandomCrop, rounding (lrintf) included.
bool RandomCrop(int width, int height, float min_rel, float max_rel, float aspect,
                SimplePhilox* random, Rect* crop) {
  if (max_rel <= 0.0f || aspect <= 0.0f || width <= 0 || height <= 0 || min_rel > max_rel) {
    return false;
  }
  const float min_area = min_rel * width * height;
  const float max_area = max_rel * width * height;
  int h = static_cast<int>(std::lrint(std::sqrt(min_area / aspect)));
  int max_h = static_cast<int>(std::lrint(std::sqrt(max_area / aspect)));
  if (std::lrint(max_h * aspect) > width) {
    // The largest max_h with round(max_h * aspect) <= width.
    const float kEps = 0.0000001f;
    max_h = static_cast<int>((width + 0.5 - kEps) / aspect);
    if (std::lrint(max_h * aspect) > width) max_h -= 1;
  }
  max_h = std::min(max_h, height);
  h = std::min(h, max_h);
  if (h < max_h) h += static_cast<int>(random->Uniform(static_cast<uint32_t>(max_h - h + 1)));
  int w = static_cast<int>(std::lrint(h * aspect));
  float area = static_cast<float>(w * h);
  // Rounding may leave the area just outside the range: one pixel taller,
  // then one shorter.
  if (area < min_area) {
    h += 1;
    w = static_cast<int>(std::lrint(h * aspect));
    area = static_cast<float>(w * h);
  }
  if (area > max_area) {
    h -= 1;
    w = static_cast<int>(std::lrint(h * aspect));
    area = static_cast<float>(w * h);
  }
  if (area < min_area || area > max_area || w > width || h > height || w <= 0 || h <= 0) {
    return false;
  }
  const int y = h < height ? static_cast<int>(random->Uniform(height - h)) : 0;
  const int x = w < width ? static_cast<int>(random->Uniform(width - w)) : 0;
  *crop = Rect{x, y, x + w, y + h};
  return true;
}

template <typename T>
class SampleDistortedBoundingBoxOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    const std::string& op = c->def().op();
    stateless_ = op == "StatelessSampleDistortedBoundingBox";
    if (op == "SampleDistortedBoundingBox") {
      MG_RETURN_IF_ERROR(c->GetAttr("min_object_covered", &min_covered_));
      if (!(min_covered_ >= 0)) {
        return Invalid(absl::StrCat("Min object covered must be non-negative: ", min_covered_));
      }
    }
    MG_RETURN_IF_ERROR(c->GetAttr("use_image_if_no_bounding_boxes", &use_image_));
    MG_RETURN_IF_ERROR(c->GetAttr("aspect_ratio_range", &aspect_range_));
    MG_RETURN_IF_ERROR(c->GetAttr("area_range", &area_range_));
    MG_RETURN_IF_ERROR(c->GetAttr("max_attempts", &max_attempts_));
    if (aspect_range_.size() != 2 || !(aspect_range_[0] > 0 && aspect_range_[1] > 0)) {
      return Invalid("aspect_ratio_range must be two positive numbers");
    }
    if (area_range_.size() != 2 || !(area_range_[0] > 0 && area_range_[1] > 0) ||
        !(area_range_[0] <= 1 && area_range_[1] <= 1)) {
      return Invalid("area_range must be two numbers in (0, 1]");
    }
    if (max_attempts_ <= 0) {
      return Invalid(absl::StrCat("Max attempts must be positive: ", max_attempts_));
    }
    return stateless_ ? absl::OkStatus() : generator_.Init(c);
  }

  absl::Status Compute(OpKernelContext* ctx) const override {
    MG_ASSIGN_OR_RETURN(PhiloxRandom gen,
                        stateless_ ? SeedGenerator(ctx->input(3), Where())
                                   : absl::StatusOr<PhiloxRandom>(generator_.ReserveSamples32(
                                         4 * static_cast<uint64_t>(max_attempts_))));
    const Tensor& size = ctx->input(0);
    const Tensor& boxes_in = ctx->input(1);
    if (size.dims() != 1 || size.NumElements() != 3) {
      return Invalid(absl::StrCat("image_size must be 1-dimensional with 3 elements, got ",
                                  size.shape().DebugString()));
    }
    // As TensorFlow: read as unsigned, so that a negative size is too big.
    const uint64_t height_raw = static_cast<uint64_t>(size.data<T>()[0]);
    const uint64_t width_raw = static_cast<uint64_t>(size.data<T>()[1]);
    if (height_raw >= static_cast<uint64_t>(std::numeric_limits<int32_t>::max()) ||
        width_raw >= static_cast<uint64_t>(std::numeric_limits<int32_t>::max())) {
      return Invalid(absl::StrCat("image height and width cannot be >= int32 max, got ",
                                  size.data<T>()[0], " and ", size.data<T>()[1]));
    }
    const int height = static_cast<int>(height_raw), width = static_cast<int>(width_raw);
    if (boxes_in.dims() != 3 || boxes_in.dim_size(2) != 4) {
      return Invalid(absl::StrCat("bounding_boxes must be [batch, N, 4], got ",
                                  boxes_in.shape().DebugString()));
    }
    float min_covered = min_covered_;
    if (ctx->num_inputs() >= 3) {
      const Tensor& m = ctx->input(2);
      if (m.dims() != 0) {
        return Invalid(absl::StrCat("min_object_covered must be 0-D, got shape ",
                                    m.shape().DebugString()));
      }
      min_covered = *m.data<float>();
      if (!(min_covered >= 0)) {
        return Invalid(absl::StrCat("Min object covered must be non-negative: ", min_covered));
      }
    }
    std::vector<Rect> boxes;
    const float* b = boxes_in.data<float>();
    for (int64_t i = 0; i < boxes_in.NumElements() / 4; ++i) {
      for (int k = 0; k < 4; ++k) {
        if (!(b[4 * i + k] >= 0.0f && b[4 * i + k] <= 1.0f)) {
          return Invalid(absl::StrCat("All bounding box coordinates must be in [0.0, 1.0]: ",
                                      b[4 * i + k]));
        }
      }
      boxes.push_back(Rect{static_cast<int>(b[4 * i + 1] * width),
                           static_cast<int>(b[4 * i] * height),
                           static_cast<int>(b[4 * i + 3] * width),
                           static_cast<int>(b[4 * i + 2] * height)});
    }
    const Rect image{0, 0, width, height};
    if (boxes.empty()) {
      if (!use_image_) {
        return Invalid(
            "No bounding boxes provided as input. One must enable "
            "use_image_if_no_bounding_boxes if you wish to not provide any bounding boxes.");
      }
      boxes.push_back(image);
    }
    SimplePhilox random(&gen);
    Rect crop = image;
    for (int64_t i = 0; i < max_attempts_; ++i) {
      const float aspect =
          random.RandFloat() * (aspect_range_[1] - aspect_range_[0]) + aspect_range_[0];
      Rect candidate;
      if (RandomCrop(width, height, area_range_[0], area_range_[1], aspect, &random,
                     &candidate) &&
          CoversEnough(candidate, min_covered, boxes)) {
        crop = candidate;
        break;
      }
    }
    Tensor *begin, *size_out, *box;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, TensorShape({3}), &begin));
    MG_RETURN_IF_ERROR(ctx->allocate_output(1, TensorShape({3}), &size_out));
    MG_RETURN_IF_ERROR(ctx->allocate_output(2, TensorShape({1, 1, 4}), &box));
    T* bg = begin->data<T>();
    T* sz = size_out->data<T>();
    bg[0] = static_cast<T>(crop.min_y);
    bg[1] = static_cast<T>(crop.min_x);
    bg[2] = T(0);
    sz[0] = static_cast<T>(crop.max_y - crop.min_y);
    sz[1] = static_cast<T>(crop.max_x - crop.min_x);
    sz[2] = static_cast<T>(-1);  // every channel
    float* o = box->data<float>();
    o[0] = static_cast<float>(crop.min_y) / static_cast<float>(height);
    o[1] = static_cast<float>(crop.min_x) / static_cast<float>(width);
    o[2] = static_cast<float>(crop.max_y) / static_cast<float>(height);
    o[3] = static_cast<float>(crop.max_x) / static_cast<float>(width);
    return absl::OkStatus();
  }

 private:
  std::string Where() const { return absl::StrCat(type_string(), " '", name(), "'"); }
  absl::Status Invalid(absl::string_view what) const {
    return absl::InvalidArgumentError(absl::StrCat(Where(), ": ", what));
  }

  bool stateless_ = false, use_image_ = false;
  float min_covered_ = 0.1f;
  std::vector<float> aspect_range_, area_range_;
  int64_t max_attempts_ = 100;
  NodeGenerator generator_;
};

}  // namespace

void RegisterSampleDistortedBoxKernels(KernelRegistry* r) {
  for (const char* op : {"SampleDistortedBoundingBox", "SampleDistortedBoundingBoxV2",
                         "StatelessSampleDistortedBoundingBox"}) {
    r->Register(op, TypedFactory<SampleDistortedBoundingBoxOp, uint8_t, int8_t, int16_t, int32_t,
                                 int64_t>());
  }
}

}  // namespace kernels_internal
}  // namespace minigraph
