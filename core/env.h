// The operating system as minigraph sees it: files, directories and time.
// Every file and clock access goes through an Env so that tests can swap in
// MemEnv (in-memory files), FaultInjectionEnv (lost unsynced data, failed
// writes) and FakeClockEnv (time that passes only when asked).
//
//   Env* env = Env::Default();
//   MG_ASSIGN_OR_RETURN(auto f, env->NewWritableFile("/tmp/x.tmp"));
//   MG_RETURN_IF_ERROR(f->Append(data));
//   MG_RETURN_IF_ERROR(f->Sync());
//   MG_RETURN_IF_ERROR(f->Close());
//   MG_RETURN_IF_ERROR(env->RenameFile("/tmp/x.tmp", "/tmp/x"));
//   MG_RETURN_IF_ERROR(env->SyncDir("/tmp"));
//
// Errors name the path: NotFound for a missing file, PermissionDenied,
// ResourceExhausted for a full disk, Internal for other I/O errors.

#ifndef MINIGRAPH_CORE_ENV_H_
#define MINIGRAPH_CORE_ENV_H_

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/synchronization/notification.h"

namespace minigraph {

class DirectoryWatch;

// Reads a file from front to back. Thread-compatible.
class SequentialFile {
 public:
  virtual ~SequentialFile() = default;
  // Reads up to `n` bytes into `scratch` and returns them; fewer only at the
  // end of the file (an empty result means end of file).
  virtual absl::StatusOr<absl::string_view> Read(size_t n, char* scratch) = 0;
  virtual absl::Status Skip(uint64_t n) = 0;
};

// Reads a file at any offset. Safe for concurrent use.
class RandomAccessFile {
 public:
  virtual ~RandomAccessFile() = default;
  // Reads up to `n` bytes at `offset` into `scratch` and returns them. Fewer
  // than `n` bytes come back only when the file ends first.
  virtual absl::StatusOr<absl::string_view> Read(uint64_t offset, size_t n,
                                                 char* scratch) const = 0;
};

// Appends to a file. Thread-compatible. Data is durable only after Sync();
// the file's name is durable only after the directory's SyncDir().
class WritableFile {
 public:
  virtual ~WritableFile() = default;
  virtual absl::Status Append(absl::string_view data) = 0;
  // Hands buffered data to the operating system.
  virtual absl::Status Flush() = 0;
  // Makes appended data durable.
  virtual absl::Status Sync() = 0;
  // Flushes and closes; further calls fail. Destruction closes too, dropping
  // any error, so call Close() where the error matters.
  virtual absl::Status Close() = 0;
};

// A file's bytes mapped read-only into memory (Env::MapFile); destroying it
// unmaps them. Thread-safe (immutable).
class MappedFile {
 public:
  virtual ~MappedFile() = default;
  virtual const char* data() const = 0;
  // The same bytes, writable: a write copies the page it lands on into the
  // process's own memory (copy on write). The file never changes.
  virtual char* mutable_data() const = 0;
  // The file's size when it was mapped.
  virtual uint64_t size() const = 0;
  // Whether the bytes stay readable, as they were, when another process
  // truncates or rewrites the file in place: the mapping holds a kernel
  // lease, and its pages are copied into private memory before such a
  // change goes ahead (internal/mapping_lease.h). When false, touching a
  // page past the end of a file that shrank raises SIGBUS
  // (RunCatchingBusErrors catches it).
  virtual bool guarded() const = 0;
  // Whether the guard failed: the kernel revoked the lease because this
  // process did not answer in time (it was stopped longer than
  // /proc/sys/fs/lease-break-time), so another process may have rewritten
  // or truncated the file under the mapping. The bytes of pages this
  // process had not written may then be that process's, or zeros where the
  // file shrank (touching them never raises SIGBUS). Whoever uses the bytes
  // in place must treat them as lost.
  virtual bool lease_revoked() const { return false; }
  // Asks the kernel to read [offset, offset + size) of the file into the
  // page cache in the background, in file order, unless its first and last
  // pages are there already (then it costs two mincore calls). A hint:
  // nothing fails.
  virtual void ReadAhead(uint64_t offset, uint64_t size) const {}
};

// Zero while no mapping of this process ever had its lease revoked
// (MappedFile::lease_revoked); grows with each revocation. A cheap test
// before asking each mapping. Thread-safe.
uint64_t MappedFileLeasesRevoked();

// An advisory lock (Env::LockFile, TryLockFile, LockFileShared); destroying
// it releases it. Thread-safe.
class FileLock {
 public:
  virtual ~FileLock() = default;
  // OK while the path the lock was taken on still names the file it locks.
  // FailedPrecondition naming the path once that file was deleted, renamed
  // away or replaced: a lock on a file nobody can open any more excludes
  // nobody, so a holder that must stay exclusive checks (train's lock on its
  // log directory). The default, for locks on names rather than files (the
  // in-memory Env's), is always OK.
  virtual absl::Status Check() const { return absl::OkStatus(); }
};

// All methods are safe for concurrent use.
class Env {
 public:
  virtual ~Env() = default;

  // The POSIX environment of this process. Never destroyed.
  static Env* Default();

  virtual absl::StatusOr<std::unique_ptr<SequentialFile>> NewSequentialFile(
      const std::string& path) = 0;
  virtual absl::StatusOr<std::unique_ptr<RandomAccessFile>> NewRandomAccessFile(
      const std::string& path) = 0;
  // Opening for reading takes regular files only: a directory, FIFO, socket
  // or device is FailedPrecondition naming the path and what it is (a FIFO
  // would make the open wait for a writer for ever).
  //
  // Creates or truncates `path`. Writes (this and NewAppendableFile) go to
  // regular files only, and never through a symbolic link as the last
  // component of `path` (FailedPrecondition): minigraph writes predictable
  // names (locks, temporary files, state files) in directories that others
  // may write to, and would otherwise overwrite whatever a planted link
  // names, with the rights of whoever runs it.
  virtual absl::StatusOr<std::unique_ptr<WritableFile>> NewWritableFile(
      const std::string& path) = 0;
  // Opens `path` for appending, creating it if missing.
  virtual absl::StatusOr<std::unique_ptr<WritableFile>> NewAppendableFile(
      const std::string& path) = 0;

  // The whole of `path` mapped private (MAP_PRIVATE): pages come from the
  // page cache as they are first touched (no copy) and are shared with
  // every process that maps or reads the file until one writes to them.
  // The mapping outlives the file's deletion; while it is guarded(), a
  // truncation by another process leaves it intact. Unimplemented where
  // this Env cannot map files (the default; in-memory files; POSIX files in
  // a ThreadSanitizer build): read through NewRandomAccessFile instead.
  virtual absl::StatusOr<std::unique_ptr<MappedFile>> MapFile(const std::string& path);

  // OK if `path` exists (file or directory), NotFound otherwise.
  virtual absl::Status FileExists(const std::string& path) = 0;
  virtual absl::StatusOr<bool> IsDirectory(const std::string& path) = 0;
  // Names (not paths) of the entries of `dir`, without "." and "..".
  virtual absl::StatusOr<std::vector<std::string>> GetChildren(
      const std::string& dir) = 0;
  virtual absl::StatusOr<uint64_t> GetFileSize(const std::string& path) = 0;
  // When the file's contents last changed, in microseconds since the epoch.
  virtual absl::StatusOr<uint64_t> GetModificationTimeMicros(const std::string& path) = 0;
  virtual absl::Status DeleteFile(const std::string& path) = 0;
  // Creates `dir` and any missing parents. OK if it exists.
  virtual absl::Status CreateDir(const std::string& dir) = 0;
  // Removes an empty directory.
  virtual absl::Status DeleteDir(const std::string& dir) = 0;
  // Atomically replaces `target` (if it exists) with `src`.
  virtual absl::Status RenameFile(const std::string& src,
                                  const std::string& target) = 0;
  // Makes the creation, renaming and deletion of `dir`'s entries durable.
  virtual absl::Status SyncDir(const std::string& dir) = 0;
  // Waits until the caller holds the exclusive advisory lock on `path` (an
  // existing file or directory) against every other holder, in this process
  // or another (POSIX flock; a dead process's locks are released). NotFound
  // for a missing path.
  virtual absl::StatusOr<std::unique_ptr<FileLock>> LockFile(const std::string& path) = 0;
  // Like LockFile, but when another holder has the lock, returns
  // FailedPrecondition at once instead of waiting.
  virtual absl::StatusOr<std::unique_ptr<FileLock>> TryLockFile(const std::string& path) = 0;
  // A shared lock on `path`: any number of shared holders at once, none
  // while someone holds the exclusive lock (LockFile, TryLockFile), which in
  // turn waits for or fails on every shared holder. Waits for the exclusive
  // holder to release.
  virtual absl::StatusOr<std::unique_ptr<FileLock>> LockFileShared(const std::string& path) = 0;

  // Microseconds since the Unix epoch.
  virtual uint64_t NowMicros() = 0;
  virtual void SleepForMicroseconds(int64_t micros) = 0;
  // Sleeps like SleepForMicroseconds but wakes as soon as `n` is notified.
  // Returns whether `n` has been notified. The default waits on the real
  // clock.
  virtual bool SleepUnlessNotified(const absl::Notification& n, int64_t micros);
  double NowSeconds() { return NowMicros() * 1e-6; }

  // A watch on the entries of `dir` (inotify on Linux), so a loop waiting
  // for a file sleeps until one appears instead of polling. Unimplemented
  // where this Env cannot watch (the default; in-memory files; a fake
  // clock, whose sleeps must stay fake): callers then poll. NotFound for a
  // missing directory.
  virtual absl::StatusOr<std::unique_ptr<DirectoryWatch>> WatchDirectory(const std::string& dir);
};

// Changes to a directory's entries: created, written, renamed in or out,
// deleted (Env::WatchDirectory).
class DirectoryWatch {
 public:
  virtual ~DirectoryWatch() = default;
  // Waits until an entry changed since the watch was made (or since the
  // last Wait that returned true), or `micros` passed on the real clock.
  // Returns whether something changed.
  virtual bool Wait(int64_t micros) = 0;
};

// Forwards every call to another Env; subclasses override what they change.
class EnvWrapper : public Env {
 public:
  // `target` is not owned and must outlive this wrapper.
  explicit EnvWrapper(Env* target) : target_(target) {}
  Env* target() const { return target_; }

  absl::StatusOr<std::unique_ptr<SequentialFile>> NewSequentialFile(
      const std::string& path) override {
    return target_->NewSequentialFile(path);
  }
  absl::StatusOr<std::unique_ptr<RandomAccessFile>> NewRandomAccessFile(
      const std::string& path) override {
    return target_->NewRandomAccessFile(path);
  }
  absl::StatusOr<std::unique_ptr<WritableFile>> NewWritableFile(
      const std::string& path) override {
    return target_->NewWritableFile(path);
  }
  absl::StatusOr<std::unique_ptr<WritableFile>> NewAppendableFile(
      const std::string& path) override {
    return target_->NewAppendableFile(path);
  }
  absl::StatusOr<std::unique_ptr<MappedFile>> MapFile(const std::string& path) override {
    return target_->MapFile(path);
  }
  absl::Status FileExists(const std::string& path) override {
    return target_->FileExists(path);
  }
  absl::StatusOr<bool> IsDirectory(const std::string& path) override {
    return target_->IsDirectory(path);
  }
  absl::StatusOr<std::vector<std::string>> GetChildren(const std::string& dir) override {
    return target_->GetChildren(dir);
  }
  absl::StatusOr<uint64_t> GetFileSize(const std::string& path) override {
    return target_->GetFileSize(path);
  }
  absl::StatusOr<uint64_t> GetModificationTimeMicros(const std::string& path) override {
    return target_->GetModificationTimeMicros(path);
  }
  absl::Status DeleteFile(const std::string& path) override {
    return target_->DeleteFile(path);
  }
  absl::Status CreateDir(const std::string& dir) override {
    return target_->CreateDir(dir);
  }
  absl::Status DeleteDir(const std::string& dir) override {
    return target_->DeleteDir(dir);
  }
  absl::Status RenameFile(const std::string& src, const std::string& target) override {
    return target_->RenameFile(src, target);
  }
  absl::Status SyncDir(const std::string& dir) override { return target_->SyncDir(dir); }
  absl::StatusOr<std::unique_ptr<FileLock>> LockFile(const std::string& path) override {
    return target_->LockFile(path);
  }
  absl::StatusOr<std::unique_ptr<FileLock>> TryLockFile(const std::string& path) override {
    return target_->TryLockFile(path);
  }
  absl::StatusOr<std::unique_ptr<FileLock>> LockFileShared(const std::string& path) override {
    return target_->LockFileShared(path);
  }
  uint64_t NowMicros() override { return target_->NowMicros(); }
  void SleepForMicroseconds(int64_t micros) override {
    target_->SleepForMicroseconds(micros);
  }
  bool SleepUnlessNotified(const absl::Notification& n, int64_t micros) override {
    return target_->SleepUnlessNotified(n, micros);
  }
  absl::StatusOr<std::unique_ptr<DirectoryWatch>> WatchDirectory(const std::string& dir) override {
    return target_->WatchDirectory(dir);
  }

 private:
  Env* const target_;
};

// Whole-file helpers.
//
// The most ReadFileToString reads unless told otherwise: protobuf's limit
// on one message, which is what whole files are read for.
inline constexpr uint64_t kMaxReadFileBytes = (uint64_t{1} << 31) - 1;
// The whole of `path`; ResourceExhausted naming it when it holds more than
// `max_bytes` (checked before anything is allocated: a sparse file may
// claim far more than the machine's memory).
absl::StatusOr<std::string> ReadFileToString(Env* env, const std::string& path,
                                             uint64_t max_bytes = kMaxReadFileBytes);
// Writes `data` to `path` (truncating), syncing it when `sync` is true.
absl::Status WriteStringToFile(Env* env, const std::string& path,
                               absl::string_view data, bool sync = false);
// Deletes `dir` and everything under it. OK if it does not exist.
absl::Status DeleteRecursively(Env* env, const std::string& dir);
// The paths `pattern` matches, sorted, as TensorFlow's GetMatchingPaths
// finds them (tf.io.gfile.glob, MatchingFiles, the shard patterns of V1
// checkpoints such as "model.ckpt-?????-of-00002"): any component may hold
// the wildcards of fnmatch(3) (`*`, `?`, `[...]`, `\` escapes); a pattern
// without one names itself if it exists; a pattern with no directory part
// matches under "." ("./name"). Empty when nothing matches or a directory
// does not exist.
absl::StatusOr<std::vector<std::string>> GetMatchingPaths(Env* env, const std::string& pattern);

}  // namespace minigraph

#endif  // MINIGRAPH_CORE_ENV_H_
