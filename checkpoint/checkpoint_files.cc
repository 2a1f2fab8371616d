#include "checkpoint/checkpoint_files.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "absl/strings/str_cat.h"
#include "checkpoint/bundle_reader.h"
#include "checkpoint/naming.h"
#include "core/path.h"
#include "core/status_macros.h"

namespace minigraph {

absl::StatusOr<std::vector<CheckpointOnDisk>> ListCheckpoints(Env* env, const std::string& dir,
                                                              absl::string_view base) {
  MG_ASSIGN_OR_RETURN(std::vector<std::string> children, env->GetChildren(dir));
  std::map<std::string, CheckpointOnDisk> by_name;
  for (const std::string& file : children) {
    const std::string name = CheckpointNameOfFile(file);
    if (!IsCheckpointOf(base, name)) continue;
    const std::string path = JoinPath(dir, file);
    if (env->IsDirectory(path).value_or(true)) continue;
    CheckpointOnDisk& c = by_name[name];
    c.prefix = JoinPath(dir, name);
    c.files.push_back(path);
    const uint64_t mtime = env->GetModificationTimeMicros(path).value_or(0);
    if (file == absl::StrCat(name, ".index")) {
      c.has_index = true;
      c.mtime_micros = mtime;
    } else if (file == absl::StrCat(name, ".unrecorded")) {
      c.has_marker = true;
    }
    if (!c.has_index) c.mtime_micros = std::max(c.mtime_micros, mtime);
  }
  std::vector<CheckpointOnDisk> out;
  out.reserve(by_name.size());
  for (auto& [name, c] : by_name) {
    c.step = CheckpointStep(name);
    std::sort(c.files.begin(), c.files.end());
    out.push_back(std::move(c));
  }
  std::sort(out.begin(), out.end(), [](const CheckpointOnDisk& a, const CheckpointOnDisk& b) {
    return std::tie(a.mtime_micros, a.step, a.prefix) < std::tie(b.mtime_micros, b.step, b.prefix);
  });
  return out;
}

absl::StatusOr<CheckpointState> RebuildCheckpointState(Env* env, const std::string& dir,
                                                       std::vector<std::string>* skipped) {
  MG_ASSIGN_OR_RETURN(std::vector<CheckpointOnDisk> all, ListCheckpoints(env, dir, ""));
  std::vector<CheckpointOnDisk> complete;
  for (CheckpointOnDisk& c : all) {
    if (!c.has_index) continue;
    // The index reads and every data file is there and long enough.
    absl::StatusOr<std::unique_ptr<BundleReader>> reader = BundleReader::Open(env, c.prefix);
    if (!reader.ok()) {
      if (skipped != nullptr) {
        skipped->push_back(absl::StrCat(c.prefix, ": ", reader.status().message()));
      }
      continue;
    }
    complete.push_back(std::move(c));
  }
  if (complete.empty()) {
    return absl::NotFoundError(absl::StrCat("no complete checkpoint in ", dir));
  }
  auto older = [](const CheckpointOnDisk& a, const CheckpointOnDisk& b) {
    return std::tie(a.step, a.mtime_micros, a.prefix) < std::tie(b.step, b.mtime_micros, b.prefix);
  };
  std::sort(complete.begin(), complete.end(), older);
  // Only the newest one's name: a directory may hold another model's.
  std::string base(Basename(complete.back().prefix));
  if (complete.back().step >= 0) base.resize(base.rfind('-'));
  CheckpointState state;
  for (const CheckpointOnDisk& c : complete) {
    if (!IsCheckpointOf(base, Basename(c.prefix))) continue;
    state.add_all_model_checkpoint_paths(c.prefix);
    state.add_all_model_checkpoint_timestamps(c.mtime_micros * 1e-6);
  }
  state.set_model_checkpoint_path(complete.back().prefix);
  return state;
}

}  // namespace minigraph
