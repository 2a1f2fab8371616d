// Serialized inputs as TensorFlow's kernels read them: raw bytes as numbers
// (DecodeRaw, DecodePaddedRaw), tensors as TensorProtos (SerializeTensor,
// ParseTensor), tf.train.Examples from JSON (protobuf's JSON converter, as
// TensorFlow's), web-safe base64 (Abseil's codec), and zlib or gzip streams
// (zlib's inflate).
#include <algorithm>
#include <cstring>
#include <string>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "core/allocator.h"
#include "core/proto/example.pb.h"
#include "core/proto/tensor.pb.h"
#include "core/status_macros.h"
#include "core/tensor_proto.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/util/json_util.h"
#include "google/protobuf/util/type_resolver.h"
#include "google/protobuf/util/type_resolver_util.h"
#include "runtime/engine/kernel_registry.h"
#include "runtime/engine/kernels/internal/kernel_families.h"
#include "runtime/engine/op_kernel.h"
#include "zlib.h"

namespace minigraph {
namespace kernels_internal {
namespace {

// The bytes reversed in place in each `unit`-byte run of `data`: a
// big-endian number as this (little-endian) machine stores it.
void SwapBytes(char* data, size_t size, size_t unit) {
  if (unit <= 1) return;
  for (size_t at = 0; at + unit <= size; at += unit) std::reverse(data + at, data + at + unit);
}

// The size whose byte order an element's parts have: a complex number's
// real and imaginary parts are swapped separately, as TensorFlow does.
size_t SwapUnit(DataType dt) {
  const size_t size = DataTypeSize(dt);
  return dt == DT_COMPLEX64 || dt == DT_COMPLEX128 ? size / 2 : size;
}

// A bool read from a byte: any nonzero byte is true (a bool holding another
// value is undefined behaviour here).
void NormalizeBools(Tensor* t) {
  if (t->dtype() != DT_BOOL) return;
  auto* bytes = reinterpret_cast<unsigned char*>(t->data<bool>());
  for (int64_t i = 0; i < t->NumElements(); ++i) bytes[i] = bytes[i] != 0;
}

// DecodeRaw's and DecodePaddedRaw's attrs.
class RawBytesOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    MG_RETURN_IF_ERROR(c->GetAttr("out_type", &out_type_));
    MG_RETURN_IF_ERROR(c->GetAttr("little_endian", &little_endian_));
    return absl::OkStatus();
  }

 protected:
  DataType out_type_ = DT_INVALID;
  bool little_endian_ = true;
};

class DecodeRawOp : public RawBytesOp {
 public:
  using RawBytesOp::RawBytesOp;
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& in = ctx->input(0);
    const std::string* s = in.data<std::string>();
    int64_t size = -1;
    for (int64_t i = 0; i < in.NumElements(); ++i) {
      const int64_t n = static_cast<int64_t>(s[i].size());
      if (size == -1) {
        size = n;
      } else if (n != size) {
        return absl::InvalidArgumentError(absl::StrCat(
            "DecodeRaw requires input strings to all be the same size, but element ", i,
            " has size ", size, " != ", n));
      }
    }
    const int64_t width = static_cast<int64_t>(DataTypeSize(out_type_));
    TensorShape shape = in.shape();
    if (size > 0 && size % width != 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Input to DecodeRaw has length ", size, " that is not a multiple of ", width,
          ", the size of ", DataTypeString(out_type_)));
    }
    MG_RETURN_IF_ERROR(shape.AddDim(size > 0 ? size / width : 0));
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, shape, &out));
    char* dst = static_cast<char*>(out->raw_data());
    for (int64_t i = 0; size > 0 && i < in.NumElements(); ++i, dst += size) {
      std::memcpy(dst, s[i].data(), size);
      if (!little_endian_) SwapBytes(dst, size, SwapUnit(out_type_));
    }
    NormalizeBools(out);
    return absl::OkStatus();
  }
};

// Each string's first fixed_length bytes, zero-padded to fixed_length, as
// numbers.
class DecodePaddedRawOp : public RawBytesOp {
 public:
  using RawBytesOp::RawBytesOp;
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& in = ctx->input(0);
    const Tensor& length = ctx->input(1);
    if (length.dims() != 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("k must be scalar, got shape ", length.shape().DebugString()));
    }
    const int64_t fixed = *length.data<int32_t>();
    const int64_t width = static_cast<int64_t>(DataTypeSize(out_type_));
    if (fixed % width != 0) {
      return absl::InvalidArgumentError(absl::StrCat("fixed_length (", fixed,
                                                     ") must be a multiple of the size of "
                                                     "out_type (",
                                                     width, ")"));
    }
    if (fixed <= 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("fixed_length (", fixed, ") must be greater than zero."));
    }
    TensorShape shape = in.shape();
    MG_RETURN_IF_ERROR(shape.AddDim(fixed / width));
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, shape, &out));
    char* dst = static_cast<char*>(out->raw_data());
    std::memset(dst, 0, out->TotalBytes());
    const std::string* s = in.data<std::string>();
    for (int64_t i = 0; i < in.NumElements(); ++i, dst += fixed) {
      std::memcpy(dst, s[i].data(), std::min<int64_t>(fixed, s[i].size()));
      if (!little_endian_) SwapBytes(dst, fixed, width);
    }
    return absl::OkStatus();
  }
};

// TensorFlow's encoding: dtype, shape and tensor_content (string tensors:
// string_val), so the bytes are TensorFlow's.
class SerializeTensorOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& in = ctx->input(0);
    TensorProto proto;
    if (in.dtype() == DT_STRING) {
      TensorToProtoField(in, &proto);
    } else {
      TensorToProto(in, &proto);
    }
    // TensorFlow writes the shape even for a scalar (an empty message).
    proto.mutable_tensor_shape();
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, TensorShape({}), &out));
    if (!proto.SerializeToString(out->data<std::string>())) {
      return absl::InvalidArgumentError("SerializeTensor: the tensor does not serialize");
    }
    return absl::OkStatus();
  }
};

class ParseTensorOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) { return c->GetAttr("out_type", &out_type_); }
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& in = ctx->input(0);
    if (in.dims() != 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Expected `serialized` to be a scalar, got shape: ", in.shape().DebugString()));
    }
    const std::string& bytes = *in.data<std::string>();
    TensorProto proto;
    if (!proto.ParseFromString(bytes)) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Could not parse `serialized` as TensorProto: '", absl::CHexEscape(bytes), "'"));
    }
    absl::StatusOr<Tensor> t = TensorFromProto(proto);
    if (!t.ok()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Could not parse `serialized` as TensorProto: ", t.status().message()));
    }
    if (t->dtype() != out_type_) {
      return absl::InvalidArgumentError(
          absl::StrCat("Type mismatch between parsed tensor (", DataTypeString(t->dtype()),
                       ") and dtype (", DataTypeString(out_type_), ")"));
    }
    ctx->set_output(0, *std::move(t));
    return absl::OkStatus();
  }

 private:
  DataType out_type_ = DT_INVALID;
};

class EncodeBase64Op : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) { return c->GetAttr("pad", &pad_); }
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& in = ctx->input(0);
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, in.shape(), &out));
    for (int64_t i = 0; i < in.NumElements(); ++i) {
      std::string& s = out->data<std::string>()[i];
      s = absl::WebSafeBase64Escape(in.data<std::string>()[i]);
      if (pad_) s.append((4 - s.size() % 4) % 4, '=');
    }
    return absl::OkStatus();
  }

 private:
  bool pad_ = false;
};

class DecodeBase64Op : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& in = ctx->input(0);
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, in.shape(), &out));
    for (int64_t i = 0; i < in.NumElements(); ++i) {
      if (!absl::WebSafeBase64Unescape(in.data<std::string>()[i],
                                       &out->data<std::string>()[i])) {
        return absl::InvalidArgumentError(
            absl::StrCat("Invalid character found in base64 (element ", i, ")."));
      }
    }
    return absl::OkStatus();
  }
};

// JSON in protobuf's mapping of tf.train.Example, converted straight to the
// binary form in the order the JSON gives the fields, as TensorFlow does
// (so the bytes are TensorFlow's).
class DecodeJsonExampleOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Compute(OpKernelContext* ctx) const override {
    static google::protobuf::util::TypeResolver* const resolver =
        google::protobuf::util::NewTypeResolverForDescriptorPool(
            "type.googleapis.com", google::protobuf::DescriptorPool::generated_pool());
    static const std::string* const type_url =
        new std::string("type.googleapis.com/" + Example::descriptor()->full_name());
    const Tensor& in = ctx->input(0);
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, in.shape(), &out));
    for (int64_t i = 0; i < in.NumElements(); ++i) {
      auto st = google::protobuf::util::JsonToBinaryString(
          resolver, *type_url, in.data<std::string>()[i], &out->data<std::string>()[i]);
      if (!st.ok()) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Error while parsing JSON (element ", i, "): ", std::string(st.message())));
      }
    }
    return absl::OkStatus();
  }
};

// One zlib or gzip stream, inflated whole, to at most MaxTensorBytes() (a
// few bytes can inflate to gigabytes: past the bound is ResourceExhausted
// rather than the end of the process).
absl::Status Inflate(const std::string& in, bool gzip, std::string* out) {
  z_stream z{};
  if (inflateInit2(&z, gzip ? 16 + MAX_WBITS : MAX_WBITS) != Z_OK) {
    return absl::InternalError("DecodeCompressed: zlib did not initialize");
  }
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  z.avail_in = static_cast<uInt>(in.size());
  out->clear();
  char buf[64 << 10];
  int rc = Z_OK;
  while (rc == Z_OK) {
    z.next_out = reinterpret_cast<Bytef*>(buf);
    z.avail_out = sizeof(buf);
    rc = inflate(&z, Z_NO_FLUSH);
    out->append(buf, sizeof(buf) - z.avail_out);
    if (out->size() > MaxTensorBytes()) {
      inflateEnd(&z);
      return absl::ResourceExhaustedError(absl::StrCat(
          "DecodeCompressed: the ", gzip ? "GZIP" : "ZLIB", " stream inflates to more than ",
          MaxTensorBytes(), " bytes (the largest tensor allowed)"));
    }
    if (rc == Z_BUF_ERROR && z.avail_in == 0) break;  // input ended early
  }
  const std::string why = z.msg != nullptr ? absl::StrCat(" (", z.msg, ")") : "";
  inflateEnd(&z);
  if (rc != Z_STREAM_END) {
    return absl::DataLossError(absl::StrCat("DecodeCompressed: the ", gzip ? "GZIP" : "ZLIB",
                                            " stream is corrupt or truncated", why));
  }
  return absl::OkStatus();
}

class DecodeCompressedOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    MG_RETURN_IF_ERROR(c->GetAttr("compression_type", &type_));
    if (type_ != "" && type_ != "ZLIB" && type_ != "GZIP") {
      return absl::InvalidArgumentError("Only ZLIB, GZIP or NONE are supported compressions");
    }
    return absl::OkStatus();
  }
  absl::Status Compute(OpKernelContext* ctx) const override {
    const Tensor& in = ctx->input(0);
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, in.shape(), &out));
    for (int64_t i = 0; i < in.NumElements(); ++i) {
      const std::string& s = in.data<std::string>()[i];
      if (type_.empty()) {
        out->data<std::string>()[i] = s;
      } else {
        absl::Status st = Inflate(s, type_ == "GZIP", &out->data<std::string>()[i]);
        if (!st.ok()) {
          return absl::Status(st.code(), absl::StrCat("element ", i, ": ", st.message()));
        }
      }
    }
    return absl::OkStatus();
  }

 private:
  std::string type_;
};

}  // namespace

void RegisterSerializationKernels(KernelRegistry* r) {
  r->Register("DecodeRaw", MakeFactory<DecodeRawOp>());
  r->Register("DecodePaddedRaw", MakeFactory<DecodePaddedRawOp>());
  r->Register("SerializeTensor", MakeFactory<SerializeTensorOp>());
  r->Register("ParseTensor", MakeFactory<ParseTensorOp>());
  r->Register("EncodeBase64", MakeFactory<EncodeBase64Op>());
  r->Register("DecodeBase64", MakeFactory<DecodeBase64Op>());
  r->Register("DecodeCompressed", MakeFactory<DecodeCompressedOp>());
  r->Register("DecodeJSONExample", MakeFactory<DecodeJsonExampleOp>());
}

}  // namespace kernels_internal
}  // namespace minigraph
