// StringNGrams (tf.strings.ngrams, Keras' TextVectorization): for each row
// of a ragged batch of tokens (data and its row splits), the n-grams of
// every width in ngram_widths, in that order: the row padded at each end
// with pad_width copies of left_pad and right_pad (ngram_width - 1 for a
// negative pad_width, and never more than that), every window of the
// width joined by separator. With preserve_short_sequences, a row too
// short for any n-gram gives one: the whole padded row.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/engine/kernels/internal/kernel_families.h"
#include "runtime/engine/kernels/internal/tensor_util.h"
#include "runtime/engine/op_kernel.h"

namespace minigraph {
namespace kernels_internal {
namespace {

class StringNGramsOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    MG_RETURN_IF_ERROR(c->GetAttr("separator", &separator_));
    MG_RETURN_IF_ERROR(c->GetAttr("ngram_widths", &widths_));
    MG_RETURN_IF_ERROR(c->GetAttr("left_pad", &left_pad_));
    MG_RETURN_IF_ERROR(c->GetAttr("right_pad", &right_pad_));
    MG_RETURN_IF_ERROR(c->GetAttr("pad_width", &pad_width_));
    MG_RETURN_IF_ERROR(c->GetAttr("preserve_short_sequences", &preserve_short_));
    return absl::OkStatus();
  }

  absl::Status Compute(OpKernelContext* ctx) const override {
    for (int64_t w : widths_) {
      if (w <= 0) return absl::InvalidArgumentError("ngram_widths must contain positive values");
    }
    const Tensor& data = ctx->input(0);
    const Tensor& splits_t = ctx->input(1);
    MG_ASSIGN_OR_RETURN(std::vector<int64_t> splits, FlatInts(splits_t, "data_splits"));
    const int64_t size = data.NumElements();
    if (!splits.empty()) {
      if (splits[0] != 0) {
        return absl::InvalidArgumentError(
            absl::StrCat("First split value must be 0, got ", splits[0]));
      }
      for (size_t i = 1; i < splits.size(); ++i) {
        if (splits[i] < splits[i - 1] || splits[i] > size) {
          return absl::InvalidArgumentError(absl::StrCat("Invalid split value ", splits[i],
                                                         ", must be in [", splits[i - 1], ", ",
                                                         size, "]"));
        }
      }
      if (splits.back() != size) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Last split value must be data size. Expected ", size, ", got ", splits.back()));
      }
    }
    Tensor* out_splits;
    MG_RETURN_IF_ERROR(ctx->allocate_output(1, splits_t.shape(), &out_splits));
    const int64_t rows = static_cast<int64_t>(splits.size()) - 1;
    std::vector<std::vector<std::string>> grams(std::max<int64_t>(rows, 0));
    if (size > 0) {
      // Widths come from attrs: bound the token slots the n-grams take
      // before building any.
      double slots = 0;
      for (int64_t r = 0; r < rows; ++r) {
        const double length = static_cast<double>(splits[r + 1] - splits[r]);
        for (int64_t w : widths_) {
          const double pad = static_cast<double>(Pad(w));
          slots += std::max(0.0, length + 2 * pad - static_cast<double>(w) + 1) * w;
        }
        if (preserve_short_ && pad_width_ >= 0) slots += length + 2.0 * pad_width_;
      }
      MG_RETURN_IF_ERROR(CheckScratchSize(static_cast<int64_t>(std::min(slots, 9e18)),
                                          sizeof(std::string), "StringNGrams' n-grams"));
      for (int64_t r = 0; r < rows; ++r) {
        MG_RETURN_IF_ERROR(Row(data.data<std::string>() + splits[r], splits[r + 1] - splits[r],
                               &grams[r]));
      }
    }
    int64_t total = 0;
    std::vector<int64_t> offsets(splits.size(), 0);
    for (int64_t r = 0; r < rows; ++r) offsets[r + 1] = total += grams[r].size();
    for (size_t i = 0; i < offsets.size(); ++i) {
      if (out_splits->dtype() == DT_INT32) {
        out_splits->data<int32_t>()[i] = static_cast<int32_t>(offsets[i]);
      } else {
        out_splits->data<int64_t>()[i] = offsets[i];
      }
    }
    Tensor* ngrams;
    // (No data or no splits: an output shaped like the data, as TensorFlow's.)
    MG_RETURN_IF_ERROR(ctx->allocate_output(
        0, size == 0 || splits.empty() ? data.shape() : TensorShape({total}), &ngrams));
    std::string* out = ngrams->data<std::string>();
    for (auto& row : grams) {
      for (std::string& g : row) *out++ = std::move(g);
    }
    return absl::OkStatus();
  }

 private:
  int64_t Pad(int64_t width) const {
    return std::min(pad_width_ < 0 ? width - 1 : pad_width_, width - 1);
  }

  // The n-grams of one row of `length` tokens.
  absl::Status Row(const std::string* tokens, int64_t length,
                   std::vector<std::string>* out) const {
    for (int64_t width : widths_) Windows(tokens, length, width, Pad(width), out);
    if (preserve_short_ && out->empty() && length > 0) {
      if (pad_width_ < 0) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Pad width should be >= 0 when preserve_short_sequences is True and ngram_widths "
            "are not provided, got ",
            pad_width_));
      }
      Windows(tokens, length, length + 2 * pad_width_, pad_width_, out);
    }
    return absl::OkStatus();
  }

  // Every window of `width` over the row padded by `pad` at each end.
  void Windows(const std::string* tokens, int64_t length, int64_t width, int64_t pad,
               std::vector<std::string>* out) const {
    const int64_t count = length + 2 * pad - width + 1;
    for (int64_t start = 0; start < count; ++start) {
      std::string gram;
      for (int64_t k = start; k < start + width; ++k) {
        if (k > start) gram += separator_;
        gram += k < pad ? left_pad_ : k >= pad + length ? right_pad_ : tokens[k - pad];
      }
      out->push_back(std::move(gram));
    }
  }

  std::string separator_, left_pad_, right_pad_;
  std::vector<int64_t> widths_;
  int64_t pad_width_ = -1;
  bool preserve_short_ = false;
};

}  // namespace

void RegisterStringNGramsKernels(KernelRegistry* r) {
  r->Register("StringNGrams", MakeFactory<StringNGramsOp>());
}

}  // namespace kernels_internal
}  // namespace minigraph
