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

// CombinedNonMaxSuppression (tf.image.combined_non_max_suppression): per
// image and class, a hard greedy selection of at most
// max_output_size_per_class boxes (the class's own boxes when q is
// num_classes, else the shared ones);
// then each image's selections of all classes by score, at most
// max_total_size of them (or as many as the classes can give, with
// pad_per_class), clipped to [0, 1] with clip_boxes, padded with zeros. The
// queues and sorts are TensorFlow's own (score alone decides, ties left to
// the standard library's heap and introsort), so that equal scores come out
// in the same order.
class CombinedNonMaxSuppressionOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    MG_RETURN_IF_ERROR(c->GetAttr("pad_per_class", &pad_per_class_));
    return c->GetAttr("clip_boxes", &clip_boxes_);
  }

  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& boxes = ctx->input(0);
    const Tensor& scores = ctx->input(1);
    const std::string where = absl::StrCat(type_string(), " '", name(), "'");
    MG_ASSIGN_OR_RETURN(const int32_t per_class,
                        ScalarInput<int32_t>(*this, ctx->input(2), "max_output_size_per_class"));
    MG_ASSIGN_OR_RETURN(const int32_t total,
                        ScalarInput<int32_t>(*this, ctx->input(3), "max_total_size"));
    MG_ASSIGN_OR_RETURN(const float iou_threshold,
                        ScalarInput<float>(*this, ctx->input(4), "iou_threshold"));
    MG_ASSIGN_OR_RETURN(const float score_threshold,
                        ScalarInput<float>(*this, ctx->input(5), "score_threshold"));
    if (per_class <= 0 || total <= 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, ": max_size_per_class and max_total_size must be positive, got ", per_class,
          " and ", total));
    }
    if (!(iou_threshold >= 0 && iou_threshold <= 1)) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": iou_threshold must be in [0, 1], got ", iou_threshold));
    }
    if (boxes.dims() != 4 || boxes.dim_size(3) != 4 || scores.dims() != 3 ||
        scores.dim_size(0) != boxes.dim_size(0) || scores.dim_size(1) != boxes.dim_size(1) ||
        (boxes.dim_size(2) != 1 && boxes.dim_size(2) != scores.dim_size(2))) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, ": boxes must be [batch, num_boxes, q, 4] with q 1 or num_classes, and scores "
                 "[batch, num_boxes, num_classes], got ",
          boxes.shape().DebugString(), " and ", scores.shape().DebugString()));
    }
    const int64_t batch = boxes.dim_size(0), n = boxes.dim_size(1), q = boxes.dim_size(2),
                  classes = scores.dim_size(2);
    const int64_t size_per_class = std::min<int64_t>(per_class, n);
    const int64_t per_batch =
        pad_per_class_ ? std::min<int64_t>(total, int64_t{per_class} * classes) : total;
    MG_RETURN_IF_ERROR(CheckScratchSize(size_per_class * classes, sizeof(Result),
                                        absl::StrCat(where, "'s selections per image")));
    Tensor *out_boxes, *out_scores, *out_classes, *valid;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, TensorShape({batch, per_batch, 4}), &out_boxes));
    MG_RETURN_IF_ERROR(ctx->allocate_output(1, TensorShape({batch, per_batch}), &out_scores));
    MG_RETURN_IF_ERROR(ctx->allocate_output(2, TensorShape({batch, per_batch}), &out_classes));
    MG_RETURN_IF_ERROR(ctx->allocate_output(3, TensorShape({batch}), &valid));
    std::fill_n(out_boxes->data<float>(), out_boxes->NumElements(), 0.0f);
    std::fill_n(out_scores->data<float>(), out_scores->NumElements(), 0.0f);
    std::fill_n(out_classes->data<float>(), out_classes->NumElements(), 0.0f);
    std::vector<Result> results;
    for (int64_t b = 0; b < batch; ++b) {
      const float* bx = boxes.data<float>() + b * n * q * 4;
      const float* sc = scores.data<float>() + b * n * classes;
      results.assign(size_per_class * classes, Result{});
      for (int64_t c = 0; c < classes; ++c) {
        SelectClass(bx, sc, n, q, classes, c, size_per_class, iou_threshold, score_threshold,
                    results.data() + c * size_per_class);
      }
      std::sort(results.begin(), results.end(),
                [](const Result& x, const Result& y) { return x.score > y.score; });
      const int64_t found = std::count_if(results.begin(), results.end(),
                                          [](const Result& r) { return r.box > -1; });
      const int64_t take = std::min(found, per_batch);
      valid->data<int32_t>()[b] = static_cast<int32_t>(take);
      float* ob = out_boxes->data<float>() + b * per_batch * 4;
      for (int64_t k = 0; k < take; ++k) {
        for (int i = 0; i < 4; ++i) {
          const float v = results[k].coords[i];
          ob[4 * k + i] = clip_boxes_ ? std::max(std::min(v, 1.0f), 0.0f) : v;
        }
        out_scores->data<float>()[b * per_batch + k] = results[k].score;
        out_classes->data<float>()[b * per_batch + k] = static_cast<float>(results[k].cls);
      }
    }
    return absl::OkStatus();
  }

 private:
  struct Result {
    int64_t box = -1;
    float score = -1.0f;
    int64_t cls = -1;
    float coords[4] = {0, 0, 0, 0};
  };

  // Class c's selections, in order of selection, into its `size` slots.
  static void SelectClass(const float* boxes, const float* scores, int64_t n, int64_t q,
                          int64_t classes, int64_t c, int64_t size, float iou_threshold,
                          float score_threshold, Result* out) {
    struct Candidate {
      int64_t box;
      float score;
    };
    auto lower = [](const Candidate& x, const Candidate& y) { return x.score < y.score; };
    std::priority_queue<Candidate, std::vector<Candidate>, decltype(lower)> queue(lower);
    for (int64_t i = 0; i < n; ++i) {
      if (scores[i * classes + c] > score_threshold) queue.push({i, scores[i * classes + c]});
    }
    const int64_t own = q > 1 ? c : 0;
    std::vector<int64_t> selected;
    while (static_cast<int64_t>(selected.size()) < size && !queue.empty()) {
      const Candidate next = queue.top();
      queue.pop();
      const int64_t at = next.box * q + own;
      bool keep = true;
      for (size_t j = selected.size(); j-- > 0;) {
        if (Iou(boxes, at, selected[j] * q + own) > iou_threshold) {
          keep = false;
          break;
        }
      }
      if (!keep) continue;
      Result& r = out[selected.size()];
      r.box = next.box;
      r.score = next.score;
      r.cls = c;
      std::copy_n(boxes + 4 * at, 4, r.coords);
      selected.push_back(next.box);
    }
  }

  bool pad_per_class_ = false, clip_boxes_ = true;
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
  r->Register("CombinedNonMaxSuppression", MakeFactory<CombinedNonMaxSuppressionOp>());
}

}  // namespace kernels_internal
}  // namespace minigraph
