#include "checkpoint/v1_checkpoint.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "checkpoint/format_version.h"
#include "checkpoint/proto/saved_tensor_slice.pb.h"
#include "checkpoint/saved_slices.h"
#include "checkpoint/table.h"
#include "core/status_macros.h"
#include "core/tensor_proto.h"

namespace minigraph {
namespace {

// TensorFlow's checkpoint versions (TF_CHECKPOINT_VERSION = 1, consuming
// producers >= TF_CHECKPOINT_VERSION_MIN_PRODUCER = 0).
constexpr int kConsumerVersion = 1;

// The typed field TensorFlow's V1 writer (saved_tensor_slice_util.h's Fill)
// puts `dtype`'s elements in, as its number of values per element and the
// field's size; per = 0 for a dtype V1 does not store.
struct StoredValues {
  int per;
  int64_t count;
};
StoredValues CountStored(const TensorProto& data, DataType dtype) {
  switch (dtype) {
    case DT_FLOAT:
      return {1, data.float_val_size()};
    case DT_DOUBLE:
      return {1, data.double_val_size()};
    case DT_INT32:
    case DT_UINT8:
    case DT_INT16:
    case DT_INT8:
      return {1, data.int_val_size()};
    case DT_INT64:
      return {1, data.int64_val_size()};
    case DT_BOOL:
      return {1, data.bool_val_size()};
    case DT_HALF:
      return {1, data.half_val_size()};
    case DT_COMPLEX64:
      return {2, data.scomplex_val_size()};
    case DT_COMPLEX128:
      return {2, data.dcomplex_val_size()};
    case DT_STRING:
      return {1, data.string_val_size()};
    default:
      return {0, 0};
  }
}

}  // namespace

absl::StatusOr<std::vector<std::string>> V1CheckpointFiles(Env* env, const std::string& pattern) {
  if (pattern.find_first_of("*?[") == std::string::npos) {
    if (env->FileExists(pattern).ok() && !env->IsDirectory(pattern).value_or(true)) {
      return std::vector<std::string>{pattern};
    }
    return std::vector<std::string>{};
  }
  return GetMatchingPaths(env, pattern);
}

V1Checkpoint::~V1Checkpoint() = default;

absl::StatusOr<std::unique_ptr<V1Checkpoint>> V1Checkpoint::Open(
    Env* env, const std::vector<std::string>& files) {
  std::unique_ptr<V1Checkpoint> ckpt(new V1Checkpoint);
  // The file each tensor was first listed in, for messages.
  std::map<std::string, std::string, std::less<>> first_file;
  for (const std::string& file : files) {
    MG_ASSIGN_OR_RETURN(std::unique_ptr<table::TableReader> table,
                        table::TableReader::Open(env, file));
    absl::StatusOr<std::string> contents = table->Get("");
    SavedTensorSlices sts;
    if (absl::IsNotFound(contents.status()) || (contents.ok() && !sts.ParseFromString(*contents)) ||
        (contents.ok() && !sts.has_meta())) {
      return absl::DataLossError(
          absl::StrCat("V1 checkpoint ", file,
                       ": the table of contents (key \"\") is missing or does not parse"));
    }
    MG_RETURN_IF_ERROR(contents.status());
    MG_RETURN_IF_ERROR(CheckFormatVersion(sts.meta().versions(), kConsumerVersion,
                                          absl::StrCat("V1 checkpoint ", file)));
    const int file_index = static_cast<int>(ckpt->files_.size());
    ckpt->files_.push_back(std::move(table));
    for (const SavedSliceMeta& meta : sts.meta().tensor()) {
      const std::string& name = meta.name();
      auto bad = [&](absl::string_view why) {
        return absl::DataLossError(
            absl::StrCat("V1 checkpoint ", file, ": tensor \"", name, "\" ", why));
      };
      absl::StatusOr<TensorShape> shape = TensorShape::FromProto(meta.shape());
      if (!shape.ok()) return bad(absl::StrCat("has an invalid shape: ", shape.status().message()));
      const DataType dtype = meta.type();
      if (CountStored(TensorProto(), dtype).per == 0) {
        return absl::UnimplementedError(absl::StrCat(
            "V1 checkpoint ", file, ": tensor \"", name, "\" has dtype ", DataTypeString(dtype),
            ", which TensorFlow's V1 format does not store and minigraph does not read"));
      }
      if (meta.slice_size() == 0) return bad("lists no slices");
      auto [it, added] = ckpt->entries_.try_emplace(name);
      BundleEntryProto& entry = it->second;
      if (added) {
        entry.set_dtype(dtype);
        *entry.mutable_shape() = meta.shape();
        first_file[name] = file;
      } else if (entry.dtype() != dtype || *TensorShape::FromProto(entry.shape()) != *shape) {
        return bad(absl::StrCat("is ", DataTypeString(dtype), " ", shape->DebugString(), ", but ",
                                first_file[name], " has it as ", DataTypeString(entry.dtype()), " ",
                                TensorShape::FromProto(entry.shape())->DebugString()));
      }
      std::vector<TensorSlice> placed;  // the slices other files listed
      for (const TensorSliceProto& p : entry.slices()) placed.push_back(*TensorSlice::FromProto(p));
      for (const TensorSliceProto& proto : meta.slice()) {
        absl::StatusOr<TensorSlice> slice = TensorSlice::FromProto(proto);
        if (!slice.ok()) return bad(slice.status().message());
        if (std::string why = SlicePlacementError(*slice, *shape, placed); !why.empty()) {
          return bad(why);
        }
        placed.push_back(*slice);
        ckpt->slice_file_[EncodeTensorNameSlice(name, *slice)] = file_index;
        slice->AsProto(entry.add_slices());
      }
    }
  }
  return ckpt;
}

absl::StatusOr<Tensor> V1Checkpoint::ReadSlice(absl::string_view name,
                                               const TensorSlice& slice) const {
  const std::string key = EncodeTensorNameSlice(name, slice);
  auto where = slice_file_.find(key);
  auto entry = entries_.find(name);
  if (where == slice_file_.end() || entry == entries_.end()) {
    return absl::NotFoundError(absl::StrCat("tensor \"", name, "\" has no slice \"",
                                            slice.DebugString(), "\" in its V1 checkpoint"));
  }
  const table::TableReader& file = *files_[where->second];
  auto bad = [&](absl::string_view why) {
    return absl::DataLossError(
        absl::StrCat("V1 checkpoint ", file.path(), ": tensor \"", name, "\" ", why));
  };
  absl::StatusOr<std::string> value = file.Get(key);
  if (absl::IsNotFound(value.status())) {
    return bad(absl::StrCat("lists slice \"", slice.DebugString(), "\", which is missing"));
  }
  MG_RETURN_IF_ERROR(value.status());
  SavedTensorSlices sts;
  if (!sts.ParseFromString(*value) || !sts.has_data()) {
    return bad(
        absl::StrCat("has slice \"", slice.DebugString(), "\" in a record that does not parse"));
  }
  SavedSlice& saved = *sts.mutable_data();
  if (saved.name() != name) {
    return bad(absl::StrCat("has its slice \"", slice.DebugString(), "\" stored under the name \"",
                            saved.name(), "\""));
  }
  const DataType dtype = entry->second.dtype();
  const TensorShape slice_shape = slice.SliceShape(*TensorShape::FromProto(entry->second.shape()));
  TensorProto& data = *saved.mutable_data();
  const StoredValues stored = CountStored(data, dtype);
  if (stored.count != stored.per * slice_shape.num_elements() || !data.tensor_content().empty()) {
    return bad(absl::StrCat("has slice \"", slice.DebugString(), "\" of ",
                            slice_shape.num_elements(), " elements stored with ",
                            stored.count / stored.per, " values"));
  }
  data.set_dtype(dtype);
  slice_shape.AsProto(data.mutable_tensor_shape());
  absl::StatusOr<Tensor> t = TensorFromProto(data);
  if (!t.ok()) return bad(t.status().message());
  return t;
}

}  // namespace minigraph
