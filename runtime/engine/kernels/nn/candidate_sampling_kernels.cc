// ComputeAccidentalHits (tf.nn.compute_accidental_hits, what sampled
// softmax and NCE losses mask with): for each row's true classes in order,
// where it appears among the sampled candidates (its last position there),
// as TensorFlow's candidate_sampler_ops.cc lists them: the row, the
// position, and a weight of -FLT_MAX.
#include <algorithm>
#include <cfloat>
#include <cstdint>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/strings/str_cat.h"
#include "runtime/engine/kernels/internal/kernel_families.h"
#include "runtime/engine/op_kernel.h"

namespace minigraph {
namespace kernels_internal {
namespace {

class ComputeAccidentalHitsOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) { return c->GetAttr("num_true", &num_true_); }
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& truth = ctx->input(0);
    const Tensor& sampled = ctx->input(1);
    if (truth.dims() != 2) {
      return absl::InvalidArgumentError(
          absl::StrCat("true_classes must be a matrix, got ", truth.shape().DebugString()));
    }
    if (truth.dim_size(1) != num_true_) {
      return absl::InvalidArgumentError(
          absl::StrCat("true_classes must have num_true columns, expected: ", num_true_,
                       " was: ", truth.dim_size(1)));
    }
    if (sampled.dims() != 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "sampled_candidates must be a vector, got ", sampled.shape().DebugString()));
    }
    absl::flat_hash_map<int64_t, int64_t> position;
    for (int64_t i = 0; i < sampled.NumElements(); ++i) {
      position[sampled.data<int64_t>()[i]] = i;
    }
    std::vector<int32_t> rows;
    std::vector<int64_t> ids;
    const int64_t* t = truth.data<int64_t>();
    for (int64_t i = 0; i < truth.dim_size(0); ++i) {
      for (int64_t j = 0; j < num_true_; ++j) {
        auto it = position.find(t[i * num_true_ + j]);
        if (it != position.end()) {
          rows.push_back(static_cast<int32_t>(i));
          ids.push_back(it->second);
        }
      }
    }
    const int64_t n = static_cast<int64_t>(rows.size());
    Tensor *indices, *out_ids, *weights;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, TensorShape({n}), &indices));
    MG_RETURN_IF_ERROR(ctx->allocate_output(1, TensorShape({n}), &out_ids));
    MG_RETURN_IF_ERROR(ctx->allocate_output(2, TensorShape({n}), &weights));
    std::copy(rows.begin(), rows.end(), indices->data<int32_t>());
    std::copy(ids.begin(), ids.end(), out_ids->data<int64_t>());
    std::fill_n(weights->data<float>(), n, -FLT_MAX);
    return absl::OkStatus();
  }

 private:
  int64_t num_true_ = 1;
};

}  // namespace

void RegisterCandidateSamplingKernels(KernelRegistry* r) {
  r->Register("ComputeAccidentalHits", MakeFactory<ComputeAccidentalHitsOp>());
}

}  // namespace kernels_internal
}  // namespace minigraph
