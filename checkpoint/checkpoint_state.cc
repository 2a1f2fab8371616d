#include "checkpoint/checkpoint_state.h"


#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "checkpoint/naming.h"
#include "checkpoint/temp_files.h"
#include "core/logging.h"
#include "core/path.h"
#include "core/status_macros.h"
#include "google/protobuf/text_format.h"

namespace minigraph {
namespace {

// os.path.relpath for the simple cases a save directory produces.
std::string RelativeTo(const std::string& path, const std::string& dir) {
  if (dir.empty() || dir == ".") return path;
  std::string d = dir;
  if (d.back() != '/') d.push_back('/');
  if (absl::StartsWith(path, d)) return path.substr(d.size());
  return path;
}

}  // namespace

absl::Status AtomicWriteFile(Env* env, const std::string& path, absl::string_view contents) {
  MG_ASSIGN_OR_RETURN(LockedTempFile tmp, CreateLockedTempFile(env, path, ".tmp"));
  absl::Status s = tmp.file->Append(contents);
  if (s.ok()) s = tmp.file->Sync();
  if (s.ok()) s = tmp.file->Close();
  if (s.ok()) s = env->RenameFile(tmp.path, path);
  if (!s.ok()) {
    tmp.file.reset();
    env->DeleteFile(tmp.path).IgnoreError();
    return s;
  }
  return env->SyncDir(std::string(Dirname(path)));
}

absl::StatusOr<std::optional<CheckpointState>> GetCheckpointState(
    Env* env, const std::string& dir, const std::string& latest_filename) {
  const std::string path = JoinPath(dir, latest_filename);
  if (!env->FileExists(path).ok()) return std::nullopt;
  absl::StatusOr<std::string> text = ReadFileToString(env, path);
  CheckpointState state;
  if (!text.ok() || !google::protobuf::TextFormat::ParseFromString(*text, &state)) {
    MG_LOG(WARNING) << path << ": "
                    << (text.ok() ? "not a valid CheckpointState text proto"
                                  : std::string(text.status().message()));
    MG_LOG(WARNING) << path << ": Checkpoint ignored";
    return std::nullopt;
  }
  if (state.model_checkpoint_path().empty()) {
    return absl::InvalidArgumentError(absl::StrCat("Invalid checkpoint state loaded from ", dir));
  }
  if (!IsAbsolutePath(state.model_checkpoint_path())) {
    state.set_model_checkpoint_path(JoinPath(dir, state.model_checkpoint_path()));
  }
  for (std::string& p : *state.mutable_all_model_checkpoint_paths()) {
    if (!IsAbsolutePath(p)) p = JoinPath(dir, p);
  }
  // Absolute paths that point out of `dir` (the directory was copied or
  // moved): a checkpoint of the same name beside the state file wins, so a
  // copy neither restores from nor, through retention, deletes the original
  // run's files. (TensorFlow follows the paths as written.)
  absl::string_view here = dir;
  while (here.size() > 1 && here.back() == '/') here.remove_suffix(1);
  auto relocate = [&](std::string* p) {
    if (Dirname(*p) == here) return;
    std::string beside = JoinPath(dir, Basename(*p));
    if (!CheckpointExists(env, beside)) {
      MG_LOG(WARNING) << path << " names " << *p << ", outside " << dir << ", and no checkpoint "
                      << beside << " is beside it";
      return;
    }
    MG_LOG(WARNING) << path << " names " << *p << ", outside " << dir
                    << " (a copied or moved directory?); using " << beside;
    *p = std::move(beside);
  };
  relocate(state.mutable_model_checkpoint_path());
  for (std::string& p : *state.mutable_all_model_checkpoint_paths()) relocate(&p);
  return state;
}

absl::Status UpdateCheckpointState(Env* env, const std::string& save_dir,
                                   const std::string& model_checkpoint_path,
                                   std::vector<std::string> all_paths,
                                   std::vector<double> timestamps,
                                   std::optional<double> last_preserved_timestamp,
                                   const std::string& latest_filename, bool save_relative_paths) {
  std::string model = model_checkpoint_path;
  if (save_relative_paths) {
    if (IsAbsolutePath(model)) model = RelativeTo(model, save_dir);
    for (std::string& p : all_paths) {
      if (IsAbsolutePath(p)) p = RelativeTo(p, save_dir);
    }
  }
  if (all_paths.empty() || all_paths.back() != model) {
    MG_LOG(INFO) << model << " is not in all_model_checkpoint_paths. Manually adding it.";
    all_paths.push_back(model);
  }
  if (!timestamps.empty() && timestamps.size() != all_paths.size()) {
    return absl::InvalidArgumentError(
        absl::StrCat("Checkpoint timestamps, if provided, must match checkpoint paths (got ",
                     all_paths.size(), " paths and ", timestamps.size(), " timestamps)"));
  }
  if (!IsAbsolutePath(save_dir)) {
    if (!IsAbsolutePath(model)) model = RelativeTo(model, save_dir);
    for (std::string& p : all_paths) {
      if (!IsAbsolutePath(p)) p = RelativeTo(p, save_dir);
    }
  }
  const std::string path = JoinPath(save_dir, latest_filename);
  if (path == model) {
    return absl::FailedPreconditionError(absl::StrCat(
        "Save path '", model,
        "' conflicts with path used for checkpoint state.  Please use a different save path."));
  }
  CheckpointState state;
  state.set_model_checkpoint_path(model);
  for (const std::string& p : all_paths) state.add_all_model_checkpoint_paths(p);
  for (double t : timestamps) state.add_all_model_checkpoint_timestamps(t);
  if (last_preserved_timestamp) state.set_last_preserved_timestamp(*last_preserved_timestamp);
  std::string text;
  google::protobuf::TextFormat::PrintToString(state, &text);
  return AtomicWriteFile(env, path, text);
}

bool CheckpointExists(Env* env, const std::string& prefix) {
  if (env->FileExists(MetaFilename(prefix)).ok()) return true;
  if (env->FileExists(prefix).ok() && !env->IsDirectory(prefix).value_or(true)) return true;
  // A sharded V1 checkpoint is recorded as the pattern of its files.
  return prefix.find_first_of("*?[") != std::string::npos &&
         !GetMatchingPaths(env, prefix).value_or(std::vector<std::string>()).empty();
}

absl::StatusOr<std::optional<std::string>> LatestCheckpoint(Env* env, const std::string& dir,
                                                            const std::string& latest_filename) {
  MG_ASSIGN_OR_RETURN(std::optional<CheckpointState> state,
                      GetCheckpointState(env, dir, latest_filename));
  if (!state || state->model_checkpoint_path().empty()) return std::nullopt;
  if (CheckpointExists(env, state->model_checkpoint_path())) {
    return state->model_checkpoint_path();
  }
  MG_LOG(ERROR) << "Couldn't match files for checkpoint " << state->model_checkpoint_path();
  return std::nullopt;
}

namespace {

// The length of a trailing "-<digits or ?>-of-<digits>" (TensorFlow's
// sharded-prefix regex "-[\d\?]+-of-\d+$"), or 0. Written out because
// std::regex alone made this file the slowest non-kernel file to compile.
size_t ShardSuffixLength(absl::string_view p) {
  size_t i = p.size();
  while (i > 0 && absl::ascii_isdigit(p[i - 1])) --i;
  if (i == p.size() || !absl::EndsWith(p.substr(0, i), "-of-")) return 0;
  i -= 4;
  const size_t digits_end = i;
  while (i > 0 && (absl::ascii_isdigit(p[i - 1]) || p[i - 1] == '?')) --i;
  if (i == digits_end || i == 0 || p[i - 1] != '-') return 0;
  return p.size() - (i - 1);
}

}  // namespace

std::string MetaGraphFilename(const std::string& prefix, const std::string& suffix) {
  const absl::string_view p(prefix);
  return absl::StrCat(p.substr(0, p.size() - ShardSuffixLength(p)), ".", suffix);
}

bool RemoveCheckpoint(Env* env, const std::string& prefix) {
  // Held until the files are gone: a reader that opens the lease meanwhile
  // waits, then finds no index.
  std::unique_ptr<FileLock> lease;
  const std::string lease_path = LeaseFilename(prefix);
  if (env->FileExists(lease_path).ok()) {
    absl::StatusOr<std::unique_ptr<FileLock>> lock = env->TryLockFile(lease_path);
    if (absl::IsFailedPrecondition(lock.status())) {
      MG_LOG(INFO) << "Not deleting " << prefix << " yet: a reader holds " << lease_path;
      return false;
    }
    if (lock.ok()) lease = *std::move(lock);
  }
  std::vector<std::string> doomed = {MetaGraphFilename(prefix), MetaFilename(prefix)};
  const std::string dir(Dirname(prefix));
  absl::StatusOr<std::vector<std::string>> children = env->GetChildren(dir.empty() ? "." : dir);
  if (children.ok()) {
    const std::string base(Basename(prefix));
    for (const std::string& c : *children) {
      if (IsDataFilenameOf(base, c)) doomed.push_back(JoinPath(dir, c));
    }
  }
  doomed.push_back(UnrecordedMarkerFilename(prefix));
  doomed.push_back(lease_path);  // last: the index is gone before the lease
  for (const std::string& f : doomed) {
    absl::Status s = env->DeleteFile(f);
    if (!s.ok() && !absl::IsNotFound(s)) MG_LOG(WARNING) << "Ignoring: " << s;
  }
  return true;
}

}  // namespace minigraph
