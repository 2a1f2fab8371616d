#include "core/env.h"

#include <fnmatch.h>

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/time/time.h"
#include "core/path.h"
#include "core/status_macros.h"

namespace minigraph {

bool Env::SleepUnlessNotified(const absl::Notification& n, int64_t micros) {
  return n.WaitForNotificationWithTimeout(absl::Microseconds(micros));
}

absl::StatusOr<std::unique_ptr<MappedFile>> Env::MapFile(const std::string& path) {
  return absl::UnimplementedError(absl::StrCat("this Env cannot map files (", path, ")"));
}

absl::StatusOr<std::unique_ptr<DirectoryWatch>> Env::WatchDirectory(const std::string& dir) {
  return absl::UnimplementedError(absl::StrCat("this Env cannot watch ", dir));
}

absl::StatusOr<std::string> ReadFileToString(Env* env, const std::string& path,
                                             uint64_t max_bytes) {
  // Opened first: the open refuses what is not a regular file, whose size
  // means nothing.
  MG_ASSIGN_OR_RETURN(auto file, env->NewRandomAccessFile(path));
  MG_ASSIGN_OR_RETURN(uint64_t size, env->GetFileSize(path));
  if (size > max_bytes) {
    return absl::ResourceExhaustedError(absl::StrCat(path, " holds ", size,
                                                     " bytes, more than the ", max_bytes,
                                                     " this read takes"));
  }
  std::string out(size, '\0');
  MG_ASSIGN_OR_RETURN(absl::string_view got, file->Read(0, size, out.data()));
  out.resize(got.size());
  return out;
}

absl::Status WriteStringToFile(Env* env, const std::string& path, absl::string_view data,
                               bool sync) {
  MG_ASSIGN_OR_RETURN(auto file, env->NewWritableFile(path));
  MG_RETURN_IF_ERROR(file->Append(data));
  if (sync) MG_RETURN_IF_ERROR(file->Sync());
  return file->Close();
}

absl::Status DeleteRecursively(Env* env, const std::string& dir) {
  absl::StatusOr<bool> is_dir = env->IsDirectory(dir);
  if (absl::IsNotFound(is_dir.status())) return absl::OkStatus();
  MG_RETURN_IF_ERROR(is_dir.status());
  if (!*is_dir) return env->DeleteFile(dir);
  MG_ASSIGN_OR_RETURN(std::vector<std::string> children, env->GetChildren(dir));
  for (const std::string& c : children) {
    MG_RETURN_IF_ERROR(DeleteRecursively(env, JoinPath(dir, c)));
  }
  return env->DeleteDir(dir);
}

absl::StatusOr<std::vector<std::string>> GetMatchingPaths(Env* env, const std::string& pattern) {
  const std::string dir(Dirname(pattern));
  const std::string base(Basename(pattern));
  absl::StatusOr<std::vector<std::string>> children = env->GetChildren(dir.empty() ? "." : dir);
  if (absl::IsNotFound(children.status())) return std::vector<std::string>{};
  MG_RETURN_IF_ERROR(children.status());
  std::vector<std::string> matches;
  for (const std::string& c : *children) {
    if (fnmatch(base.c_str(), c.c_str(), FNM_PERIOD) == 0) matches.push_back(JoinPath(dir, c));
  }
  std::sort(matches.begin(), matches.end());
  return matches;
}

}  // namespace minigraph
