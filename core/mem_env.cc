#include "core/mem_env.h"

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "core/path.h"

namespace minigraph {
namespace {

using FileState = MemEnv::FileState;

std::string Normalize(const std::string& path) {
  std::string p = path;
  while (p.size() > 1 && p.back() == '/') p.pop_back();
  return p;
}

absl::Status NotFound(absl::string_view op, const std::string& path) {
  return absl::NotFoundError(absl::StrCat(op, " ", path, ": No such file or directory"));
}

class MemSequentialFile : public SequentialFile {
 public:
  explicit MemSequentialFile(std::shared_ptr<FileState> f) : file_(std::move(f)) {}
  absl::StatusOr<absl::string_view> Read(size_t n, char* scratch) override {
    absl::MutexLock l(&file_->mu);
    const size_t avail = pos_ < file_->data.size() ? file_->data.size() - pos_ : 0;
    const size_t got = std::min(n, avail);
    if (got > 0) std::copy_n(file_->data.data() + pos_, got, scratch);
    pos_ += got;
    return absl::string_view(scratch, got);
  }
  absl::Status Skip(uint64_t n) override {
    pos_ += n;
    return absl::OkStatus();
  }

 private:
  std::shared_ptr<FileState> file_;
  uint64_t pos_ = 0;
};

class MemRandomAccessFile : public RandomAccessFile {
 public:
  explicit MemRandomAccessFile(std::shared_ptr<FileState> f) : file_(std::move(f)) {}
  absl::StatusOr<absl::string_view> Read(uint64_t offset, size_t n, char* scratch) const override {
    absl::MutexLock l(&file_->mu);
    if (offset >= file_->data.size()) return absl::string_view(scratch, 0);
    const size_t got = std::min<uint64_t>(n, file_->data.size() - offset);
    std::copy_n(file_->data.data() + offset, got, scratch);
    return absl::string_view(scratch, got);
  }

 private:
  std::shared_ptr<FileState> file_;
};

class MemWritableFile : public WritableFile {
 public:
  MemWritableFile(std::string path, std::shared_ptr<FileState> f, Env* clock)
      : path_(std::move(path)), file_(std::move(f)), clock_(clock) {
    absl::MutexLock l(&file_->mu);
    file_->mtime_micros = clock_->NowMicros();
  }
  absl::Status Append(absl::string_view data) override {
    if (closed_) return Closed();
    absl::MutexLock l(&file_->mu);
    file_->data.append(data.data(), data.size());
    file_->mtime_micros = clock_->NowMicros();
    return absl::OkStatus();
  }
  absl::Status Flush() override { return closed_ ? Closed() : absl::OkStatus(); }
  absl::Status Sync() override { return closed_ ? Closed() : absl::OkStatus(); }
  absl::Status Close() override {
    if (closed_) return Closed();
    closed_ = true;
    return absl::OkStatus();
  }

 private:
  absl::Status Closed() const {
    return absl::FailedPreconditionError(absl::StrCat("file already closed: ", path_));
  }
  const std::string path_;
  std::shared_ptr<FileState> file_;
  Env* clock_;  // Not owned.
  bool closed_ = false;
};

}  // namespace

std::shared_ptr<FileState> MemEnv::Find(const std::string& path) {
  absl::MutexLock l(&mu_);
  auto it = files_.find(Normalize(path));
  return it == files_.end() ? nullptr : it->second;
}

void MemEnv::AddParentDirs(const std::string& path) {
  std::string dir(Dirname(path));
  while (!dir.empty() && dirs_.insert(dir).second && dir != "/") {
    dir = std::string(Dirname(dir));
  }
}

absl::StatusOr<std::unique_ptr<SequentialFile>> MemEnv::NewSequentialFile(const std::string& path) {
  auto f = Find(path);
  if (f == nullptr) return NotFound("open", path);
  return std::unique_ptr<SequentialFile>(new MemSequentialFile(std::move(f)));
}

absl::StatusOr<std::unique_ptr<RandomAccessFile>> MemEnv::NewRandomAccessFile(
    const std::string& path) {
  auto f = Find(path);
  if (f == nullptr) return NotFound("open", path);
  return std::unique_ptr<RandomAccessFile>(new MemRandomAccessFile(std::move(f)));
}

absl::StatusOr<std::unique_ptr<WritableFile>> MemEnv::NewWritableFile(const std::string& path) {
  const std::string p = Normalize(path);
  auto f = std::make_shared<FileState>();
  absl::MutexLock l(&mu_);
  if (dirs_.count(p)) {
    return absl::FailedPreconditionError(absl::StrCat("create ", p, ": Is a directory"));
  }
  files_[p] = f;
  AddParentDirs(p);
  return std::unique_ptr<WritableFile>(new MemWritableFile(p, std::move(f), target()));
}

absl::StatusOr<std::unique_ptr<WritableFile>> MemEnv::NewAppendableFile(const std::string& path) {
  const std::string p = Normalize(path);
  absl::MutexLock l(&mu_);
  auto& f = files_[p];
  if (f == nullptr) f = std::make_shared<FileState>();
  AddParentDirs(p);
  return std::unique_ptr<WritableFile>(new MemWritableFile(p, f, target()));
}

absl::Status MemEnv::FileExists(const std::string& path) {
  const std::string p = Normalize(path);
  absl::MutexLock l(&mu_);
  if (files_.count(p) || dirs_.count(p)) return absl::OkStatus();
  return NotFound("stat", p);
}

absl::StatusOr<bool> MemEnv::IsDirectory(const std::string& path) {
  const std::string p = Normalize(path);
  absl::MutexLock l(&mu_);
  if (dirs_.count(p)) return true;
  if (files_.count(p)) return false;
  return NotFound("stat", p);
}

absl::StatusOr<std::vector<std::string>> MemEnv::GetChildren(const std::string& dir) {
  const std::string d = Normalize(dir);
  const std::string prefix = d == "/" ? d : d + "/";
  absl::MutexLock l(&mu_);
  if (!dirs_.count(d)) return NotFound("list", d);
  std::vector<std::string> out;
  auto add = [&](const std::string& p) {
    if (absl::StartsWith(p, prefix) && p.size() > prefix.size() &&
        p.find('/', prefix.size()) == std::string::npos) {
      out.push_back(p.substr(prefix.size()));
    }
  };
  for (const auto& [p, f] : files_) add(p);
  for (const auto& p : dirs_) add(p);
  return out;
}

absl::StatusOr<uint64_t> MemEnv::GetFileSize(const std::string& path) {
  auto f = Find(path);
  if (f == nullptr) return NotFound("stat", path);
  absl::MutexLock l(&f->mu);
  return static_cast<uint64_t>(f->data.size());
}

absl::StatusOr<uint64_t> MemEnv::GetModificationTimeMicros(const std::string& path) {
  auto f = Find(path);
  if (f == nullptr) return NotFound("stat", path);
  absl::MutexLock l(&f->mu);
  return f->mtime_micros;
}

absl::Status MemEnv::DeleteFile(const std::string& path) {
  const std::string p = Normalize(path);
  absl::MutexLock l(&mu_);
  if (files_.erase(p) == 0) return NotFound("delete", p);
  return absl::OkStatus();
}

absl::Status MemEnv::CreateDir(const std::string& dir) {
  const std::string d = Normalize(dir);
  absl::MutexLock l(&mu_);
  if (files_.count(d)) return absl::AlreadyExistsError(absl::StrCat("not a directory: ", d));
  dirs_.insert(d);
  AddParentDirs(d);
  return absl::OkStatus();
}

absl::Status MemEnv::DeleteDir(const std::string& dir) {
  const std::string d = Normalize(dir);
  const std::string prefix = d + "/";
  absl::MutexLock l(&mu_);
  if (!dirs_.count(d)) return NotFound("rmdir", d);
  auto below = [&](const std::string& p) { return absl::StartsWith(p, prefix); };
  if (std::any_of(files_.begin(), files_.end(), [&](const auto& e) { return below(e.first); }) ||
      std::any_of(dirs_.begin(), dirs_.end(), below)) {
    return absl::FailedPreconditionError(absl::StrCat("rmdir ", d, ": Directory not empty"));
  }
  dirs_.erase(d);
  return absl::OkStatus();
}

absl::Status MemEnv::RenameFile(const std::string& src, const std::string& target) {
  const std::string s = Normalize(src), t = Normalize(target);
  absl::MutexLock l(&mu_);
  auto it = files_.find(s);
  if (it == files_.end()) return NotFound(absl::StrCat("rename to ", t, ":"), s);
  auto f = it->second;
  files_.erase(it);
  files_[t] = std::move(f);
  AddParentDirs(t);
  return absl::OkStatus();
}

absl::Status MemEnv::SyncDir(const std::string& dir) {
  const std::string d = Normalize(dir.empty() ? "." : dir);
  absl::MutexLock l(&mu_);
  if (!dirs_.count(d) && d != ".") return NotFound("sync", d);
  return absl::OkStatus();
}

namespace {

class MemFileLock : public FileLock {
 public:
  MemFileLock(absl::Mutex* mu, std::map<std::string, int>* locked, std::string path)
      : mu_(mu), locked_(locked), path_(std::move(path)) {}
  ~MemFileLock() override {
    absl::MutexLock l(mu_);
    auto it = locked_->find(path_);
    if (it->second > 1) {
      --it->second;  // one shared holder fewer
    } else {
      locked_->erase(it);
    }
  }

 private:
  absl::Mutex* const mu_;
  std::map<std::string, int>* const locked_;
  const std::string path_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<FileLock>> MemEnv::LockFile(const std::string& path) {
  const std::string p = Normalize(path);
  absl::MutexLock l(&mu_);
  if (!files_.count(p) && !dirs_.count(p)) return NotFound("lock", p);
  auto free = [this, &p]() ABSL_NO_THREAD_SAFETY_ANALYSIS { return !locked_.count(p); };
  mu_.Await(absl::Condition(&free));
  locked_[p] = -1;
  return std::unique_ptr<FileLock>(new MemFileLock(&mu_, &locked_, p));
}

absl::StatusOr<std::unique_ptr<FileLock>> MemEnv::TryLockFile(const std::string& path) {
  const std::string p = Normalize(path);
  absl::MutexLock l(&mu_);
  if (!files_.count(p) && !dirs_.count(p)) return NotFound("lock", p);
  if (locked_.count(p)) {
    return absl::FailedPreconditionError(absl::StrCat(p, " is locked by another holder"));
  }
  locked_[p] = -1;
  return std::unique_ptr<FileLock>(new MemFileLock(&mu_, &locked_, p));
}

absl::StatusOr<std::unique_ptr<FileLock>> MemEnv::LockFileShared(const std::string& path) {
  const std::string p = Normalize(path);
  absl::MutexLock l(&mu_);
  if (!files_.count(p) && !dirs_.count(p)) return NotFound("lock", p);
  auto shareable = [this, &p]() ABSL_NO_THREAD_SAFETY_ANALYSIS {
    auto it = locked_.find(p);
    return it == locked_.end() || it->second > 0;
  };
  mu_.Await(absl::Condition(&shareable));
  ++locked_[p];
  return std::unique_ptr<FileLock>(new MemFileLock(&mu_, &locked_, p));
}

}  // namespace minigraph
