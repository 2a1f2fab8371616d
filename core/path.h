// Path string helpers ('/'-separated, as on POSIX).
//
//   JoinPath("/logs", "model.ckpt-5")   // "/logs/model.ckpt-5"
//   Dirname("/logs/model.ckpt-5")       // "/logs"
//   Basename("/logs/model.ckpt-5")      // "model.ckpt-5"
//
// Thread safety: functions of their arguments only.

#ifndef MINIGRAPH_CORE_PATH_H_
#define MINIGRAPH_CORE_PATH_H_

#include <string>

#include "absl/strings/string_view.h"

namespace minigraph {

// Joins with exactly one '/' between non-empty parts; an empty part is
// skipped.
std::string JoinPath(absl::string_view a, absl::string_view b);
// The part before the last '/': "" for "name", "/" for "/name".
absl::string_view Dirname(absl::string_view path);
// The part after the last '/'.
absl::string_view Basename(absl::string_view path);
inline bool IsAbsolutePath(absl::string_view path) {
  return !path.empty() && path[0] == '/';
}

}  // namespace minigraph

#endif  // MINIGRAPH_CORE_PATH_H_
