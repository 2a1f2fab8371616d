#include "session/training/logdir_lock.h"

#include <unistd.h>

#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "core/path.h"

namespace minigraph {

// The lock is taken again when the file was deleted or replaced between
// its open and its lock.
absl::StatusOr<std::unique_ptr<FileLock>> LockLogdir(Env* env, const std::string& logdir) {
  const std::string path = JoinPath(logdir, kLogdirLockFile);
  auto not_writable = [&](const absl::Status& s) {
    return absl::FailedPreconditionError(
        absl::StrCat("log directory ", logdir,
                     " is not writable (checkpoints could not be saved): ", s.message()));
  };
  std::unique_ptr<FileLock> held;
  for (int attempt = 0; held == nullptr; ++attempt) {
    if (!env->FileExists(path).ok()) {
      // Appending creates the file without truncating one made meanwhile.
      absl::StatusOr<std::unique_ptr<WritableFile>> made = env->NewAppendableFile(path);
      if (!made.ok()) return not_writable(made.status());
      if (absl::Status s = (*made)->Close(); !s.ok()) return not_writable(s);
    }
    absl::StatusOr<std::unique_ptr<FileLock>> lock = env->TryLockFile(path);
    if (absl::IsFailedPrecondition(lock.status())) {
      std::string pid(absl::StripAsciiWhitespace(ReadFileToString(env, path, 64).value_or("")));
      return absl::FailedPreconditionError(absl::StrCat(
          "log directory ", logdir, " in use by pid ", pid.empty() ? "(unknown)" : pid,
          " (it holds ", path, "); give each training its own --logdir"));
    }
    if (!lock.ok()) return lock.status();
    if (absl::Status s = (*lock)->Check(); !s.ok()) {
      if (attempt == 10) return s;
      continue;
    }
    held = *std::move(lock);
  }
  if (absl::Status s = WriteStringToFile(env, path, absl::StrCat(getpid(), "\n")); !s.ok()) {
    return not_writable(s);
  }
  return held;
}

absl::Status CheckLogdirLock(const FileLock* lock, const std::string& logdir) {
  if (lock == nullptr) return absl::OkStatus();
  absl::Status s = lock->Check();
  if (s.ok()) return s;
  return absl::FailedPreconditionError(
      absl::StrCat("lost the lock on log directory ", logdir, ": ", s.message(),
                   "; another training may use the directory now, so this one stopped without "
                   "saving"));
}

absl::Status LogdirLockHook::BeforeRun(SessionRunContext*, SessionRunArgs*) {
  const uint64_t now = env_->NowMicros();
  if (now - last_check_ < 1000000) return absl::OkStatus();
  last_check_ = now;
  return CheckLogdirLock(lock_, logdir_);
}

}  // namespace minigraph
