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
  // As TensorFlow's GetMatchingPaths (tsl's file_system_helper.cc): the
  // pattern's directory prefixes, from the root down; the deepest one
  // without wildcards is listed, and each level's children that match the
  // prefix pattern of that level (fnmatch with FNM_PATHNAME over the whole
  // path) are listed in turn. A pattern with no directory part is taken
  // relative to "." (its matches read "./name"); a trailing '/' is dropped.
  if (pattern.empty()) return std::vector<std::string>{};
  static constexpr char kGlob[] = "*?[\\";
  auto has_glob = [](absl::string_view s) { return s.find_first_of(kGlob) != s.npos; };
  std::string patched = pattern;
  if (Dirname(absl::string_view(pattern).substr(0, pattern.find_first_of(kGlob))).empty()) {
    patched = JoinPath(".", pattern);
  }
  absl::string_view dir(patched);
  if (pattern.back() == '/') dir = Dirname(dir);
  std::vector<std::string> dirs;
  while (!dir.empty()) {
    dirs.emplace_back(dir);
    const absl::string_view up = Dirname(dir);
    if (up == dir) break;
    dir = up;
  }
  std::reverse(dirs.begin(), dirs.end());
  size_t first_glob = 0;
  while (first_glob < dirs.size() && !has_glob(dirs[first_glob])) ++first_glob;
  std::vector<std::string> matches;
  if (first_glob == dirs.size()) {
    if (env->FileExists(pattern).ok()) matches.push_back(pattern);
    return matches;
  }
  std::vector<std::pair<std::string, size_t>> level = {{dirs[first_glob - 1], first_glob - 1}};
  while (!level.empty()) {
    std::vector<std::pair<std::string, size_t>> next;
    for (const auto& [parent, at] : level) {
      absl::StatusOr<std::vector<std::string>> children = env->GetChildren(parent);
      if (!children.ok()) continue;  // gone, or not a directory: nothing under it
      const size_t index = at + 1;
      for (const std::string& child : *children) {
        std::string path = JoinPath(parent, child);
        if (fnmatch(dirs[index].c_str(), path.c_str(), FNM_PATHNAME) != 0) continue;
        if (index + 1 == dirs.size()) {
          matches.push_back(std::move(path));
        } else if (env->IsDirectory(path).value_or(false)) {
          next.emplace_back(std::move(path), index);
        }
      }
    }
    level = std::move(next);
  }
  std::sort(matches.begin(), matches.end());
  return matches;
}

}  // namespace minigraph
