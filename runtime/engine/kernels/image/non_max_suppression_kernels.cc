// Greedy non-maximum suppression of boxes by score (object detection's
// last step): NonMaxSuppression (V1 to V5, V5 with Soft-NMS) and
// NonMaxSuppressionWithOverlaps, as TensorFlow's non_max_suppression_op.cc
// selects: candidates above score_threshold in order of score (the lower
// index first among equals), each compared with the boxes selected so far,
// newest first; a hard suppression drops it, a soft one lowers its score by
// exp(-sim^2 / (2 sigma)) and puts it back in line.
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <queue>
#include <string>
#include <vector>

#include "absl/functional/function_ref.h"
#include "absl/strings/str_cat.h"
#include "runtime/engine/kernels/internal/kernel_families.h"
#include "runtime/engine/kernels/internal/tensor_util.h"

namespace minigraph {
namespace kernels_internal {
namespace {

// Intersection over union of boxes i and j of `boxes` ([n, 4], each two
// corners in either order); 0 when either has no area.
float Iou(const float* boxes, int64_t i, int64_t j) {
  const float* a = boxes + 4 * i;
  const float* b = boxes + 4 * j;
  const float a_ymin = std::min(a[0], a[2]), a_xmin = std::min(a[1], a[3]);
  const float a_ymax = std::max(a[0], a[2]), a_xmax = std::max(a[1], a[3]);
  const float b_ymin = std::min(b[0], b[2]), b_xmin = std::min(b[1], b[3]);
  const float b_ymax = std::max(b[0], b[2]), b_xmax = std::max(b[1], b[3]);
  const float area_a = (a_ymax - a_ymin) * (a_xmax - a_xmin);
  const float area_b = (b_ymax - b_ymin) * (b_xmax - b_xmin);
  if (area_a <= 0 || area_b <= 0) return 0.0f;
  const float inter = std::max(std::min(a_ymax, b_ymax) - std::max(a_ymin, b_ymin), 0.0f) *
                      std::max(std::min(a_xmax, b_xmax) - std::max(a_xmin, b_xmin), 0.0f);
  return inter / (area_a + area_b - inter);
}

struct Selection {
  std::vector<int32_t> indices;
  std::vector<float> scores;
};

// The greedy selection over `n` boxes of `scores`; similarity(i, j) is
// their overlap. sigma > 0 makes it Soft-NMS.
Selection Suppress(int64_t n, const float* scores, int64_t max_out, float sim_threshold,
                   float score_threshold, float sigma,
                   absl::FunctionRef<float(int64_t, int64_t)> similarity) {
  struct Candidate {
    int64_t box;
    float score;
    size_t suppress_begin;  // selections it was compared with already
  };
  auto after = [](const Candidate& a, const Candidate& b) {
    return a.score < b.score || (a.score == b.score && a.box > b.box);
  };
  std::priority_queue<Candidate, std::vector<Candidate>, decltype(after)> queue(after);
  for (int64_t i = 0; i < n; ++i) {
    if (scores[i] > score_threshold) queue.push({i, scores[i], 0});
  }
  const bool soft = sigma > 0;
  const float scale = soft ? -0.5f / sigma : 0.0f;
  Selection s;
  while (static_cast<int64_t>(s.indices.size()) < max_out && !queue.empty()) {
    Candidate c = queue.top();
    queue.pop();
    const float original = c.score;
    bool hard = false;
    for (size_t j = s.indices.size(); j-- > c.suppress_begin;) {
      const float sim = similarity(c.box, s.indices[j]);
      c.score *= soft || sim <= sim_threshold ? std::exp(scale * sim * sim) : 0.0f;
      if (!soft && sim > sim_threshold) {
        hard = true;
        break;
      }
      if (c.score <= score_threshold) break;
    }
    c.suppress_begin = s.indices.size();
    if (hard) continue;
    if (c.score == original) {
      s.indices.push_back(static_cast<int32_t>(c.box));
      s.scores.push_back(c.score);
    } else if (c.score > score_threshold) {
      queue.push(c);
    }
  }
  return s;
}

// A scalar input of dtype `dt`, InvalidArgument naming it otherwise.
template <typename T>
absl::StatusOr<T> ScalarInput(const OpKernel& k, const Tensor& t, const char* name) {
  if (t.dims() != 0 || t.dtype() != DataTypeToEnum<T>::value) {
    return absl::InvalidArgumentError(absl::StrCat(k.type_string(), ": ", name,
                                                   " must be a scalar ",
                                                   DataTypeString(DataTypeToEnum<T>::value),
                                                   ", got shape ", t.shape().DebugString(),
                                                   " of ", DataTypeString(t.dtype())));
  }
  return *t.data<T>();
}

// NonMaxSuppression V1 to V5 (kVersion), and WithOverlaps (0): boxes (or
// overlaps), scores, max_output_size, then the thresholds each version
// takes.
template <int kVersion>
class NonMaxSuppressionOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    if (kVersion == 1) MG_RETURN_IF_ERROR(c->GetAttr("iou_threshold", &v1_threshold_));
    if (kVersion >= 4) MG_RETURN_IF_ERROR(c->GetAttr("pad_to_max_output_size", &pad_));
    return absl::OkStatus();
  }
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& boxes = ctx->input(0);
    const Tensor& scores = ctx->input(1);
    MG_ASSIGN_OR_RETURN(int32_t max_out, ScalarInput<int32_t>(*this, ctx->input(2),
                                                               "max_output_size"));
    float threshold = v1_threshold_;
    float score_threshold = std::numeric_limits<float>::lowest(), sigma = 0;
    if (kVersion != 1) {
      MG_ASSIGN_OR_RETURN(threshold, ScalarInput<float>(*this, ctx->input(3),
                                                        kVersion ? "iou_threshold"
                                                                 : "overlap_threshold"));
    }
    if (kVersion != 0 && !(threshold >= 0 && threshold <= 1)) {
      return absl::InvalidArgumentError(
          absl::StrCat(type_string(), ": iou_threshold must be in [0, 1], got ", threshold));
    }
    if (kVersion == 0 || kVersion >= 3) {
      MG_ASSIGN_OR_RETURN(score_threshold,
                          ScalarInput<float>(*this, ctx->input(4), "score_threshold"));
    }
    if (kVersion == 5) {
      MG_ASSIGN_OR_RETURN(sigma, ScalarInput<float>(*this, ctx->input(5), "soft_nms_sigma"));
      if (!(sigma >= 0)) {
        return absl::InvalidArgumentError(
            absl::StrCat(type_string(), ": soft_nms_sigma must be >= 0, got ", sigma));
      }
    }
    const bool overlaps = kVersion == 0;
    const int64_t n = boxes.dims() == 2 ? boxes.dim_size(0) : -1;
    if (n < 0 || boxes.dim_size(1) != (overlaps ? n : 4)) {
      return absl::InvalidArgumentError(absl::StrCat(
          type_string(), overlaps ? ": overlaps must be [num_boxes, num_boxes]"
                                  : ": boxes must be [num_boxes, 4]",
          ", got shape ", boxes.shape().DebugString()));
    }
    if (scores.dims() != 1 || scores.dim_size(0) != n) {
      return absl::InvalidArgumentError(absl::StrCat(type_string(), ": scores must be [", n,
                                                     "], got shape ",
                                                     scores.shape().DebugString()));
    }
    if (max_out < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(type_string(), ": max_output_size must be non-negative, got ", max_out));
    }
    // Padded, the outputs are max_output_size long whatever survives.
    if (pad_) {
      MG_RETURN_IF_ERROR(CheckScratchSize(max_out, sizeof(int32_t) + sizeof(float),
                                          absl::StrCat(type_string(), "'s padded outputs")));
    }
    const float* b = boxes.data<float>();
    Selection s = Suppress(n, scores.data<float>(), max_out, threshold, score_threshold, sigma,
                           [&](int64_t i, int64_t j) {
                             return overlaps ? b[i * n + j] : Iou(b, i, j);
                           });
    const int32_t valid = static_cast<int32_t>(s.indices.size());
    if (pad_) {
      s.indices.resize(max_out, 0);
      s.scores.resize(max_out, 0.0f);
    }
    const TensorShape shape({static_cast<int64_t>(s.indices.size())});
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, shape, &out));
    std::copy(s.indices.begin(), s.indices.end(), out->data<int32_t>());
    int next = 1;
    if (kVersion == 5) {
      MG_RETURN_IF_ERROR(ctx->allocate_output(next++, shape, &out));
      std::copy(s.scores.begin(), s.scores.end(), out->data<float>());
    }
    if (kVersion >= 4) {
      MG_RETURN_IF_ERROR(ctx->allocate_output(next, TensorShape({}), &out));
      *out->data<int32_t>() = valid;
    }
    return absl::OkStatus();
  }

 private:
  float v1_threshold_ = 0.5f;
  bool pad_ = false;
};

}  // namespace

void RegisterNonMaxSuppressionKernels(KernelRegistry* r) {
  r->Register("NonMaxSuppression", MakeFactory<NonMaxSuppressionOp<1>>());
  // V2 to V5 for float boxes and scores (TensorFlow's also take half).
  r->Register("NonMaxSuppressionV2", OneTypeFactory<NonMaxSuppressionOp<2>>(DT_FLOAT));
  r->Register("NonMaxSuppressionV3", OneTypeFactory<NonMaxSuppressionOp<3>>(DT_FLOAT));
  r->Register("NonMaxSuppressionV4", OneTypeFactory<NonMaxSuppressionOp<4>>(DT_FLOAT));
  r->Register("NonMaxSuppressionV5", OneTypeFactory<NonMaxSuppressionOp<5>>(DT_FLOAT));
  r->Register("NonMaxSuppressionWithOverlaps", MakeFactory<NonMaxSuppressionOp<0>>());
}

}  // namespace kernels_internal
}  // namespace minigraph
