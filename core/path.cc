#include "core/path.h"

#include "absl/strings/str_cat.h"

namespace minigraph {

std::string JoinPath(absl::string_view a, absl::string_view b) {
  if (a.empty()) return std::string(b);
  if (b.empty()) return std::string(a);
  while (!a.empty() && a.back() == '/' && a.size() > 1) a.remove_suffix(1);
  while (!b.empty() && b.front() == '/') b.remove_prefix(1);
  if (a == "/") return absl::StrCat("/", b);
  return absl::StrCat(a, "/", b);
}

absl::string_view Dirname(absl::string_view path) {
  const size_t pos = path.rfind('/');
  if (pos == absl::string_view::npos) return absl::string_view();
  if (pos == 0) return path.substr(0, 1);
  return path.substr(0, pos);
}

absl::string_view Basename(absl::string_view path) {
  const size_t pos = path.rfind('/');
  if (pos == absl::string_view::npos) return path;
  return path.substr(pos + 1);
}

}  // namespace minigraph
