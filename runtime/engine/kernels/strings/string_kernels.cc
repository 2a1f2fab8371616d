// AsString, ReduceJoin and UnsortedSegmentJoin, StringSplit and
// StringSplitV2, StringToHashBucketFast, and the regular-expression ops over
// RE2 (the library TensorFlow uses, so patterns mean what they mean there).
#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/string_view.h"
#include "re2/re2.h"
#include "runtime/engine/denormal.h"
#include "runtime/engine/kernels/internal/fingerprint.h"
#include "runtime/engine/kernels/internal/kernel_families.h"
#include "runtime/engine/kernels/internal/tensor_util.h"

namespace minigraph {
namespace kernels_internal {
namespace {

// StringLower and StringUpper: ASCII letters lowered or raised. With encoding
// "utf-8" TensorFlow changes every Unicode letter (through ICU, which we do
// not link): ASCII text is the same, and other text fails rather than come
// back half done.
template <bool kUpper>
class StringCaseOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    MG_RETURN_IF_ERROR(c->GetAttr("encoding", &encoding_));
    if (!encoding_.empty() && encoding_ != "utf-8") {
      return absl::InvalidArgumentError(absl::StrCat(
          name(), ": encoding must be \"\" or \"utf-8\", not \"", encoding_, "\""));
    }
    return absl::OkStatus();
  }
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& in = ctx->input(0);
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, in.shape(), &out));
    for (int64_t i = 0; i < in.NumElements(); ++i) {
      const std::string& s = in.data<std::string>()[i];
      if (!encoding_.empty()) {
        for (char ch : s) {
          if (static_cast<unsigned char>(ch) >= 0x80) {
            return absl::UnimplementedError(absl::StrCat(
                name(), " with encoding utf-8: element ", i,
                " has non-ASCII characters, which minigraph cannot change (no ICU)"));
          }
        }
      }
      out->data<std::string>()[i] = kUpper ? absl::AsciiStrToUpper(s) : absl::AsciiStrToLower(s);
    }
    return absl::OkStatus();
  }

 private:
  std::string encoding_;
};

// StringLength: bytes, or UTF-8 characters (the bytes that do not continue
// a character, as TensorFlow counts them: invalid UTF-8 is not an error).
class StringLengthOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    std::string unit;
    MG_RETURN_IF_ERROR(c->GetAttr("unit", &unit));
    chars_ = unit == "UTF8_CHAR";
    return absl::OkStatus();
  }
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& in = ctx->input(0);
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, in.shape(), &out));
    for (int64_t i = 0; i < in.NumElements(); ++i) {
      const std::string& s = in.data<std::string>()[i];
      int64_t n = static_cast<int64_t>(s.size());
      if (chars_) {
        n = std::count_if(s.begin(), s.end(),
                          [](char c) { return (static_cast<unsigned char>(c) & 0xC0) != 0x80; });
      }
      out->data<int32_t>()[i] = static_cast<int32_t>(n);
    }
    return absl::OkStatus();
  }

 private:
  bool chars_ = false;
};

// UnsortedSegmentJoin: output[k, ...] joins, in order, the input rows
// whose segment id is k (an id per leading position of the input). As
// TensorFlow's, the separator goes only after a non-empty join so far: ""
// then "a" join to "a", "a" then "" to "a,".
class UnsortedSegmentJoinOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) { return c->GetAttr("separator", &separator_); }
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& in = ctx->input(0);
    const Tensor& ids_t = ctx->input(1);
    const Tensor& count_t = ctx->input(2);
    if (count_t.NumElements() != 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "UnsortedSegmentJoin: num_segments must be a scalar, got shape ",
          count_t.shape().DebugString()));
    }
    MG_ASSIGN_OR_RETURN(std::vector<int64_t> count, FlatInts(count_t, "num_segments"));
    if (ids_t.dims() == 0) {
      return absl::InvalidArgumentError("UnsortedSegmentJoin: segment_ids must not be a scalar");
    }
    if (ids_t.dims() > in.dims()) {
      return absl::OutOfRangeError(absl::StrCat(
          "UnsortedSegmentJoin: segment_ids of rank ", ids_t.dims(), " for an input of rank ",
          in.dims()));
    }
    std::vector<int64_t> out_dims = {count[0]};
    for (int d = 0; d < in.dims(); ++d) {
      if (d < ids_t.dims() && ids_t.dim_size(d) != in.dim_size(d)) {
        return absl::InvalidArgumentError(absl::StrCat(
            "UnsortedSegmentJoin: segment_ids of shape ", ids_t.shape().DebugString(),
            " are not a prefix of the input's shape ", in.shape().DebugString()));
      }
      if (d >= ids_t.dims()) out_dims.push_back(in.dim_size(d));
    }
    MG_ASSIGN_OR_RETURN(std::vector<int64_t> ids, FlatInts(ids_t, "segment_ids"));
    for (size_t i = 0; i < ids.size(); ++i) {
      if (ids[i] < 0 || ids[i] >= count[0]) {
        return absl::InvalidArgumentError(absl::StrCat(
            "UnsortedSegmentJoin: segment_ids[", i, "] = ", ids[i], " is outside [0, ", count[0],
            ")"));
      }
    }
    MG_ASSIGN_OR_RETURN(TensorShape out_shape, TensorShape::Build(out_dims));
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, out_shape, &out));
    const int64_t row = ids.empty() ? 0 : in.NumElements() / static_cast<int64_t>(ids.size());
    const std::string* s = in.data<std::string>();
    std::string* o = out->data<std::string>();
    for (size_t i = 0; i < ids.size(); ++i) {
      for (int64_t j = 0; j < row; ++j) {
        std::string& joined = o[ids[i] * row + j];
        if (!joined.empty()) joined += separator_;
        joined += s[i * row + j];
      }
    }
    return absl::OkStatus();
  }

 private:
  std::string separator_;
};

// ReduceJoin: the strings along the reduced axes joined with the separator,
// the first axis listed varying fastest (TensorFlow's order: [0, 1] of
// [[a, b], [c, d]] is "acbd"); no axes return the input.
class ReduceJoinOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    MG_RETURN_IF_ERROR(c->GetAttr("keep_dims", &keep_dims_));
    return c->GetAttr("separator", &separator_);
  }
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& in = ctx->input(0);
    const Tensor& axes_t = ctx->input(1);
    const int rank = in.dims();
    std::vector<int> axes;
    std::vector<bool> reduced(rank, false);
    for (int64_t i = 0; i < axes_t.NumElements(); ++i) {
      const int64_t a = axes_t.data<int32_t>()[i];
      if (a < -rank || a >= rank) {
        return absl::OutOfRangeError(absl::StrCat("Invalid reduction dimension ", a,
                                                  " for input with ", rank, " dimension(s)"));
      }
      const int d = static_cast<int>(a < 0 ? a + rank : a);
      if (reduced[d]) {
        return absl::InvalidArgumentError(absl::StrCat("Duplicate reduction dimension ", d));
      }
      reduced[d] = true;
      axes.push_back(d);
    }
    if (axes.empty()) {
      ctx->set_output(0, in);
      return absl::OkStatus();
    }
    std::vector<int64_t> stride(rank, 1), kept, out_dims;
    for (int d = rank - 2; d >= 0; --d) stride[d] = stride[d + 1] * in.dim_size(d + 1);
    int64_t joined = 1;
    for (int d = 0; d < rank; ++d) {
      if (!reduced[d]) {
        kept.push_back(d);
        out_dims.push_back(in.dim_size(d));
      } else {
        joined *= in.dim_size(d);
        if (keep_dims_) out_dims.push_back(1);
      }
    }
    MG_ASSIGN_OR_RETURN(TensorShape out_shape, TensorShape::Build(out_dims));
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, out_shape, &out));
    const std::string* s = in.data<std::string>();
    for (int64_t o = 0; o < out->NumElements(); ++o) {
      int64_t base = 0, rest = o;
      for (int k = static_cast<int>(kept.size()) - 1; k >= 0; --k) {
        base += (rest % in.dim_size(kept[k])) * stride[kept[k]];
        rest /= in.dim_size(kept[k]);
      }
      std::string& result = out->data<std::string>()[o];
      for (int64_t r = 0; r < joined; ++r) {
        int64_t at = base, left = r;
        for (int d : axes) {
          at += (left % in.dim_size(d)) * stride[d];
          left /= in.dim_size(d);
        }
        absl::StrAppend(&result, r > 0 ? separator_ : "", s[at]);
      }
    }
    return absl::OkStatus();
  }

 private:
  bool keep_dims_ = false;
  std::string separator_;
};

// Python's str.split, as TensorFlow's StringSplitV2 does it: with a
// separator, every occurrence splits (",a,,b" gives "", "a", "", "b");
// without one, runs of ASCII whitespace split and none is kept at either end.
// After `maxsplit` splits (when > 0) the rest is one last piece.
std::vector<absl::string_view> SplitV2(absl::string_view text, absl::string_view sep,
                                       int64_t maxsplit) {
  std::vector<absl::string_view> parts;
  if (maxsplit == 0) {
    parts.push_back(text);
    return parts;
  }
  int64_t splits = 0;
  if (sep.empty()) {
    auto is_space = [](char ch) { return absl::ascii_isspace(static_cast<unsigned char>(ch)); };
    auto skip_space = [&] {
      while (!text.empty() && is_space(text.front())) text.remove_prefix(1);
    };
    skip_space();
    while (!text.empty()) {
      size_t n = 0;
      while (n < text.size() && !is_space(text[n])) ++n;
      parts.push_back(text.substr(0, n));
      text.remove_prefix(n);
      skip_space();
      if (maxsplit > 0 && ++splits == maxsplit) {
        parts.push_back(text);
        break;
      }
    }
    return parts;
  }
  for (size_t at = text.find(sep); at != absl::string_view::npos; at = text.find(sep)) {
    parts.push_back(text.substr(0, at));
    text.remove_prefix(at + sep.size());
    if (maxsplit > 0 && ++splits == maxsplit) break;
  }
  parts.push_back(text);
  return parts;
}

// StringSplit (TensorFlow 1's, split at any of the delimiter's bytes, or
// into bytes when it is empty; empty pieces skipped with skip_empty; an
// empty string has none) and
// StringSplitV2 (Python's str.split: at the whole separator, or at runs of
// whitespace when it is empty): a 1-D batch of strings split into a
// SparseTensor (indices [n, 2] of (row, position), values, shape [rows,
// longest row]).
template <bool kV2>
class StringSplitOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    return kV2 ? c->GetAttr("maxsplit", &maxsplit_) : c->GetAttr("skip_empty", &skip_empty_);
  }
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& input = ctx->input(0);
    const Tensor& sep = ctx->input(1);
    if (input.dims() != 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("input must be a vector, got shape: ", input.shape().DebugString()));
    }
    if (sep.dims() != 0) {
      return absl::InvalidArgumentError(absl::StrCat(kV2 ? "sep" : "delimiter",
                                                     " must be a scalar, got shape: ",
                                                     sep.shape().DebugString()));
    }
    const std::string& separator = sep.data<std::string>()[0];
    const int64_t rows = input.NumElements();
    std::vector<std::vector<absl::string_view>> split(rows);
    int64_t total = 0, longest = 0;
    for (int64_t i = 0; i < rows; ++i) {
      const std::string& text = input.data<std::string>()[i];
      if constexpr (kV2) {
        split[i] = SplitV2(text, separator, maxsplit_);
      } else if (text.empty()) {
        // No pieces, not one empty piece (TensorFlow's).
      } else if (separator.empty()) {
        for (size_t k = 0; k < text.size(); ++k) {
          split[i].push_back(absl::string_view(text).substr(k, 1));
        }
      } else if (skip_empty_) {
        split[i] = absl::StrSplit(text, absl::ByAnyChar(separator), absl::SkipEmpty());
      } else {
        split[i] = absl::StrSplit(text, absl::ByAnyChar(separator));
      }
      total += static_cast<int64_t>(split[i].size());
      longest = std::max(longest, static_cast<int64_t>(split[i].size()));
    }
    Tensor *indices, *values, *shape;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, TensorShape({total, 2}), &indices));
    MG_RETURN_IF_ERROR(ctx->allocate_output(1, TensorShape({total}), &values));
    MG_RETURN_IF_ERROR(ctx->allocate_output(2, TensorShape({2}), &shape));
    int64_t* idx = indices->data<int64_t>();
    std::string* val = values->data<std::string>();
    for (int64_t i = 0, k = 0; i < rows; ++i) {
      for (size_t j = 0; j < split[i].size(); ++j, ++k) {
        idx[2 * k] = i;
        idx[2 * k + 1] = static_cast<int64_t>(j);
        val[k] = std::string(split[i][j]);
      }
    }
    shape->data<int64_t>()[0] = rows;
    shape->data<int64_t>()[1] = longest;
    return absl::OkStatus();
  }

 private:
  int64_t maxsplit_ = -1;
  bool skip_empty_ = true;
};

// Each string of input 0 hashed by `hash`, modulo `buckets`: the hash
// bucket ops' output.
template <typename Hash>
absl::Status HashToBuckets(OpKernelContext* ctx, int64_t buckets, Hash hash) {
  const Tensor& in = ctx->input(0);
  Tensor* out;
  MG_RETURN_IF_ERROR(ctx->allocate_output(0, in.shape(), &out));
  for (int64_t i = 0; i < in.NumElements(); ++i) {
    out->data<int64_t>()[i] = static_cast<int64_t>(hash(in.data<std::string>()[i]) % buckets);
  }
  return absl::OkStatus();
}

// StringToHashBucketFast: Fingerprint64(s) mod num_buckets, TensorFlow's
// bucket for each string (categorical_column_with_hash_bucket); and
// StringToHashBucket, TensorFlow 1's, by its Hash64.
template <uint64_t (*kHash)(absl::string_view)>
class StringToHashBucketOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) { return c->GetAttr("num_buckets", &buckets_); }
  absl::Status Compute(OpKernelContext* ctx) const override {
    return HashToBuckets(ctx, buckets_, kHash);
  }

 private:
  int64_t buckets_ = 1;
};

// StringToHashBucketStrong: SipHash-2-4 under the `key` attr's two
// integers, modulo num_buckets (TensorFlow's StrongKeyedHash).
class StringToHashBucketStrongOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    MG_RETURN_IF_ERROR(c->GetAttr("num_buckets", &buckets_));
    std::vector<int64_t> key;
    MG_RETURN_IF_ERROR(c->GetAttr("key", &key));
    if (key.size() != 2) {
      return absl::InvalidArgumentError(absl::StrCat(
          type_string(), " '", name(), "': key must have size 2, has size ", key.size()));
    }
    key_[0] = static_cast<uint64_t>(key[0]);
    key_[1] = static_cast<uint64_t>(key[1]);
    return absl::OkStatus();
  }
  absl::Status Compute(OpKernelContext* ctx) const override {
    return HashToBuckets(ctx, buckets_,
                         [this](absl::string_view s) { return StrongKeyedHash(key_, s); });
  }

 private:
  int64_t buckets_ = 1;
  uint64_t key_[2] = {0, 0};
};

// TensorFlow's AsString: a printf format built from the attrs ("%" fill
// width "." precision, then d, lld, f, e or g); bools print as true/false.
class AsStringOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    DataType dtype;
    int64_t precision, width;
    bool scientific, shortest;
    std::string fill;
    MG_RETURN_IF_ERROR(c->GetAttr("T", &dtype));
    MG_RETURN_IF_ERROR(c->GetAttr("precision", &precision));
    MG_RETURN_IF_ERROR(c->GetAttr("scientific", &scientific));
    MG_RETURN_IF_ERROR(c->GetAttr("shortest", &shortest));
    MG_RETURN_IF_ERROR(c->GetAttr("width", &width));
    MG_RETURN_IF_ERROR(c->GetAttr("fill", &fill));
    const bool is_float = dtype == DT_FLOAT || dtype == DT_DOUBLE;
    if (scientific && shortest) {
      return absl::InvalidArgumentError("Cannot select both scientific and shortest notation");
    }
    if ((scientific || shortest || precision > -1) && !is_float) {
      return absl::InvalidArgumentError(absl::StrCat(
          "scientific, shortest and precision are only for floats; got ", DataTypeString(dtype)));
    }
    if (fill.size() > 1) {
      return absl::InvalidArgumentError(
          absl::StrCat("Fill string must be one or fewer characters: ", fill));
    }
    // The fill is a printf flag: ' ', '+', '-', '0' or '#'.
    if (!fill.empty() && std::string(" +-0#").find(fill[0]) == std::string::npos) {
      return absl::InvalidArgumentError(
          absl::StrCat("Fill argument not supported: \"", fill, "\""));
    }
    width_ = width;
    left_justify_ = fill == "-";
    format_ = "%" + fill;
    if (width > -1) absl::StrAppend(&format_, width);
    if (precision > -1) absl::StrAppend(&format_, ".", precision);
    switch (dtype) {
      case DT_INT32:
        format_ += "d";
        break;
      case DT_INT64:
        format_ += "lld";
        break;
      case DT_FLOAT:
      case DT_DOUBLE:
        format_ += shortest ? "g" : scientific ? "e" : "f";
        break;
      case DT_BOOL:
      case DT_STRING:
        format_ += "s";
        break;
      default:
        return NoKernelForType(c, dtype);
    }
    return absl::OkStatus();
  }
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& in = ctx->input(0);
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, in.shape(), &out));
    std::string* o = out->data<std::string>();
    for (int64_t i = 0; i < in.NumElements(); ++i) {
      switch (in.dtype()) {
        case DT_INT32:
          o[i] = Format(in.data<int32_t>()[i]);
          break;
        case DT_INT64:
          o[i] = Format(static_cast<long long>(in.data<int64_t>()[i]));
          break;
        case DT_FLOAT:
          o[i] = Format(static_cast<double>(FlushDenormal(in.data<float>()[i])));
          break;
        case DT_DOUBLE:
          o[i] = Format(FlushDenormal(in.data<double>()[i]));  // as TensorFlow prints it
          break;
        case DT_BOOL:
          o[i] = in.data<bool>()[i] ? "true" : "false";  // TensorFlow ignores width for bools
          break;
        default: {
          // Every byte (NULs included), padded with spaces to the width.
          const std::string& v = in.data<std::string>()[i];
          const size_t pad = width_ > static_cast<int64_t>(v.size()) ? width_ - v.size() : 0;
          o[i] = left_justify_ ? v + std::string(pad, ' ') : std::string(pad, ' ') + v;
        }
      }
    }
    return absl::OkStatus();
  }

 private:
  template <typename V>
  std::string Format(V v) const {
    const int n = std::snprintf(nullptr, 0, format_.c_str(), v);
    std::string s(n > 0 ? n : 0, '\0');
    if (n > 0) std::snprintf(s.data(), s.size() + 1, format_.c_str(), v);
    return s;
  }

  std::string format_;
  int64_t width_ = -1;
  bool left_justify_ = false;
};

absl::StatusOr<std::unique_ptr<RE2>> Compile(const std::string& pattern) {
  auto re = std::make_unique<RE2>(pattern, RE2::Quiet);
  if (!re->ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("Invalid pattern: ", pattern, ", error: ", re->error()));
  }
  return re;
}

// RegexFullMatch (pattern an input) and StaticRegexFullMatch (an attr).
class RegexFullMatchOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    if (c->def().op() != "StaticRegexFullMatch") return absl::OkStatus();
    std::string pattern;
    MG_RETURN_IF_ERROR(c->GetAttr("pattern", &pattern));
    MG_ASSIGN_OR_RETURN(re_, Compile(pattern));
    return absl::OkStatus();
  }
  absl::Status Compute(OpKernelContext* ctx) const override {
    std::unique_ptr<RE2> dynamic;
    const RE2* re = re_.get();
    if (re == nullptr) {
      const Tensor& p = ctx->input(1);
      if (p.dims() != 0) return absl::InvalidArgumentError("Pattern must be scalar");
      MG_ASSIGN_OR_RETURN(dynamic, Compile(p.data<std::string>()[0]));
      re = dynamic.get();
    }
    const Tensor& in = ctx->input(0);
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, in.shape(), &out));
    for (int64_t i = 0; i < in.NumElements(); ++i) {
      out->data<bool>()[i] = RE2::FullMatch(in.data<std::string>()[i], *re);
    }
    return absl::OkStatus();
  }

 private:
  std::unique_ptr<RE2> re_;
};

// RegexReplace (pattern and rewrite inputs) and StaticRegexReplace (attrs):
// every match, or the first with replace_global false.
class RegexReplaceOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    MG_RETURN_IF_ERROR(c->GetAttr("replace_global", &global_));
    if (c->def().op() != "StaticRegexReplace") return absl::OkStatus();
    std::string pattern;
    MG_RETURN_IF_ERROR(c->GetAttr("pattern", &pattern));
    MG_RETURN_IF_ERROR(c->GetAttr("rewrite", &rewrite_));
    MG_ASSIGN_OR_RETURN(re_, Compile(pattern));
    return CheckRewrite(*re_, rewrite_);
  }
  absl::Status Compute(OpKernelContext* ctx) const override {
    std::unique_ptr<RE2> dynamic;
    const RE2* re = re_.get();
    std::string rewrite = rewrite_;
    if (re == nullptr) {
      if (ctx->input(1).dims() != 0 || ctx->input(2).dims() != 0) {
        return absl::InvalidArgumentError("Pattern and rewrite must be scalars");
      }
      MG_ASSIGN_OR_RETURN(dynamic, Compile(ctx->input(1).data<std::string>()[0]));
      re = dynamic.get();
      rewrite = ctx->input(2).data<std::string>()[0];
      MG_RETURN_IF_ERROR(CheckRewrite(*re, rewrite));
    }
    const Tensor& in = ctx->input(0);
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, in.shape(), &out));
    for (int64_t i = 0; i < in.NumElements(); ++i) {
      std::string s = in.data<std::string>()[i];
      if (global_) {
        RE2::GlobalReplace(&s, *re, rewrite);
      } else {
        RE2::Replace(&s, *re, rewrite);
      }
      out->data<std::string>()[i] = std::move(s);
    }
    return absl::OkStatus();
  }

 private:
  static absl::Status CheckRewrite(const RE2& re, const std::string& rewrite) {
    std::string error;
    if (!re.CheckRewriteString(rewrite, &error)) {
      return absl::InvalidArgumentError(
          absl::StrCat("Invalid rewrite pattern: ", rewrite, ": ", error));
    }
    return absl::OkStatus();
  }

  bool global_ = true;
  std::string rewrite_;
  std::unique_ptr<RE2> re_;
};

}  // namespace

void RegisterStringKernels(KernelRegistry* r) {
  r->Register("AsString", MakeFactory<AsStringOp>());
  r->Register("StringLower", MakeFactory<StringCaseOp<false>>());
  r->Register("StringLength", MakeFactory<StringLengthOp>());
  r->Register("StringUpper", MakeFactory<StringCaseOp<true>>());
  r->Register("ReduceJoin", MakeFactory<ReduceJoinOp>());
  r->Register("UnsortedSegmentJoin", MakeFactory<UnsortedSegmentJoinOp>());
  r->Register("StringSplit", MakeFactory<StringSplitOp<false>>());
  r->Register("StringSplitV2", MakeFactory<StringSplitOp<true>>());
  r->Register("StringToHashBucketFast", MakeFactory<StringToHashBucketOp<Fingerprint64>>());
  r->Register("StringToHashBucket", MakeFactory<StringToHashBucketOp<TensorFlowHash64>>());
  r->Register("StringToHashBucketStrong", MakeFactory<StringToHashBucketStrongOp>());
  r->Register("RegexFullMatch", MakeFactory<RegexFullMatchOp>());
  r->Register("StaticRegexFullMatch", MakeFactory<RegexFullMatchOp>());
  r->Register("RegexReplace", MakeFactory<RegexReplaceOp>());
  r->Register("StaticRegexReplace", MakeFactory<RegexReplaceOp>());
}

}  // namespace kernels_internal
}  // namespace minigraph
