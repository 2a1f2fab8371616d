#include "checkpoint/naming.h"

#include "absl/algorithm/container.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
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

int64_t CheckpointStep(absl::string_view prefix) {
  const size_t dash = prefix.rfind('-');
  int64_t step;
  if (dash == absl::string_view::npos || dash + 1 == prefix.size() ||
      !absl::c_all_of(prefix.substr(dash + 1), absl::ascii_isdigit) ||
      !absl::SimpleAtoi(prefix.substr(dash + 1), &step)) {
    return -1;
  }
  return step;
}

std::string CheckpointNameOfFile(absl::string_view filename) {
  for (absl::string_view suffix : {".index", ".meta", ".lease", ".unrecorded"}) {
    if (absl::ConsumeSuffix(&filename, suffix)) return std::string(filename);
  }
  const size_t data = filename.rfind(".data-");
  if (data == absl::string_view::npos ||
      !IsDataFilenameOf(filename.substr(0, data), filename)) {
    return "";
  }
  return std::string(filename.substr(0, data));
}

bool IsCheckpointOf(absl::string_view base, absl::string_view name) {
  if (name.empty()) return false;
  if (base.empty() || name == base) return true;
  return absl::ConsumePrefix(&name, base) && absl::ConsumePrefix(&name, "-") && !name.empty() &&
         absl::c_all_of(name, absl::ascii_isdigit);
}

std::string DirectoryLeaseFilename(absl::string_view dir) {
  while (dir.size() > 1 && dir.back() == '/') dir.remove_suffix(1);
  if (dir.empty()) return "checkpoint.lease";
  return absl::StrCat(dir, dir.back() == '/' ? "" : "/", "checkpoint.lease");
}

}  // namespace minigraph
