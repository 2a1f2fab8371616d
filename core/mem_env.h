// An Env whose files live in memory; time comes from another Env.
//
//   MemEnv env;                                  // clock of Env::Default()
//   MG_RETURN_IF_ERROR(WriteStringToFile(&env, "/ckpt/x", "data"));
//
// Directories exist once created or once a file is written below them.
// Safe for concurrent use. Open readers keep reading a file's contents after
// it is deleted or replaced, as on POSIX.

#ifndef MINIGRAPH_CORE_MEM_ENV_H_
#define MINIGRAPH_CORE_MEM_ENV_H_

#include <map>
#include <memory>
#include <set>
#include <string>

#include "absl/base/thread_annotations.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "core/env.h"

namespace minigraph {

class MemEnv : public EnvWrapper {
 public:
  // `clock` (not owned, must outlive this) supplies NowMicros and sleeping.
  explicit MemEnv(Env* clock = Env::Default()) : EnvWrapper(clock) {}

  // Its files are not the clock's: waiting loops poll.
  absl::StatusOr<std::unique_ptr<DirectoryWatch>> WatchDirectory(const std::string& dir) override {
    return absl::UnimplementedError("in-memory files cannot be watched");
  }
  // Nor mapped: readers read them through NewRandomAccessFile.
  absl::StatusOr<std::unique_ptr<MappedFile>> MapFile(const std::string& path) override {
    return absl::UnimplementedError(absl::StrCat("in-memory file ", path, " cannot be mapped"));
  }

  absl::StatusOr<std::unique_ptr<SequentialFile>> NewSequentialFile(
      const std::string& path) override;
  absl::StatusOr<std::unique_ptr<RandomAccessFile>> NewRandomAccessFile(
      const std::string& path) override;
  absl::StatusOr<std::unique_ptr<WritableFile>> NewWritableFile(
      const std::string& path) override;
  absl::StatusOr<std::unique_ptr<WritableFile>> NewAppendableFile(
      const std::string& path) override;
  absl::Status FileExists(const std::string& path) override;
  absl::StatusOr<bool> IsDirectory(const std::string& path) override;
  absl::StatusOr<std::vector<std::string>> GetChildren(const std::string& dir) override;
  absl::StatusOr<uint64_t> GetFileSize(const std::string& path) override;
  absl::StatusOr<uint64_t> GetModificationTimeMicros(const std::string& path) override;
  absl::Status DeleteFile(const std::string& path) override;
  absl::Status CreateDir(const std::string& dir) override;
  absl::Status DeleteDir(const std::string& dir) override;
  absl::Status RenameFile(const std::string& src, const std::string& target) override;
  absl::Status SyncDir(const std::string& dir) override;
  absl::StatusOr<std::unique_ptr<FileLock>> LockFile(const std::string& path) override;
  absl::StatusOr<std::unique_ptr<FileLock>> TryLockFile(const std::string& path) override;
  absl::StatusOr<std::unique_ptr<FileLock>> LockFileShared(const std::string& path) override;

  // The contents of one file, shared by its name and its open handles.
  struct FileState {
    absl::Mutex mu;
    std::string data ABSL_GUARDED_BY(mu);
    uint64_t mtime_micros ABSL_GUARDED_BY(mu) = 0;
  };

 private:
  std::shared_ptr<FileState> Find(const std::string& path) ABSL_LOCKS_EXCLUDED(mu_);
  void AddParentDirs(const std::string& path) ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_);

  absl::Mutex mu_;
  std::map<std::string, std::shared_ptr<FileState>> files_ ABSL_GUARDED_BY(mu_);
  std::set<std::string> dirs_ ABSL_GUARDED_BY(mu_);
  // Held locks: -1 exclusive, n > 0 that many shared holders.
  std::map<std::string, int> locked_ ABSL_GUARDED_BY(mu_);
};

// An EnvWrapper that tells when a waiting loop goes to sleep, then sleeps
// on the base's clock: a test can act while a waiter sleeps, without
// sleeping itself.
//
//   SleepSignalEnv env(Env::Default());
//   std::thread waiter([&] { sm->WaitForSession(...); });   // o.env = &env
//   env.WaitForSleeps(1);                                    // it sleeps now
class SleepSignalEnv : public EnvWrapper {
 public:
  explicit SleepSignalEnv(Env* base) : EnvWrapper(base) {}
  // Returns once `n` sleeps have started.
  void WaitForSleeps(int64_t n) {
    struct Arg {
      const int64_t* sleeps;
      int64_t n;
    } arg{&sleeps_, n};
    absl::MutexLock l(&mu_);
    mu_.Await(absl::Condition(+[](Arg* a) { return *a->sleeps >= a->n; }, &arg));
  }
  void SleepForMicroseconds(int64_t micros) override {
    Count();
    EnvWrapper::SleepForMicroseconds(micros);
  }
  bool SleepUnlessNotified(const absl::Notification& n, int64_t micros) override {
    Count();
    return EnvWrapper::SleepUnlessNotified(n, micros);
  }
  // A wait on a directory watch counts as a sleep too.
  absl::StatusOr<std::unique_ptr<DirectoryWatch>> WatchDirectory(const std::string& dir) override {
    absl::StatusOr<std::unique_ptr<DirectoryWatch>> w = EnvWrapper::WatchDirectory(dir);
    if (!w.ok()) return w.status();
    return std::unique_ptr<DirectoryWatch>(new CountingWatch(this, *std::move(w)));
  }

 private:
  class CountingWatch : public DirectoryWatch {
   public:
    CountingWatch(SleepSignalEnv* env, std::unique_ptr<DirectoryWatch> w)
        : env_(env), w_(std::move(w)) {}
    bool Wait(int64_t micros) override {
      env_->Count();
      return w_->Wait(micros);
    }

   private:
    SleepSignalEnv* const env_;
    const std::unique_ptr<DirectoryWatch> w_;
  };
  void Count() {
    absl::MutexLock l(&mu_);
    ++sleeps_;
  }
  absl::Mutex mu_;
  int64_t sleeps_ ABSL_GUARDED_BY(mu_) = 0;
};

// An EnvWrapper whose clock stands still until advanced; sleeping advances it
// at once. Counts sleeps so tests can assert on waiting loops.
//
//   FakeClockEnv env(&mem_env, /*start_micros=*/0);
//   env.SleepForMicroseconds(30'000'000);   // returns immediately
//   env.NowMicros();                         // 30'000'000
class FakeClockEnv : public EnvWrapper {
 public:
  // `base` (not owned, must outlive this) supplies everything but time.
  explicit FakeClockEnv(Env* base, uint64_t start_micros = 1'000'000'000'000'000)
      : EnvWrapper(base), now_(start_micros) {}

  uint64_t NowMicros() override {
    absl::MutexLock l(&mu_);
    return now_;
  }
  void SleepForMicroseconds(int64_t micros) override {
    absl::MutexLock l(&mu_);
    ++sleeps_;
    slept_micros_ += micros > 0 ? micros : 0;
    if (micros > 0) now_ += micros;
  }
  // A watch would wait on the real clock: waiting loops poll instead.
  absl::StatusOr<std::unique_ptr<DirectoryWatch>> WatchDirectory(const std::string& dir) override {
    return absl::UnimplementedError("a fake clock's waits cannot watch directories");
  }
  // Sleeps (advancing the clock) unless `n` is already notified.
  bool SleepUnlessNotified(const absl::Notification& n, int64_t micros) override {
    if (n.HasBeenNotified()) return true;
    SleepForMicroseconds(micros);
    return n.HasBeenNotified();
  }
  void AdvanceMicros(uint64_t micros) {
    absl::MutexLock l(&mu_);
    now_ += micros;
  }
  int64_t sleeps() {
    absl::MutexLock l(&mu_);
    return sleeps_;
  }
  int64_t slept_micros() {
    absl::MutexLock l(&mu_);
    return slept_micros_;
  }

 private:
  absl::Mutex mu_;
  uint64_t now_ ABSL_GUARDED_BY(mu_);
  int64_t sleeps_ ABSL_GUARDED_BY(mu_) = 0;
  int64_t slept_micros_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace minigraph

#endif  // MINIGRAPH_CORE_MEM_ENV_H_
