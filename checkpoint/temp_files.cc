#include "checkpoint/temp_files.h"

#include <algorithm>
#include <random>

#include "absl/algorithm/container.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "checkpoint/naming.h"
#include "core/path.h"
#include "core/status_macros.h"

namespace minigraph {
namespace {

constexpr char kAtomicWriteMarker[] = ".tmp";
constexpr char kPartsDirMarker[] = "_temp_";

// The final name a temporary file of a save stands for ("model-5.index" for
// "model-5.index.tempstate123", "checkpoint" for "checkpoint.tmp42"), or ""
// for any other name.
absl::string_view FinalNameOfTemp(absl::string_view name) {
  if (const size_t at = name.find(kTempStateSuffix); at != absl::string_view::npos) {
    return name.substr(0, at);
  }
  const size_t at = name.rfind(kAtomicWriteMarker);
  if (at == absl::string_view::npos || at + 4 == name.size() ||
      !absl::c_all_of(name.substr(at + 4), absl::ascii_isdigit)) {
    return "";
  }
  return name.substr(0, at);
}

// Whether the temporary file `name` belongs to a save of `base`'s checkpoints
// or of the state file `latest_filename`.
bool IsTempOf(absl::string_view base, absl::string_view latest_filename, absl::string_view name) {
  const absl::string_view final_name = FinalNameOfTemp(name);
  if (final_name.empty()) return false;
  if (final_name == latest_filename) return true;
  std::string checkpoint = CheckpointNameOfFile(final_name);
  // A V1 checkpoint is one file under the checkpoint's own name, written
  // through "<name>.tempstate<random>" (v1_writer.h).
  if (checkpoint.empty() && absl::StrContains(name, kTempStateSuffix)) {
    checkpoint = std::string(final_name);
  }
  return IsCheckpointOf(base, checkpoint);
}

// Deletes `path` if nobody holds its lock; adds it to `swept`.
void DeleteIfUnlocked(Env* env, const std::string& path, SweptFiles* swept) {
  absl::StatusOr<std::unique_ptr<FileLock>> lock = env->TryLockFile(path);
  if (!lock.ok()) return;  // a live writer's, gone, or not a file we may open
  const uint64_t size = env->GetFileSize(path).value_or(0);
  if (!env->DeleteFile(path).ok()) return;
  swept->paths.push_back(path);
  swept->bytes += size;
}

// Deletes the directory of a sharded save's parts `path` when it holds only
// "part-*" files, none changed for `min_age`.
void DeletePartsDirIfStale(Env* env, const std::string& path, absl::Duration min_age,
                           SweptFiles* swept) {
  if (min_age == absl::InfiniteDuration()) return;
  absl::StatusOr<bool> is_dir = env->IsDirectory(path);
  if (!is_dir.ok() || !*is_dir) return;
  absl::StatusOr<std::vector<std::string>> parts = env->GetChildren(path);
  if (!parts.ok()) return;
  const uint64_t now = env->NowMicros();
  const int64_t age_micros = absl::ToInt64Microseconds(min_age);
  auto stale = [&](const absl::StatusOr<uint64_t>& mtime) {
    return mtime.ok() && *mtime <= now && static_cast<int64_t>(now - *mtime) >= age_micros;
  };
  // A directory's own time, where the Env keeps one, says when a part last
  // came or went.
  absl::StatusOr<uint64_t> dir_mtime = env->GetModificationTimeMicros(path);
  if (dir_mtime.ok() ? !stale(dir_mtime) : parts->empty()) return;
  for (const std::string& part : *parts) {
    if (part.rfind("part-", 0) != 0 ||
        !stale(env->GetModificationTimeMicros(JoinPath(path, part)))) {
      return;
    }
  }
  SweptFiles in_dir;
  for (const std::string& part : *parts) DeleteIfUnlocked(env, JoinPath(path, part), &in_dir);
  if (in_dir.paths.size() != parts->size() || !env->DeleteDir(path).ok()) return;
  swept->paths.push_back(path);
  swept->bytes += in_dir.bytes;
}

}  // namespace

absl::StatusOr<LockedTempFile> CreateLockedTempFile(Env* env, absl::string_view final_name,
                                                    absl::string_view marker) {
  static thread_local std::mt19937_64 rng(std::random_device{}());
  absl::Status last;
  for (int attempt = 0; attempt < 4; ++attempt) {
    LockedTempFile tmp;
    tmp.path = absl::StrCat(final_name, marker, rng());
    MG_ASSIGN_OR_RETURN(tmp.file, env->NewWritableFile(tmp.path));
    absl::StatusOr<std::unique_ptr<FileLock>> lock = env->TryLockFile(tmp.path);
    // Locked and still there: no sweep can delete it from now on.
    if (lock.ok() && env->FileExists(tmp.path).ok()) {
      tmp.lock = *std::move(lock);
      return tmp;
    }
    // A sweep took it between the create and the lock (it holds the lock,
    // or has deleted the file): another name.
    last = lock.ok() ? absl::NotFoundError(absl::StrCat(tmp.path, " vanished as it was locked"))
                     : lock.status();
    if (!absl::IsFailedPrecondition(last) && !absl::IsNotFound(last)) return last;
  }
  return absl::Status(last.code(), absl::StrCat("could not create a temporary file for ",
                                                final_name, ": ", last.message()));
}

absl::StatusOr<SweptFiles> DeleteLeftoverTempFiles(Env* env, const std::string& dir,
                                                   absl::string_view base,
                                                   absl::string_view latest_filename,
                                                   absl::Duration parts_min_age) {
  MG_ASSIGN_OR_RETURN(std::vector<std::string> children, env->GetChildren(dir));
  std::sort(children.begin(), children.end());
  SweptFiles swept;
  for (const std::string& name : children) {
    const std::string path = JoinPath(dir, name);
    if (IsTempOf(base, latest_filename, name)) {
      if (!env->IsDirectory(path).value_or(true)) DeleteIfUnlocked(env, path, &swept);
      continue;
    }
    const size_t parts = name.rfind(kPartsDirMarker);
    if (parts != std::string::npos && parts > 0 &&
        IsCheckpointOf(base, absl::string_view(name).substr(0, parts))) {
      DeletePartsDirIfStale(env, path, parts_min_age, &swept);
    }
  }
  return swept;
}

}  // namespace minigraph
