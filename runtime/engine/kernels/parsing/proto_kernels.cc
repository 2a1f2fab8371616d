// DecodeProtoV2 and EncodeProto (tf.io.decode_proto, tf.io.encode_proto):
// fields of any protocol message type as tensors and back, as TensorFlow's
// decode_proto_op.cc and encode_proto_op.cc do them. The descriptors come
// from protobuf's descriptor pools and the bytes from its wire-format
// readers and writers; what is written here is TensorFlow's layout: sizes
// [batch..., fields] and one tensor per field [batch..., most values], the
// rest of each row the field's default; fields written in field-number
// order, packed only where the field's options say so (proto3's implicit
// packing is not applied, as TensorFlow does not).
//
// descriptor_source: "local://" (the message types this binary holds: those
// of minigraph's protos, also by their TensorFlow names, tensorflow.Example
// for minigraph.Example), "bytes://" and a serialized FileDescriptorSet, or
// the path of a file holding one.
#include <algorithm>
#include <cstring>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/base/call_once.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "core/env.h"
#include "core/proto/example.pb.h"
#include "core/proto/tensor.pb.h"
#include "core/status_macros.h"
#include "google/protobuf/descriptor.h"
#include "google/protobuf/descriptor.pb.h"
#include "google/protobuf/dynamic_message.h"
#include "google/protobuf/io/coded_stream.h"
#include "google/protobuf/io/tokenizer.h"
#include "google/protobuf/io/zero_copy_stream_impl_lite.h"
#include "google/protobuf/text_format.h"
#include "google/protobuf/wire_format_lite.h"
#include "runtime/engine/kernel_registry.h"
#include "runtime/engine/kernels/internal/kernel_families.h"
#include "runtime/engine/op_kernel.h"

namespace minigraph {
namespace kernels_internal {
namespace {

namespace pb = google::protobuf;
using pb::FieldDescriptor;
using pb::internal::WireFormatLite;

// --------------------------------------------------------- descriptor pools

// Renames package `from` to `to` throughout a file's descriptor: its
// package, and every type reference into it.
void RenamePackage(pb::DescriptorProto* message, const std::string& from, const std::string& to) {
  for (pb::FieldDescriptorProto& field : *message->mutable_field()) {
    if (absl::StartsWith(field.type_name(), from)) {
      field.set_type_name(to + field.type_name().substr(from.size()));
    }
  }
  for (pb::DescriptorProto& nested : *message->mutable_nested_type()) {
    RenamePackage(&nested, from, to);
  }
}

// The generated pool, and under it the files of minigraph's protos that
// mirror TensorFlow's (package minigraph) again in package tensorflow, so
// that TensorFlow's names find them.
class LocalPool {
 public:
  static const pb::DescriptorPool* Get() {
    static const LocalPool* local = new LocalPool();
    return &local->pool_;
  }

 private:
  LocalPool() : pool_(pb::DescriptorPool::generated_pool()) {
    for (const pb::FileDescriptor* root :
         {minigraph::Example::descriptor()->file(), minigraph::TensorProto::descriptor()->file()}) {
      Add(root);
    }
  }

  static std::string Renamed(const pb::FileDescriptor* file) {
    return "tensorflow_names/" + file->name();
  }

  void Add(const pb::FileDescriptor* file) {
    if (file->package() != "minigraph" || !added_.insert(file->name()).second) return;
    for (int i = 0; i < file->dependency_count(); ++i) Add(file->dependency(i));
    pb::FileDescriptorProto proto;
    file->CopyTo(&proto);
    proto.set_name(Renamed(file));
    proto.set_package("tensorflow");
    for (int i = 0; i < file->dependency_count(); ++i) {
      if (file->dependency(i)->package() == "minigraph") {
        proto.set_dependency(i, Renamed(file->dependency(i)));
      }
    }
    for (pb::DescriptorProto& message : *proto.mutable_message_type()) {
      RenamePackage(&message, ".minigraph.", ".tensorflow.");
    }
    // A file whose names clash with those of TensorFlow's package already
    // here is left out.
    pool_.BuildFileCollectingErrors(proto, &quiet_);
  }

  struct Quiet : pb::DescriptorPool::ErrorCollector {
    void AddError(const std::string&, const std::string&, const pb::Message*, ErrorLocation,
                  const std::string&) override {}
  };

  Quiet quiet_;
  pb::DescriptorPool pool_;
  std::set<std::string> added_;
};

// The pool a descriptor_source names; `owned` holds it when it is not the
// local one.
absl::StatusOr<const pb::DescriptorPool*> GetPool(Env* env, const std::string& source,
                                                  std::unique_ptr<pb::DescriptorPool>* owned) {
  if (source == "local://") return LocalPool::Get();
  std::string bytes;
  if (absl::StartsWith(source, "bytes://")) {
    bytes = source.substr(8);
  } else {
    absl::StatusOr<std::string> read = ReadFileToString(env, source);
    if (!read.ok()) {
      return absl::Status(read.status().code(), absl::StrCat("descriptor_source ", source, ": ",
                                                             read.status().message()));
    }
    bytes = *std::move(read);
  }
  pb::FileDescriptorSet set;
  if (!set.ParseFromString(bytes)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "descriptor_source ", source.substr(0, 64), ": not a serialized FileDescriptorSet"));
  }
  *owned = std::make_unique<pb::DescriptorPool>();
  for (const pb::FileDescriptorProto& file : set.file()) {
    if ((*owned)->BuildFile(file) == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Problem loading FileDescriptorProto (missing dependencies?): ", file.name()));
    }
  }
  return owned->get();
}

// Whether a field of `type` reads into or writes from tensors of `dtype`
// (TensorFlow's proto_utils::IsCompatibleType).
bool Compatible(FieldDescriptor::Type type, DataType dtype) {
  switch (type) {
    case FieldDescriptor::TYPE_DOUBLE:
      return dtype == DT_DOUBLE;
    case FieldDescriptor::TYPE_FLOAT:
      return dtype == DT_FLOAT || dtype == DT_DOUBLE;
    case FieldDescriptor::TYPE_INT64:
    case FieldDescriptor::TYPE_SFIXED64:
    case FieldDescriptor::TYPE_SINT64:
      return dtype == DT_INT64;
    case FieldDescriptor::TYPE_UINT64:
    case FieldDescriptor::TYPE_FIXED64:
      return dtype == DT_UINT64;
    case FieldDescriptor::TYPE_INT32:
    case FieldDescriptor::TYPE_SFIXED32:
    case FieldDescriptor::TYPE_SINT32:
      return dtype == DT_INT32 || dtype == DT_INT64;
    case FieldDescriptor::TYPE_FIXED32:
    case FieldDescriptor::TYPE_UINT32:
      return dtype == DT_UINT32 || dtype == DT_UINT64;
    case FieldDescriptor::TYPE_BOOL:
      return dtype == DT_BOOL;
    case FieldDescriptor::TYPE_ENUM:
      return dtype == DT_INT32;
    case FieldDescriptor::TYPE_STRING:
    case FieldDescriptor::TYPE_GROUP:
    case FieldDescriptor::TYPE_MESSAGE:
    case FieldDescriptor::TYPE_BYTES:
      return dtype == DT_STRING;
  }
  return false;
}

// The message type and fields a kernel's attrs name, found once (at the
// first step: a descriptor file is read through the step's Env).
struct Schema {
  std::unique_ptr<pb::DescriptorPool> owned_pool;
  const pb::Descriptor* message = nullptr;
  std::vector<const FieldDescriptor*> fields;  // in the attrs' order
};

class SchemaCache {
 public:
  absl::Status Init(OpKernelConstruction* c) {
    MG_RETURN_IF_ERROR(c->GetAttr("descriptor_source", &source_));
    MG_RETURN_IF_ERROR(c->GetAttr("message_type", &message_type_));
    return c->GetAttr("field_names", &field_names_);
  }

  absl::StatusOr<const Schema*> Get(Env* env) const {
    absl::MutexLock lock(&mu_);
    if (!status_.ok() || schema_ != nullptr) {
      if (!status_.ok()) return status_;
      return schema_.get();
    }
    absl::StatusOr<std::unique_ptr<Schema>> made = Make(env);
    if (!made.ok()) {
      status_ = made.status();
      return status_;
    }
    schema_ = *std::move(made);
    return schema_.get();
  }

  const std::vector<std::string>& field_names() const { return field_names_; }

 private:
  absl::StatusOr<std::unique_ptr<Schema>> Make(Env* env) const {
    auto schema = std::make_unique<Schema>();
    MG_ASSIGN_OR_RETURN(const pb::DescriptorPool* pool,
                        GetPool(env, source_, &schema->owned_pool));
    schema->message = pool->FindMessageTypeByName(message_type_);
    if (schema->message == nullptr) {
      return absl::InvalidArgumentError(
          absl::StrCat("No descriptor found for message type ", message_type_));
    }
    for (const std::string& name : field_names_) {
      const FieldDescriptor* field = schema->message->FindFieldByName(name);
      if (field == nullptr) {  // an extension, by its full name
        field = pool->FindExtensionByName(name);
        if (field != nullptr && field->containing_type() != schema->message) field = nullptr;
      }
      if (field == nullptr) {
        return absl::InvalidArgumentError(
            absl::StrCat("Unknown field: ", name, " in message type ", message_type_));
      }
      schema->fields.push_back(field);
    }
    return schema;
  }

  std::string source_, message_type_;
  std::vector<std::string> field_names_;
  mutable absl::Mutex mu_;
  mutable absl::Status status_ ABSL_GUARDED_BY(mu_);
  mutable std::unique_ptr<Schema> schema_ ABSL_GUARDED_BY(mu_);
};

// ------------------------------------------------------------------ decoding

// What one message holds of one field: its values as read from the wire
// (numbers as their 64 wire bits, strings as bytes), the last alone for a
// field that is not repeated.
struct Collected {
  std::vector<uint64_t> numbers;
  std::vector<std::string> strings;
  int64_t count() const { return std::max(numbers.size(), strings.size()); }
};

bool IsVarint(FieldDescriptor::Type type) {
  return WireFormatLite::WireTypeForFieldType(static_cast<WireFormatLite::FieldType>(type)) ==
         WireFormatLite::WIRETYPE_VARINT;
}

// A field's number or numbers: appended, or (not repeated) replacing.
void Keep(const FieldDescriptor* field, uint64_t value, Collected* c) {
  if (!field->is_repeated()) c->numbers.clear();
  c->numbers.push_back(value);
}

// The values of a packed run of `field` in `data`.
absl::Status ReadPacked(const FieldDescriptor* field, const std::string& data, Collected* c) {
  if (data.empty()) return absl::OkStatus();
  const FieldDescriptor::Type type = field->type();
  if (IsVarint(type)) {
    if (static_cast<uint8_t>(data.back()) & 0x80) {
      return absl::DataLossError(absl::StrCat("Corrupt packed varint in field ", field->name()));
    }
    pb::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(data.data()),
                                static_cast<int>(data.size()));
    while (in.BytesUntilLimit() > 0) {
      uint64_t value;
      if (!in.ReadVarint64(&value)) {
        return absl::DataLossError(absl::StrCat("Corrupt packed varint in field ", field->name()));
      }
      Keep(field, value, c);
    }
    return absl::OkStatus();
  }
  const int wire = WireFormatLite::WireTypeForFieldType(
      static_cast<WireFormatLite::FieldType>(type));
  if (wire != WireFormatLite::WIRETYPE_FIXED32 && wire != WireFormatLite::WIRETYPE_FIXED64) {
    return absl::DataLossError(
        absl::StrCat("field ", field->name(), " of type ", field->type_name(),
                     " encountered as packed"));
  }
  const size_t size = wire == WireFormatLite::WIRETYPE_FIXED32 ? 4 : 8;
  if (data.size() % size != 0) {
    return absl::DataLossError(absl::StrCat("Illegal data length for packed fixed-size type: ",
                                            data.size(), " in field ", field->name()));
  }
  for (size_t at = 0; at < data.size(); at += size) {
    uint64_t value = 0;
    std::memcpy(&value, data.data() + at, size);  // little-endian, as this machine
    Keep(field, value, c);
  }
  return absl::OkStatus();
}

// The requested fields of one serialized message; `by_number` maps a field
// number to the position it reads into.
absl::Status DecodeMessage(const std::string& bytes,
                           const std::vector<const FieldDescriptor*>& fields,
                           const std::map<int, int>& by_number, std::vector<Collected>* out) {
  pb::io::CodedInputStream in(reinterpret_cast<const uint8_t*>(bytes.data()),
                              static_cast<int>(bytes.size()));
  in.SetRecursionLimit(100);
  for (uint32_t tag = in.ReadTag();
       tag != 0 && WireFormatLite::GetTagWireType(tag) != WireFormatLite::WIRETYPE_END_GROUP;
       tag = in.ReadTag()) {
    const int number = WireFormatLite::GetTagFieldNumber(tag);
    // A field asked for twice reads into the first of its outputs alone
    // (the others keep their defaults), as TensorFlow's do.
    const auto first = by_number.find(number);
    if (first == by_number.end()) {
      if (!WireFormatLite::SkipField(&in, tag)) {
        return absl::DataLossError("Failed skipping unrequested field");
      }
      continue;
    }
    const FieldDescriptor* field = fields[first->second];
    const auto wire = WireFormatLite::GetTagWireType(tag);
    const auto schema_wire = WireFormatLite::WireTypeForFieldType(
        static_cast<WireFormatLite::FieldType>(field->type()));
    if (wire == WireFormatLite::WIRETYPE_LENGTH_DELIMITED &&
        schema_wire != WireFormatLite::WIRETYPE_LENGTH_DELIMITED) {
      int length;
      std::string data;
      if (!in.ReadVarintSizeAsInt(&length) || !in.ReadString(&data, length)) {
        return absl::DataLossError(
            absl::StrCat("Failed reading packed field ", field->name()));
      }
      MG_RETURN_IF_ERROR(ReadPacked(field, data, &(*out)[first->second]));
      continue;
    }
    if (wire != schema_wire) {
      if (!WireFormatLite::SkipField(&in, tag)) {
        return absl::DataLossError(
            absl::StrCat("Failed skipping malformed field ", field->name()));
      }
      continue;
    }
    bool ok = true;
    uint64_t number_value = 0;
    std::string string_value;
    bool is_string = false;
    switch (wire) {
      case WireFormatLite::WIRETYPE_VARINT:
        ok = in.ReadVarint64(&number_value);
        break;
      case WireFormatLite::WIRETYPE_FIXED32: {
        uint32_t v;
        ok = in.ReadLittleEndian32(&v);
        number_value = v;
        break;
      }
      case WireFormatLite::WIRETYPE_FIXED64:
        ok = in.ReadLittleEndian64(&number_value);
        break;
      case WireFormatLite::WIRETYPE_LENGTH_DELIMITED: {
        int length;
        ok = in.ReadVarintSizeAsInt(&length) && in.ReadString(&string_value, length);
        is_string = true;
        break;
      }
      case WireFormatLite::WIRETYPE_START_GROUP: {
        // The group with its start and end tags, as TensorFlow gives it.
        const int start = in.CurrentPosition() - pb::io::CodedOutputStream::VarintSize32(tag);
        ok = WireFormatLite::SkipField(&in, tag);
        if (ok) string_value = bytes.substr(start, in.CurrentPosition() - start);
        is_string = true;
        break;
      }
      default:
        ok = false;
    }
    if (!ok) {
      return absl::DataLossError(absl::StrCat("Failed reading field ", field->name()));
    }
    Collected& c = (*out)[first->second];
    if (is_string) {
      if (!field->is_repeated()) c.strings.clear();
      c.strings.push_back(std::move(string_value));
    } else {
      Keep(field, number_value, &c);
    }
  }
  if (!in.ConsumedEntireMessage()) {
    return absl::DataLossError("Failed to consume entire buffer");
  }
  return absl::OkStatus();
}

// The value of a field's wire bits as the output's dtype.
template <typename T>
T Convert(const FieldDescriptor* field, uint64_t bits) {
  switch (field->type()) {
    case FieldDescriptor::TYPE_DOUBLE: {
      double d;
      std::memcpy(&d, &bits, sizeof(d));
      return static_cast<T>(d);
    }
    case FieldDescriptor::TYPE_FLOAT: {
      const uint32_t low = static_cast<uint32_t>(bits);
      float f;
      std::memcpy(&f, &low, sizeof(f));
      return static_cast<T>(f);
    }
    case FieldDescriptor::TYPE_INT32:
    case FieldDescriptor::TYPE_SFIXED32:
    case FieldDescriptor::TYPE_ENUM:
      return static_cast<T>(static_cast<int32_t>(static_cast<uint32_t>(bits)));
    case FieldDescriptor::TYPE_UINT32:
    case FieldDescriptor::TYPE_FIXED32:
      return static_cast<T>(static_cast<uint32_t>(bits));
    case FieldDescriptor::TYPE_SINT32:
      return static_cast<T>(WireFormatLite::ZigZagDecode32(static_cast<uint32_t>(bits)));
    case FieldDescriptor::TYPE_SINT64:
      return static_cast<T>(WireFormatLite::ZigZagDecode64(bits));
    case FieldDescriptor::TYPE_INT64:
    case FieldDescriptor::TYPE_SFIXED64:
      return static_cast<T>(static_cast<int64_t>(bits));
    case FieldDescriptor::TYPE_BOOL:
      return static_cast<T>(bits != 0);
    default:
      return static_cast<T>(bits);
  }
}

// The field's default value as the output's dtype.
template <typename T>
T DefaultOf(const FieldDescriptor* field) {
  switch (field->cpp_type()) {
    case FieldDescriptor::CPPTYPE_DOUBLE:
      return static_cast<T>(field->default_value_double());
    case FieldDescriptor::CPPTYPE_FLOAT:
      return static_cast<T>(field->default_value_float());
    case FieldDescriptor::CPPTYPE_INT64:
      return static_cast<T>(field->default_value_int64());
    case FieldDescriptor::CPPTYPE_UINT64:
      return static_cast<T>(field->default_value_uint64());
    case FieldDescriptor::CPPTYPE_INT32:
      return static_cast<T>(field->default_value_int32());
    case FieldDescriptor::CPPTYPE_UINT32:
      return static_cast<T>(field->default_value_uint32());
    case FieldDescriptor::CPPTYPE_BOOL:
      return static_cast<T>(field->default_value_bool());
    case FieldDescriptor::CPPTYPE_ENUM:
      return static_cast<T>(field->default_value_enum()->number());
    default:
      return T();
  }
}

template <typename T>
void FillNumbers(const FieldDescriptor* field, const std::vector<std::vector<Collected>>& all,
                 int f, int64_t width, T* out) {
  const T fallback = DefaultOf<T>(field);
  for (size_t m = 0; m < all.size(); ++m) {
    const std::vector<uint64_t>& values = all[m][f].numbers;
    for (int64_t i = 0; i < width; ++i) {
      out[m * width + i] =
          i < static_cast<int64_t>(values.size()) ? Convert<T>(field, values[i]) : fallback;
    }
  }
}

// The first error of a text message (protobuf would log them all).
struct TextErrors : pb::io::ErrorCollector {
  void AddError(int line, int column, const std::string& message) override {
    if (first.empty()) {
      first = absl::StrCat(", line ", line + 1, " column ", column + 1, ": ", message);
    }
  }
  std::string first;
};

class DecodeProtoOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) {
    MG_RETURN_IF_ERROR(schema_.Init(c));
    MG_RETURN_IF_ERROR(c->GetAttr("output_types", &output_types_));
    if (output_types_.size() != schema_.field_names().size()) {
      return absl::InvalidArgumentError(
          "field_names and output_types attributes must have the same length");
    }
    std::string format;
    MG_RETURN_IF_ERROR(c->GetAttr("message_format", &format));
    if (format != "binary" && format != "text") {
      return absl::InvalidArgumentError(
          absl::StrCat("format must be one of binary or text, got ", format));
    }
    binary_ = format == "binary";
    return c->GetAttr("sanitize", &sanitize_);
  }

  absl::Status Compute(OpKernelContext* ctx) const override {
    MG_ASSIGN_OR_RETURN(const Schema* schema, schema_.Get(ctx->env()));
    const int num_fields = static_cast<int>(schema->fields.size());
    std::map<int, int> by_number;  // the first position asking for each number
    for (int f = 0; f < num_fields; ++f) {
      const FieldDescriptor* field = schema->fields[f];
      if (!Compatible(field->type(), output_types_[f])) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Unexpected output type for ", field->full_name(), ": ", field->type_name(),
            " to ", DataTypeString(output_types_[f])));
      }
      by_number.emplace(field->number(), f);  // keeps the first
    }
    const Tensor& bytes = ctx->input(0);
    const int64_t count = bytes.NumElements();
    if (count < 1) {
      return absl::InvalidArgumentError("Bufs argument must contain at least one value");
    }
    const std::string* in = bytes.data<std::string>();
    std::vector<std::vector<Collected>> all(count, std::vector<Collected>(num_fields));
    std::vector<int64_t> widths(num_fields, 1);
    pb::DynamicMessageFactory factory;
    const pb::Message* prototype = factory.GetPrototype(schema->message);
    for (int64_t m = 0; m < count; ++m) {
      std::string reserialized;
      const std::string* message = &in[m];
      if (!binary_ || sanitize_) {
        std::unique_ptr<pb::Message> parsed(prototype->New());
        TextErrors errors;
        pb::TextFormat::Parser text;
        text.RecordErrorsTo(&errors);
        if (binary_ ? !parsed->ParseFromString(in[m])
                    : !text.ParseFromString(in[m], parsed.get())) {
          return absl::DataLossError(absl::StrCat("Unable to parse ",
                                                  binary_ ? "binary" : "text", " protobuf ",
                                                  schema->message->full_name(), " at ", m,
                                                  errors.first));
        }
        if (!parsed->SerializeToString(&reserialized)) {
          return absl::DataLossError("Unable to reserialize text proto as binary");
        }
        message = &reserialized;
      }
      absl::Status s = DecodeMessage(*message, schema->fields, by_number, &all[m]);
      if (!s.ok()) {
        return absl::DataLossError(absl::StrCat(schema->message->full_name(), " at ", m, ": ",
                                                s.message()));
      }
      for (int f = 0; f < num_fields; ++f) widths[f] = std::max(widths[f], all[m][f].count());
    }
    TensorShape sizes_shape = bytes.shape();
    MG_RETURN_IF_ERROR(sizes_shape.AddDim(num_fields));
    Tensor* sizes;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, sizes_shape, &sizes));
    int32_t* s = sizes->data<int32_t>();
    for (int64_t m = 0; m < count; ++m) {
      for (int f = 0; f < num_fields; ++f) {
        s[m * num_fields + f] = static_cast<int32_t>(all[m][f].count());
      }
    }
    for (int f = 0; f < num_fields; ++f) {
      const FieldDescriptor* field = schema->fields[f];
      TensorShape shape = bytes.shape();
      MG_RETURN_IF_ERROR(shape.AddDim(widths[f]));
      Tensor* out;
      MG_RETURN_IF_ERROR(ctx->allocate_output(1 + f, shape, &out));
      switch (output_types_[f]) {
        case DT_STRING: {
          const std::string fallback =
              field->cpp_type() == FieldDescriptor::CPPTYPE_STRING ? field->default_value_string()
                                                                   : "";
          std::string* o = out->data<std::string>();
          for (int64_t m = 0; m < count; ++m) {
            const std::vector<std::string>& values = all[m][f].strings;
            for (int64_t i = 0; i < widths[f]; ++i) {
              o[m * widths[f] + i] = i < static_cast<int64_t>(values.size()) ? values[i] : fallback;
            }
          }
          break;
        }
        case DT_DOUBLE: FillNumbers(field, all, f, widths[f], out->data<double>()); break;
        case DT_FLOAT: FillNumbers(field, all, f, widths[f], out->data<float>()); break;
        case DT_INT32: FillNumbers(field, all, f, widths[f], out->data<int32_t>()); break;
        case DT_INT64: FillNumbers(field, all, f, widths[f], out->data<int64_t>()); break;
        case DT_UINT32: FillNumbers(field, all, f, widths[f], out->data<uint32_t>()); break;
        case DT_UINT64: FillNumbers(field, all, f, widths[f], out->data<uint64_t>()); break;
        case DT_BOOL: FillNumbers(field, all, f, widths[f], out->data<bool>()); break;
        default:
          return absl::InternalError(absl::StrCat("DecodeProtoV2: no output of ",
                                                  DataTypeString(output_types_[f])));
      }
    }
    return absl::OkStatus();
  }

 private:
  SchemaCache schema_;
  std::vector<DataType> output_types_;
  bool binary_ = true;
  bool sanitize_ = false;
};

// ------------------------------------------------------------------ encoding

// Element `i` of row `row` of a [rows, width] view of `t`, as the field's
// wire value (unsigned fields from their signed or wider tensors, as
// TensorFlow casts them).
uint64_t WireBits(const FieldDescriptor* field, const Tensor& t, int64_t at) {
  auto as_int64 = [&]() -> int64_t {
    switch (t.dtype()) {
      case DT_INT32: return t.data<int32_t>()[at];
      case DT_INT64: return t.data<int64_t>()[at];
      case DT_UINT32: return t.data<uint32_t>()[at];
      case DT_UINT64: return static_cast<int64_t>(t.data<uint64_t>()[at]);
      case DT_BOOL: return t.data<bool>()[at];
      default: return 0;
    }
  };
  switch (field->type()) {
    case FieldDescriptor::TYPE_DOUBLE: {
      const double d = t.data<double>()[at];
      uint64_t bits;
      std::memcpy(&bits, &d, sizeof(d));
      return bits;
    }
    case FieldDescriptor::TYPE_FLOAT: {
      const float f = t.dtype() == DT_DOUBLE ? static_cast<float>(t.data<double>()[at])
                                             : t.data<float>()[at];
      uint32_t bits;
      std::memcpy(&bits, &f, sizeof(f));
      return bits;
    }
    case FieldDescriptor::TYPE_INT32:
    case FieldDescriptor::TYPE_ENUM:
      // A negative int32 is written as its 64-bit varint, as protobuf does.
      return static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(as_int64())));
    case FieldDescriptor::TYPE_SFIXED32:
    case FieldDescriptor::TYPE_UINT32:
    case FieldDescriptor::TYPE_FIXED32:
      return static_cast<uint32_t>(as_int64());
    case FieldDescriptor::TYPE_SINT32:
      return WireFormatLite::ZigZagEncode32(static_cast<int32_t>(as_int64()));
    case FieldDescriptor::TYPE_SINT64:
      return WireFormatLite::ZigZagEncode64(as_int64());
    default:
      return static_cast<uint64_t>(as_int64());
  }
}

// Writes `size` values of `field` from row `row` of `t` ([rows, width]).
void WriteField(const FieldDescriptor* field, const Tensor& t, int64_t row, int64_t width,
                int size, pb::io::CodedOutputStream* out) {
  const int number = field->number();
  const int64_t base = row * width;
  const auto type = static_cast<WireFormatLite::FieldType>(field->type());
  if (t.dtype() == DT_STRING) {
    const std::string* s = t.data<std::string>() + base;
    for (int i = 0; i < size; ++i) {
      if (type == WireFormatLite::TYPE_GROUP) {
        WireFormatLite::WriteTag(number, WireFormatLite::WIRETYPE_START_GROUP, out);
        out->WriteRaw(s[i].data(), static_cast<int>(s[i].size()));
        WireFormatLite::WriteTag(number, WireFormatLite::WIRETYPE_END_GROUP, out);
      } else {
        WireFormatLite::WriteBytes(number, s[i], out);
      }
    }
    return;
  }
  const auto wire = WireFormatLite::WireTypeForFieldType(type);
  auto write_value = [&](uint64_t bits) {
    switch (wire) {
      case WireFormatLite::WIRETYPE_FIXED32:
        out->WriteLittleEndian32(static_cast<uint32_t>(bits));
        break;
      case WireFormatLite::WIRETYPE_FIXED64:
        out->WriteLittleEndian64(bits);
        break;
      default:
        out->WriteVarint64(bits);
    }
  };
  auto value_size = [&](uint64_t bits) -> size_t {
    if (wire == WireFormatLite::WIRETYPE_FIXED32) return 4;
    if (wire == WireFormatLite::WIRETYPE_FIXED64) return 8;
    return pb::io::CodedOutputStream::VarintSize64(bits);
  };
  if (field->options().packed()) {
    size_t total = 0;
    for (int i = 0; i < size; ++i) total += value_size(WireBits(field, t, base + i));
    WireFormatLite::WriteTag(number, WireFormatLite::WIRETYPE_LENGTH_DELIMITED, out);
    out->WriteVarint32(static_cast<uint32_t>(total));
    for (int i = 0; i < size; ++i) write_value(WireBits(field, t, base + i));
  } else {
    for (int i = 0; i < size; ++i) {
      WireFormatLite::WriteTag(number, wire, out);
      write_value(WireBits(field, t, base + i));
    }
  }
}

class EncodeProtoOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  absl::Status Init(OpKernelConstruction* c) { return schema_.Init(c); }

  absl::Status Compute(OpKernelContext* ctx) const override {
    MG_ASSIGN_OR_RETURN(const Schema* schema, schema_.Get(ctx->env()));
    const Tensor& sizes = ctx->input(0);
    const int num_fields = static_cast<int>(schema->fields.size());
    if (ctx->num_inputs() - 1 != num_fields) {
      return absl::InvalidArgumentError(absl::StrCat(
          "Length of inputs list must match field_names: ", ctx->num_inputs() - 1, " vs ",
          num_fields));
    }
    TensorShape prefix;
    for (int f = 0; f < num_fields; ++f) {
      const Tensor& v = ctx->input(1 + f);
      const FieldDescriptor* field = schema->fields[f];
      const std::string& name = schema_.field_names()[f];
      if (!Compatible(field->type(), v.dtype())) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Incompatible type for field ", name, ".  Saw dtype: ", DataTypeString(v.dtype()),
            " but field type is: ", field->type_name()));
      }
      if (v.dims() < 2) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Invalid shape for field ", name, ".  Saw shape ", v.shape().DebugString(),
            " but it should be at least a matrix."));
      }
      const TensorShape p(v.shape().dim_sizes().subspan(0, v.dims() - 1));
      if (f == 0) {
        prefix = p;
      } else if (p != prefix) {
        return absl::InvalidArgumentError(absl::StrCat(
            "Values must match up to the last dimension: ", v.shape().DebugString(),
            " for field ", name, " after ", prefix.DebugString()));
      }
    }
    TensorShape want = prefix;
    MG_RETURN_IF_ERROR(want.AddDim(num_fields));
    if (sizes.shape() != want) {
      return absl::InvalidArgumentError(absl::StrCat(
          "sizes should be batch_size + [len(field_names)].  Saw: ", sizes.shape().DebugString(),
          " but expected: ", want.DebugString()));
    }
    const int64_t count = prefix.num_elements();
    const int32_t* size = sizes.data<int32_t>();
    for (int f = 0; f < num_fields; ++f) {
      const Tensor& v = ctx->input(1 + f);
      const int64_t width = v.dim_size(v.dims() - 1);
      for (int64_t m = 0; m < count; ++m) {
        if (size[m * num_fields + f] > width) {
          return absl::InvalidArgumentError(absl::StrCat(
              "Size to write must not be larger than value tensor; but saw: ",
              size[m * num_fields + f], " > ", width, " at message ", m, " field ", f));
        }
      }
    }
    std::vector<int> order(num_fields);
    for (int f = 0; f < num_fields; ++f) order[f] = f;
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
      return schema->fields[a]->number() < schema->fields[b]->number();
    });
    Tensor* out;
    MG_RETURN_IF_ERROR(ctx->allocate_output(0, prefix, &out));
    std::string* o = out->data<std::string>();
    for (int64_t m = 0; m < count; ++m) {
      pb::io::StringOutputStream stream(&o[m]);
      pb::io::CodedOutputStream coded(&stream);
      for (int f : order) {
        const int n = size[m * num_fields + f];
        if (n == 0) continue;
        const Tensor& v = ctx->input(1 + f);
        WriteField(schema->fields[f], v, m, v.dim_size(v.dims() - 1), n, &coded);
      }
    }
    return absl::OkStatus();
  }

 private:
  SchemaCache schema_;
};

}  // namespace

void RegisterProtoKernels(KernelRegistry* r) {
  r->Register("DecodeProtoV2", MakeFactory<DecodeProtoOp>());
  r->Register("EncodeProto", MakeFactory<EncodeProtoOp>());
}

}  // namespace kernels_internal
}  // namespace minigraph
