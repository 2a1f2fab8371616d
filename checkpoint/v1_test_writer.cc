#include "checkpoint/v1_test_writer.h"

#include <map>

#include "checkpoint/proto/saved_tensor_slice.pb.h"
#include "checkpoint/table.h"
#include "core/status_macros.h"
#include "core/tensor_proto.h"

namespace minigraph {

absl::Status WriteV1Checkpoint(Env* env, const std::string& path,
                               const std::vector<V1Slice>& slices) {
  SavedTensorSlices contents;
  contents.mutable_meta()->mutable_versions()->set_producer(1);
  std::map<std::string, int> index;            // name -> its SavedSliceMeta
  std::map<std::string, std::string> records;  // key -> serialized SavedTensorSlices
  for (const V1Slice& s : slices) {
    auto [it, added] = index.try_emplace(s.name, contents.meta().tensor_size());
    if (added) {
      SavedSliceMeta* meta = contents.mutable_meta()->add_tensor();
      meta->set_name(s.name);
      s.shape.AsProto(meta->mutable_shape());
      meta->set_type(s.data.dtype());
    }
    s.slice.AsProto(contents.mutable_meta()->mutable_tensor(it->second)->add_slice());
    SavedTensorSlices record;
    SavedSlice* saved = record.mutable_data();
    saved->set_name(s.name);
    s.slice.AsProto(saved->mutable_slice());
    TensorToProtoField(s.data, saved->mutable_data());
    // TensorFlow stores the values only.
    saved->mutable_data()->clear_dtype();
    saved->mutable_data()->clear_tensor_shape();
    records[EncodeTensorNameSlice(s.name, s.slice)] = record.SerializeAsString();
  }
  MG_ASSIGN_OR_RETURN(auto file, env->NewWritableFile(path));
  std::unique_ptr<table::TableWriter> table = table::TableWriter::Create(file.get(), path);
  MG_RETURN_IF_ERROR(table->Add("", contents.SerializeAsString()));
  for (const auto& [key, value] : records) MG_RETURN_IF_ERROR(table->Add(key, value));
  MG_RETURN_IF_ERROR(table->Finish());
  return file->Close();
}

}  // namespace minigraph
