// An Env over MemEnv that models a crash: what was not synced is lost, and
// so is every create, rename and delete whose directory was not synced
// afterwards. It can also fail a chosen operation, or every operation from a
// chosen point on (the process "dies" there). After LevelDB's
// fault_injection_test.
//
//   MemEnv mem;
//   FaultInjectionEnv env(&mem);
//   env.FailAfter(k);                    // the k+1-th mutating op fails, and all after it
//   Status s = SaveCheckpoint(&env, ...);
//   env.SimulateCrash();                 // back to what was durable
//   env.ClearFaults();
//   ... restore and check ...
//
// Mutating operations, each counted once: creating a file, Append, Sync,
// Close, RenameFile, DeleteFile, CreateDir, DeleteDir and SyncDir. Files
// present in the base env before this wrapper saw them count as durable.
// Safe for concurrent use.

#ifndef MINIGRAPH_CORE_FAULT_INJECTION_ENV_H_
#define MINIGRAPH_CORE_FAULT_INJECTION_ENV_H_

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"
#include "core/env.h"
#include "core/mem_env.h"

namespace minigraph {

class FaultInjectionEnv : public EnvWrapper {
 public:
  enum class Op { kCreate, kAppend, kSync, kClose, kRename, kDelete, kCreateDir,
                  kDeleteDir, kSyncDir };

  // `base` (not owned) must outlive this wrapper and be used only through it.
  explicit FaultInjectionEnv(MemEnv* base);

  // The `n`-th (0-based) mutating operation from now, and every one after it,
  // fails with Unavailable ("injected fault") and has no effect.
  void FailAfter(int64_t n);
  // Only the `nth` (0-based, from now) operation of kind `op` fails.
  void FailOnce(Op op, int64_t nth);
  void ClearFaults();
  // Mutating operations performed (or refused) so far.
  int64_t mutating_ops();

  // Truncates every file to what was last synced; names are kept.
  void DropUnsyncedData();
  // Rebuilds the base env as a machine would find it after power loss: only
  // names made durable by SyncDir, with only their synced data.
  void SimulateCrash();

  absl::StatusOr<std::unique_ptr<WritableFile>> NewWritableFile(
      const std::string& path) override;
  absl::StatusOr<std::unique_ptr<WritableFile>> NewAppendableFile(
      const std::string& path) override;
  absl::Status DeleteFile(const std::string& path) override;
  absl::Status CreateDir(const std::string& dir) override;
  absl::Status DeleteDir(const std::string& dir) override;
  absl::Status RenameFile(const std::string& src, const std::string& target) override;
  absl::Status SyncDir(const std::string& dir) override;

  // Called by the files this env hands out. Not for other callers.
  absl::Status CountOp(Op op, const std::string& path);
  void RecordAppend(int64_t inode, absl::string_view data);
  void RecordSync(int64_t inode);

 private:
  // One file's identity across renames, and its live and synced contents.
  struct Inode {
    std::string live;
    std::string synced;
  };

  absl::StatusOr<std::unique_ptr<WritableFile>> OpenTracked(const std::string& path,
                                                            bool append);
  void AdoptExisting(const std::string& path) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  MemEnv* const base_;
  absl::Mutex mu_;
  int64_t ops_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t fail_after_ ABSL_GUARDED_BY(mu_) = -1;
  Op fail_once_op_ ABSL_GUARDED_BY(mu_) = Op::kCreate;
  int64_t fail_once_nth_ ABSL_GUARDED_BY(mu_) = -1;
  int64_t next_inode_ ABSL_GUARDED_BY(mu_) = 0;
  std::map<int64_t, Inode> inodes_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, int64_t> live_names_ ABSL_GUARDED_BY(mu_);
  std::map<std::string, int64_t> durable_names_ ABSL_GUARDED_BY(mu_);
};

}  // namespace minigraph

#endif  // MINIGRAPH_CORE_FAULT_INJECTION_ENV_H_
