#include "checkpoint/v1_writer.h"

#include <map>
#include <vector>

#include "absl/strings/str_cat.h"
#include "checkpoint/naming.h"
#include "checkpoint/proto/saved_tensor_slice.pb.h"
#include "checkpoint/table.h"
#include "checkpoint/temp_files.h"
#include "core/status_macros.h"
#include "core/tensor_proto.h"

namespace minigraph {
namespace {

// The dtypes TensorFlow's TensorSliceWriter serializes, each to its typed
// TensorProto field. It refuses uint32 and uint64 as not implemented, and
// its Save refuses bfloat16 outright.
absl::Status CheckV1Dtype(const std::string& name, DataType dtype) {
  switch (dtype) {
    case DT_BOOL: case DT_STRING: case DT_INT8: case DT_INT16: case DT_INT32: case DT_INT64:
    case DT_UINT8: case DT_UINT16: case DT_HALF: case DT_FLOAT: case DT_DOUBLE:
    case DT_COMPLEX64: case DT_COMPLEX128:
      return absl::OkStatus();
    case DT_BFLOAT16:
      return absl::UnimplementedError(absl::StrCat(
          "tensor \"", name, "\": saving data type bfloat16 in TensorFlow's V1 format is not "
          "supported"));
    default:
      return absl::InvalidArgumentError(
          absl::StrCat("tensor \"", name, "\": TensorFlow's V1 format cannot hold ",
                       DataTypeString(dtype), " (tensor slice serialization not implemented)"));
  }
}

// A tensor in the table of contents: its entry there, and what it was
// first saved as.
struct Saved {
  SavedSliceMeta* meta;
  TensorShape shape;
  DataType dtype;
  std::vector<TensorSlice> slices;
};

// Checks `s` against the slices of its tensor saved before, then adds its
// slice to the table of contents (and the tensor, the first time).
absl::Status AddToContents(const V1Slice& s, std::map<std::string, Saved>* saved,
                           SavedTensorSliceMeta* contents) {
  MG_RETURN_IF_ERROR(CheckV1Dtype(s.name, s.data.dtype()));
  auto it = saved->find(s.name);
  if (it == saved->end()) {
    SavedSliceMeta* meta = contents->add_tensor();
    meta->set_name(s.name);
    s.shape.AsProto(meta->mutable_shape());
    meta->set_type(s.data.dtype());
    it = saved->emplace(s.name, Saved{meta, s.shape, s.data.dtype(), {}}).first;
  }
  Saved& tensor = it->second;
  if (tensor.shape != s.shape) {
    return absl::InternalError(absl::StrCat("tensor \"", s.name, "\" saved with shape ",
                                            tensor.shape.DebugString(), " and again with shape ",
                                            s.shape.DebugString()));
  }
  if (tensor.dtype != s.data.dtype()) {
    return absl::InternalError(absl::StrCat("tensor \"", s.name, "\" saved as ",
                                            DataTypeString(tensor.dtype), " and again as ",
                                            DataTypeString(s.data.dtype())));
  }
  if (absl::Status within = s.slice.CheckWithin(s.shape); !within.ok()) {
    return absl::InternalError(absl::StrCat("tensor \"", s.name, "\": ", within.message()));
  }
  if (s.slice.SliceShape(s.shape) != s.data.shape()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "tensor \"", s.name, "\": slice \"", ShapeAndSliceString(s.shape, s.slice),
        "\" has shape ", s.slice.SliceShape(s.shape).DebugString(), " but the data's is ",
        s.data.shape().DebugString()));
  }
  if (std::string error = SlicePlacementError(s.slice, s.shape, tensor.slices); !error.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("tensor \"", s.name, "\" ", error));
  }
  tensor.slices.push_back(s.slice);
  s.slice.AsProto(tensor.meta->add_slice());
  return absl::OkStatus();
}

absl::Status WriteTable(WritableFile* file, const std::string& path,
                        const SavedTensorSlices& contents,
                        const std::map<std::string, std::string>& records) {
  std::unique_ptr<table::TableWriter> table = table::TableWriter::Create(file, path);
  MG_RETURN_IF_ERROR(table->Add("", contents.SerializeAsString()));
  for (const auto& [key, value] : records) MG_RETURN_IF_ERROR(table->Add(key, value));
  MG_RETURN_IF_ERROR(table->Finish());
  MG_RETURN_IF_ERROR(file->Sync());
  return file->Close();
}

}  // namespace

absl::Status WriteV1Checkpoint(Env* env, const std::string& path,
                               const std::vector<V1Slice>& slices) {
  SavedTensorSlices contents;
  contents.mutable_meta()->mutable_versions()->set_producer(1);
  // Saved::meta stays valid: a RepeatedPtrField's elements never move.
  std::map<std::string, Saved> saved;
  std::map<std::string, std::string> records;  // key -> serialized SavedTensorSlices
  for (const V1Slice& s : slices) {
    MG_RETURN_IF_ERROR(AddContext(AddToContents(s, &saved, contents.mutable_meta()),
                                  absl::StrCat("saving checkpoint ", path)));
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
  MG_ASSIGN_OR_RETURN(LockedTempFile tmp, CreateLockedTempFile(env, path, kTempStateSuffix));
  absl::Status s = WriteTable(tmp.file.get(), path, contents, records);
  if (s.ok()) s = env->RenameFile(tmp.path, path);
  if (!s.ok()) {
    env->DeleteFile(tmp.path).IgnoreError();
    return AddContext(s, absl::StrCat("saving checkpoint ", path));
  }
  return absl::OkStatus();
}

}  // namespace minigraph
