// StringFormat (what tf.print and tf.strings.format build): a template
// whose placeholders are replaced, in order, by the inputs summarized as
// TensorFlow's Tensor::SummarizeValue(summarize, print_v2) writes them:
// nested brackets, at most `summarize` elements at each end of every
// dimension with "..." between (all of them for a negative summarize),
// rows split by newlines and indented; floats in the shortest of 6 or 9
// (doubles 15 or 17) significant digits that reads back the same, strings
// quoted and C-escaped (UTF-8 kept), booleans as 1 and 0, complex numbers
// as "?", as TensorFlow prints them.
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <type_traits>
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "Eigen/Core"  // half, bfloat16
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "runtime/engine/kernels/internal/kernel_families.h"
#include "runtime/engine/op_kernel.h"

namespace minigraph {
namespace kernels_internal {
namespace {

// TensorFlow's FloatToBuffer and DoubleToBuffer: %g with `digits`
// significant digits, or `more` when that does not read back.
template <typename F>
std::string ShortestFloat(F v, int digits, int more) {
  if (std::isnan(v)) return std::signbit(v) ? "-nan" : "nan";
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%.*g", digits, static_cast<double>(v));
  const F back = std::is_same_v<F, float> ? std::strtof(buf, nullptr) : std::strtod(buf, nullptr);
  if (back != v) std::snprintf(buf, sizeof(buf), "%.*g", more, static_cast<double>(v));
  return buf;
}

template <typename T>
std::string Element(const T& v) {
  if constexpr (std::is_same_v<T, float> || std::is_same_v<T, half> ||
                std::is_same_v<T, bfloat16>) {
    return ShortestFloat(static_cast<float>(v), FLT_DIG, FLT_DIG + 3);
  } else if constexpr (std::is_same_v<T, double>) {
    return ShortestFloat(v, DBL_DIG, DBL_DIG + 2);
  } else if constexpr (std::is_same_v<T, bool>) {
    return v ? "1" : "0";
  } else if constexpr (std::is_same_v<T, std::string>) {
    return absl::StrCat("\"", absl::Utf8SafeCEscape(v), "\"");
  } else if constexpr (std::is_integral_v<T>) {
    return absl::StrCat(static_cast<int64_t>(v));
  } else {
    return "?";  // complex numbers, as TensorFlow prints them
  }
}

// TensorFlow's separator between the entries of dimension `dim`: a space
// in the innermost, else a newline per dimension below and an indent.
void Spacing(int dim, int rank, std::string* out) {
  if (dim == rank - 1) {
    out->push_back(' ');
    return;
  }
  out->append(rank - dim - 1, '\n');
  out->append(dim + 1, ' ');
}

template <typename T>
class Summarizer {
 public:
  Summarizer(const Tensor& t, int64_t ends)
      : data_(t.data<T>()), dims_(t.shape().dim_sizes().begin(), t.shape().dim_sizes().end()),
        ends_(ends) {}

  // The entries of dimension `dim` from flat position `at`.
  void Dim(int dim, int64_t at, std::string* out) const {
    const int rank = static_cast<int>(dims_.size());
    if (dim == rank) {
      out->append(Element(data_[at]));
      return;
    }
    out->push_back('[');
    const int64_t count = dims_[dim];
    int64_t stride = 1;
    for (int d = dim + 1; d < rank; ++d) stride *= dims_[d];
    for (int64_t i = 0; i < ends_ && i < count; ++i) {
      if (i > 0) Spacing(dim, rank, out);
      Dim(dim + 1, at + i * stride, out);
    }
    if (count > 2 * ends_) {
      Spacing(dim, rank, out);
      out->append("...");
    }
    for (int64_t i = std::max(ends_, count - ends_); i < count; ++i) {
      Spacing(dim, rank, out);
      Dim(dim + 1, at + i * stride, out);
    }
    out->push_back(']');
  }

 private:
  const T* data_;
  std::vector<int64_t> dims_;
  int64_t ends_;
};

absl::StatusOr<std::string> Summarize(const Tensor& t, int64_t summarize) {
  const int64_t n = t.NumElements();
  const int64_t ends = summarize < 0 ? n : std::min(summarize, n);
  std::string out;
  switch (t.dtype()) {
#define MG_CASE(T)                                      \
  case DataTypeToEnum<T>::value:                        \
    if (t.dims() == 0) return Element(*t.data<T>());    \
    Summarizer<T>(t, ends).Dim(0, 0, &out);             \
    return out;
    MG_CALL_POD_TYPES(MG_CASE)
    MG_CASE(std::string)
#undef MG_CASE
    default:
      return absl::UnimplementedError(
          absl::StrCat("StringFormat cannot print ", DataTypeString(t.dtype())));
  }
}

class StringFormatOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    std::string tmpl, placeholder;
    MG_RETURN_IF_ERROR(c->GetAttr("template", &tmpl));
    MG_RETURN_IF_ERROR(c->GetAttr("placeholder", &placeholder));
    MG_RETURN_IF_ERROR(c->GetAttr("summarize", &summarize_));
    // (As TensorFlow splits it: an empty placeholder splits between every
    // character.)
    pieces_ = absl::StrSplit(tmpl, placeholder);
    const int inputs = c->num_inputs();
    if (static_cast<int>(pieces_.size()) - 1 != inputs) {
      return absl::InvalidArgumentError(
          absl::StrCat("num placeholders in template and num inputs must match: ",
                       pieces_.size() - 1, " vs. ", inputs));
    }
    return absl::OkStatus();
  }
  absl::Status Compute(OpKernelContext* ctx) const override {
    std::string out = pieces_[0];
    for (int i = 0; i < ctx->num_inputs(); ++i) {
      MG_ASSIGN_OR_RETURN(std::string value, Summarize(ctx->input(i), summarize_));
      absl::StrAppend(&out, value, pieces_[i + 1]);
    }
    Tensor* t;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, TensorShape({}), &t));
    *t->data<std::string>() = std::move(out);
    return absl::OkStatus();
  }

 private:
  std::vector<std::string> pieces_;  // the template between placeholders
  int64_t summarize_ = 3;
};

}  // namespace

void RegisterStringFormatKernels(KernelRegistry* r) {
  r->Register("StringFormat", MakeFactory<StringFormatOp>());
}

}  // namespace kernels_internal
}  // namespace minigraph
