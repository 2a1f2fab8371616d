// ScalarSummary, HistogramSummary and MergeSummary: serialized Summary
// protos, byte for byte what TensorFlow's kernels produce (the histogram
// uses TensorFlow's default buckets and encoding).
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <string>
#include <vector>

#include "absl/container/flat_hash_set.h"
#include "absl/strings/str_cat.h"
#include "core/proto/summary.pb.h"
#include "runtime/engine/kernels/internal/kernel_families.h"

namespace minigraph {
namespace kernels_internal {
namespace {

Tensor Serialized(const Summary& s) {
  Tensor out = Tensor::Scalar<std::string>("");
  s.SerializeToString(&*out.data<std::string>());
  return out;
}

template <typename T>
class ScalarSummaryOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& tags = ctx->input(0);
    const Tensor& values = ctx->input(1);
    if (tags.shape() != values.shape()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "tags and values not the same shape: ", tags.shape().DebugString(),
          " != ", values.shape().DebugString(),
          tags.NumElements() == 1 ? absl::StrCat(" (tag '", tags.data<std::string>()[0], "')")
                                  : ""));
    }
    Summary s;
    for (int64_t i = 0; i < tags.NumElements(); ++i) {
      Summary::Value* v = s.add_value();
      v->set_tag(tags.data<std::string>()[i]);
      v->set_simple_value(static_cast<float>(values.data<T>()[i]));
    }
    ctx->set_output(0, Serialized(s));
    return absl::OkStatus();
  }
};

// TensorFlow's default histogram buckets (histogram.cc, from LevelDB's):
// limits growing by 10% from 1e-12 to 1e20, mirrored for negatives, with 0
// and +-DBL_MAX at the ends. Written out here because the encoding must
// match TensorFlow's for TensorBoard; no available library has it.
const std::vector<double>& DefaultBucketLimits() {
  static const std::vector<double>* const limits = [] {
    std::vector<double> pos, neg;
    for (double v = 1.0e-12; v < 1.0e20; v *= 1.1) {
      pos.push_back(v);
      neg.push_back(-v);
    }
    pos.push_back(DBL_MAX);
    neg.push_back(-DBL_MAX);
    auto* all = new std::vector<double>(neg.rbegin(), neg.rend());
    all->push_back(0.0);
    all->insert(all->end(), pos.begin(), pos.end());
    return all;
  }();
  return *limits;
}

template <typename T>
class HistogramSummaryOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& tag = ctx->input(0);
    const Tensor& values = ctx->input(1);
    if (tag.dims() != 0) return absl::InvalidArgumentError("tags must be scalar");
    const std::vector<double>& limits = DefaultBucketLimits();
    std::vector<double> counts(limits.size(), 0.0);
    double min = DBL_MAX, max = -DBL_MAX, num = 0, sum = 0, sum_squares = 0;
    const T* flat = values.data<T>();
    for (int64_t i = 0; i < values.NumElements(); ++i) {
      const double x = static_cast<double>(flat[i]);
      if (std::isnan(x)) {
        return absl::InvalidArgumentError(absl::StrCat("Nan in summary histogram for: ", name()));
      }
      if (std::isinf(x)) {
        return absl::InvalidArgumentError(
            absl::StrCat("Infinity in summary histogram for: ", name()));
      }
      counts[std::upper_bound(limits.begin(), limits.end(), x) - limits.begin()] += 1.0;
      min = std::min(min, x);
      max = std::max(max, x);
      num += 1;
      sum += x;
      sum_squares += x * x;
    }
    Summary s;
    Summary::Value* v = s.add_value();
    v->set_tag(*tag.data<std::string>());
    HistogramProto* h = v->mutable_histo();
    h->set_min(min);
    h->set_max(max);
    h->set_num(num);
    h->set_sum(sum);
    h->set_sum_squares(sum_squares);
    // Each non-empty bucket, and each run of empty ones as one bucket ending
    // at the run's last limit.
    for (size_t i = 0; i < counts.size();) {
      double end = limits[i];
      double count = counts[i];
      ++i;
      if (count <= 0.0) {
        while (i < counts.size() && counts[i] <= 0.0) {
          end = limits[i];
          count = counts[i];
          ++i;
        }
      }
      h->add_bucket_limit(end);
      h->add_bucket(count);
    }
    ctx->set_output(0, Serialized(s));
    return absl::OkStatus();
  }
};

class MergeSummaryOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    Summary merged;
    absl::flat_hash_set<std::string> tags;
    for (int i = 0; i < ctx->num_inputs(); ++i) {
      const Tensor& in = ctx->input(i);
      for (int64_t k = 0; k < in.NumElements(); ++k) {
        Summary summary;
        if (!summary.ParseFromString(in.data<std::string>()[k])) {
          return absl::InvalidArgumentError("Could not parse one of the summary inputs");
        }
        for (const Summary::Value& v : summary.value()) {
          if (!v.tag().empty() && !tags.insert(v.tag()).second) {
            return absl::InvalidArgumentError(
                absl::StrCat("Duplicate tag ", v.tag(), " found in summary inputs"));
          }
          *merged.add_value() = v;
        }
      }
    }
    ctx->set_output(0, Serialized(merged));
    return absl::OkStatus();
  }
};

}  // namespace

void RegisterSummaryKernels(KernelRegistry* r) {
  r->Register("ScalarSummary", TypedFactory<ScalarSummaryOp, float, double, int32_t, int64_t>());
  r->Register("HistogramSummary",
              TypedFactory<HistogramSummaryOp, float, double, int32_t, int64_t>());
  r->Register("MergeSummary", MakeFactory<MergeSummaryOp>());
}

}  // namespace kernels_internal
}  // namespace minigraph
