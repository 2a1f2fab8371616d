// The checkpoint side of the TensorFlow interop tests: minigraph's reader
// and writer between a checkpoint and a file of tensors that TensorFlow's
// Python reads and writes exactly (each tensor as a TensorProto).
//
//   ckpt_tool dump PREFIX OUT       every tensor of PREFIX (whole, slices
//                                    assembled) to OUT, in key order
//   ckpt_tool write PREFIX IN       the tensors of IN as the checkpoint
//                                    PREFIX (BundleWriter, key order)
//
// The tensor file: records of a fixed32 key length, the key, a fixed64
// length and a serialized tensorflow.TensorProto (all little-endian).
// Exit 0, or 1 with the error on stderr.

#include <cstdio>
#include <string>

#include "absl/strings/str_cat.h"
#include "checkpoint/bundle_reader.h"
#include "checkpoint/bundle_writer.h"
#include "core/coding.h"
#include "core/env.h"
#include "core/status_macros.h"
#include "core/tensor_proto.h"

namespace minigraph {
namespace {

absl::Status Dump(const std::string& prefix, const std::string& out) {
  Env* env = Env::Default();
  MG_ASSIGN_OR_RETURN(std::unique_ptr<BundleReader> reader, BundleReader::Open(env, prefix));
  std::string records;
  for (const std::string& key : reader->tensor_names()) {
    MG_ASSIGN_OR_RETURN(Tensor t, reader->Lookup(key));
    TensorProto proto;
    TensorToProto(t, &proto);
    const std::string bytes = proto.SerializeAsString();
    PutFixed32(&records, static_cast<uint32_t>(key.size()));
    records.append(key);
    PutFixed64(&records, bytes.size());
    records.append(bytes);
  }
  return WriteStringToFile(env, out, records);
}

absl::Status Write(const std::string& prefix, const std::string& in) {
  Env* env = Env::Default();
  MG_ASSIGN_OR_RETURN(std::string records, ReadFileToString(env, in));
  absl::string_view rest = records;
  std::map<std::string, Tensor> tensors;
  while (!rest.empty()) {
    uint32_t key_size;
    uint64_t proto_size;
    if (!GetFixed32(&rest, &key_size) || rest.size() < key_size) {
      return absl::DataLossError(absl::StrCat(in, ": a record's key is cut short"));
    }
    std::string key(rest.substr(0, key_size));
    rest.remove_prefix(key_size);
    if (!GetFixed64(&rest, &proto_size) || rest.size() < proto_size) {
      return absl::DataLossError(absl::StrCat(in, ": the tensor of \"", key, "\" is cut short"));
    }
    TensorProto proto;
    if (!proto.ParseFromArray(rest.data(), static_cast<int>(proto_size))) {
      return absl::DataLossError(absl::StrCat(in, ": \"", key, "\" is not a TensorProto"));
    }
    rest.remove_prefix(proto_size);
    MG_ASSIGN_OR_RETURN(Tensor t, TensorFromProto(proto));
    tensors.emplace(std::move(key), std::move(t));
  }
  MG_ASSIGN_OR_RETURN(std::unique_ptr<BundleWriter> writer, BundleWriter::Create(env, prefix));
  for (const auto& [key, t] : tensors) MG_RETURN_IF_ERROR(writer->Add(key, t));
  return writer->Finish();
}

}  // namespace
}  // namespace minigraph

int main(int argc, char** argv) {
  if (argc != 4 || (std::string(argv[1]) != "dump" && std::string(argv[1]) != "write")) {
    std::fprintf(stderr, "usage: ckpt_tool dump PREFIX OUT | ckpt_tool write PREFIX IN\n");
    return 2;
  }
  const absl::Status s = std::string(argv[1]) == "dump" ? minigraph::Dump(argv[2], argv[3])
                                                        : minigraph::Write(argv[2], argv[3]);
  if (!s.ok()) {
    std::fprintf(stderr, "ckpt_tool: %s\n", s.ToString().c_str());
    return 1;
  }
  return 0;
}
