// One chief per log directory: two trainings in one directory would restore
// and overwrite each other's checkpoints. The chief holds an exclusive lock
// on the directory's "train.lock" file, which holds its pid, for the whole
// run; creating it is also the check, before any work, that the directory
// is writable. A lock on a file that its name no longer reaches excludes
// nobody, so the run checks its lock as it goes (before every step, at most
// once a second, and before every save) and stops, saving nothing more,
// once the file was deleted or replaced under it.
//
//   MG_ASSIGN_OR_RETURN(std::unique_ptr<FileLock> lock, LockLogdir(env, logdir));
//   hooks.push_back(std::make_shared<LogdirLockHook>(lock.get(), logdir, env));
//
// Thread rules: LockLogdir and CheckLogdirLock may be called from any
// thread; a LogdirLockHook belongs to its MonitoredSession's thread.

#ifndef MINIGRAPH_SESSION_TRAINING_LOGDIR_LOCK_H_
#define MINIGRAPH_SESSION_TRAINING_LOGDIR_LOCK_H_

#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "core/env.h"
#include "session/monitored_session.h"

namespace minigraph {

// In the log directory, held by the chief while it trains.
inline constexpr char kLogdirLockFile[] = "train.lock";

// Takes `logdir`'s lock (the directory must exist). FailedPrecondition
// naming the pid in the lock file when another process holds it, or when
// the directory is not writable.
absl::StatusOr<std::unique_ptr<FileLock>> LockLogdir(Env* env, const std::string& logdir);

// OK while `lock` (LockLogdir's; null: OK) still holds `logdir`: a lock
// file deleted or replaced under it lets a second training in, so this one
// gets FailedPrecondition and must stop before it writes anything more.
absl::Status CheckLogdirLock(const FileLock* lock, const std::string& logdir);

// Checks the lock before a step, at most once a second of `env`'s clock
// (two stat calls): a training whose lock is gone stops within a second.
// `lock` and `env` are not owned and must outlive the hook.
class LogdirLockHook : public SessionRunHook {
 public:
  LogdirLockHook(const FileLock* lock, std::string logdir, Env* env)
      : lock_(lock), logdir_(std::move(logdir)), env_(env) {}
  absl::Status BeforeRun(SessionRunContext*, SessionRunArgs*) override;

 private:
  const FileLock* const lock_;
  const std::string logdir_;
  Env* const env_;
  uint64_t last_check_ = 0;
};

}  // namespace minigraph

#endif  // MINIGRAPH_SESSION_TRAINING_LOGDIR_LOCK_H_
