#include "tests/testing/temp_path.h"

#include <cstdlib>

#include "core/path.h"

namespace minigraph {

std::string TestTempPath(absl::string_view name) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  return JoinPath(tmp != nullptr && tmp[0] != '\0' ? tmp : "/tmp", name);
}

}  // namespace minigraph
