// The Unicode ops (tf.strings.unicode_decode, unicode_split,
// unicode_encode, unicode_transcode, unicode_script), on ICU's converters
// and character properties as TensorFlow's unicode_ops.cc uses them, so that
// malformed input is found, replaced or dropped where TensorFlow's is:
//   errors="replace"  a malformed sequence (or, with
//                     replace_control_characters, a C0 control) becomes
//                     replacement_char;
//   errors="ignore"   it is dropped (its bytes still count in the offsets);
//   errors="strict"   it fails the step, InvalidArgument.
// Encodings out: UTF-8, UTF-16-BE, UTF-32-BE; in: any name ICU knows.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "runtime/engine/kernels/internal/kernel_families.h"
#include "runtime/engine/op_kernel.h"
#include "unicode/schriter.h"
#include "unicode/uchar.h"
#include "unicode/ucnv.h"
#include "unicode/ucnv_err.h"
#include "unicode/unistr.h"
#include "unicode/uscript.h"
#include "unicode/utf.h"

namespace minigraph {
namespace kernels_internal {
namespace {

enum class Encoding { kUtf8, kUtf16Be, kUtf32Be };

absl::StatusOr<Encoding> ParseEncoding(const std::string& name, const std::string& where) {
  if (name == "UTF-8") return Encoding::kUtf8;
  if (name == "UTF-16-BE") return Encoding::kUtf16Be;
  if (name == "UTF-32-BE") return Encoding::kUtf32Be;
  return absl::InvalidArgumentError(absl::StrCat(
      where, ": invalid encoding \"", name, "\": should be one of UTF-8, UTF-16-BE, UTF-32-BE"));
}

// `in` in `encoding`, as TensorFlow writes it (UTF-16 and UTF-32 big-endian,
// without a byte order mark).
std::string Encode(Encoding encoding, const icu::UnicodeString& in) {
  std::string out;
  if (encoding == Encoding::kUtf8) {
    in.toUTF8String(out);
  } else if (encoding == Encoding::kUtf16Be) {
    const char16_t* buf = in.getBuffer();
    for (int i = 0; i < in.length(); ++i) {
      out.push_back(static_cast<char>((buf[i] & 0xFF00) >> 8));
      out.push_back(static_cast<char>(buf[i] & 0x00FF));
    }
  } else {
    icu::StringCharacterIterator it(in);
    while (it.hasNext()) {
      const UChar32 ch = it.next32PostInc();
      for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<char>(ch >> shift));
    }
  }
  return out;
}

struct ErrorOptions {
  UChar32 subst = 0xFFFD;
  bool elide = false;
  bool replace_controls = false;
  bool strict = false;
  // Whether a decoded character is replaced (or dropped, or fails).
  bool Bad(UChar32 ch, bool malformed) const {
    return (replace_controls && ch <= 0x1F) || malformed;
  }
};

absl::StatusOr<ErrorOptions> ErrorOptionsOf(OpKernelConstruction* c, const std::string& where) {
  ErrorOptions o;
  std::string policy;
  MG_RETURN_IF_ERROR(c->GetAttr("errors", &policy));
  if (policy == "ignore") {
    o.elide = true;
  } else if (policy == "strict") {
    o.strict = true;
  } else if (policy != "replace") {
    return absl::InvalidArgumentError(absl::StrCat(
        where, ": errors policy must be one of 'strict', 'replace', or 'ignore', got '", policy,
        "'"));
  }
  int64_t replacement;
  MG_RETURN_IF_ERROR(c->GetAttr("replacement_char", &replacement));
  if (replacement < UCHAR_MIN_VALUE || replacement > UCHAR_MAX_VALUE) {
    return absl::InvalidArgumentError(absl::StrCat(
        where, ": replacement_char out of unicode codepoint range: ", replacement));
  }
  o.subst = static_cast<UChar32>(replacement);
  if (c->def().attr().count("replace_control_characters")) {
    MG_RETURN_IF_ERROR(c->GetAttr("replace_control_characters", &o.replace_controls));
  }
  return o;
}

// An ICU converter from `encoding`, closed with it.
struct ConverterCloser {
  void operator()(UConverter* c) const { ucnv_close(c); }
};
using Converter = std::unique_ptr<UConverter, ConverterCloser>;

absl::StatusOr<Converter> OpenConverter(const std::string& encoding, const std::string& where) {
  UErrorCode status = U_ZERO_ERROR;
  Converter c(ucnv_open(encoding.c_str(), &status));
  if (U_FAILURE(status) || c == nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat(where, ": Could not create converter for input encoding: ", encoding));
  }
  return c;
}

// ICU's "to Unicode" callback: notes that the input was malformed and
// substitutes U+FFFD as ICU's own substituting callback does.
void NoteMalformed(const void* context, UConverterToUnicodeArgs* args, const char* units,
                   int32_t length, UConverterCallbackReason reason, UErrorCode* status) {
  if (reason == UCNV_UNASSIGNED || reason == UCNV_ILLEGAL || reason == UCNV_IRREGULAR) {
    *static_cast<bool*>(const_cast<void*>(context)) = true;
  }
  UCNV_TO_U_CALLBACK_SUBSTITUTE(nullptr, args, units, length, reason, status);
}

// Calls visit(code point, bytes it took, malformed) for each character of
// `s` as ICU decodes it (a malformed sequence comes as U+FFFD). As in
// TensorFlow, one converter decodes a run's strings in turn, so that the
// byte order a UTF-16 or UTF-32 mark sets holds for the strings after it.
template <typename Visit>
void DecodeString(const std::string& s, UConverter* converter, Visit visit) {
  bool malformed = false;
  UErrorCode status = U_ZERO_ERROR;
  ucnv_setToUCallBack(converter, NoteMalformed, &malformed, nullptr, nullptr, &status);
  const char* source = s.data();
  const char* limit = s.data() + s.size();
  while (source < limit) {
    const char* before = source;
    const UChar32 ch = ucnv_getNextUChar(converter, &source, limit, &status);
    if (U_FAILURE(status)) source = limit;
    visit(ch, static_cast<int64_t>(source - before), malformed);
    malformed = false;
  }
}

// UnicodeTranscode: each string decoded from input_encoding and encoded in
// output_encoding.
class UnicodeTranscodeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    const std::string where = absl::StrCat(type_string(), " '", name(), "'");
    MG_ASSIGN_OR_RETURN(errors_, ErrorOptionsOf(c, where));
    std::string output;
    MG_RETURN_IF_ERROR(c->GetAttr("output_encoding", &output));
    MG_ASSIGN_OR_RETURN(output_, ParseEncoding(output, where));
    MG_RETURN_IF_ERROR(c->GetAttr("input_encoding", &input_));
    return OpenConverter(input_, where).status();
  }
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& in = ctx->input(0);
    MG_ASSIGN_OR_RETURN(Converter converter, OpenConverter(input_, Where()));
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, in.shape(), &out));
    bool any_malformed = false;
    for (int64_t i = 0; i < in.NumElements(); ++i) {
      icu::UnicodeString text;
      DecodeString(in.data<std::string>()[i], converter.get(),
                   [&](UChar32 ch, int64_t, bool malformed) {
                     if (errors_.Bad(ch, malformed)) {
                       any_malformed = true;
                       if (errors_.elide) return;
                       ch = errors_.subst;
                     }
                     text.append(ch);
                   });
      out->data<std::string>()[i] = Encode(output_, text);
    }
    if (errors_.strict && any_malformed) {
      return absl::InvalidArgumentError(
          absl::StrCat(Where(), ": Invalid formatting on input string"));
    }
    return absl::OkStatus();
  }

 private:
  std::string Where() const { return absl::StrCat(type_string(), " '", name(), "'"); }
  ErrorOptions errors_;
  Encoding output_ = Encoding::kUtf8;
  std::string input_;
};

// UnicodeDecode and UnicodeDecodeWithOffsets: each string's code points as
// a ragged row (row_splits of Tsplits), with each one's first byte (int64;
// TensorFlow writes them as Tsplits and aborts when that is int32).
class UnicodeDecodeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    const std::string where = absl::StrCat(type_string(), " '", name(), "'");
    MG_ASSIGN_OR_RETURN(errors_, ErrorOptionsOf(c, where));
    MG_RETURN_IF_ERROR(c->GetAttr("input_encoding", &input_));
    MG_RETURN_IF_ERROR(c->GetAttr("Tsplits", &splits_type_));
    offsets_ = c->def().op() == "UnicodeDecodeWithOffsets";
    return OpenConverter(input_, where).status();
  }
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& in = ctx->input(0);
    const std::string where = absl::StrCat(type_string(), " '", name(), "'");
    MG_ASSIGN_OR_RETURN(Converter converter, OpenConverter(input_, where));
    std::vector<int32_t> chars;
    std::vector<int64_t> starts, splits = {0};
    bool failed = false;
    for (int64_t i = 0; i < in.NumElements(); ++i) {
      int64_t offset = 0;
      DecodeString(in.data<std::string>()[i], converter.get(),
                   [&](UChar32 ch, int64_t bytes, bool malformed) {
                     failed |= errors_.strict && malformed;
                     if (errors_.Bad(ch, malformed)) {
                       if (errors_.elide) {
                         offset += bytes;
                         return;
                       }
                       ch = errors_.subst;
                     }
                     chars.push_back(ch);
                     starts.push_back(offset);
                     offset += bytes;
                   });
      splits.push_back(static_cast<int64_t>(chars.size()));
    }
    if (failed) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": Invalid formatting on input string"));
    }
    Tensor *splits_out, *chars_out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(
        0, TensorShape({static_cast<int64_t>(splits.size())}), &splits_out));
    MG_RETURN_IF_ERROR(ctx->allocate_output(
        1, TensorShape({static_cast<int64_t>(chars.size())}), &chars_out));
    Write(splits, splits_out);
    std::copy(chars.begin(), chars.end(), chars_out->data<int32_t>());
    if (offsets_) {
      Tensor* starts_out;
      MG_RETURN_IF_ERROR(ctx->allocate_output(
          2, TensorShape({static_cast<int64_t>(starts.size())}), &starts_out));
      std::copy(starts.begin(), starts.end(), starts_out->data<int64_t>());
    }
    return absl::OkStatus();
  }

 private:
  void Write(const std::vector<int64_t>& v, Tensor* t) const {  // Tsplits
    if (splits_type_ == DT_INT32) {
      for (size_t i = 0; i < v.size(); ++i) t->data<int32_t>()[i] = static_cast<int32_t>(v[i]);
    } else {
      std::copy(v.begin(), v.end(), t->data<int64_t>());
    }
  }

  ErrorOptions errors_;
  std::string input_;
  DataType splits_type_ = DT_INT64;
  bool offsets_ = false;
};

// UnicodeEncode: the rows of a ragged tensor of code points (values and
// row splits) as strings. A value that is not a Unicode scalar value
// (negative, a surrogate, past U+10FFFF) is replaced (replace), fails
// (strict) or is dropped (ignore). Noncharacters (U+FFFE, U+FDD0...) are
// scalar values and pass, as in TensorFlow's newer ICU (Debian's ICU 72
// U_IS_UNICODE_CHAR still refuses them).
class UnicodeEncodeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    const std::string where = absl::StrCat(type_string(), " '", name(), "'");
    std::string encoding;
    MG_RETURN_IF_ERROR(c->GetAttr("output_encoding", &encoding));
    MG_ASSIGN_OR_RETURN(encoding_, ParseEncoding(encoding, where));
    MG_ASSIGN_OR_RETURN(errors_, ErrorOptionsOf(c, where));
    return absl::OkStatus();
  }
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& values = ctx->input(0);
    const Tensor& splits_t = ctx->input(1);
    const std::string where = absl::StrCat(type_string(), " '", name(), "'");
    if (values.dims() != 1 || splits_t.dims() != 1 || splits_t.NumElements() == 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, ": input_values and input_splits must be vectors, input_splits not empty; got ",
          values.shape().DebugString(), " and ", splits_t.shape().DebugString()));
    }
    std::vector<int64_t> splits(splits_t.NumElements());
    for (size_t i = 0; i < splits.size(); ++i) {
      splits[i] = splits_t.dtype() == DT_INT32 ? splits_t.data<int32_t>()[i]
                                               : splits_t.data<int64_t>()[i];
      if (i > 0 && splits[i] < splits[i - 1]) {
        return absl::InvalidArgumentError(
            absl::StrCat(where, ": input_splits must be non-decreasing, got ", splits[i - 1],
                         " then ", splits[i]));
      }
    }
    if (splits[0] != 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(where, ": First value in input_splits must be zero."));
    }
    if (splits.back() != values.NumElements()) {
      return absl::InvalidArgumentError(absl::StrCat(
          where, ": Last value in input_splits must be equal to length of input_tensor."));
    }
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(
        0, TensorShape({static_cast<int64_t>(splits.size()) - 1}), &out));
    const int32_t* v = values.data<int32_t>();
    for (size_t row = 1; row < splits.size(); ++row) {
      icu::UnicodeString text;
      for (int64_t i = splits[row - 1]; i < splits[row]; ++i) {
        UChar32 ch = v[i];
        if (ch < 0 || ch > 0x10FFFF || U_IS_SURROGATE(ch)) {
          if (errors_.strict) {
            return absl::InvalidArgumentError(absl::StrCat(
                where, ": Code point is out of range for Unicode, or a noncharacter: ", v[i]));
          }
          if (errors_.elide) continue;
          ch = errors_.subst;
        }
        text.append(ch);
      }
      out->data<std::string>()[row - 1] = Encode(encoding_, text);
    }
    return absl::OkStatus();
  }

 private:
  Encoding encoding_ = Encoding::kUtf8;
  ErrorOptions errors_;
};

// UnicodeScript: ICU's script code of each code point, -1 for a value that
// is not one.
class UnicodeScriptOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& in = ctx->input(0);
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, in.shape(), &out));
    for (int64_t i = 0; i < in.NumElements(); ++i) {
      UErrorCode status = U_ZERO_ERROR;
      const UScriptCode script = uscript_getScript(in.data<int32_t>()[i], &status);
      out->data<int32_t>()[i] = U_SUCCESS(status) ? static_cast<int32_t>(script) : -1;
    }
    return absl::OkStatus();
  }
};

}  // namespace

void RegisterUnicodeKernels(KernelRegistry* r) {
  r->Register("UnicodeTranscode", MakeFactory<UnicodeTranscodeOp>());
  r->Register("UnicodeDecode", MakeFactory<UnicodeDecodeOp>());
  r->Register("UnicodeDecodeWithOffsets", MakeFactory<UnicodeDecodeOp>());
  r->Register("UnicodeEncode", MakeFactory<UnicodeEncodeOp>());
  r->Register("UnicodeScript", MakeFactory<UnicodeScriptOp>());
}

}  // namespace kernels_internal
}  // namespace minigraph
