// Connectionist temporal classification decoding: CTCGreedyDecoder, the
// best path (each step's most likely class, the first of equals; blanks
// dropped and, with merge_repeated, repeats merged), as TensorFlow's
// ctc_decoder_ops.cc.
#include <algorithm>
#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/engine/kernels/internal/kernel_families.h"

namespace minigraph {
namespace kernels_internal {
namespace {

// inputs [max_time, batch, classes] (logits), sequence_length [batch]
// int32 -> decoded_indices [n, 2], decoded_values [n], decoded_shape
// [batch, longest] (int64: a SparseTensor of the paths) and
// log_probability [batch, 1], each path's negated sum of its steps' maxima.
template <typename T>
class CTCGreedyDecoderOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    MG_RETURN_IF_ERROR(c->GetAttr("merge_repeated", &merge_repeated_));
    return c->GetAttr("blank_index", &blank_index_);
  }
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& inputs = ctx->input(0);
    const Tensor& lengths = ctx->input(1);
    if (inputs.dims() != 3) {
      return absl::InvalidArgumentError(absl::StrCat(
          "CTCGreedyDecoder: inputs must be [max_time, batch, classes], got shape ",
          inputs.shape().DebugString()));
    }
    const int64_t max_time = inputs.dim_size(0), batch = inputs.dim_size(1),
                  classes = inputs.dim_size(2);
    if (lengths.dims() != 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "CTCGreedyDecoder: sequence_length must be a vector, got shape ",
          lengths.shape().DebugString()));
    }
    // TensorFlow's class for these two: FailedPrecondition.
    if (lengths.dim_size(0) != batch) {
      return absl::FailedPreconditionError(absl::StrCat(
          "CTCGreedyDecoder: sequence_length must be a vector of one length per batch entry (",
          batch, "), got shape ", lengths.shape().DebugString()));
    }
    const int32_t* len = lengths.data<int32_t>();
    for (int64_t b = 0; b < batch; ++b) {
      if (len[b] > max_time) {
        return absl::FailedPreconditionError(
            absl::StrCat("CTCGreedyDecoder: sequence_length[", b, "] = ", len[b],
                         " is longer than the inputs' ", max_time, " steps"));
      }
    }
    if (classes == 0 && std::any_of(len, len + batch, [](int32_t l) { return l > 0; })) {
      return absl::InvalidArgumentError("CTCGreedyDecoder: the inputs have no classes");
    }
    const int64_t blank = blank_index_ < 0 ? classes + blank_index_ : blank_index_;
    if (blank < 0 || blank >= classes) {
      return absl::InvalidArgumentError(absl::StrCat(
          "CTCGreedyDecoder: blank_index ", blank_index_, " is outside the ", classes, " classes"));
    }
    Tensor* log_prob;
    MG_RETURN_IF_ERROR(ctx->allocate_output(3, TensorShape({batch, 1}), &log_prob));
    const T* x = inputs.data<T>();
    std::vector<std::vector<int64_t>> paths(batch);
    for (int64_t b = 0; b < batch; ++b) {
      T total = T(0);
      int64_t previous = -1;
      for (int64_t t = 0; t < len[b]; ++t) {
        const T* row = x + (t * batch + b) * classes;
        const int64_t best = std::max_element(row, row + classes) - row;
        total -= row[best];
        if (best != blank && !(merge_repeated_ && best == previous)) paths[b].push_back(best);
        previous = best;
      }
      log_prob->data<T>()[b] = total;
    }
    int64_t n = 0, longest = 0;
    for (const auto& p : paths) {
      n += static_cast<int64_t>(p.size());
      longest = std::max(longest, static_cast<int64_t>(p.size()));
    }
    Tensor *indices, *values, *shape;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, TensorShape({n, 2}), &indices));
    MG_RETURN_IF_ERROR(ctx->allocate_output(1, TensorShape({n}), &values));
    MG_RETURN_IF_ERROR(ctx->allocate_output(2, TensorShape({2}), &shape));
    int64_t* ix = indices->data<int64_t>();
    int64_t* v = values->data<int64_t>();
    for (int64_t b = 0; b < batch; ++b) {
      for (size_t j = 0; j < paths[b].size(); ++j) {
        *ix++ = b;
        *ix++ = static_cast<int64_t>(j);
        *v++ = paths[b][j];
      }
    }
    shape->data<int64_t>()[0] = batch;
    shape->data<int64_t>()[1] = longest;
    return absl::OkStatus();
  }

 private:
  bool merge_repeated_ = false;
  int64_t blank_index_ = -1;
};

}  // namespace

void RegisterCtcKernels(KernelRegistry* r) {
  r->Register("CTCGreedyDecoder", TypedFactory<CTCGreedyDecoderOp, float, double>());
}

}  // namespace kernels_internal
}  // namespace minigraph
