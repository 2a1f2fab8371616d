#include "checkpoint/checkpoint_directory.h"

#include <algorithm>
#include <utility>

#include "absl/algorithm/container.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "checkpoint/checkpoint_files.h"
#include "checkpoint/checkpoint_state.h"
#include "checkpoint/naming.h"
#include "core/logging.h"
#include "core/path.h"
#include "core/status_macros.h"

namespace minigraph {
namespace {

// `state`'s checkpoints up to `newest` (newer ones are not kept), with
// their timestamps.
std::pair<std::vector<std::string>, std::vector<double>> UpTo(const CheckpointState& state,
                                                              const std::string& newest) {
  std::vector<std::string> paths;
  std::vector<double> timestamps;
  for (int i = 0; i < state.all_model_checkpoint_paths_size(); ++i) {
    paths.push_back(state.all_model_checkpoint_paths(i));
    timestamps.push_back(i < state.all_model_checkpoint_timestamps_size()
                             ? state.all_model_checkpoint_timestamps(i)
                             : 0.0);
    if (paths.back() == newest) break;
  }
  return {std::move(paths), std::move(timestamps)};
}

}  // namespace

CheckpointDirectory::CheckpointDirectory(std::string dir, Options options)
    : dir_(std::move(dir)), options_(options) {}

absl::StatusOr<std::optional<CheckpointState>> CheckpointDirectory::ReadState() const {
  absl::StatusOr<std::optional<CheckpointState>> state = GetCheckpointState(options_.env, dir_);
  // With recover_state, a state file that names no checkpoint counts as
  // unreadable, not as an error.
  if (options_.recover_state && absl::IsInvalidArgument(state.status())) {
    MG_LOG(WARNING) << state.status().message();
    return std::nullopt;
  }
  return state;  // GetCheckpointState's state always names a checkpoint
}

absl::StatusOr<std::optional<CheckpointDirectory::Restore>> CheckpointDirectory::ChooseRestore(
    std::optional<CheckpointState> state) const {
  Env* env = options_.env;
  if (!state.has_value()) {
    if (options_.recover_state) {
      const bool exists = env->FileExists(JoinPath(dir_, kDefaultLatestFilename)).ok();
      // A missing state file in a directory without checkpoints is a fresh
      // start, nothing to warn about.
      std::optional<CheckpointState> rebuilt =
          Recover(exists ? "cannot be read or parsed" : "is missing", /*warn_if_none=*/exists);
      if (rebuilt) return Restore{*std::move(rebuilt), true};
    }
    if (options_.strict) MG_RETURN_IF_ERROR(CheckNothingToRestore());
    return std::nullopt;
  }
  if (!options_.recover_state) return Restore{*std::move(state), false};
  // A newest checkpoint outside the directory (an absolute path or "../"
  // with no checkpoint of its name beside the state file, which
  // GetCheckpointState would have taken) is another run's: restoring it
  // would train on from there while the directory's own checkpoints drop
  // out of the Saver's retention. The directory's newest is restored
  // instead; with none, nothing is, by name. (TensorFlow follows the path.)
  absl::string_view here = dir_;
  while (here.size() > 1 && here.back() == '/') here.remove_suffix(1);
  const std::string& named = state->model_checkpoint_path();
  if (Dirname(named) != here) {
    std::optional<CheckpointState> rebuilt =
        Recover(absl::StrCat("names a checkpoint outside the directory (", named, ")"),
                /*warn_if_none=*/false);
    if (rebuilt) return Restore{*std::move(rebuilt), true};
    return absl::FailedPreconditionError(absl::StrCat(
        "the state file ", JoinPath(dir_, kDefaultLatestFilename), " names ", named,
        ", outside ", dir_,
        ", which holds no checkpoint of its own: restore another run's checkpoint by name (a "
        "warm start), or follow the state file as TensorFlow does (no recovery from the "
        "directory)"));
  }
  if (!CheckpointExists(env, named)) {
    std::optional<CheckpointState> rebuilt =
        Recover(absl::StrCat("names a checkpoint that does not exist (", named, ")"),
                /*warn_if_none=*/true);
    if (rebuilt) return Restore{*std::move(rebuilt), true};
  }
  return Restore{*std::move(state), false};
}

absl::StatusOr<std::unique_ptr<FileLock>> CheckpointDirectory::LeaseForRestore(
    Restore* restore) const {
  Env* env = options_.env;
  // A Saver with leases deletes nothing while the directory's lease is
  // shared: held from choosing the checkpoint (the state file, read again
  // under it) until it is restored, it closes the gap between a reader
  // choosing a checkpoint and taking that checkpoint's own lease.
  const std::string path = DirectoryLeaseFilename(dir_);
  if (!env->FileExists(path).ok()) return nullptr;
  absl::StatusOr<std::unique_ptr<FileLock>> lock = env->LockFileShared(path);
  if (!lock.ok()) return nullptr;
  MG_ASSIGN_OR_RETURN(std::optional<CheckpointState> now, ReadState());
  // A rebuilt state is kept while the file names the same newest
  // checkpoint: it is what Restored writes.
  if (now && !(restore->rebuilt &&
               now->model_checkpoint_path() == restore->state.model_checkpoint_path())) {
    restore->state = *std::move(now);
    restore->rebuilt = false;
  }
  return lock;
}

std::vector<std::string> CheckpointDirectory::RestoreCandidates(const CheckpointState& state,
                                                                bool fallback) {
  // Newest first: the state file's model path, then its list backwards.
  std::vector<std::string> candidates = {state.model_checkpoint_path()};
  if (!fallback) return candidates;
  for (int i = state.all_model_checkpoint_paths_size() - 1; i >= 0; --i) {
    const std::string& p = state.all_model_checkpoint_paths(i);
    if (!absl::c_linear_search(candidates, p)) candidates.push_back(p);
  }
  return candidates;
}

std::vector<std::string> CheckpointDirectory::Restored(const Restore& restore,
                                                       const std::string& restored) const {
  const CheckpointState& state = restore.state;
  std::vector<std::string> paths;
  if (!restore.rebuilt) {
    paths.assign(state.all_model_checkpoint_paths().begin(),
                 state.all_model_checkpoint_paths().end());
    return paths;
  }
  const std::string path = JoinPath(dir_, kDefaultLatestFilename);
  absl::StatusOr<std::vector<std::string>> written = WriteRebuiltState(state, restored);
  if (!written.ok()) {
    MG_LOG(WARNING) << "Restored " << restored << ", but could not rewrite " << path << ": "
                    << written.status();
    return UpTo(state, restored).first;  // what the writer keeps all the same
  }
  MG_LOG(WARNING) << "Rewrote " << path << " from the directory: " << restored << " and "
                  << written->size() - 1 << " older checkpoint(s)";
  return *std::move(written);
}

absl::StatusOr<CheckpointState> CheckpointDirectory::RebuildState(
    std::vector<std::string>* skipped) const {
  return RebuildCheckpointState(options_.env, dir_, skipped);
}

absl::StatusOr<std::vector<std::string>> CheckpointDirectory::WriteRebuiltState(
    const CheckpointState& state, const std::string& newest) const {
  auto [paths, timestamps] = UpTo(state, newest);
  MG_RETURN_IF_ERROR(UpdateCheckpointState(options_.env, dir_, newest, paths, timestamps,
                                           std::nullopt, kDefaultLatestFilename,
                                           /*save_relative_paths=*/true));
  return paths;
}

absl::Status CheckpointDirectory::CheckNothingToRestore() const {
  const std::string& dir = dir_;
  Env* env = options_.env;
  absl::StatusOr<std::vector<std::string>> children = env->GetChildren(dir);
  if (!children.ok()) return absl::OkStatus();  // no directory: nothing to lose
  std::vector<std::string> found;
  if (absl::c_linear_search(*children, kDefaultLatestFilename)) {
    found.push_back(kDefaultLatestFilename);
  }
  // Temporary files, and the data files of a first save killed before its
  // index was in place (marked: the Saver's first save deletes them), hold
  // no checkpoint.
  const std::vector<CheckpointOnDisk> checkpoints =
      ListCheckpoints(env, dir, "").value_or(std::vector<CheckpointOnDisk>());
  for (const CheckpointOnDisk& c : checkpoints) {
    if (!c.has_index && c.has_marker) continue;
    for (const std::string& f : c.files) {
      const std::string name(Basename(f));
      if (absl::EndsWith(name, ".index") || IsDataFilenameOf(Basename(c.prefix), name)) {
        found.push_back(name);
      }
    }
  }
  if (found.empty()) return absl::OkStatus();
  std::sort(found.begin(), found.end());
  constexpr size_t kShown = 5;
  const size_t n = found.size();
  if (n > kShown) found.resize(kShown);
  return absl::FailedPreconditionError(absl::StrCat(
      "strict: ", dir, " holds ", n, " checkpoint file(s) (", absl::StrJoin(found, ", "),
      n > kShown ? ", ..." : "",
      ") but no state file naming a checkpoint to restore; refusing to initialize from "
      "scratch over them. Restore one explicitly (checkpoint_filename_with_path), repair or "
      "remove the state file, or move the files away"));
}

std::optional<CheckpointState> CheckpointDirectory::Recover(absl::string_view why,
                                                            bool warn_if_none) const {
  const std::string& dir = dir_;
  const std::string path = JoinPath(dir, kDefaultLatestFilename);
  std::vector<std::string> skipped;
  absl::StatusOr<CheckpointState> state = RebuildState(&skipped);
  for (const std::string& s : skipped) MG_LOG(WARNING) << "Not a complete checkpoint: " << s;
  if (!state.ok()) {
    if (!warn_if_none && skipped.empty()) return std::nullopt;
    MG_LOG(WARNING) << "The state file " << path << " " << why
                    << ", and the directory holds no complete checkpoint to recover: "
                    << state.status().message();
    return std::nullopt;
  }
  MG_LOG(WARNING) << "The state file " << path << " " << why
                  << "; recovering from the directory: its newest complete checkpoint is "
                  << state->model_checkpoint_path() << " (of "
                  << state->all_model_checkpoint_paths_size() << ")";
  return *std::move(state);
}

}  // namespace minigraph
