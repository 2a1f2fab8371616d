#include "tools/flag_checks.h"

#include <cstdint>
#include <cstdio>
#include <string>

#include "absl/flags/flag.h"
#include "core/allocator.h"

ABSL_FLAG(int64_t, max_tensor_bytes, 0,
          "Largest tensor a graph or checkpoint may make this process allocate, in bytes; a "
          "larger one is an error naming it (0: the machine's physical memory)");

namespace minigraph {

absl::Status NoPositionalArguments(const std::vector<char*>& rest) {
  if (rest.size() <= 1) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("unexpected argument \"", rest[1], "\"; flags take the form --name=value"));
}

absl::Status ApplyMaxTensorBytes() {
  const int64_t bytes = absl::GetFlag(FLAGS_max_tensor_bytes);
  if (bytes < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--max_tensor_bytes=", bytes, " is out of range: give a byte count, or 0 for the default"));
  }
  if (bytes > 0) SetMaxTensorBytes(static_cast<size_t>(bytes));
  return absl::OkStatus();
}

int UsageError(absl::string_view tool, const absl::Status& s) {
  std::fprintf(stderr, "%s: %s (see --help)\n", std::string(tool).c_str(),
               std::string(s.message()).c_str());
  return 2;
}

}  // namespace minigraph
