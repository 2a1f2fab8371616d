#include "checkpoint/naming.h"

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/strip.h"

namespace minigraph {

std::string MetaFilename(absl::string_view prefix) { return absl::StrCat(prefix, ".index"); }

std::string DataFilename(absl::string_view prefix, int shard, int num_shards) {
  return absl::StrFormat("%s.data-%05d-of-%05d", prefix, shard, num_shards);
}

bool IsDataFilenameOf(absl::string_view prefix, absl::string_view filename) {
  if (!absl::ConsumePrefix(&filename, prefix) || !absl::ConsumePrefix(&filename, ".data-")) {
    return false;
  }
  // NNNNN-of-NNNNN, each part at least 5 digits.
  const size_t of = filename.find("-of-");
  if (of == absl::string_view::npos || of < 5 || filename.size() - of - 4 < 5) return false;
  for (size_t i = 0; i < filename.size(); ++i) {
    if (i >= of && i < of + 4) continue;
    if (!absl::ascii_isdigit(filename[i])) return false;
  }
  return true;
}

std::string LeaseFilename(absl::string_view prefix) { return absl::StrCat(prefix, ".lease"); }

std::string UnrecordedMarkerFilename(absl::string_view prefix) {
  return absl::StrCat(prefix, ".unrecorded");
}

std::string DirectoryLeaseFilename(absl::string_view dir) {
  while (dir.size() > 1 && dir.back() == '/') dir.remove_suffix(1);
  if (dir.empty()) return "checkpoint.lease";
  return absl::StrCat(dir, dir.back() == '/' ? "" : "/", "checkpoint.lease");
}

}  // namespace minigraph
