#include "session/distributed/internal/recv_tensor_coding.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "core/proto/worker.pb.h"
#include "core/tensor_proto.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "grpcpp/support/proto_buffer_reader.h"
#include "grpcpp/support/slice.h"

namespace minigraph {
namespace distributed_internal {
namespace {

using google::protobuf::internal::WireFormatLite;
using google::protobuf::io::CodedInputStream;
using google::protobuf::io::CodedOutputStream;

// Field numbers, TensorFlow's: RecvTensorResponse.tensor and .is_dead,
// TensorProto.dtype, .tensor_shape and .tensor_content.
constexpr int kResponseTensor = 1;
constexpr int kResponseIsDead = 2;
constexpr int kTensorDtype = 1;
constexpr int kTensorShape = 2;
constexpr int kTensorContent = 4;

uint32_t Tag(int field, WireFormatLite::WireType type) {
  return WireFormatLite::MakeTag(field, type);
}

// Copies the next `n` bytes of `in` to `dst`: straight from gRPC's slices
// (which stay valid while their ByteBuffer lives), on two threads for a large
// tensor, since the copy is the receiver's main cost.
bool CopyContent(CodedInputStream* in, size_t n, char* dst) {
  struct Chunk {
    const char* src;
    size_t len;
    size_t at;  // offset in dst
  };
  std::vector<Chunk> chunks;
  for (size_t at = 0; at < n;) {
    const void* data = nullptr;
    int size = 0;
    if (!in->GetDirectBufferPointer(&data, &size) || size <= 0) return false;
    const size_t take = std::min(static_cast<size_t>(size), n - at);
    chunks.push_back({static_cast<const char*>(data), take, at});
    if (!in->Skip(static_cast<int>(take))) return false;
    at += take;
  }
  // Bytes [begin, end) of the content.
  auto copy = [&](size_t begin, size_t end) {
    for (const Chunk& c : chunks) {
      const size_t lo = std::max(begin, c.at), hi = std::min(end, c.at + c.len);
      if (lo < hi) std::memcpy(dst + lo, c.src + (lo - c.at), hi - lo);
    }
  };
  constexpr size_t kParallel = size_t{4} << 20;
  if (n < kParallel) {
    copy(0, n);
    return true;
  }
  std::thread second([&] { copy(n / 2, n); });
  copy(0, n / 2);
  second.join();
  return true;
}

grpc::ByteBuffer FromString(const std::string& s) {
  grpc::Slice slice(s);
  return grpc::ByteBuffer(&slice, 1);
}

}  // namespace

grpc::ByteBuffer EncodeRecvTensorResponse(const Tensor& value, bool is_dead) {
  if (is_dead || !value.IsInitialized() || !DataTypeCanUseMemcpy(value.dtype())) {
    tensorflow::RecvTensorResponse resp;
    resp.set_is_dead(is_dead);
    if (!is_dead && value.IsInitialized()) TensorToProto(value, resp.mutable_tensor());
    return FromString(resp.SerializeAsString());
  }
  // TensorProto without its content, then the content's tag and length.
  TensorProto meta;
  meta.set_dtype(value.dtype());
  value.shape().AsProto(meta.mutable_tensor_shape());
  const std::string meta_bytes = meta.SerializeAsString();
  const size_t n = value.TotalBytes();
  const size_t content_header = CodedOutputStream::VarintSize32(Tag(
                                    kTensorContent, WireFormatLite::WIRETYPE_LENGTH_DELIMITED)) +
                                CodedOutputStream::VarintSize64(n);
  const size_t tensor_len = meta_bytes.size() + content_header + n;
  std::string header;
  {
    google::protobuf::io::StringOutputStream raw(&header);
    CodedOutputStream out(&raw);
    out.WriteTag(Tag(kResponseTensor, WireFormatLite::WIRETYPE_LENGTH_DELIMITED));
    out.WriteVarint64(tensor_len);
    out.WriteRaw(meta_bytes.data(), static_cast<int>(meta_bytes.size()));
    out.WriteTag(Tag(kTensorContent, WireFormatLite::WIRETYPE_LENGTH_DELIMITED));
    out.WriteVarint64(n);
  }
  // The content slice keeps the tensor's buffer alive until gRPC is done.
  auto* keep = new Tensor(value);
  grpc::Slice slices[2] = {
      grpc::Slice(header),
      grpc::Slice(
          keep->raw_data(), n, [](void* t) { delete static_cast<Tensor*>(t); }, keep)};
  return grpc::ByteBuffer(slices, 2);
}

absl::Status DecodeRecvTensorResponse(grpc::ByteBuffer* buffer, Tensor* value, bool* is_dead) {
  const auto data_loss = [](absl::string_view what) {
    return absl::DataLossError(absl::StrCat("RecvTensorResponse does not parse: ", what));
  };
  grpc::ProtoBufferReader reader(buffer);
  CodedInputStream in(&reader);
  in.SetTotalBytesLimit(INT_MAX);
  *is_dead = false;
  bool have_tensor = false;
  while (uint32_t tag = in.ReadTag()) {
    const int field = WireFormatLite::GetTagFieldNumber(tag);
    if (field == kResponseIsDead &&
        WireFormatLite::GetTagWireType(tag) == WireFormatLite::WIRETYPE_VARINT) {
      uint64_t v = 0;
      if (!in.ReadVarint64(&v)) return data_loss("is_dead");
      *is_dead = v != 0;
      continue;
    }
    if (field != kResponseTensor ||
        WireFormatLite::GetTagWireType(tag) != WireFormatLite::WIRETYPE_LENGTH_DELIMITED) {
      if (!WireFormatLite::SkipField(&in, tag)) return data_loss("a field");
      continue;
    }
    uint32_t len = 0;
    if (!in.ReadVarint32(&len)) return data_loss("the tensor's length");
    const auto limit = in.PushLimit(static_cast<int>(len));
    // The tensor's fields; the content is copied once, into the tensor.
    TensorProto rest;  // every field but tensor_content, for TensorFromProto
    std::string rest_bytes;
    DataType dtype = DT_INVALID;
    TensorShapeProto shape;
    bool have_content = false;
    Tensor content;
    while (uint32_t t = in.ReadTag()) {
      const int f = WireFormatLite::GetTagFieldNumber(t);
      if (f == kTensorContent &&
          WireFormatLite::GetTagWireType(t) == WireFormatLite::WIRETYPE_LENGTH_DELIMITED &&
          dtype != DT_INVALID && DataTypeCanUseMemcpy(dtype)) {
        uint32_t n = 0;
        if (!in.ReadVarint32(&n)) return data_loss("tensor_content's length");
        absl::StatusOr<TensorShape> s = TensorShape::FromProto(shape);
        if (!s.ok()) return s.status();
        absl::StatusOr<Tensor> t2 = Tensor::Create(dtype, *s);
        if (!t2.ok()) return t2.status();
        if (t2->TotalBytes() != n) {
          return absl::InvalidArgumentError(absl::StrCat(
              "RecvTensorResponse: tensor_content has ", n, " bytes, but a ", DataTypeString(dtype),
              " tensor of shape ", s->DebugString(), " has ", t2->TotalBytes()));
        }
        if (!CopyContent(&in, n, static_cast<char*>(t2->raw_data()))) {
          return data_loss("tensor_content");
        }
        content = *std::move(t2);
        have_content = true;
        continue;
      }
      // Any other field (dtype, shape, typed values) is kept as it came.
      std::string field_bytes;
      {
        google::protobuf::io::StringOutputStream raw(&field_bytes);
        CodedOutputStream out(&raw);
        if (!WireFormatLite::SkipField(&in, t, &out)) return data_loss("a tensor field");
      }
      rest_bytes += field_bytes;
      if (f == kTensorDtype || f == kTensorShape) {
        TensorProto partial;
        if (!partial.ParseFromString(field_bytes)) return data_loss("dtype or shape");
        if (f == kTensorDtype) dtype = partial.dtype();
        if (f == kTensorShape) shape = partial.tensor_shape();
      }
    }
    in.PopLimit(limit);
    if (!rest.ParseFromString(rest_bytes)) return data_loss("the tensor");
    have_tensor = true;
    if (have_content) {
      *value = std::move(content);
    } else {
      absl::StatusOr<Tensor> t = TensorFromProto(rest);
      if (!t.ok()) return t.status();
      *value = *std::move(t);
    }
  }
  if (!in.ConsumedEntireMessage()) return data_loss("trailing bytes");
  if (!have_tensor && !*is_dead) *value = Tensor();
  return absl::OkStatus();
}

}  // namespace distributed_internal
}  // namespace minigraph
