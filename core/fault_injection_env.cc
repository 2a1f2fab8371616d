#include "core/fault_injection_env.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "core/path.h"
#include "core/status_macros.h"

namespace minigraph {
namespace {

class TrackedFile : public WritableFile {
 public:
  TrackedFile(FaultInjectionEnv* env, std::string path, int64_t inode,
              std::unique_ptr<WritableFile> base)
      : env_(env), path_(std::move(path)), inode_(inode), base_(std::move(base)) {}

  absl::Status Append(absl::string_view data) override {
    MG_RETURN_IF_ERROR(env_->CountOp(FaultInjectionEnv::Op::kAppend, path_));
    MG_RETURN_IF_ERROR(base_->Append(data));
    env_->RecordAppend(inode_, data);
    return absl::OkStatus();
  }
  absl::Status Flush() override { return base_->Flush(); }
  absl::Status Sync() override {
    MG_RETURN_IF_ERROR(env_->CountOp(FaultInjectionEnv::Op::kSync, path_));
    MG_RETURN_IF_ERROR(base_->Sync());
    env_->RecordSync(inode_);
    return absl::OkStatus();
  }
  absl::Status Close() override {
    MG_RETURN_IF_ERROR(env_->CountOp(FaultInjectionEnv::Op::kClose, path_));
    return base_->Close();
  }

 private:
  FaultInjectionEnv* const env_;
  const std::string path_;
  const int64_t inode_;
  std::unique_ptr<WritableFile> base_;
};

bool InDir(const std::string& path, const std::string& dir) {
  return std::string(Dirname(path)) == dir;
}

}  // namespace

FaultInjectionEnv::FaultInjectionEnv(MemEnv* base) : EnvWrapper(base), base_(base) {}

void FaultInjectionEnv::FailAfter(int64_t n) {
  absl::MutexLock l(&mu_);
  fail_after_ = ops_ + n;
}

void FaultInjectionEnv::FailOnce(Op op, int64_t nth) {
  absl::MutexLock l(&mu_);
  fail_once_op_ = op;
  fail_once_nth_ = nth;
}

void FaultInjectionEnv::ClearFaults() {
  absl::MutexLock l(&mu_);
  fail_after_ = -1;
  fail_once_nth_ = -1;
}

int64_t FaultInjectionEnv::mutating_ops() {
  absl::MutexLock l(&mu_);
  return ops_;
}

absl::Status FaultInjectionEnv::CountOp(Op op, const std::string& path) {
  absl::MutexLock l(&mu_);
  const int64_t n = ops_++;
  bool fail = fail_after_ >= 0 && n >= fail_after_;
  if (fail_once_nth_ >= 0 && op == fail_once_op_) {
    if (fail_once_nth_ == 0) fail = true;
    --fail_once_nth_;
  }
  if (fail) {
    return absl::UnavailableError(
        absl::StrCat("injected fault at operation ", n, " on ", path));
  }
  return absl::OkStatus();
}

void FaultInjectionEnv::RecordAppend(int64_t inode, absl::string_view data) {
  absl::MutexLock l(&mu_);
  inodes_[inode].live.append(data.data(), data.size());
}

void FaultInjectionEnv::RecordSync(int64_t inode) {
  absl::MutexLock l(&mu_);
  Inode& i = inodes_[inode];
  i.synced = i.live;
}

void FaultInjectionEnv::AdoptExisting(const std::string& path) {
  if (live_names_.count(path)) return;
  absl::StatusOr<std::string> data = ReadFileToString(base_, path);
  if (!data.ok()) return;
  const int64_t id = next_inode_++;
  inodes_[id] = Inode{*data, *data};
  live_names_[path] = id;
  durable_names_[path] = id;
}

absl::StatusOr<std::unique_ptr<WritableFile>> FaultInjectionEnv::OpenTracked(
    const std::string& path, bool append) {
  MG_RETURN_IF_ERROR(CountOp(Op::kCreate, path));
  int64_t id;
  {
    absl::MutexLock l(&mu_);
    AdoptExisting(path);
    auto it = live_names_.find(path);
    if (append && it != live_names_.end()) {
      id = it->second;
    } else {
      id = next_inode_++;
      inodes_[id] = Inode{};
      live_names_[path] = id;
    }
  }
  absl::StatusOr<std::unique_ptr<WritableFile>> f =
      append ? base_->NewAppendableFile(path) : base_->NewWritableFile(path);
  if (!f.ok()) return f.status();
  return std::unique_ptr<WritableFile>(new TrackedFile(this, path, id, *std::move(f)));
}

absl::StatusOr<std::unique_ptr<WritableFile>> FaultInjectionEnv::NewWritableFile(
    const std::string& path) {
  return OpenTracked(path, /*append=*/false);
}

absl::StatusOr<std::unique_ptr<WritableFile>> FaultInjectionEnv::NewAppendableFile(
    const std::string& path) {
  return OpenTracked(path, /*append=*/true);
}

absl::Status FaultInjectionEnv::DeleteFile(const std::string& path) {
  MG_RETURN_IF_ERROR(CountOp(Op::kDelete, path));
  {
    absl::MutexLock l(&mu_);
    AdoptExisting(path);
  }
  MG_RETURN_IF_ERROR(base_->DeleteFile(path));
  absl::MutexLock l(&mu_);
  live_names_.erase(path);
  return absl::OkStatus();
}

absl::Status FaultInjectionEnv::CreateDir(const std::string& dir) {
  MG_RETURN_IF_ERROR(CountOp(Op::kCreateDir, dir));
  return base_->CreateDir(dir);
}

absl::Status FaultInjectionEnv::DeleteDir(const std::string& dir) {
  MG_RETURN_IF_ERROR(CountOp(Op::kDeleteDir, dir));
  return base_->DeleteDir(dir);
}

absl::Status FaultInjectionEnv::RenameFile(const std::string& src,
                                           const std::string& target) {
  MG_RETURN_IF_ERROR(CountOp(Op::kRename, src));
  {
    absl::MutexLock l(&mu_);
    AdoptExisting(src);
    AdoptExisting(target);
  }
  MG_RETURN_IF_ERROR(base_->RenameFile(src, target));
  absl::MutexLock l(&mu_);
  auto it = live_names_.find(src);
  if (it != live_names_.end()) {
    live_names_[target] = it->second;
    live_names_.erase(src);
  }
  return absl::OkStatus();
}

absl::Status FaultInjectionEnv::SyncDir(const std::string& dir) {
  MG_RETURN_IF_ERROR(CountOp(Op::kSyncDir, dir));
  MG_RETURN_IF_ERROR(base_->SyncDir(dir));
  absl::MutexLock l(&mu_);
  for (auto it = durable_names_.begin(); it != durable_names_.end();) {
    it = InDir(it->first, dir) ? durable_names_.erase(it) : std::next(it);
  }
  for (const auto& [path, id] : live_names_) {
    if (InDir(path, dir)) durable_names_[path] = id;
  }
  return absl::OkStatus();
}

void FaultInjectionEnv::DropUnsyncedData() {
  absl::MutexLock l(&mu_);
  for (const auto& [path, id] : live_names_) {
    Inode& i = inodes_[id];
    i.live = i.synced;
    WriteStringToFile(base_, path, i.synced).IgnoreError();
  }
}

void FaultInjectionEnv::SimulateCrash() {
  absl::MutexLock l(&mu_);
  for (const auto& [path, id] : live_names_) base_->DeleteFile(path).IgnoreError();
  for (const auto& [path, id] : durable_names_) base_->DeleteFile(path).IgnoreError();
  for (const auto& [path, id] : durable_names_) {
    Inode& i = inodes_[id];
    i.live = i.synced;
    WriteStringToFile(base_, path, i.synced).IgnoreError();
  }
  live_names_ = durable_names_;
}

}  // namespace minigraph
