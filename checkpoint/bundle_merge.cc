#include "checkpoint/bundle_merge.h"

#include <map>
#include <set>

#include "absl/strings/str_cat.h"
#include "checkpoint/bundle_reader.h"
#include "checkpoint/naming.h"
#include "checkpoint/proto/tensor_bundle.pb.h"
#include "checkpoint/table.h"
#include "checkpoint/temp_files.h"
#include "core/path.h"
#include "core/status_macros.h"

namespace minigraph {

absl::Status MergeBundles(Env* env, const std::vector<std::string>& prefixes,
                          const std::string& merged_prefix, bool delete_old_dirs) {
  if (prefixes.empty()) {
    return absl::InvalidArgumentError(absl::StrCat("nothing to merge into ", merged_prefix));
  }
  int total_shards = 0;
  std::vector<std::unique_ptr<BundleReader>> readers;
  for (const std::string& p : prefixes) {
    MG_ASSIGN_OR_RETURN(auto r, BundleReader::Open(env, p));
    if (r->format_version() != 2) {
      return absl::InvalidArgumentError(absl::StrCat(
          "checkpoint ", p, " is in TensorFlow's V1 format; only V2 checkpoints merge into ",
          merged_prefix));
    }
    total_shards += r->num_shards();
    readers.push_back(std::move(r));
  }
  std::map<std::string, BundleEntryProto> merged;
  std::vector<std::pair<std::string, std::string>> renames;
  int next_shard = 0;
  for (const auto& r : readers) {
    const int base = next_shard;
    for (int s = 0; s < r->num_shards(); ++s) {
      renames.emplace_back(DataFilename(r->prefix(), s, r->num_shards()),
                           DataFilename(merged_prefix, next_shard++, total_shards));
    }
    for (const std::string& key : r->keys()) {
      MG_ASSIGN_OR_RETURN(const BundleEntryProto* e, r->GetEntry(key));
      auto [it, inserted] = merged.emplace(key, *e);
      if (!inserted) {
        if (e->slices_size() > 0 && it->second.slices_size() > 0) {
          for (const auto& slice : e->slices()) *it->second.add_slices() = slice;
          continue;
        }
        return absl::InvalidArgumentError(absl::StrCat(
            "tensor \"", key, "\" is in more than one of the checkpoints merged into ",
            merged_prefix));
      }
      if (e->slices_size() == 0) it->second.set_shard_id(base + e->shard_id());
    }
  }
  const std::string dir(Dirname(merged_prefix));
  if (!dir.empty()) MG_RETURN_IF_ERROR(env->CreateDir(dir));
  MG_ASSIGN_OR_RETURN(LockedTempFile index,
                      CreateLockedTempFile(env, MetaFilename(merged_prefix), kTempStateSuffix));
  const std::string index_tmp = index.path;
  {
    std::unique_ptr<WritableFile> file = std::move(index.file);
    auto table = table::TableWriter::Create(file.get(), MetaFilename(merged_prefix));
    BundleHeaderProto header;
    header.set_num_shards(total_shards);
    header.mutable_version()->set_producer(1);
    MG_RETURN_IF_ERROR(table->Add("", header.SerializeAsString()));
    for (const auto& [key, entry] : merged) {
      MG_RETURN_IF_ERROR(table->Add(key, entry.SerializeAsString()));
    }
    MG_RETURN_IF_ERROR(table->Finish());
    MG_RETURN_IF_ERROR(file->Sync());
    MG_RETURN_IF_ERROR(file->Close());
  }
  readers.clear();  // close the data files before renaming them
  {
    // One writer of the prefix commits at a time (see BundleWriter::Finish).
    MG_ASSIGN_OR_RETURN(std::unique_ptr<FileLock> lock, env->LockFile(dir.empty() ? "." : dir));
    for (const auto& [from, to] : renames) MG_RETURN_IF_ERROR(env->RenameFile(from, to));
    MG_RETURN_IF_ERROR(env->RenameFile(index_tmp, MetaFilename(merged_prefix)));
    MG_RETURN_IF_ERROR(env->SyncDir(dir.empty() ? "." : dir));
  }
  std::set<std::string> old_dirs;
  for (const std::string& p : prefixes) {
    env->DeleteFile(MetaFilename(p)).IgnoreError();
    old_dirs.insert(std::string(Dirname(p)));
  }
  if (delete_old_dirs) {
    for (const std::string& d : old_dirs) {
      if (d != dir && !d.empty()) env->DeleteDir(d).IgnoreError();  // only if empty
    }
  }
  return absl::OkStatus();
}

}  // namespace minigraph
