// Strings to numbers and pieces of strings: StringToNumber, StringStrip and
// Substr.
#include <cstdlib>
#include <string>
#include <type_traits>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "runtime/engine/kernels/internal/bcast.h"
#include "runtime/engine/kernels/internal/kernel_families.h"

namespace minigraph {
namespace kernels_internal {
namespace {

// The number `s` spells, as TensorFlow reads it: surrounding whitespace
// allowed; floats as strtof/strtod read them (exponents, hexadecimal, inf,
// nan; out of range to inf or 0), integers in decimal within the type's
// range.
template <typename T>
bool ParseNumber(absl::string_view s, T* out) {
  s = absl::StripAsciiWhitespace(s);
  if constexpr (std::is_floating_point_v<T>) {
    if (s.empty()) return false;
    const std::string text(s);
    char* end = nullptr;
    *out = std::is_same_v<T, float> ? std::strtof(text.c_str(), &end)
                                    : std::strtod(text.c_str(), &end);
    return end == text.c_str() + text.size();
  } else {
    return absl::SimpleAtoi(s, out);
  }
}

template <typename T>
class StringToNumberOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& in = ctx->input(0);
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, in.shape(), &out));
    for (int64_t i = 0; i < in.NumElements(); ++i) {
      const std::string& s = in.data<std::string>()[i];
      if (!ParseNumber(s, &out->data<T>()[i])) {
        return absl::InvalidArgumentError(absl::StrCat(
            "StringToNumberOp could not correctly convert string: ", s, " (element ", i,
            ", to ", DataTypeString(DataTypeToEnum<T>::value), ")"));
      }
    }
    return absl::OkStatus();
  }
};

class StringStripOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& in = ctx->input(0);
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, in.shape(), &out));
    for (int64_t i = 0; i < in.NumElements(); ++i) {
      out->data<std::string>()[i] =
          std::string(absl::StripAsciiWhitespace(in.data<std::string>()[i]));
    }
    return absl::OkStatus();
  }
};

bool IsTrailByte(char c) { return (static_cast<unsigned char>(c) & 0xC0) == 0x80; }

// Moves *pos on by n UTF-8 characters (a lead byte and its trail bytes);
// false when the string ends first.
bool ForwardChars(absl::string_view s, int64_t n, int64_t* pos) {
  int64_t counted = 0;
  const int64_t size = static_cast<int64_t>(s.size());
  while (counted < n && *pos < size) {
    do {
      ++*pos;
    } while (*pos < size && IsTrailByte(s[*pos]));
    ++counted;
  }
  return counted == n;
}

// Moves *pos back by n UTF-8 characters; false when the string starts first.
bool BackChars(absl::string_view s, int64_t n, int64_t* pos) {
  int64_t counted = 0;
  while (counted < n && *pos > 0) {
    do {
      --*pos;
    } while (*pos > 0 && IsTrailByte(s[*pos]));
    ++counted;
  }
  return counted == n;
}

// Substr: len units from pos (from the end when negative) of each string,
// in bytes or UTF-8 characters; pos and len scalars, of the input's shape,
// or broadcast against it.
template <typename T>
class SubstrOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    std::string unit;
    MG_RETURN_IF_ERROR(c->GetAttr("unit", &unit));
    if (unit != "BYTE" && unit != "UTF8_CHAR") {
      return absl::InvalidArgumentError(
          absl::StrCat("Substr node '", c->def().name(), "': unknown unit \"", unit, "\""));
    }
    utf8_ = unit == "UTF8_CHAR";
    return absl::OkStatus();
  }
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& in = ctx->input(0);
    const Tensor& pos = ctx->input(1);
    const Tensor& len = ctx->input(2);
    if (pos.shape() != len.shape()) {
      return absl::InvalidArgumentError(
          absl::StrCat("pos and len should have the same shape, got: ", pos.shape().DebugString(),
                       " vs. ", len.shape().DebugString()));
    }
    MG_ASSIGN_OR_RETURN(BCast b, BCast::Make(in.shape(), pos.shape()));
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, b.output_shape(), &out));
    // Each output element's input and pos positions, through the merged
    // broadcast dims.
    const auto& dims = b.result_shape();
    const int rank = static_cast<int>(dims.size());
    std::vector<int64_t> in_stride(rank), pos_stride(rank);
    for (int d = rank - 1, si = 1, sp = 1; d >= 0; --d) {
      in_stride[d] = b.x_reshape()[d] == 1 ? 0 : si;
      pos_stride[d] = b.y_reshape()[d] == 1 ? 0 : sp;
      si *= b.x_reshape()[d];
      sp *= b.y_reshape()[d];
    }
    for (int64_t o = 0; o < out->NumElements(); ++o) {
      int64_t rest = o, i = 0, k = 0;
      for (int d = rank - 1; d >= 0; --d) {
        const int64_t c = rest % dims[d];
        rest /= dims[d];
        i += c * in_stride[d];
        k += c * pos_stride[d];
      }
      const std::string& s = in.data<std::string>()[i];
      MG_ASSIGN_OR_RETURN(out->data<std::string>()[o],
                          Piece(s, static_cast<int64_t>(pos.data<T>()[k]),
                                static_cast<int64_t>(len.data<T>()[k]), i));
    }
    return absl::OkStatus();
  }

 private:
  absl::StatusOr<std::string> Piece(const std::string& s, int64_t pos, int64_t len,
                                    int64_t index) const {
    const int64_t size = static_cast<int64_t>(s.size());
    if (!utf8_) {
      if (pos > size || pos < -size) {
        return absl::InvalidArgumentError(absl::StrCat("pos ", pos, " out of range for string b'",
                                                       s, "' at index ", index));
      }
      if (pos < 0) pos += size;
      return len < 0 ? s.substr(pos) : s.substr(pos, len);
    }
    int64_t begin = pos >= 0 ? 0 : size;
    if (!(pos >= 0 ? ForwardChars(s, pos, &begin) : BackChars(s, -pos, &begin))) {
      return absl::InvalidArgumentError(
          absl::StrCat("pos ", pos, " out of range for string at index ", index));
    }
    int64_t end = begin;
    ForwardChars(s, len, &end);
    return s.substr(begin, end - begin);
  }

  bool utf8_ = false;
};

}  // namespace

void RegisterStringConvertKernels(KernelRegistry* r) {
  r->Register("StringToNumber",
              TypedFactory<StringToNumberOp, float, double, int32_t, int64_t>("out_type"));
  r->Register("StringStrip", MakeFactory<StringStripOp>());
  r->Register("Substr", TypedFactory<SubstrOp, int32_t, int64_t>());
}

}  // namespace kernels_internal
}  // namespace minigraph
