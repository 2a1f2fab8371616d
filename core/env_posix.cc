// Env::Default(): POSIX files and the real clock.
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/file.h>
#include <sys/inotify.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstring>
#include <ctime>

#include "absl/strings/str_cat.h"
#include "core/bus_errors.h"
#include "core/env.h"
#include "core/internal/mapping_lease.h"
#include "core/path.h"
#include "core/status_macros.h"

namespace minigraph {
namespace {

absl::Status IoError(absl::string_view op, const std::string& path, int err) {
  const std::string msg = absl::StrCat(op, " ", path, ": ", std::strerror(err));
  switch (err) {
    case ENOENT:
    case ENOTDIR:
      return absl::NotFoundError(msg);
    case EACCES:
    case EPERM:
    case EROFS:
      return absl::PermissionDeniedError(msg);
    case ENOSPC:
    case EDQUOT:
    case ENOMEM:
      return absl::ResourceExhaustedError(msg);
    case EEXIST:
      return absl::AlreadyExistsError(msg);
    case ENOTEMPTY:
    case EISDIR:
      return absl::FailedPreconditionError(msg);
    case ELOOP:
      // A write's O_NOFOLLOW met a symbolic link; or the path loops.
      if (op == "create") {
        return absl::FailedPreconditionError(absl::StrCat(
            op, " ", path, ": a symbolic link, which minigraph does not write through"));
      }
      return absl::FailedPreconditionError(msg);
    default:
      return absl::InternalError(msg);
  }
}

const char* FileKind(mode_t mode) {
  if (S_ISDIR(mode)) return "a directory";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  return "not a regular file";
}

// Opens `path` with `flags` and keeps the descriptor only if it is a regular
// file. O_NONBLOCK lets open() return at once on a FIFO with no one at its
// other end (where it would wait for ever), so that fstat can refuse it; it
// is cleared again, since it means nothing to a regular file's reads and
// writes. O_NOFOLLOW (in `flags` for writes) refuses a symbolic link as the
// last component: open() fails with ELOOP, which IoError names.
absl::StatusOr<int> OpenRegularFile(absl::string_view op, const std::string& path, int flags) {
  const int fd = open(path.c_str(), flags | O_CLOEXEC | O_NONBLOCK, 0644);
  if (fd < 0) return IoError(op, path, errno);
  struct stat st;
  if (fstat(fd, &st) != 0) {
    const int err = errno;
    close(fd);
    return IoError("stat", path, err);
  }
  if (!S_ISREG(st.st_mode)) {
    close(fd);
    return absl::FailedPreconditionError(
        absl::StrCat(op, " ", path, ": ", FileKind(st.st_mode), ", not a regular file"));
  }
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  return fd;
}

class PosixSequentialFile : public SequentialFile {
 public:
  PosixSequentialFile(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  ~PosixSequentialFile() override { close(fd_); }

  absl::StatusOr<absl::string_view> Read(size_t n, char* scratch) override {
    size_t got = 0;
    while (got < n) {
      ssize_t r = read(fd_, scratch + got, n - got);
      if (r < 0) {
        if (errno == EINTR) continue;
        return IoError("read", path_, errno);
      }
      if (r == 0) break;
      got += r;
    }
    return absl::string_view(scratch, got);
  }

  absl::Status Skip(uint64_t n) override {
    if (lseek(fd_, static_cast<off_t>(n), SEEK_CUR) == static_cast<off_t>(-1)) {
      return IoError("seek", path_, errno);
    }
    return absl::OkStatus();
  }

 private:
  const std::string path_;
  const int fd_;
};

class PosixRandomAccessFile : public RandomAccessFile {
 public:
  PosixRandomAccessFile(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  ~PosixRandomAccessFile() override { close(fd_); }

  absl::StatusOr<absl::string_view> Read(uint64_t offset, size_t n, char* scratch) const override {
    size_t got = 0;
    while (got < n) {
      ssize_t r = pread(fd_, scratch + got, n - got, static_cast<off_t>(offset + got));
      if (r < 0) {
        if (errno == EINTR) continue;
        return IoError("read", path_, errno);
      }
      if (r == 0) break;
      got += r;
    }
    return absl::string_view(scratch, got);
  }

 private:
  const std::string path_;
  const int fd_;
};

class PosixMappedFile : public MappedFile {
 public:
  PosixMappedFile(void* data, uint64_t size, std::unique_ptr<env_internal::MappingLease> lease)
      : data_(static_cast<char*>(data)), size_(size), lease_(std::move(lease)) {}
  ~PosixMappedFile() override {
    lease_.reset();  // first: a lease being broken still copies the pages
    if (size_ > 0) munmap(data_, size_);
  }
  const char* data() const override { return data_; }
  char* mutable_data() const override { return data_; }
  uint64_t size() const override { return size_; }
  bool guarded() const override { return lease_ != nullptr; }
  bool lease_revoked() const override { return lease_ != nullptr && lease_->revoked(); }
  void ReadAhead(uint64_t offset, uint64_t size) const override {
    if (size == 0 || offset >= size_) return;
    size = std::min(size, size_ - offset);
    const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGE_SIZE));
    const uintptr_t begin = (reinterpret_cast<uintptr_t>(data_) + offset) & ~(page - 1);
    const uintptr_t last = (reinterpret_cast<uintptr_t>(data_) + offset + size - 1) & ~(page - 1);
    unsigned char first_in = 0, last_in = 0;
    if (mincore(reinterpret_cast<void*>(begin), page, &first_in) == 0 &&
        mincore(reinterpret_cast<void*>(last), page, &last_in) == 0 && (first_in & 1) &&
        (last_in & 1)) {
      return;
    }
    madvise(reinterpret_cast<void*>(begin), last + page - begin, MADV_WILLNEED);
  }

 private:
  char* const data_;
  const uint64_t size_;
  std::unique_ptr<env_internal::MappingLease> lease_;
};

class PosixWritableFile : public WritableFile {
 public:
  PosixWritableFile(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  ~PosixWritableFile() override {
    if (fd_ >= 0) Close().IgnoreError();
  }

  absl::Status Append(absl::string_view data) override {
    if (fd_ < 0) return Closed();
    // Small appends gather in the buffer; large ones go straight out.
    if (buffer_.size() + data.size() <= kBufferSize) {
      buffer_.append(data.data(), data.size());
      return absl::OkStatus();
    }
    MG_RETURN_IF_ERROR(FlushBuffer());
    if (data.size() < kBufferSize) {
      buffer_.append(data.data(), data.size());
      return absl::OkStatus();
    }
    return WriteRaw(data);
  }

  absl::Status Flush() override {
    if (fd_ < 0) return Closed();
    return FlushBuffer();
  }

  absl::Status Sync() override {
    if (fd_ < 0) return Closed();
    MG_RETURN_IF_ERROR(FlushBuffer());
    if (fdatasync(fd_) != 0) return IoError("sync", path_, errno);
    return absl::OkStatus();
  }

  absl::Status Close() override {
    if (fd_ < 0) return Closed();
    absl::Status s = FlushBuffer();
    if (close(fd_) != 0 && s.ok()) s = IoError("close", path_, errno);
    fd_ = -1;
    return s;
  }

 private:
  static constexpr size_t kBufferSize = 64 << 10;

  absl::Status Closed() const {
    return absl::FailedPreconditionError(absl::StrCat("file already closed: ", path_));
  }

  absl::Status FlushBuffer() {
    absl::Status s = WriteRaw(buffer_);
    buffer_.clear();
    return s;
  }

  absl::Status WriteRaw(absl::string_view data) {
    while (!data.empty()) {
      ssize_t r = write(fd_, data.data(), data.size());
      if (r < 0) {
        if (errno == EINTR) continue;
        return IoError("write", path_, errno);
      }
      data.remove_prefix(r);
    }
    return absl::OkStatus();
  }

  const std::string path_;
  int fd_;
  std::string buffer_;
};

class PosixFileLock : public FileLock {
 public:
  PosixFileLock(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
  ~PosixFileLock() override {
    flock(fd_, LOCK_UN);
    close(fd_);
  }

  absl::Status Check() const override {
    struct stat held, named;
    if (fstat(fd_, &held) != 0) return IoError("stat", path_, errno);
    if (stat(path_.c_str(), &named) != 0) {
      if (errno != ENOENT && errno != ENOTDIR) return IoError("stat", path_, errno);
      return absl::FailedPreconditionError(
          absl::StrCat(path_, " was deleted or renamed away while locked"));
    }
    if (held.st_dev != named.st_dev || held.st_ino != named.st_ino) {
      return absl::FailedPreconditionError(
          absl::StrCat(path_, " was replaced by another file while locked"));
    }
    return absl::OkStatus();
  }

 private:
  const std::string path_;
  const int fd_;
};

// inotify: the kernel queues the directory's events on a descriptor, and
// Wait polls it. (No library here offers this; it is a few system calls.)
class InotifyWatch : public DirectoryWatch {
 public:
  explicit InotifyWatch(int fd) : fd_(fd) {}
  ~InotifyWatch() override { close(fd_); }
  bool Wait(int64_t micros) override {
    struct pollfd p = {fd_, POLLIN, 0};
    const int ms =
        static_cast<int>(std::min<int64_t>((std::max<int64_t>(micros, 0) + 999) / 1000, INT32_MAX));
    int r;
    do {
      r = poll(&p, 1, ms);
    } while (r < 0 && errno == EINTR);
    if (r <= 0) return false;
    // Drain what is queued: one Wait per batch of changes.
    char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
    while (read(fd_, buf, sizeof(buf)) > 0) {
    }
    return true;
  }

 private:
  const int fd_;
};

class PosixEnv : public Env {
 public:
  absl::StatusOr<std::unique_ptr<FileLock>> LockFile(const std::string& path) override {
    return Flock(path, LOCK_EX);
  }
  absl::StatusOr<std::unique_ptr<FileLock>> LockFileShared(const std::string& path) override {
    return Flock(path, LOCK_SH);
  }
  absl::StatusOr<std::unique_ptr<FileLock>> TryLockFile(const std::string& path) override {
    return Flock(path, LOCK_EX | LOCK_NB);
  }

  // flock belongs to the open file description, so two opens in one
  // process exclude each other as two processes do.
  static absl::StatusOr<std::unique_ptr<FileLock>> Flock(const std::string& path, int op) {
    // O_NONBLOCK: a FIFO's open would wait for a writer.
    int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) return IoError("lock", path, errno);
    while (flock(fd, op) != 0) {
      const int err = errno;
      if (err == EINTR) continue;
      close(fd);
      if (err == EWOULDBLOCK) {
        return absl::FailedPreconditionError(absl::StrCat(path, " is locked by another holder"));
      }
      return IoError("lock", path, err);
    }
    return std::unique_ptr<FileLock>(new PosixFileLock(path, fd));
  }

  absl::StatusOr<std::unique_ptr<SequentialFile>> NewSequentialFile(
      const std::string& path) override {
    MG_ASSIGN_OR_RETURN(const int fd, OpenRegularFile("open", path, O_RDONLY));
    return std::unique_ptr<SequentialFile>(new PosixSequentialFile(path, fd));
  }

  absl::StatusOr<std::unique_ptr<RandomAccessFile>> NewRandomAccessFile(
      const std::string& path) override {
    MG_ASSIGN_OR_RETURN(const int fd, OpenRegularFile("open", path, O_RDONLY));
    return std::unique_ptr<RandomAccessFile>(new PosixRandomAccessFile(path, fd));
  }

  absl::StatusOr<std::unique_ptr<MappedFile>> MapFile(const std::string& path) override {
    if (!kCanCatchBusErrors) {
      // A mapping's safety rests on signal handlers (SIGBUS, the lease's
      // SIGIO and SIGSEGV) whose jumps and waits ThreadSanitizer cannot
      // follow: such builds read files instead.
      return absl::UnimplementedError(
          absl::StrCat("files are not mapped in this build (ThreadSanitizer): ", path));
    }
    MG_ASSIGN_OR_RETURN(const int fd, OpenRegularFile("open", path, O_RDONLY));
    struct stat st;
    if (fstat(fd, &st) != 0) {
      const int err = errno;
      close(fd);
      return IoError("stat", path, err);
    }
    const uint64_t size = static_cast<uint64_t>(st.st_size);
    void* data = nullptr;
    if (size > 0) {
      // Writable but private: writes copy pages, never reach the file.
      data = mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
      if (data == MAP_FAILED) {
        const int err = errno;
        close(fd);
        return IoError("mmap", path, err);
      }
    }
    // The lease keeps `fd` (the mapping alone keeps the file's pages).
    std::unique_ptr<env_internal::MappingLease> lease =
        env_internal::MappingLease::Take(fd, static_cast<char*>(data), size);
    return std::unique_ptr<MappedFile>(new PosixMappedFile(data, size, std::move(lease)));
  }

  absl::StatusOr<std::unique_ptr<WritableFile>> NewWritableFile(const std::string& path) override {
    return OpenForWrite(path, O_TRUNC);
  }

  absl::StatusOr<std::unique_ptr<WritableFile>> NewAppendableFile(
      const std::string& path) override {
    return OpenForWrite(path, O_APPEND);
  }

  absl::Status FileExists(const std::string& path) override {
    if (access(path.c_str(), F_OK) != 0) return IoError("stat", path, errno);
    return absl::OkStatus();
  }

  absl::StatusOr<bool> IsDirectory(const std::string& path) override {
    struct stat st;
    if (stat(path.c_str(), &st) != 0) return IoError("stat", path, errno);
    return S_ISDIR(st.st_mode);
  }

  absl::StatusOr<std::vector<std::string>> GetChildren(const std::string& dir) override {
    DIR* d = opendir(dir.c_str());
    if (d == nullptr) return IoError("list", dir, errno);
    std::vector<std::string> out;
    while (struct dirent* e = readdir(d)) {
      if (std::strcmp(e->d_name, ".") == 0 || std::strcmp(e->d_name, "..") == 0) continue;
      out.emplace_back(e->d_name);
    }
    closedir(d);
    return out;
  }

  absl::StatusOr<uint64_t> GetFileSize(const std::string& path) override {
    struct stat st;
    if (stat(path.c_str(), &st) != 0) return IoError("stat", path, errno);
    return static_cast<uint64_t>(st.st_size);
  }

  absl::StatusOr<uint64_t> GetModificationTimeMicros(const std::string& path) override {
    struct stat st;
    if (stat(path.c_str(), &st) != 0) return IoError("stat", path, errno);
    return static_cast<uint64_t>(st.st_mtim.tv_sec) * 1000000 + st.st_mtim.tv_nsec / 1000;
  }

  absl::Status DeleteFile(const std::string& path) override {
    if (unlink(path.c_str()) != 0) return IoError("delete", path, errno);
    return absl::OkStatus();
  }

  absl::Status CreateDir(const std::string& dir) override {
    if (dir.empty()) return absl::OkStatus();
    if (mkdir(dir.c_str(), 0755) == 0) return absl::OkStatus();
    if (errno == EEXIST) {
      MG_ASSIGN_OR_RETURN(bool is_dir, IsDirectory(dir));
      if (is_dir) return absl::OkStatus();
      return absl::AlreadyExistsError(absl::StrCat("not a directory: ", dir));
    }
    if (errno != ENOENT) return IoError("mkdir", dir, errno);
    const std::string parent(Dirname(dir));
    if (parent.empty() || parent == dir) return IoError("mkdir", dir, ENOENT);
    MG_RETURN_IF_ERROR(CreateDir(parent));
    if (mkdir(dir.c_str(), 0755) != 0 && errno != EEXIST) {
      return IoError("mkdir", dir, errno);
    }
    return absl::OkStatus();
  }

  absl::Status DeleteDir(const std::string& dir) override {
    if (rmdir(dir.c_str()) != 0) return IoError("rmdir", dir, errno);
    return absl::OkStatus();
  }

  absl::Status RenameFile(const std::string& src, const std::string& target) override {
    if (rename(src.c_str(), target.c_str()) != 0) {
      return IoError(absl::StrCat("rename to ", target, ":"), src, errno);
    }
    return absl::OkStatus();
  }

  absl::Status SyncDir(const std::string& dir) override {
    const std::string d = dir.empty() ? "." : dir;
    int fd = open(d.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return IoError("open", d, errno);
    absl::Status s;
    if (fsync(fd) != 0) s = IoError("sync", d, errno);
    close(fd);
    return s;
  }

  uint64_t NowMicros() override {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return static_cast<uint64_t>(ts.tv_sec) * 1000000 + ts.tv_nsec / 1000;
  }

  absl::StatusOr<std::unique_ptr<DirectoryWatch>> WatchDirectory(const std::string& dir) override {
    const int fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (fd < 0) return IoError("inotify_init1 for", dir, errno);
    if (inotify_add_watch(fd, dir.c_str(),
                          IN_CREATE | IN_MOVED_TO | IN_MOVED_FROM | IN_CLOSE_WRITE | IN_DELETE |
                              IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR) < 0) {
      const int err = errno;
      close(fd);
      return IoError("inotify_add_watch", dir, err);
    }
    return std::unique_ptr<DirectoryWatch>(new InotifyWatch(fd));
  }
  void SleepForMicroseconds(int64_t micros) override {
    if (micros <= 0) return;
    struct timespec ts;
    ts.tv_sec = micros / 1000000;
    ts.tv_nsec = (micros % 1000000) * 1000;
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
  }

 private:
  absl::StatusOr<std::unique_ptr<WritableFile>> OpenForWrite(const std::string& path,
                                                             int mode_flag) {
    // Never through a symbolic link: a trainer, often root, writes
    // predictable names (locks, temporary files, event files) in
    // directories others may write to. O_TRUNC truncates only a regular
    // file (the kernel ignores it for the others, which OpenRegularFile
    // then refuses).
    MG_ASSIGN_OR_RETURN(const int fd, OpenRegularFile("create", path,
                                                      O_WRONLY | O_CREAT | O_NOFOLLOW | mode_flag));
    return std::unique_ptr<WritableFile>(new PosixWritableFile(path, fd));
  }
};

}  // namespace

uint64_t MappedFileLeasesRevoked() { return env_internal::RevokedLeases(); }

Env* Env::Default() {
  static Env* const env = new PosixEnv;
  return env;
}

}  // namespace minigraph
