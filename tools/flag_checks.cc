#include "tools/flag_checks.h"

#include <cstdio>
#include <string>

namespace minigraph {

absl::Status NoPositionalArguments(const std::vector<char*>& rest) {
  if (rest.size() <= 1) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("unexpected argument \"", rest[1], "\"; flags take the form --name=value"));
}

int UsageError(absl::string_view tool, const absl::Status& s) {
  std::fprintf(stderr, "%s: %s (see --help)\n", std::string(tool).c_str(),
               std::string(s.message()).c_str());
  return 2;
}

}  // namespace minigraph
