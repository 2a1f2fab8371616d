#include "checkpoint/checkpoint_manager.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <utility>

#include "absl/algorithm/container.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "checkpoint/naming.h"
#include "checkpoint/temp_files.h"
#include "core/logging.h"
#include "core/path.h"
#include "core/status_macros.h"

namespace minigraph {
namespace {

// "." for a path without a directory.
std::string DirOf(absl::string_view path) {
  const absl::string_view dir = Dirname(path);
  return dir.empty() ? "." : std::string(dir);
}

// The name a checkpoint saves under: "model.ckpt" for "/logs/model.ckpt-300"
// and for "/logs/model.ckpt".
std::string CheckpointBase(absl::string_view path) {
  std::string base(Basename(path));
  if (CheckpointStep(base) >= 0) base.resize(base.rfind('-'));
  return base;
}

// Logs the files a sweep of `what` ("<dir>/<name>") deleted, if any.
void LogSwept(const SweptFiles& swept, absl::string_view what) {
  if (swept.paths.empty()) return;
  MG_LOG(WARNING) << "Deleted " << swept.paths.size() << " file(s), " << swept.bytes
                  << " bytes, that interrupted saves of " << what
                  << " left: " << absl::StrJoin(swept.paths, ", ");
}

void DeleteIgnoringMissing(Env* env, const std::string& path) {
  if (absl::Status s = env->DeleteFile(path); !s.ok() && !absl::IsNotFound(s)) {
    MG_LOG(WARNING) << "Ignoring: " << s;
  }
}

}  // namespace

CheckpointManager::CheckpointManager(Options options) : options_(options) {
  next_keep_time_ =
      options_.env->NowSeconds() + options_.keep_checkpoint_every_n_hours * 3600.0;
}

absl::Status CheckpointManager::BeginSave(const Save& save) {
  bool first_save;
  {
    absl::MutexLock l(&mu_);
    first_save = swept_.insert(save.save_path).second;
  }
  if (first_save) {
    Sweep(DirOf(save.save_path), std::string(Basename(save.save_path)), save.latest_filename,
          /*older_than_tracked=*/true);
  }
  if (!save.write_state) return absl::OkStatus();
  return WriteStringToFile(options_.env, UnrecordedMarkerFilename(save.checkpoint), "");
}

void CheckpointManager::AbortSave(const Save& save) {
  if (save.write_state) {
    options_.env->DeleteFile(UnrecordedMarkerFilename(save.checkpoint)).IgnoreError();
  }
}

absl::Status CheckpointManager::CommitSave(const Save& save) {
  Env* env = options_.env;
  const std::string save_dir(Dirname(save.save_path));
  if (options_.lease_checkpoints) {
    MG_RETURN_IF_ERROR(WriteStringToFile(env, LeaseFilename(save.checkpoint), ""));
    const std::string dir_lease = DirectoryLeaseFilename(save_dir);
    if (!env->FileExists(dir_lease).ok()) {
      MG_RETURN_IF_ERROR(WriteStringToFile(env, dir_lease, ""));
    }
  }
  if (save.write_state) {
    absl::MutexLock l(&mu_);
    MG_RETURN_IF_ERROR(Record(save));
    DeleteEvicted(save_dir);
  }
  if (options_.delete_stale_temp_files_after != absl::InfiniteDuration()) {
    // A sharded save's parts, left by a save killed before it merged them,
    // go once they are old enough (DeleteLeftoverTempFiles).
    const std::string dir = DirOf(save.save_path);
    absl::StatusOr<SweptFiles> swept =
        DeleteLeftoverTempFiles(env, dir, Basename(save.save_path), save.latest_filename,
                                options_.delete_stale_temp_files_after);
    if (swept.ok()) LogSwept(*swept, JoinPath(dir, Basename(save.save_path)));
  }
  return absl::OkStatus();
}

absl::Status CheckpointManager::Record(const Save& save) {
  Env* env = options_.env;
  const std::string save_dir(Dirname(save.save_path));
  Track(save.checkpoint);
  // Marked before the state file drops them: a process killed before
  // retention deleted one leaves it marked, for the next writer to delete.
  for (const auto& [path, time] : to_delete_) {
    if (Dirname(path) != save_dir) continue;
    if (absl::Status s = WriteStringToFile(env, UnrecordedMarkerFilename(path), ""); !s.ok()) {
      MG_LOG(WARNING) << "Ignoring: " << s;
    }
  }
  if (absl::Status s = UpdateCheckpointState(env, DirOf(save.save_path), save.checkpoint,
                                             TrackedPaths(), {}, std::nullopt,
                                             save.latest_filename, options_.save_relative_paths);
      !s.ok()) {
    return absl::Status(
        s.code(),
        absl::StrCat("checkpoint ", save.checkpoint, " was written, but the state file ",
                     JoinPath(DirOf(save.save_path), save.latest_filename),
                     " could not be updated, so a restart will not find it: ", s.message()));
  }
  // Recorded now: this one, and those Adopt took over.
  const std::string mark = UnrecordedMarkerFilename(save.checkpoint);
  const std::vector<std::string> tracked = TrackedPaths();
  for (const std::string& m : adopted_marks_) {
    // An adopted checkpoint evicted by this save keeps its mark until
    // retention has deleted it.
    if (absl::c_linear_search(tracked, absl::StripSuffix(m, ".unrecorded"))) {
      DeleteIgnoringMissing(env, m);
    }
  }
  adopted_marks_.clear();
  DeleteIgnoringMissing(env, mark);
  return absl::OkStatus();
}

void CheckpointManager::Track(const std::string& path) {
  if (options_.max_to_keep <= 0) return;
  tracked_.erase(std::remove_if(tracked_.begin(), tracked_.end(),
                                [&](const auto& e) { return e.first == path; }),
                 tracked_.end());
  tracked_.emplace_back(path, options_.env->NowSeconds());
  // (More than one over only after Adopt tracked an unrecorded checkpoint;
  // TensorFlow's list is never more than one over.)
  while (static_cast<int>(tracked_.size()) > options_.max_to_keep) {
    const std::pair<std::string, double> evicted = tracked_.front();
    tracked_.erase(tracked_.begin());
    if (evicted.second > next_keep_time_) {
      // Kept for good (keep_checkpoint_every_n_hours): no longer tracked.
      next_keep_time_ += options_.keep_checkpoint_every_n_hours * 3600.0;
      continue;
    }
    to_delete_.push_back(evicted);
  }
}

std::vector<std::string> CheckpointManager::TrackedPaths() const {
  std::vector<std::string> out;
  for (const auto& [p, t] : tracked_) out.push_back(p);
  return out;
}

std::vector<std::string> CheckpointManager::Tracked() const {
  absl::MutexLock l(&mu_);
  return TrackedPaths();
}

void CheckpointManager::DeleteEvicted(absl::string_view save_dir) {
  Env* env = options_.env;
  // With leases, deleting waits while a restore is between reading the
  // state file and taking its checkpoint's lease (DirectoryLeaseFilename):
  // whatever would go now goes at a later save instead.
  std::unique_ptr<FileLock> dir_lock;
  bool may_delete = true;
  if (options_.lease_checkpoints) {
    absl::StatusOr<std::unique_ptr<FileLock>> lock =
        env->TryLockFile(DirectoryLeaseFilename(save_dir));
    if (lock.ok()) {
      dir_lock = *std::move(lock);
    } else if (absl::IsFailedPrecondition(lock.status())) {
      may_delete = false;  // a restore is choosing
    } else {
      MG_LOG(WARNING) << "Deleting old checkpoints without the directory lease: "
                      << lock.status().message();
    }
  }
  auto remove = [&](const std::string& path) {
    if (!may_delete || !RemoveCheckpoint(env, path)) leased_.push_back(path);
  };
  // Checkpoints a reader held at an earlier save go once their lease has.
  std::vector<std::string> leased = std::exchange(leased_, {});
  for (const std::string& path : leased) remove(path);
  while (save_dir.size() > 1 && save_dir.back() == '/') save_dir.remove_suffix(1);
  std::vector<std::pair<std::string, double>> evicted = std::exchange(to_delete_, {});
  for (const auto& [path, time] : evicted) {
    // Retention deletes only in the directory it saves to: a state file
    // that names checkpoints elsewhere (a copied log directory) must not
    // make a copy delete the original run's files.
    if (Dirname(path) != save_dir) {
      MG_LOG(WARNING) << "Not deleting old checkpoint " << path << ": it is outside "
                      << (save_dir.empty() ? "." : save_dir) << ", where this Saver saves";
      continue;
    }
    remove(path);  // or later, while a reader holds it
  }
}

void CheckpointManager::SweepBeforeRestore(const std::string& checkpoint) {
  Sweep(DirOf(checkpoint), CheckpointBase(checkpoint), kDefaultLatestFilename,
        /*older_than_tracked=*/false);
}

void CheckpointManager::Sweep(const std::string& dir, const std::string& base,
                              const std::string& latest_filename, bool older_than_tracked) {
  Env* env = options_.env;
  if (options_.delete_stale_temp_files_after == absl::InfiniteDuration()) return;
  absl::StatusOr<SweptFiles> swept = DeleteLeftoverTempFiles(
      env, dir, base, latest_filename, options_.delete_stale_temp_files_after);
  if (!swept.ok()) return;  // no such directory (yet): nothing left there
  // Incomplete checkpoints: data files without an index. Under the
  // directory's lock, as writers commit (BundleWriter::Finish), none is one
  // being renamed into place.
  std::optional<uint64_t> oldest_tracked;
  if (older_than_tracked) {
    absl::MutexLock l(&mu_);
    for (const auto& [path, time] : tracked_) {
      absl::StatusOr<uint64_t> mtime = env->GetModificationTimeMicros(MetaFilename(path));
      if (mtime.ok()) oldest_tracked = std::min(oldest_tracked.value_or(*mtime), *mtime);
    }
  }
  absl::StatusOr<std::unique_ptr<FileLock>> lock = env->LockFile(dir);
  absl::StatusOr<std::vector<CheckpointOnDisk>> found =
      lock.ok() ? ListCheckpoints(env, dir, base) : lock.status();
  if (found.ok()) {
    for (const CheckpointOnDisk& c : *found) {
      const bool has_data = absl::c_any_of(c.files, [&](const std::string& f) {
        return IsDataFilenameOf(Basename(c.prefix), Basename(f));
      });
      if (c.has_index || !has_data) continue;
      if (!c.has_marker && !(oldest_tracked && c.mtime_micros < *oldest_tracked)) continue;
      for (const std::string& f : c.files) {
        const uint64_t size = env->GetFileSize(f).value_or(0);
        if (!env->DeleteFile(f).ok()) continue;
        swept->paths.push_back(f);
        swept->bytes += size;
      }
    }
  }
  LogSwept(*swept, JoinPath(dir, base));
}

void CheckpointManager::Adopt(const std::vector<std::string>& paths) {
  Env* env = options_.env;
  std::vector<std::pair<std::string, double>> recorded;
  for (const std::string& p : paths) {
    absl::StatusOr<uint64_t> mtime = env->GetModificationTimeMicros(MetaFilename(p));
    if (!mtime.ok()) mtime = env->GetModificationTimeMicros(p);
    if (mtime.ok()) recorded.emplace_back(p, *mtime * 1e-6);
  }
  // Marked ones older than every recorded checkpoint go first, newer ones
  // last, so retention deletes them in the order they were written.
  double oldest = std::numeric_limits<double>::infinity();
  for (const auto& [p, time] : recorded) oldest = std::min(oldest, time);
  std::vector<std::pair<std::string, double>> older, newer;
  std::vector<std::string> marks;
  if (!paths.empty()) {
    for (const CheckpointOnDisk& c : MarkedCheckpoints(paths)) {
      MG_LOG(WARNING) << "Tracking " << c.prefix
                      << ", which a process killed between a save and the state file, or "
                         "between the state file and retention, left behind; retention will "
                         "delete it in turn";
      const double time = c.mtime_micros * 1e-6;
      (time < oldest ? older : newer).emplace_back(c.prefix, time);
      marks.push_back(UnrecordedMarkerFilename(c.prefix));
    }
  }
  older.insert(older.end(), recorded.begin(), recorded.end());
  older.insert(older.end(), newer.begin(), newer.end());
  absl::MutexLock l(&mu_);
  tracked_ = std::move(older);
  adopted_marks_.insert(adopted_marks_.end(), marks.begin(), marks.end());
}

std::vector<CheckpointOnDisk> CheckpointManager::MarkedCheckpoints(
    const std::vector<std::string>& recorded) const {
  Env* env = options_.env;
  const absl::string_view recorded_dir = Dirname(recorded.back());
  absl::StatusOr<std::vector<CheckpointOnDisk>> found =
      ListCheckpoints(env, DirOf(recorded.back()), CheckpointBase(recorded.back()));
  if (!found.ok()) return {};
  absl::flat_hash_set<std::string> named;
  for (const std::string& p : recorded) {
    if (Dirname(p) == recorded_dir) named.insert(std::string(Basename(p)));
  }
  // Only marked ones: an unmarked checkpoint the state file does not name
  // may be one kept for good (keep_checkpoint_every_n_hours), copied in, or
  // TensorFlow's (whose directories often hold such checkpoints of the same
  // name), and is the user's to keep.
  std::vector<CheckpointOnDisk> out;
  for (CheckpointOnDisk& c : *found) {
    if (named.contains(Basename(c.prefix))) {
      // Recorded: a process killed right after the state file left its mark.
      if (c.has_marker) env->DeleteFile(UnrecordedMarkerFilename(c.prefix)).IgnoreError();
      continue;
    }
    if (!c.has_index) {
      // A mark alone: killed before any file was in place.
      if (c.has_marker && c.files.size() == 1) env->DeleteFile(c.files[0]).IgnoreError();
      continue;  // data without an index: the first save's sweep deletes it
    }
    if (c.has_marker) out.push_back(std::move(c));
  }
  return out;
}

void CheckpointManager::SetTracked(std::vector<std::pair<std::string, double>> checkpoints) {
  absl::MutexLock l(&mu_);
  tracked_ = std::move(checkpoints);
}

}  // namespace minigraph
