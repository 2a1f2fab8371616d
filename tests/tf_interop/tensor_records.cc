#include "tests/tf_interop/tensor_records.h"

#include "absl/strings/str_cat.h"
#include "core/coding.h"
#include "core/env.h"
#include "core/status_macros.h"
#include "core/tensor_proto.h"

namespace minigraph {

absl::StatusOr<std::vector<std::pair<std::string, Tensor>>> ReadTensorRecords(
    const std::string& path) {
  MG_ASSIGN_OR_RETURN(std::string records, ReadFileToString(Env::Default(), path));
  absl::string_view rest = records;
  std::vector<std::pair<std::string, Tensor>> out;
  while (!rest.empty()) {
    uint32_t key_size;
    uint64_t proto_size;
    if (!GetFixed32(&rest, &key_size) || rest.size() < key_size) {
      return absl::DataLossError(absl::StrCat(path, ": a record's key is cut short"));
    }
    std::string key(rest.substr(0, key_size));
    rest.remove_prefix(key_size);
    if (!GetFixed64(&rest, &proto_size) || rest.size() < proto_size) {
      return absl::DataLossError(absl::StrCat(path, ": the tensor of \"", key, "\" is cut short"));
    }
    TensorProto proto;
    if (!proto.ParseFromArray(rest.data(), static_cast<int>(proto_size))) {
      return absl::DataLossError(absl::StrCat(path, ": \"", key, "\" is not a TensorProto"));
    }
    rest.remove_prefix(proto_size);
    MG_ASSIGN_OR_RETURN(Tensor t, TensorFromProto(proto));
    out.emplace_back(std::move(key), std::move(t));
  }
  return out;
}

void AppendTensorRecord(const std::string& key, const Tensor& t, std::string* records) {
  TensorProto proto;
  TensorToProto(t, &proto);
  const std::string bytes = proto.SerializeAsString();
  PutFixed32(records, static_cast<uint32_t>(key.size()));
  records->append(key);
  PutFixed64(records, bytes.size());
  records->append(bytes);
}

}  // namespace minigraph
